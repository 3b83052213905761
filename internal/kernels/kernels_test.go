package kernels

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// edges are the values other than NaN where vector and scalar code can
// part: both zeros (VMINPD and VMAXPD return their second operand for two
// zeros, Go's min and max order -0 first), the infinities, the extremes
// and a subnormal.
var edges = []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1, -1}

// eachPath runs f as a subtest once per kernel path this build can take
// on this CPU (path=NAME, set for its duration), and logs the paths it
// cannot take and how many: they are skipped, not silently passed.
func eachPath(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	skipped := 0
	for _, name := range AllPaths() {
		restore, err := SetPath(name)
		if err != nil {
			skipped++
			t.Logf("path=%s skipped: %v", name, err)
			continue
		}
		t.Run("path="+name, f)
		restore()
	}
	if skipped > 0 {
		t.Logf("%d of %d kernel paths skipped (not in this build or on this CPU)", skipped, len(AllPaths()))
	}
}

// same reports whether x and y have the same bits (-0 is not 0).
func same(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }

func randSlice(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch rng.IntN(6) {
		case 0:
			xs[i] = float64(rng.IntN(1 << 20))
		case 1:
			xs[i] = -rng.Float64() * 1e4
		case 2:
			xs[i] = 0
		case 3:
			xs[i] = edges[rng.IntN(len(edges))]
		default:
			xs[i] = rng.NormFloat64() * 1e6
		}
	}
	return xs
}

// randInts returns n random int32s (negative, zero, large, the extremes)
// and their values clamped at 0 as float64s: what Clamped reads.
func randInts(rng *rand.Rand, n int) ([]int32, []float64) {
	xs, fs := make([]int32, n), make([]float64, n)
	for i := range xs {
		switch rng.IntN(6) {
		case 0:
			xs[i] = int32(rng.IntN(1 << 20))
		case 1:
			xs[i] = -int32(rng.IntN(1 << 16))
		case 2:
			xs[i] = 0
		case 3:
			xs[i] = []int32{math.MinInt32, math.MaxInt32, -1, 1}[rng.IntN(4)]
		default:
			xs[i] = int32(rng.Uint32())
		}
		fs[i] = float64(max(xs[i], 0))
	}
	return xs, fs
}

// randCol returns a column of n random raw values of kind kind%5 (Floats,
// int32s clamped or not, Static, Headroom, IntHeadroom; the coded ones
// with few values or many) and its values as float64s.
func randCol(rng *rand.Rand, n int, kind int) (Col, []float64) {
	switch kind % 5 {
	case 4:
		limit, _ := randInts(rng, n)
		used, _ := randInts(rng, n)
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = max(float64(limit[i])-float64(used[i]), 0)
		}
		return IntHeadroom(limit, used), fs
	case 1:
		xs, fs := randInts(rng, n)
		if rng.IntN(3) == 0 {
			for i, x := range xs {
				fs[i] = float64(x)
			}
			return Ints(xs), fs
		}
		return Clamped(xs), fs
	case 2, 3:
		vals := randSlice(rng, 1+rng.IntN(20)) // 17 and more: full
		ls := make([]float64, n)
		for i := range ls {
			ls[i] = vals[rng.IntN(len(vals))]
		}
		l := NewCoded(ls)
		if kind%5 == 2 {
			return Static(&l), ls
		}
		used, _ := randInts(rng, n)
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = max(ls[i]-float64(used[i]), 0)
		}
		return Headroom(&l, used), fs
	}
	fs := randSlice(rng, n)
	return Floats(fs), fs
}

// TestKernelsMatchPortable checks the dispatched kernels against the
// portable ones bit for bit, at every length around the vector widths, on
// float and clamped int32 columns (and the latter against the kernels
// over their float values).
func TestKernelsMatchPortable(t *testing.T) { eachPath(t, testKernelsMatchPortable) }

func testKernelsMatchPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			col, raw := randCol(rng, n, rep)
			mult := randSlice(rng, n)
			lo, span := rng.NormFloat64()*100, 1+rng.Float64()*1e6
			gotLo, gotHi := MinMax(raw)
			wantLo, wantHi := MinMaxPortable(raw)
			if !same(gotLo, wantLo) || !same(gotHi, wantHi) {
				t.Fatalf("n=%d: MinMax (%v,%v), portable (%v,%v)", n, gotLo, gotHi, wantLo, wantHi)
			}
			m := rng.NormFloat64()
			c, d := randSlice(rng, n), make([]float64, n)
			copy(d, c)
			e0 := append([]float64(nil), c...)
			AccumulateScalar(c, col, m, lo, span)
			AccumulateScalarPortable(d, col, m, lo, span)
			AccumulateScalarPortable(e0, Floats(raw), m, lo, span)
			for i := range c {
				if math.Float64bits(c[i]) != math.Float64bits(d[i]) || math.Float64bits(d[i]) != math.Float64bits(e0[i]) {
					t.Fatalf("n=%d i=%d: AccumulateScalar %v, portable %v", n, i, c[i], d[i])
				}
			}
			e, f, g := randSlice(rng, n), make([]float64, n), make([]float64, n)
			copy(f, e)
			copy(g, e)
			base, inv := rng.NormFloat64(), 1/span
			AccumulateScaled(e, col, mult, lo, base, inv)
			AccumulateScaledPortable(f, col, mult, lo, base, inv)
			for i := range e {
				plain := g[i] + float64(float64((raw[i]-lo)*(mult[i]-base))*inv)
				if math.Float64bits(e[i]) != math.Float64bits(f[i]) || math.Float64bits(f[i]) != math.Float64bits(plain) {
					t.Fatalf("n=%d i=%d: AccumulateScaled %v, portable %v, plain %v", n, i, e[i], f[i], plain)
				}
			}
			a, b := randSlice(rng, n), make([]float64, n)
			copy(b, a)
			a0 := append([]float64(nil), a...)
			Accumulate(a, col, mult, lo, span)
			AccumulatePortable(b, col, mult, lo, span)
			AccumulatePortable(a0, Floats(raw), mult, lo, span)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) || math.Float64bits(b[i]) != math.Float64bits(a0[i]) {
					t.Fatalf("n=%d i=%d: Accumulate %v, portable %v", n, i, a[i], b[i])
				}
			}
		}
	}
}

// TestMinMaxMaskedMatchesPortable checks the masked block statistics
// against the portable version and against a plain loop, at lengths
// around the block and vector widths, with empty, full and sparse words.
func TestMinMaxMaskedMatchesPortable(t *testing.T) { eachPath(t, testMinMaxMaskedMatchesPortable) }

func testMinMaxMaskedMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range lengths() {
		for rep := 0; rep < 6; rep++ {
			col, xs := randCol(rng, n, rep)
			nw := (n + 63) / 64
			nb := (n + Block - 1) / Block
			words := make([]uint64, nw)
			for q := range words {
				switch rng.IntN(4) {
				case 0:
				case 1:
					words[q] = ^uint64(0)
				default:
					words[q] = rng.Uint64() & rng.Uint64()
				}
				if rest := n - q*64; rest < 64 {
					words[q] &= 1<<rest - 1
				}
			}
			lo, hi := make([]float64, nb), make([]float64, nb)
			plo, phi := make([]float64, nb), make([]float64, nb)
			MinMaxMasked(col, words, lo, hi)
			MinMaxMaskedPortable(col, words, plo, phi)
			for q := range lo {
				wantLo, wantHi := math.Inf(1), math.Inf(-1)
				for i := q * Block; i < min((q+1)*Block, n); i++ {
					if words[i/64]&(1<<(i%64)) != 0 {
						wantLo, wantHi = min(wantLo, xs[i]), max(wantHi, xs[i])
					}
				}
				onlyHi, onlyHiP := make([]float64, nb), make([]float64, nb)
				MaxMasked(xs, words, onlyHi)
				MaxMaskedPortable(xs, words, onlyHiP)
				if !same(onlyHi[q], wantHi) || !same(onlyHiP[q], wantHi) {
					t.Fatalf("n=%d block=%d: MaxMasked %v, portable %v, want %v", n, q, onlyHi[q], onlyHiP[q], wantHi)
				}
				if !same(lo[q], wantLo) || !same(hi[q], wantHi) || !same(plo[q], wantLo) || !same(phi[q], wantHi) {
					t.Fatalf("n=%d block=%d: MinMaxMasked (%v,%v), portable (%v,%v), want (%v,%v)",
						n, q, lo[q], hi[q], plo[q], phi[q], wantLo, wantHi)
				}
			}
		}
	}
}

