package engine

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// treeValue draws a leaf value, often a tie, a signed zero or an infinity.
func treeValue(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return math.Inf(1)
	case 1:
		return math.Inf(-1)
	case 2:
		return math.Copysign(0, -1)
	case 3:
		return 0
	case 4:
		return float64(rng.IntN(3)) // ties
	}
	return rng.NormFloat64()
}

// TestSettleMatchesRebuild checks settle's walks from the changed leaves
// (several at once, some twice, some unchanged) against a rebuild of the
// whole tree, node by node, for min and max trees of every small size.
func TestSettleMatchesRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for nb := 1; nb <= 40; nb++ {
		leaves := 1
		for leaves < nb {
			leaves *= 2
		}
		for _, isMax := range []bool{false, true} {
			pad := math.Inf(1)
			if isMax {
				pad = math.Inf(-1)
			}
			tree := make([]float64, 2*leaves)
			for i := leaves; i < 2*leaves; i++ {
				tree[i] = pad
				if i-leaves < nb {
					tree[i] = treeValue(rng)
				}
			}
			settle(tree, leaves, true, nil, isMax)
			for round := 0; round < 50; round++ {
				var qs []int32
				for range 1 + rng.IntN(4) {
					q := rng.IntN(nb)
					qs = append(qs, int32(q))
					if rng.IntN(4) > 0 {
						tree[leaves+q] = treeValue(rng)
					}
				}
				got := settle(tree, leaves, false, qs, isMax)
				want := slices.Clone(tree)
				root := settle(want, leaves, true, nil, isMax)
				if got != root && !(got != got && root != root) {
					t.Fatalf("nb=%d max=%v round %d: root %v, rebuilt %v", nb, isMax, round, got, root)
				}
				for i := 1; i < leaves; i++ {
					if math.Float64bits(tree[i]) != math.Float64bits(want[i]) {
						t.Fatalf("nb=%d max=%v round %d: node %d is %v, rebuilt %v", nb, isMax, round, i, tree[i], want[i])
					}
				}
			}
		}
	}
}

// TestBlockHeapOrder checks that the heap pops blocks in search's order:
// the largest best first, then the smallest index.
func TestBlockHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for n := 0; n <= 60; n++ {
		best := make([]float64, 64)
		for q := range best {
			best[q] = float64(rng.IntN(5)) // many ties
		}
		var order []int32
		for q := range n {
			if rng.IntN(3) > 0 {
				order = append(order, int32(q))
			}
		}
		want := slices.Clone(order)
		slices.SortFunc(want, func(p, q int32) int { return cmp.Or(cmp.Compare(best[q], best[p]), cmp.Compare(p, q)) })
		h := blockHeap{slices.Clone(order), best}
		h.init()
		var got []int32
		for len(h.q) > 0 {
			got = append(got, h.pop())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: popped %v, want %v", n, got, want)
		}
	}
}

// TestKthLargest checks kthLargest, with and without its sort (k above
// kthSmall), against sorting a copy: random values with many ties, signed
// zeros and infinities, a NaN anywhere (-Inf), k out of range (-Inf).
func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 18))
	pool := []float64{math.Inf(-1), -2, -1, math.Copysign(0, -1), 0, 0.5, 1, 3, math.Inf(1)}
	for trial := range 3000 {
		n := rng.IntN(80)
		xs := make([]float64, n)
		for i := range xs {
			if rng.IntN(3) == 0 {
				xs[i] = pool[rng.IntN(len(pool))]
			} else {
				xs[i] = rng.NormFloat64()
			}
		}
		if n > 0 && rng.IntN(20) == 0 {
			xs[rng.IntN(n)] = math.NaN()
		}
		k := rng.IntN(n+2) - 1
		if trial%5 == 0 {
			k = kthSmall + rng.IntN(4) - 1
		}
		want := math.Inf(-1)
		if k >= 1 && k <= n && !slices.ContainsFunc(xs, func(x float64) bool { return x != x }) {
			sorted := slices.Clone(xs)
			slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) })
			want = sorted[k-1]
		}
		got, _ := kthLargest(xs, k, nil)
		if got != want { // -0 and +0 alike: the threshold compares, never tells them apart
			t.Fatalf("kthLargest(%v, %d) = %v, want %v", xs, k, got, want)
		}
	}
}
