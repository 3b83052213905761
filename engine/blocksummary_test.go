package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/placer/placer/internal/kernels"
)

// TestSummarizeExtremes checks blockSummary's invariants against a scan:
// for blocks of every size up to a few words, with ties, signed zeros,
// infinities and now and then a NaN, and for random candidate masks (some
// sparse, some dense), the first candidate of top holds the candidates'
// largest value and the first of bottom their smallest, bit for bit as
// Go's max and min take them, or no candidate is among them; lo, hi and
// cnst are the block's.
func TestSummarizeExtremes(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 8))
	found := 0
	for round := range 3000 {
		m := 1 + rng.IntN(200)
		if round%7 == 0 {
			m = kernels.Block
		}
		xs := make([]float64, m)
		distinct := 1 + rng.IntN(12)
		for i := range xs {
			switch {
			case distinct == 1:
				xs[i] = 4
			default:
				xs[i] = treeValue(rng)
				if rng.IntN(3) > 0 {
					xs[i] = float64(rng.IntN(distinct)) // many ties
				}
			}
		}
		nan := round%50 == 0
		if nan {
			xs[rng.IntN(m)] = math.NaN()
		}
		s := summarize(kernels.Floats(xs))
		if nan {
			if s.lo == s.lo || s.hi == s.hi || s.cnst || s.nTop != 0 {
				t.Fatalf("round %d: a block with a NaN summarised as %+v", round, s)
			}
			continue
		}
		lo, hi, cnst := math.Inf(1), math.Inf(-1), true
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
			cnst = cnst && math.Float64bits(x) == math.Float64bits(xs[0])
		}
		if math.Float64bits(s.lo) != math.Float64bits(lo) || math.Float64bits(s.hi) != math.Float64bits(hi) || s.cnst != cnst {
			t.Fatalf("round %d: lo %v hi %v cnst %v, want %v %v %v", round, s.lo, s.hi, s.cnst, lo, hi, cnst)
		}
		if int(s.nTop) != min(extremes, m) {
			t.Fatalf("round %d: %d extremes kept of %d hosts", round, s.nTop, m)
		}
		if s.nTop > 0 && (math.Float64bits(xs[s.top[0]]) != math.Float64bits(s.hi) || math.Float64bits(xs[s.bottom[0]]) != math.Float64bits(s.lo)) {
			t.Fatalf("round %d: the first extremes hold %v and %v, the block's are %v and %v", round, xs[s.top[0]], xs[s.bottom[0]], s.hi, s.lo)
		}
		for range 20 {
			words := make([]uint64, (m+63)/64)
			density := rng.Float64()
			if rng.IntN(2) == 0 {
				density *= 0.1
			}
			cLo, cHi, any := math.Inf(1), math.Inf(-1), false
			for i, x := range xs {
				if rng.Float64() < density {
					words[i/64] |= 1 << (i % 64)
					cLo, cHi, any = min(cLo, x), max(cHi, x), true
				}
			}
			hiV, hiOK := extremeOf(xs, &s.top, s.nTop, words)
			loV, loOK := extremeOf(xs, &s.bottom, s.nTop, words)
			if hiOK != loOK && m <= extremes {
				t.Fatalf("round %d: a block of %d hosts found a candidate among its largest, not its smallest", round, m)
			}
			if hiOK {
				found++
				if math.Float64bits(hiV) != math.Float64bits(cHi) {
					t.Fatalf("round %d: top's first candidate holds %v, the candidates' largest is %v", round, hiV, cHi)
				}
			}
			if loOK && math.Float64bits(loV) != math.Float64bits(cLo) {
				t.Fatalf("round %d: bottom's first candidate holds %v, the candidates' smallest is %v", round, loV, cLo)
			}
			if any && m <= extremes && !hiOK {
				t.Fatalf("round %d: a block of %d hosts, all among its extremes, found none of its candidates", round, m)
			}
		}
	}
	if found == 0 {
		t.Fatal("no mask had a candidate among the extremes")
	}
}

// extremeOf is the value in xs of the first of ats[:n] that firstIn finds
// among the candidates of words.
func extremeOf(xs []float64, ats *[extremes]uint16, n uint8, words []uint64) (float64, bool) {
	i := firstIn(ats, n, words)
	if i < 0 {
		return 0, false
	}
	return xs[ats[i]], true
}

// TestSummarizeInts checks the integer path of summarize (Ints and
// Clamped columns) against the float path on the same values: blocks of
// every size up to a few words, with ties, negative values (clamped at 0
// in a Clamped column) and the int32 extremes.
func TestSummarizeInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	for round := range 3000 {
		m := 1 + rng.IntN(200)
		if round%7 == 0 {
			m = kernels.Block
		}
		xs := make([]int32, m)
		distinct := 1 + rng.IntN(40)
		for i := range xs {
			switch k := rng.IntN(20); {
			case k == 0:
				xs[i] = math.MinInt32
			case k == 1:
				xs[i] = math.MaxInt32
			case k < 8:
				xs[i] = int32(rng.IntN(distinct)) - int32(distinct/3) // ties, some negative
			default:
				xs[i] = rng.Int32() - math.MaxInt32/2
			}
		}
		for _, clamped := range []bool{false, true} {
			col, floats := kernels.Ints(xs), make([]float64, m)
			for i, x := range xs {
				floats[i] = float64(x)
				if clamped {
					floats[i] = float64(max(x, 0))
				}
			}
			if clamped {
				col = kernels.Clamped(xs)
			}
			if got, want := summarize(col), summarize(kernels.Floats(floats)); got != want {
				t.Fatalf("round %d (clamped %v): the integer path's %+v, the float path's %+v", round, clamped, got, want)
			}
		}
	}
}

// BenchmarkSummarize summarises one block of a usage column (int32, the
// kind a compaction summarises again for the blocks it changed).
func BenchmarkSummarize(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]int32, kernels.Block)
	for i := range xs {
		xs[i] = int32(rng.IntN(100000))
	}
	col := kernels.Ints(xs)
	b.Run("col=int32/hosts=512", func(b *testing.B) {
		for b.Loop() {
			_ = summarize(col)
		}
	})
}
