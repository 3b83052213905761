package engine

import (
	"container/heap"
	"math"
)

// kdTree indexes the candidates of a batch by their raw weigher values so
// that the best candidates of an instance are found by branch and bound
// instead of scoring every host.
//
// Invariants: every node's box (rlo, rhi) is exact over the hosts of its
// subtree still in play, so the root's box is the normalisation bounds;
// mhi is the largest multiplier of each weigher over the node's hosts (in
// play or not), which keeps it an upper bound.
//
// Why the bound is exact in floating point: a host's weight is
// fl(...fl(fl(0 + t1) + t2)...) with t = fl(m * fl(fl(r - lo) / span)).
// Every one of these operations is monotone in each argument (IEEE
// rounding is), r - lo >= 0, so t is largest at m = mhi and at r = rhi
// (mhi >= 0) or r = rlo (mhi < 0). Summing those largest terms with the
// same operations in the same order gives a value no host of the node can
// exceed. A node whose bound is below the k-th best weight found so far
// cannot contribute and is skipped; no tolerance is involved.
type kdTree struct {
	perm   []uint32
	nodes  []kdNode
	leafOf []int32 // host id -> leaf (valid for the hosts in perm)
	nA     int
	rlo    []float64 // node*nA + a
	rhi    []float64
	mhi    []float64
}

type kdNode struct {
	from, to            int32
	left, right, parent int32
	minID               uint32
	alive               int32
}

const kdLeafSize = 16

func buildKDTree(b *batch, rk *ranker) *kdTree {
	sc := b.sc
	m := len(rk.ids)
	// Median splits stop at kdLeafSize, so leaves hold at least half of it.
	maxNodes := 2*(2*m/kdLeafSize+1) + 1
	t := &kdTree{
		perm:   append(sc.ints[:0], rk.ids...),
		leafOf: sc.leaf,
		nA:     len(rk.act),
		nodes:  sc.nodes[:0],
	}
	if need := 3 * t.nA * maxNodes; cap(sc.boxes) < need {
		sc.boxes = make([]float64, need)
	}
	boxes := sc.boxes[:3*t.nA*maxNodes]
	t.rlo = boxes[: 0 : t.nA*maxNodes]
	t.rhi = boxes[t.nA*maxNodes : t.nA*maxNodes : 2*t.nA*maxNodes]
	t.mhi = boxes[2*t.nA*maxNodes : 2*t.nA*maxNodes]
	t.build(b, rk, 0, int32(m), -1)
	return t
}

func (t *kdTree) build(b *batch, rk *ranker, from, to, parent int32) int32 {
	ni := int32(len(t.nodes))
	t.nodes = append(t.nodes, kdNode{from: from, to: to, left: -1, right: -1, parent: parent})
	t.rlo = t.rlo[:len(t.rlo)+t.nA]
	t.rhi = t.rhi[:len(t.rhi)+t.nA]
	t.mhi = t.mhi[:len(t.mhi)+t.nA]
	if to-from <= kdLeafSize {
		for _, id := range t.perm[from:to] {
			t.leafOf[id] = ni
		}
		t.box(b, rk, ni)
		return ni
	}
	mid := (from + to) / 2
	if split := t.splitDim(rk, from, to); split >= 0 {
		selectNth(t.perm[from:to], int(mid-from), rk.raw[split], rk.pos)
	}
	l := t.build(b, rk, from, mid, ni)
	r := t.build(b, rk, mid, to, ni)
	t.nodes[ni].left, t.nodes[ni].right = l, r
	t.join(ni)
	t.nodes[ni].minID = min(t.nodes[l].minID, t.nodes[r].minID)
	o, lo, ro := int(ni)*t.nA, int(l)*t.nA, int(r)*t.nA
	for a := 0; a < t.nA; a++ {
		t.mhi[o+a] = max(t.mhi[lo+a], t.mhi[ro+a])
	}
	return ni
}

// splitDim picks the weigher whose values spread most over a sample of
// the range, relative to their spread over a sample of all candidates
// (the tree only needs good splits, not the best ones).
func (t *kdTree) splitDim(rk *ranker, from, to int32) int {
	const samples = 32
	split, widest := -1, 0.0
	step := max(1, (to-from)/samples)
	all := max(1, int32(len(t.perm))/samples)
	for a := 0; a < t.nA; a++ {
		raw := rk.raw[a]
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := from; i < to; i += step {
			x := raw[rk.pos[t.perm[i]]]
			lo, hi = min(lo, x), max(hi, x)
		}
		glo, ghi := math.Inf(1), math.Inf(-1)
		for i := int32(0); i < int32(len(t.perm)); i += all {
			x := raw[rk.pos[t.perm[i]]]
			glo, ghi = min(glo, x), max(ghi, x)
		}
		w := hi - lo
		if ghi > glo {
			w /= ghi - glo
		}
		if w > widest {
			split, widest = a, w
		}
	}
	return split
}

