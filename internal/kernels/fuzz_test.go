package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzPaths runs every kernel on every path this build can take on this
// CPU and on the portable path, on columns made of the fuzzer's bytes
// (eight per float64 or int64, four per int32, drawn from in turn or at
// random), and requires the same bits: results, words, statistics. NaN is
// kept out of the values whose kernels exclude it (it stays in the
// ratios and NotBelow's values, whose results are bits of a mask).
func FuzzPaths(f *testing.F) {
	le := binary.LittleEndian
	edge := func(xs ...float64) []byte {
		var b []byte
		for _, x := range xs {
			b = le.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(uint64(1), uint16(70), edge(1, 2, 3, -4, 0.5, 1e6))
	f.Add(uint64(2), uint16(Block+9), edge(math.Copysign(0, -1), 0, 1, -1))
	f.Add(uint64(3), uint16(2*Block), edge(math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN()))
	f.Add(uint64(4), uint16(200), edge(math.MaxInt64, math.MinInt64, 2048, 4096, 1.5, 16))
	f.Fuzz(func(t *testing.T, seed uint64, size uint16, data []byte) {
		paths := Paths()
		if len(paths) < 2 {
			t.Skipf("only the portable path here (%v)", paths)
		}
		n := int(size) % (3*Block + 80)
		rng := rand.New(rand.NewPCG(seed, uint64(size)))
		word := func(k int) uint64 {
			if len(data) == 0 {
				return rng.Uint64()
			}
			var b [8]byte
			for j := range b {
				b[j] = data[(8*k+j)%len(data)]
			}
			return le.Uint64(b[:])
		}
		pick := func(i int) int { // in turn, or at random, a value of data
			if rng.IntN(2) == 0 {
				return i
			}
			return rng.IntN(max(1, len(data)/8+1))
		}
		num := func(i int) float64 {
			x := math.Float64frombits(word(pick(i)))
			if math.IsNaN(x) {
				return 0
			}
			return x
		}
		xs, ratio, mult, few := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		total, lim := make([]int64, n), make([]int64, n)
		used, free := make([]int32, n), make([]int32, n)
		for i := range n {
			xs[i], mult[i] = num(i), num(i+1)
			ratio[i] = math.Float64frombits(word(pick(i + 2)))
			few[i] = num(rng.IntN(4))
			total[i], lim[i] = int64(word(pick(i+3))), int64(word(pick(i+4))>>rng.IntN(64))
			used[i], free[i] = int32(word(pick(i+5))), int32(word(pick(i+6))>>rng.IntN(32))
		}
		words := make([]uint64, (n+63)/64)
		for q := range words {
			words[q] = []uint64{^uint64(0), 0, rng.Uint64(), word(q)}[rng.IntN(4)]
			if rest := n - q*64; rest < 64 {
				words[q] &= 1<<rest - 1
			}
		}
		static, staticFew, multFew := NewCoded(xs), NewCoded(few), NewCoded(few)
		// Multipliers of nine to sixteen values (AVX2 decodes them in full;
		// multFew's at most four in half the lookups).
		many, distinct := make([]float64, n), 9+rng.IntN(8)
		for i := range many {
			if x := math.Float64frombits(word(i % distinct)); !math.IsNaN(x) {
				many[i] = x
			}
		}
		multMany := NewCoded(many)
		cols := []Col{Floats(xs), Clamped(used), Ints(free), IntHeadroom(free, used),
			Static(&static), Static(&staticFew), Headroom(&static, used), Headroom(&staticFew, free)}
		lo, span, m, base := num(n), num(n+1), num(n+2), num(n+3)
		inv := 1 / span
		// Integer bounds, which the integer columns' quotient kernels
		// take (QuotientExact).
		ilo, ispan := float64(int32(word(n+8))), float64(uint32(word(n+9))|1)
		thr := math.Float64frombits(word(n + 4))
		req := int64(word(n+5)) >> rng.IntN(64)
		rlo, rhi := int32(word(n+6)), int32(word(n+7))
		ratioC, ratioF := NewCoded(ratio), FullCoded(ratio)
		totalC, totalF, limC := NewCoded(total), FullCoded(total), NewCoded(lim)
		fewTotal := make([]int64, n)
		for i := range fewTotal {
			fewTotal[i] = total[rng.IntN(min(n, 4))]
		}
		totalFew := NewCoded(fewTotal)
		terms := 1 + rng.IntN(len(cols))

		// run computes every kernel's results on the path in use.
		run := func() [][]uint64 {
			var out [][]uint64
			bits := func(fs ...float64) {
				b := make([]uint64, len(fs))
				for i, x := range fs {
					b[i] = math.Float64bits(x)
				}
				out = append(out, b)
			}
			l, h := MinMax(xs)
			bits(l, h)
			nb := (n + Block - 1) / Block
			for _, c := range cols {
				los, his := make([]float64, nb), make([]float64, nb)
				MinMaxMasked(c, words, los, his)
				bits(los...)
				bits(his...)
				for k, kernel := range []func(s []float64){
					func(s []float64) { Accumulate(s, c, mult, lo, span) },
					func(s []float64) { AccumulateScalar(s, c, m, lo, span) },
					func(s []float64) { AccumulateScaled(s, c, mult, lo, base, inv) },
					func(s []float64) { AccumulateCoded(s, c, &multFew, lo, span) },
					func(s []float64) { AccumulateScaledCoded(s, c, &multFew, lo, base, inv) },
					func(s []float64) { Accumulate(s, c, mult, ilo, ispan) },
					func(s []float64) { AccumulateScalar(s, c, m, ilo, ispan) },
					func(s []float64) { AccumulateCoded(s, c, &multFew, ilo, ispan) },
					func(s []float64) { AccumulateCoded(s, c, &multMany, lo, span) },
					func(s []float64) { AccumulateCoded(s, c, &multMany, ilo, ispan) },
					func(s []float64) { SetScalar(s, c, m, lo, span) },
					func(s []float64) { SetScalar(s, c, m, ilo, ispan) },
					func(s []float64) { SetCoded(s, c, &multFew, ilo, ispan) },
					func(s []float64) { SetCoded(s, c, &multMany, lo, span) },
				} {
					s := slices.Clone(mult)
					if k%2 == 0 {
						copy(s, xs)
					}
					kernel(s)
					bits(s...)
				}
			}
			his := make([]float64, nb)
			MaxMasked(xs, words, his)
			bits(his...)
			s := make([]float64, n)
			WeighScaled(s, cols[:terms], []float64{m, inv, base, lo, span, 1, -1, 3})
			bits(s...)
			var below []uint64
			for q := 0; q < n/64; q++ {
				below = append(below, NotBelow(ratio[64*q:64*q+64], words[q], thr))
			}
			out = append(out, below)
			for _, pass := range []func(w []uint64){
				func(w []uint64) { RAMPass(w, &totalC, free, &ratioC, req) },
				func(w []uint64) { RAMPass(w, &totalFew, free, &ratioF, req) },
				func(w []uint64) { CorePass(w, &totalF, used, &ratioC, req) },
				func(w []uint64) { CorePass(w, &totalFew, used, &ratioC, req) },
				func(w []uint64) { DiskPass(w, &totalFew, free, &ratioC, req) },
				func(w []uint64) { DiskPass(w, &totalF, free, &ratioF, req) },
				func(w []uint64) { BelowPass(w, used, req, nil) },
				func(w []uint64) { BelowPass(w, used, 0, &limC) },
				func(w []uint64) { BelowPass(w, used, 0, &totalF) },
				func(w []uint64) { RangePass(w, free, rlo, rhi, false) },
				func(w []uint64) { RangePass(w, used, rlo, rhi, true) },
			} {
				w := slices.Clone(words)
				pass(w)
				out = append(out, w)
			}
			return out
		}
		var want [][]uint64
		for _, name := range paths {
			restore, err := SetPath(name)
			if err != nil {
				t.Fatal(err)
			}
			got := run()
			quotientOff = true // the division kernels on the integer columns too
			divided := run()
			quotientOff = false
			restore()
			if name == "portable" {
				want = got
				continue
			}
			for k := range want {
				for i := range want[k] {
					if got[k][i] != want[k][i] {
						t.Fatalf("path=%s n=%d: result %d differs from the portable one at %d: %#x, want %#x", name, n, k, i, got[k][i], want[k][i])
					}
					if divided[k][i] != want[k][i] {
						t.Fatalf("path=%s n=%d, quotient kernels off: result %d differs from the portable one at %d: %#x, want %#x", name, n, k, i, divided[k][i], want[k][i])
					}
				}
			}
		}
	})
}
