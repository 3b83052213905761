package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/placer/placer/internal/kernels"
)

// TestSummariseMatchesHostByHost checks summarise, which counts a coded
// multiplier column code by code, against the summary taken host by host
// (bit for bit: -0 apart from 0), on shards mixing coded columns, full
// ones (more distinct values than a code holds) and one-valued ones.
func TestSummariseMatchesHostByHost(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []float64{1, 1, 1, 2, -1, 0, math.Copysign(0, -1), 0.5, 1e6}
	for round := range 50 {
		shards := make([]*shard, 1+r.IntN(4))
		for k := range shards {
			sh := &shard{}
			m := 1 + r.IntN(700)
			for w := range numWeighers {
				xs := make([]float64, m)
				switch r.IntN(3) {
				case 0: // one value
					v := values[r.IntN(len(values))]
					for j := range xs {
						xs[j] = v
					}
				case 1: // a few
					for j := range xs {
						xs[j] = values[r.IntN(len(values))]
					}
				default: // too many to code
					for j := range xs {
						xs[j] = float64(r.IntN(40)) - 3
					}
				}
				sh.mult[w] = kernels.NewCoded(xs)
			}
			shards[k] = sh
		}
		want, wantOver := summariseHostByHost(shards)
		got := summarise(shards)
		if got != want {
			t.Fatalf("round %d: summarise = %+v, want %+v", round, got, want)
		}
		for k, sh := range shards {
			for w := range numWeighers {
				if !slices.Equal(sh.multOver[w], wantOver[k][w]) {
					t.Fatalf("round %d: shard %d weigher %d: multOver %v, want %v", round, k, w, sh.multOver[w], wantOver[k][w])
				}
			}
		}
	}
}

// summariseHostByHost is summarise's definition, one host at a time.
func summariseHostByHost(shards []*shard) (m multipliers, over [][numWeighers][]uint16) {
	over = make([][numWeighers][]uint16, len(shards))
	for w := range numWeighers {
		count := map[uint64]int{}
		for _, sh := range shards {
			for j := range sh.mult[w].Len() {
				x := sh.mult[w].At(j)
				count[math.Float64bits(x)]++
				m.maxAbs[w] = max(m.maxAbs[w], math.Abs(x))
			}
		}
		base, most := uint64(0), -1
		for b, c := range count {
			if c > most || (c == most && b < base) {
				base, most = b, c
			}
		}
		m.base[w] = math.Float64frombits(base)
		for k, sh := range shards {
			for j := range sh.mult[w].Len() {
				if math.Float64bits(sh.mult[w].At(j)) != base {
					over[k][w] = append(over[k][w], uint16(j))
					m.overs[w]++
				}
			}
		}
	}
	return m, over
}
