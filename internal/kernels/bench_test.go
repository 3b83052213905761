package kernels

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// The benchmarks pair the paths: each kernel runs once per path this build
// can take on this CPU, as path=NAME sub-benchmarks side by side, e.g.
// BenchmarkAccumulate/path=avx2/col=floats/n=4096.

// benchPaths runs f as the sub-benchmark path=NAME/rest of b once per
// path, with the path set.
func benchPaths(b *testing.B, rest string, f func(b *testing.B)) {
	for _, name := range Paths() {
		restore, err := SetPath(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("path="+name+"/"+rest, f)
		restore()
	}
}

// benchSlice returns n ordinary values (no subnormals, which slow some
// CPUs down, nor infinities).
func benchSlice(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch rng.IntN(3) {
		case 0:
			xs[i] = float64(rng.IntN(1 << 20))
		case 1:
			xs[i] = -rng.Float64() * 1e4
		default:
			xs[i] = rng.NormFloat64() * 1e6
		}
	}
	return xs
}

// benchCols returns a column of each kind over n hosts: what weighers
// read (floats, usage int32s clamped, vCPU headroom in int32s, a coded
// static column and a coded limit less usage).
func benchCols(rng *rand.Rand, n int) []struct {
	name string
	col  Col
} {
	used, limit := make([]int32, n), make([]int32, n)
	vals := []float64{0, 1, 3, 8}
	static := make([]float64, n)
	for i := range used {
		used[i] = int32(rng.IntN(1 << 16))
		limit[i] = int32(rng.IntN(1 << 17))
		static[i] = vals[rng.IntN(len(vals))]
	}
	coded := NewCoded(static)
	return []struct {
		name string
		col  Col
	}{
		{"floats", Floats(benchSlice(rng, n))},
		{"int32", Clamped(used)},
		{"intheadroom", IntHeadroom(limit, used)},
		{"static", Static(&coded)},
		{"headroom", Headroom(&coded, used)},
	}
}

var benchSizes = []int{4096, 50000}

func BenchmarkMinMax(b *testing.B) {
	for _, n := range benchSizes {
		xs := benchSlice(rand.New(rand.NewPCG(3, 4)), n)
		benchPaths(b, "n="+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				MinMax(xs)
			}
		})
	}
}

// maskWords returns the words over n hosts of a bitmap with about 3 in 4
// bits set.
func maskWords(rng *rand.Rand, n int) []uint64 {
	words := make([]uint64, (n+63)/64)
	for q := range words {
		words[q] = rng.Uint64() | rng.Uint64()
	}
	if n%64 != 0 {
		words[len(words)-1] &= 1<<(n%64) - 1
	}
	return words
}

func BenchmarkMinMaxMasked(b *testing.B) {
	const n = 50000
	rng := rand.New(rand.NewPCG(9, 10))
	words := maskWords(rng, n)
	nb := (n + Block - 1) / Block
	lo, hi := make([]float64, nb), make([]float64, nb)
	for _, c := range benchCols(rng, n) {
		benchPaths(b, "col="+c.name+"/n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				MinMaxMasked(c.col, words, lo, hi)
			}
		})
	}
}

func BenchmarkMaxMasked(b *testing.B) {
	const n = 50000
	rng := rand.New(rand.NewPCG(9, 10))
	xs, words := benchSlice(rng, n), maskWords(rng, n)
	hi := make([]float64, (n+Block-1)/Block)
	benchPaths(b, "n="+strconv.Itoa(n), func(b *testing.B) {
		b.SetBytes(int64(8 * n))
		for b.Loop() {
			MaxMasked(xs, words, hi)
		}
	})
}

// benchAccumulate runs kernel over every kind of column and size.
func benchAccumulate(b *testing.B, kernel func(score []float64, raw Col, mult []float64, coded *Coded[float64])) {
	for _, n := range benchSizes {
		rng := rand.New(rand.NewPCG(5, 6))
		mult, score := benchSlice(rng, n), make([]float64, n)
		ms := make([]float64, n)
		for i := range ms {
			ms[i] = []float64{1, 1, 2, -1}[rng.IntN(4)]
		}
		coded := NewCoded(ms)
		for _, c := range benchCols(rng, n) {
			benchPaths(b, "col="+c.name+"/n="+strconv.Itoa(n), func(b *testing.B) {
				for b.Loop() {
					kernel(score, c.col, mult, &coded)
				}
			})
		}
	}
}

