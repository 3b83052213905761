package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/placer/placer/internal/kernels"
)

// TestUpdateSummary applies runs of changes to blocks of values, as
// compactions do (a few hosts each time, values moving both ways, ties,
// signed zeros and infinities, now and then a NaN), and checks after
// every run that updateSummary's result, or summarize's when it declines,
// holds blockSummary's invariants against a scan of the new values
// (checkSummary), and that a declined update left the summary as it was.
// Most updates must succeed, and some must decline: both paths are
// exercised.
func TestUpdateSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	updated, declined := 0, 0
	for round := range 400 {
		m := 1 + rng.IntN(kernels.Block)
		if round%5 == 0 {
			m = kernels.Block
		}
		distinct := 1 + rng.IntN(30)
		draw := func() float64 {
			if rng.IntN(4) == 0 {
				return treeValue(rng)
			}
			return float64(rng.IntN(distinct)) // many ties
		}
		cur := make([]float64, m)
		for i := range cur {
			cur[i] = draw()
		}
		s := summarize(kernels.Floats(cur))
		for step := range 40 {
			old := slices.Clone(cur)
			changed := drawChanged(rng, m)
			for _, j := range changed {
				switch rng.IntN(4) {
				case 0:
					cur[j] = draw()
				case 1:
					cur[j] = old[j] + 1
				default:
					cur[j] = old[j] - float64(1+rng.IntN(3)) // consumed on
				}
				if rng.IntN(2000) == 0 {
					cur[j] = math.NaN()
				}
			}
			oc, cc := kernels.Floats(old), kernels.Floats(cur)
			before := s
			if updateSummary(&s, &oc, &cc, changed) {
				updated++
			} else {
				if s != before {
					t.Fatalf("round %d step %d: a declined update changed the summary", round, step)
				}
				declined++
				s = summarize(cc)
			}
			checkSummary(t, cur, s)
			if slices.ContainsFunc(cur, func(x float64) bool { return x != x }) {
				for i, x := range cur {
					if x != x {
						cur[i] = 0
					}
				}
				s = summarize(kernels.Floats(cur)) // a NaN's summary carries nothing
			}
		}
	}
	t.Logf("updated %d declined %d", updated, declined)
	if updated < 5*declined || declined == 0 {
		t.Fatalf("%d updates, %d declined: both paths must run, updates mostly", updated, declined)
	}
}

// drawChanged draws the offsets a compaction changes in a block of m
// hosts: a few, sorted, as a delta spread over many blocks leaves them.
func drawChanged(rng *rand.Rand, m int) []uint16 {
	var changed []uint16
	for j := range m {
		if rng.IntN(m) < 1+rng.IntN(6) {
			changed = append(changed, uint16(j))
		}
	}
	return changed
}

// checkSummary checks blockSummary's invariants for s against the block's
// values xs, bit for bit.
func checkSummary(t *testing.T, xs []float64, s blockSummary) {
	t.Helper()
	if err := summaryError(xs, s); err != nil {
		t.Fatal(err)
	}
}

// summaryError returns how s breaks blockSummary's invariants for the
// block's values xs, bit for bit (nil: it does not).
func summaryError(xs []float64, s blockSummary) error {
	m := len(xs)
	if slices.ContainsFunc(xs, func(x float64) bool { return x != x }) {
		if s.lo == s.lo || s.hi == s.hi || s.cnst || s.nTop != 0 || s.nBot != 0 {
			return fmt.Errorf("a block with a NaN summarised as %+v", s)
		}
		return nil
	}
	lo, hi, cnst := math.Inf(1), math.Inf(-1), true
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
		cnst = cnst && math.Float64bits(x) == math.Float64bits(xs[0])
	}
	if math.Float64bits(s.lo) != math.Float64bits(lo) || math.Float64bits(s.hi) != math.Float64bits(hi) || s.cnst != cnst {
		return fmt.Errorf("lo %v hi %v cnst %v, want %v %v %v", s.lo, s.hi, s.cnst, lo, hi, cnst)
	}
	for _, side := range []struct {
		name string
		ats  []uint16
		key  func(float64) uint64 // largest first
	}{
		{"top", s.top[:s.nTop], orderKey},
		{"bottom", s.bottom[:s.nBot], func(x float64) uint64 { return ^orderKey(x) }},
	} {
		if n := len(side.ats); n < min(minExtremes, m) || n > min(extremes, m) {
			return fmt.Errorf("%s lists %d hosts of %d", side.name, n, m)
		}
		on := map[uint16]bool{}
		for i, at := range side.ats {
			if int(at) >= m || on[at] {
				return fmt.Errorf("%s %v: offset %d out of the block or listed twice", side.name, side.ats, at)
			}
			on[at] = true
			if i > 0 {
				p, k := side.key(xs[side.ats[i-1]]), side.key(xs[at])
				if p < k || p == k && side.ats[i-1] > at {
					return fmt.Errorf("%s %v out of order at %d", side.name, side.ats, i)
				}
			}
		}
		last := side.key(xs[side.ats[len(side.ats)-1]])
		for j, x := range xs {
			if !on[uint16(j)] && side.key(x) > last {
				return fmt.Errorf("%s %v: host %d off the list holds %v, past its last", side.name, side.ats, j, x)
			}
		}
	}
	return nil
}

// TestUpdateSummaryInts is TestUpdateSummary on the int32 columns a
// compaction updates (Ints, and Clamped, whose negative values read 0),
// without NaNs.
func TestUpdateSummaryInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2))
	updated := 0
	for round := range 300 {
		m := extremes + 1 + rng.IntN(kernels.Block-extremes)
		clamped := round%2 == 0
		col := func(xs []int32) kernels.Col {
			if clamped {
				return kernels.Clamped(xs)
			}
			return kernels.Ints(xs)
		}
		floats := func(xs []int32) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = float64(x)
				if clamped {
					out[i] = float64(max(x, 0))
				}
			}
			return out
		}
		distinct := 1 + rng.IntN(40)
		cur := make([]int32, m)
		for i := range cur {
			cur[i] = int32(rng.IntN(distinct)) - int32(distinct/4)
		}
		s := summarize(col(cur))
		for range 40 {
			old := slices.Clone(cur)
			changed := drawChanged(rng, m)
			for _, j := range changed {
				cur[j] = old[j] - int32(rng.IntN(4)) + int32(rng.IntN(2)) // mostly consumed on
			}
			oc, cc := col(old), col(cur)
			if updateSummary(&s, &oc, &cc, changed) {
				updated++
			} else {
				s = summarize(cc)
			}
			checkSummary(t, floats(cur), s)
		}
	}
	if updated == 0 {
		t.Fatal("no update succeeded")
	}
}
