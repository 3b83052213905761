package engine

import (
	"cmp"
	"math"
	"slices"
)

// The dense ranker's tournament trees: the per-block statistics and bests
// are the leaves of complete binary trees whose inner nodes hold the min
// or max of their children, so that Nova's bounds and the best block are
// their roots, kept up to date by walks up from the blocks that changed
// (settle). blockHeap orders the blocks a search still has to scan.

// settle brings the inner nodes of a tournament tree with the given
// number of leaves up to date with its leaves, all of them (rebuild) or
// those of blocks qs, with min (or max, isMax), and returns the root. A
// walk up from a leaf stops at the first node that keeps its value: its
// ancestors depend on nothing else that moved.
func settle(tree []float64, leaves int, rebuild bool, qs []int32, isMax bool) float64 {
	pick := func(i int) float64 {
		if isMax {
			return max(tree[2*i], tree[2*i+1])
		}
		return min(tree[2*i], tree[2*i+1])
	}
	if rebuild {
		for i := leaves - 1; i >= 1; i-- {
			tree[i] = pick(i)
		}
		return tree[1]
	}
	for _, q := range qs {
		for i := (leaves + int(q)) / 2; i >= 1; i /= 2 {
			x := pick(i)
			if math.Float64bits(x) == math.Float64bits(tree[i]) {
				break
			}
			tree[i] = x
		}
	}
	return tree[1]
}

// kthLargest returns the k-th largest of xs (-Inf when xs has fewer than
// k elements or holds a NaN), with buf as scratch, which it returns. Up
// to kthSmall, it keeps the k largest so far in order (one comparison per
// element once they are k, as the k-th largest rarely moves); past it, it
// sorts.
func kthLargest(xs []float64, k int, buf []int32) (float64, []int32) {
	if k <= 0 || k > len(xs) {
		return math.Inf(-1), buf
	}
	if k <= kthSmall {
		var top [kthSmall]float64
		n := 0
		for _, x := range xs {
			if x != x {
				return math.Inf(-1), buf
			}
			if n == k && x <= top[k-1] {
				continue
			}
			i := min(n, k-1) // x goes at i or before, pushing the rest down
			for ; i > 0 && top[i-1] < x; i-- {
				top[i] = top[i-1]
			}
			top[i] = x
			n = min(n+1, k)
		}
		return top[k-1], buf
	}
	for q, x := range xs {
		if x != x {
			return math.Inf(-1), buf
		}
		buf = append(buf, int32(q))
	}
	slices.SortFunc(buf, func(p, q int32) int { return cmp.Compare(xs[q], xs[p]) })
	return xs[buf[k-1]], buf
}

// kthSmall is the largest k kthLargest finds without sorting.
const kthSmall = 16

// blockHeap holds blocks best first: the largest best weight, then the
// smallest index (the order search walks them in).
type blockHeap struct {
	q    []int32
	best []float64
}

func (h *blockHeap) before(i, j int) bool {
	x, y := h.best[h.q[i]], h.best[h.q[j]]
	return x > y || (x == y && h.q[i] < h.q[j])
}

func (h *blockHeap) init() {
	for i := len(h.q)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pop removes and returns the first block.
func (h *blockHeap) pop() int32 {
	top, n := h.q[0], len(h.q)-1
	h.q[0] = h.q[n]
	h.q = h.q[:n]
	h.down(0)
	return top
}

func (h *blockHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h.q) {
			return
		}
		if c+1 < len(h.q) && h.before(c+1, c) {
			c++
		}
		if !h.before(c, i) {
			return
		}
		h.q[i], h.q[c] = h.q[c], h.q[i]
		i = c
	}
}