// join sets an inner node's boxes and count from its children's.
func (t *kdTree) join(p int32) {
	l, r := t.nodes[p].left, t.nodes[p].right
	t.nodes[p].alive = t.nodes[l].alive + t.nodes[r].alive
	o, lo, ro := int(p)*t.nA, int(l)*t.nA, int(r)*t.nA
	for a := 0; a < t.nA; a++ {
		t.rlo[o+a] = min(t.rlo[lo+a], t.rlo[ro+a])
		t.rhi[o+a] = max(t.rhi[lo+a], t.rhi[ro+a])
	}
}

// box computes node ni's boxes and counts from its hosts.
func (t *kdTree) box(b *batch, rk *ranker, ni int32) {
	nd := &t.nodes[ni]
	o := int(ni) * t.nA
	for a := 0; a < t.nA; a++ {
		t.rlo[o+a], t.rhi[o+a], t.mhi[o+a] = math.Inf(1), math.Inf(-1), math.Inf(-1)
	}
	nd.alive, nd.minID = 0, math.MaxUint32
	for _, id := range t.perm[nd.from:nd.to] {
		nd.minID = min(nd.minID, id)
		sh, j := b.s.at(id)
		for a, w := range rk.act {
			if rk.mult[a] == nil {
				t.mhi[o+a] = rk.multV[a]
			} else {
				t.mhi[o+a] = max(t.mhi[o+a], sh.mult[w][j])
			}
		}
		k := rk.pos[id]
		if k < 0 {
			continue
		}
		nd.alive++
		for a := range rk.act {
			x := rk.raw[a][k]
			t.rlo[o+a], t.rhi[o+a] = min(t.rlo[o+a], x), max(t.rhi[o+a], x)
		}
	}
}

// refresh recomputes the boxes on the path from host id's leaf to the root.
func (t *kdTree) refresh(b *batch, rk *ranker, id uint32) {
	ni := t.leafOf[id]
	t.box(b, rk, ni)
	for p := t.nodes[ni].parent; p >= 0; p = t.nodes[p].parent {
		t.join(p)
	}
}

// rootBounds sets the ranker's lo and hi from the root box.
func (t *kdTree) rootBounds(rk *ranker) {
	copy(rk.lo, t.rlo[:t.nA])
	copy(rk.hi, t.rhi[:t.nA])
}

// bound is the largest weight any host in play under node ni can have.
func (t *kdTree) bound(rk *ranker, ni int32) float64 {
	o := int(ni) * t.nA
	u := 0.0
	for a := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		m := t.mhi[o+a]
		r := t.rhi[o+a]
		if m < 0 {
			r = t.rlo[o+a]
		}
		u += m * ((r - lo) / (hi - lo))
	}
	return u
}

// search offers to c every host that can still rank, best bounds first.
func (t *kdTree) search(rk *ranker, c *collector, keep func(uint32) bool) {
	h := nodeHeap{{ni: 0, ub: t.bound(rk, 0), minID: t.nodes[0].minID}}
	for len(h) > 0 {
		top := heap.Pop(&h).(nodeItem)
		if thr, ok := c.threshold(); ok {
			if top.ub < thr.score {
				return
			}
			if top.ub == thr.score && !c.wantTies && top.minID > thr.id {
				continue
			}
		}
		nd := &t.nodes[top.ni]
		if nd.left < 0 {
			for _, id := range t.perm[nd.from:nd.to] {
				if k := rk.pos[id]; k >= 0 && (keep == nil || keep(id)) {
					c.offer(scored{id, rk.scoreAt(k)})
				}
			}
			continue
		}
		for _, ci := range [2]int32{nd.left, nd.right} {
			if t.nodes[ci].alive > 0 {
				heap.Push(&h, nodeItem{ni: ci, ub: t.bound(rk, ci), minID: t.nodes[ci].minID})
			}
		}
	}
}

type nodeItem struct {
	ni    int32
	ub    float64
	minID uint32
}

// nodeHeap pops the highest bound first, then the lowest host id.
type nodeHeap []nodeItem

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	return h[i].ub > h[j].ub || (h[i].ub == h[j].ub && h[i].minID < h[j].minID)
}
func (h nodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)   { *h = append(*h, x.(nodeItem)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// selectNth reorders ids so that ids[k] holds the id whose key would be
// there in sorted order, smaller keys before it and larger after
// (Hoare's selection).
func selectNth(ids []uint32, k int, key []float64, pos []int32) {
	lo, hi := 0, len(ids)-1
	for lo < hi {
		p := key[pos[ids[(lo+hi)/2]]]
		i, j := lo, hi
		for i <= j {
			for key[pos[ids[i]]] < p {
				i++
			}
			for key[pos[ids[j]]] > p {
				j--
			}
			if i <= j {
				ids[i], ids[j] = ids[j], ids[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