func BenchmarkAccumulate(b *testing.B) {
	benchAccumulate(b, func(score []float64, raw Col, mult []float64, _ *Coded[float64]) {
		Accumulate(score, raw, mult, 1, 3)
	})
}

func BenchmarkAccumulateScalar(b *testing.B) {
	benchAccumulate(b, func(score []float64, raw Col, _ []float64, _ *Coded[float64]) {
		AccumulateScalar(score, raw, 1.5, 1, 3)
	})
}

func BenchmarkAccumulateCoded(b *testing.B) {
	benchAccumulate(b, func(score []float64, raw Col, _ []float64, coded *Coded[float64]) {
		AccumulateCoded(score, raw, coded, 1, 3)
	})
}

func BenchmarkAccumulateScaled(b *testing.B) {
	benchAccumulate(b, func(score []float64, raw Col, mult []float64, _ *Coded[float64]) {
		AccumulateScaled(score, raw, mult, 1, 0.5, 1.0/3)
	})
}

func BenchmarkAccumulateScaledCoded(b *testing.B) {
	benchAccumulate(b, func(score []float64, raw Col, _ []float64, coded *Coded[float64]) {
		AccumulateScaledCoded(score, raw, coded, 1, 0.5, 1.0/3)
	})
}

// BenchmarkWeighScaled pairs the multiply-only weigher sum with the exact
// one (five AccumulateScalar passes) it stands in for.
func BenchmarkWeighScaled(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, terms = 50000, 5
	raw, scale := make([]Col, terms), make([]float64, terms)
	cols := benchCols(rng, n)
	for a := range raw {
		raw[a], scale[a] = cols[a%len(cols)].col, 1.0/3
	}
	score := make([]float64, n)
	for _, impl := range []struct {
		name string
		fn   func()
	}{
		{"exact", func() {
			clear(score)
			for a := range raw {
				AccumulateScalar(score, raw[a], 1.5, 1, 3)
			}
		}},
		{"scaled", func() { WeighScaled(score, raw, scale) }},
	} {
		benchPaths(b, "impl="+impl.name+"/terms=5/n=50000", func(b *testing.B) {
			for b.Loop() {
				impl.fn()
			}
		})
	}
}

func BenchmarkNotBelow(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := benchSlice(rng, 64*1024)
	words := maskWords(rng, len(xs))
	benchPaths(b, "words=1024", func(b *testing.B) {
		for b.Loop() {
			for q, w := range words {
				NotBelow(xs[64*q:64*q+64], w, 0)
			}
		}
	})
}

// BenchmarkPassKernels runs every mask kernel over 50,000 hosts, every
// word full.
func BenchmarkPassKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 50000
	total, used, lim := make([]int64, n), make([]int32, n), make([]int64, n)
	r := make([]float64, n)
	for i := range total {
		total[i] = 1 << 18
		used[i] = int32(rng.IntN(1 << 18))
		lim[i] = int64(rng.IntN(1 << 19))
		r[i] = 1.5
	}
	rc, limc, coded := FullCoded(r), FullCoded(lim), NewCoded(r)
	tot, totCoded := FullCoded(total), NewCoded(total)
	words := make([]uint64, (n+63)/64)
	for _, k := range []struct {
		name string
		fn   func([]uint64)
	}{
		{"RAMPass", func(w []uint64) { RAMPass(w, &tot, used, &rc, 2048) }},
		{"RAMPass/coded", func(w []uint64) { RAMPass(w, &totCoded, used, &coded, 2048) }},
		{"CorePass", func(w []uint64) { CorePass(w, &tot, used, &rc, 4) }},
		{"CorePass/coded", func(w []uint64) { CorePass(w, &totCoded, used, &coded, 4) }},
		{"DiskPass", func(w []uint64) { DiskPass(w, &tot, used, &rc, 20480) }},
		{"DiskPass/coded", func(w []uint64) { DiskPass(w, &totCoded, used, &coded, 20480) }},
		{"BelowPass", func(w []uint64) { BelowPass(w, used, 0, &limc) }},
		{"BelowPass/limit", func(w []uint64) { BelowPass(w, used, 1<<17, nil) }},
		{"RangePass", func(w []uint64) { RangePass(w, used, 1<<16, 1<<30, false) }},
	} {
		benchPaths(b, "kernel="+k.name+"/n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				for q := range words {
					words[q] = ^uint64(0)
				}
				words[len(words)-1] = 1<<(n%64) - 1
				k.fn(words)
			}
		})
	}
}
