package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// interesting returns a column value near the edges the predicates care
// about: zero, the request, negative, huge (wrapping), ordinary.
func interesting(rng *rand.Rand, req int64) int64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return req + int64(rng.IntN(5)) - 2
	case 2:
		return -int64(rng.IntN(1 << 16))
	case 3:
		return math.MaxInt64 - int64(rng.IntN(4))
	case 4:
		return math.MinInt64 + int64(rng.IntN(4))
	default:
		return int64(rng.IntN(1 << 20))
	}
}

// interesting32 is interesting for a usage column (int32).
func interesting32(rng *rand.Rand, req int64) int32 {
	switch rng.IntN(8) {
	case 3:
		return math.MaxInt32 - int32(rng.IntN(4))
	case 4:
		return math.MinInt32 + int32(rng.IntN(4))
	}
	return int32(max(min(interesting(rng, req), math.MaxInt32), math.MinInt32))
}

func ratio(rng *rand.Rand) float64 {
	return []float64{1, 1.5, 16, 0, 0.5, math.NaN(), math.Inf(1), -1, 1e-300}[rng.IntN(9)]
}

// fewOf returns a column of n values drawn from ten interesting ones.
func fewOf(rng *rand.Rand, n int, req int64) []int64 {
	var vals [10]int64
	for k := range vals {
		vals[k] = interesting(rng, req)
	}
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = vals[rng.IntN(len(vals))]
	}
	return xs
}

// TestFilterKernelsMatchPredicates checks every mask kernel, dispatched and
// portable, against its scalar predicate host by host, at lengths around
// the word and vector widths, with sparse, full and empty words.
func TestFilterKernelsMatchPredicates(t *testing.T) { eachPath(t, testFilterKernelsMatchPredicates) }

func testFilterKernelsMatchPredicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 511, 512, 520} {
		for rep := 0; rep < 40; rep++ {
			req := []int64{0, 1, 2048, 20480, int64(rng.IntN(1 << 16))}[rng.IntN(5)]
			a, lim := make([]int64, n), make([]int64, n)
			b, c := make([]int32, n), make([]int32, n) // usage columns
			r := make([]float64, n)
			for i := range a {
				a[i], lim[i], r[i] = interesting(rng, req), interesting(rng, 8), ratio(rng)
				b[i], c[i] = interesting32(rng, req), interesting32(rng, 8)
			}
			words := make([]uint64, (n+63)/64)
			for q := range words {
				words[q] = []uint64{0, ^uint64(0), rng.Uint64()}[rng.IntN(3)]
				if rest := n - q*64; rest < 64 {
					words[q] &= 1<<rest - 1
				}
			}
			limit := interesting(rng, 8)
			// A range around the request's values, one value, empty or
			// reaching an end of int32.
			rlo, rhi := interesting32(rng, req), interesting32(rng, req)
			switch rep % 4 {
			case 1:
				rhi = rlo
			case 2:
				rlo, rhi = math.MinInt32, rlo
			case 3:
				rhi = math.MaxInt32
			}
			invert := rep%5 == 0
			// The ratios take few values (coded), the totals and limits
			// many (full) or few (coded): every form of every column.
			few, fewLim := fewOf(rng, n, req), fewOf(rng, n, 8)
			ratios := []Coded[float64]{NewCoded(r), FullCoded(r)}
			totals := []Coded[int64]{NewCoded(a), NewCoded(few), FullCoded(few)}
			totVals := [][]int64{a, few, few}
			limits := []Coded[int64]{NewCoded(lim), FullCoded(fewLim), NewCoded(fewLim)}
			limVals := [][]int64{lim, fewLim, fewLim}
			rc, tc, lc := &ratios[rep%2], &totals[rep%3], &limits[(rep/3)%3]
			tv, lv := totVals[rep%3], limVals[(rep/3)%3]
			for _, k := range []struct {
				name     string
				kernel   func([]uint64)
				portable func([]uint64)
				pass     func(i int) bool
			}{
				{"RAMPass", func(w []uint64) { RAMPass(w, tc, b, rc, req) }, func(w []uint64) { RAMPassPortable(w, tc, b, rc, req) },
					func(i int) bool { return RAMPasses(tv[i], int64(b[i]), r[i], req) }},
				{"CorePass", func(w []uint64) { CorePass(w, tc, b, rc, req) }, func(w []uint64) { CorePassPortable(w, tc, b, rc, req) },
					func(i int) bool { return CorePasses(tv[i], int64(b[i]), r[i], req) }},
				{"DiskPass", func(w []uint64) { DiskPass(w, tc, b, rc, req) }, func(w []uint64) { DiskPassPortable(w, tc, b, rc, req) },
					func(i int) bool { return DiskPasses(tv[i], int64(b[i]), r[i], req) }},
				{"BelowPass/limits", func(w []uint64) { BelowPass(w, c, 0, lc) }, func(w []uint64) { BelowPassPortable(w, c, 0, lc) },
					func(i int) bool { return int64(c[i]) < lv[i] }},
				{"BelowPass/limit", func(w []uint64) { BelowPass(w, c, limit, nil) }, func(w []uint64) { BelowPassPortable(w, c, limit, nil) },
					func(i int) bool { return int64(c[i]) < limit }},
				{"RangePass", func(w []uint64) { RangePass(w, b, rlo, rhi, invert) }, func(w []uint64) { RangePassPortable(w, b, rlo, rhi, invert) },
					func(i int) bool { return (rlo <= b[i] && b[i] <= rhi) != invert }},
			} {
				got, port := append([]uint64(nil), words...), append([]uint64(nil), words...)
				k.kernel(got)
				k.portable(port)
				for q := range words {
					var want uint64
					for t := 0; t < 64 && q*64+t < n; t++ {
						if words[q]&(1<<t) != 0 && k.pass(q*64+t) {
							want |= 1 << t
						}
					}
					if got[q] != want || port[q] != want {
						t.Fatalf("%s n=%d rep=%d word %d: kernel %x, portable %x, want %x", k.name, n, rep, q, got[q], port[q], want)
					}
				}
			}
		}
	}
}