// lengths are the slice lengths the masked test covers: every length up
// to a few words, and lengths around the block edges.
func lengths() []int {
	var ns []int
	for n := 0; n <= 200; n++ {
		ns = append(ns, n)
	}
	for _, base := range []int{Block, 2 * Block, 3 * Block} {
		for d := -9; d <= 9; d++ {
			ns = append(ns, base+d)
		}
	}
	return ns
}

func TestMinMaxEmptyAndTable(t *testing.T) { eachPath(t, testMinMaxEmptyAndTable) }

func testMinMaxEmptyAndTable(t *testing.T) {
	lo, hi := MinMax(nil)
	if !math.IsInf(lo, 1) || !math.IsInf(hi, -1) {
		t.Fatalf("empty: (%v, %v)", lo, hi)
	}
	for _, tc := range []struct {
		xs     []float64
		lo, hi float64
	}{
		{[]float64{3}, 3, 3},
		{[]float64{5, -1, 7, 2, 9, 0, -4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 100}, -4, 100},
	} {
		if lo, hi := MinMax(tc.xs); !same(lo, tc.lo) || !same(hi, tc.hi) {
			t.Errorf("%v: (%v, %v), want (%v, %v)", tc.xs, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestWeighScaledMatchesPortable checks WeighScaled against the portable
// version and the plain sum bit for bit, at every length around the vector
// width and with zero to nine columns (one, two and three passes).
func TestWeighScaledMatchesPortable(t *testing.T) { eachPath(t, testWeighScaledMatchesPortable) }

func testWeighScaledMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n <= 40; n++ {
		for terms := 0; terms <= 9; terms++ {
			cols, raw, scale := make([]Col, terms), make([][]float64, terms), make([]float64, terms)
			for a := range raw {
				// Columns may be longer than score, and of either kind.
				cols[a], raw[a] = randCol(rng, n+rng.IntN(3), rng.IntN(5))
				scale[a] = rng.NormFloat64() / (1 + rng.Float64()*1e6)
			}
			got, want := randSlice(rng, n), randSlice(rng, n)
			WeighScaled(got, cols, scale)
			WeighScaledPortable(want, cols, scale)
			for i := range got {
				plain := 0.0
				for a := range raw {
					if a == 0 {
						plain = raw[a][i] * scale[a]
					} else {
						plain += float64(raw[a][i] * scale[a])
					}
				}
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(want[i]) != math.Float64bits(plain) {
					t.Fatalf("n=%d terms=%d i=%d: WeighScaled %v, portable %v, plain %v", n, terms, i, got[i], want[i], plain)
				}
			}
		}
	}
}

// TestNotBelowMatchesPortable checks NotBelow, dispatched and portable,
// against the plain test of every bit, on words of every length up to 64,
// with NaNs and infinities among the values and as the threshold.
func TestNotBelowMatchesPortable(t *testing.T) { eachPath(t, testNotBelowMatchesPortable) }

func testNotBelowMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	for n := 0; n <= 64; n++ {
		for rep := 0; rep < 20; rep++ {
			xs := randSlice(rng, n)
			for i := range xs {
				if rng.IntN(8) == 0 {
					xs[i] = specials[rng.IntN(len(specials))]
				}
			}
			w := rng.Uint64()
			if n < 64 {
				w &= 1<<n - 1
			}
			thr := rng.NormFloat64() * 1e6
			switch {
			case n > 0 && rep%3 == 0:
				thr = xs[rng.IntN(n)] // ties
			case rep%7 == 1:
				thr = specials[rng.IntN(len(specials))]
			}
			want := uint64(0)
			for i := range n {
				if w&(1<<i) != 0 && !(xs[i] < thr) {
					want |= 1 << i
				}
			}
			if got, port := NotBelow(xs, w, thr), NotBelowPortable(xs, w, thr); got != want || port != want {
				t.Fatalf("n=%d thr=%v: NotBelow %x, portable %x, want %x", n, thr, got, port, want)
			}
		}
	}
}

// someWords returns the words of a set over n hosts, each word full,
// random or empty.
func someWords(rng *rand.Rand, n int) []uint64 {
	words := make([]uint64, (n+63)/64)
	for q := range words {
		words[q] = []uint64{^uint64(0), rng.Uint64(), 0}[rng.IntN(3)]
		if rest := n - q*64; rest < 64 {
			words[q] &= 1<<rest - 1
		}
	}
	return words
}

// TestSignedZeros checks the min and max kernels where the extremes are
// zeros of both signs, which random data rarely makes: Go's min and max
// take -0 below +0, where VMINPD and VMAXPD return their second operand.
func TestSignedZeros(t *testing.T) { eachPath(t, testSignedZeros) }

func testSignedZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	negZero := math.Copysign(0, -1)
	for _, n := range append(lengths(), 4*Block) {
		for rep := 0; rep < 4; rep++ {
			// Zeros of both signs, and values away from zero on the side
			// that does not matter (positive ones for the minimum,
			// negative ones for the maximum) or none.
			xs := make([]float64, n)
			for i := range xs {
				switch rng.IntN(4) {
				case 0:
					xs[i] = negZero
				case 1:
					xs[i] = []float64{1, -1, 0}[rep%3]
				}
			}
			wantLo, wantHi := math.Inf(1), math.Inf(-1)
			for _, x := range xs {
				wantLo, wantHi = min(wantLo, x), max(wantHi, x)
			}
			if lo, hi := MinMax(xs); !same(lo, wantLo) || !same(hi, wantHi) {
				t.Fatalf("n=%d rep=%d: MinMax (%v, %v), want (%v, %v)", n, rep, lo, hi, wantLo, wantHi)
			}
			words := someWords(rng, n)
			nb := (n + Block - 1) / Block
			static := NewCoded(xs)
			for _, col := range []Col{Floats(xs), Static(&static)} {
				lo, hi, onlyHi := make([]float64, nb), make([]float64, nb), make([]float64, nb)
				MinMaxMasked(col, words, lo, hi)
				MaxMasked(xs, words, onlyHi)
				for q := range lo {
					l, h := math.Inf(1), math.Inf(-1)
					for i := q * Block; i < min((q+1)*Block, n); i++ {
						if words[i/64]&(1<<(i%64)) != 0 {
							l, h = min(l, xs[i]), max(h, xs[i])
						}
					}
					if !same(lo[q], l) || !same(hi[q], h) || !same(onlyHi[q], h) {
						t.Fatalf("n=%d rep=%d block %d: MinMaxMasked (%v, %v), MaxMasked %v, want (%v, %v)", n, rep, q, lo[q], hi[q], onlyHi[q], l, h)
					}
				}
			}
		}
	}
}

// TestPaths checks the path machinery and logs what this build and CPU
// take: SetPath switches and restores, refuses unknown and unavailable
// paths, and the start-up path is the best available one unless
// PLACER_KERNELS chose another.
func TestPaths(t *testing.T) {
	ps := Paths()
	t.Logf("paths available: %v of %v; in use: %s", ps, AllPaths(), Path())
	if len(ps) == 0 || ps[0] != "portable" {
		t.Fatalf("Paths() = %v, want portable first", ps)
	}
	if _, set := os.LookupEnv(EnvVar); !set && Path() != pathNames[best()] {
		t.Errorf("start-up path %s, want %s", Path(), pathNames[best()])
	}
	was, wasSIMD := Path(), SIMD
	for _, name := range AllPaths() {
		restore, err := SetPath(name)
		if err != nil {
			if slices.Contains(ps, name) {
				t.Errorf("SetPath(%s): %v", name, err)
			}
			continue
		}
		if Path() != name || SIMD != (name != "portable") {
			t.Errorf("after SetPath(%s): Path %s, SIMD %v", name, Path(), SIMD)
		}
		restore()
		if Path() != was || SIMD != wasSIMD {
			t.Errorf("restore after %s: Path %s, SIMD %v, want %s, %v", name, Path(), SIMD, was, wasSIMD)
		}
	}
	if _, err := SetPath("sse9"); err == nil {
		t.Error("SetPath of an unknown path did not fail")
	}
}

// TestPlainExtremes checks the block extremes over columns the AVX2
// kernels take one instruction a vector for (PlainFloats, integer
// columns, coded columns without -0) against Go's min and max, with +0
// common among the values; and that a coded column holding -0 and
// HasNegZeroOrNaN's columns keep Go's order of zeros.
func TestPlainExtremes(t *testing.T) { eachPath(t, testPlainExtremes) }

func testPlainExtremes(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	negZero := math.Copysign(0, -1)
	for _, n := range append(lengths(), 4*Block) {
		xs, ints, used := make([]float64, n), make([]int32, n), make([]int32, n)
		for i := range xs {
			switch rng.IntN(3) {
			case 0:
				xs[i] = 0
			case 1:
				xs[i] = float64(rng.IntN(9) - 4)
			default:
				xs[i] = rng.NormFloat64()
			}
			ints[i], used[i] = int32(rng.IntN(9)-4), int32(rng.IntN(5))
		}
		if HasNegZeroOrNaN(xs) {
			t.Fatal("HasNegZeroOrNaN: true without a -0 or NaN")
		}
		few := make([]float64, n)
		for i := range few {
			few[i] = []float64{0, 1, 2, 8}[rng.IntN(4)]
		}
		coded := NewCoded(few)
		withNeg := slices.Clone(few)
		if n > 0 {
			withNeg[rng.IntN(n)] = negZero
		}
		codedNeg := NewCoded(withNeg)
		if !HasNegZeroOrNaN(withNeg) && n > 0 {
			t.Fatal("HasNegZeroOrNaN: false with a -0")
		}
		words := someWords(rng, n)
		nb := (n + Block - 1) / Block
		for _, col := range []Col{PlainFloats(xs), Ints(ints), IntHeadroom(ints, used), Static(&coded),
			Headroom(&coded, used), Static(&codedNeg), Headroom(&codedNeg, used)} {
			lo, hi := make([]float64, nb), make([]float64, nb)
			MinMaxMasked(col, words, lo, hi)
			for q := range lo {
				l, h := math.Inf(1), math.Inf(-1)
				for i := q * Block; i < min((q+1)*Block, n); i++ {
					if words[i/64]&(1<<(i%64)) != 0 {
						l, h = min(l, col.At(i)), max(h, col.At(i))
					}
				}
				if !same(lo[q], l) || !same(hi[q], h) {
					t.Fatalf("n=%d kind %d block %d: MinMaxMasked (%v, %v), want (%v, %v)", n, col.kind, q, lo[q], hi[q], l, h)
				}
			}
		}
	}
}

// TestMaskedLengthsChecked: statistics or words shorter than the elements
// want panic on every path, even with capacity to spare (the assembly
// took the capacity on trust and wrote past the length; the portable
// loops stopped at it).
func TestMaskedLengthsChecked(t *testing.T) {
	eachPath(t, func(t *testing.T) {
		xs := make([]float64, 2*Block)
		for i := range xs {
			xs[i] = 1
		}
		words := make([]uint64, 2*Block/64)
		for i := range words {
			words[i] = ^uint64(0)
		}
		backing := make([]float64, 2)
		mustPanic := func(what string, f func()) {
			t.Helper()
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", what)
				}
			}()
			f()
		}
		mustPanic("MaxMasked, one statistic for two blocks", func() { MaxMasked(xs, words, backing[:1]) })
		mustPanic("MaxMasked, words for one block", func() { MaxMasked(xs, words[:Block/64], backing) })
		mustPanic("MinMaxMasked, one lo", func() { MinMaxMasked(PlainFloats(xs), words, backing[:1], make([]float64, 2)) })
		if backing[1] != 0 {
			t.Errorf("a statistic past the length was written: %v", backing[1])
		}
		MaxMasked(xs, words, backing) // the right lengths pass
	})
}
