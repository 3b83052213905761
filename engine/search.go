package engine

import (
	"math"
	"math/bits"

	"github.com/placer/placer/internal/kernels"
)

// The dense ranker's top-k search: the best candidates are found in the
// block with the largest best weight, then in the blocks whose best can
// still rank, taken best first, each scanned with a vector compare against
// the threshold of the k-th best so far; with scaled weights, an
// approximate search bounds the exact one (top).

// search offers to c the candidates (satisfying keep) whose score can
// rank among c's best, block by block from the block with the largest;
// with blocks (Snapshot's blockCells), only the blocks holding hosts of
// cell (keep accepts no other).
func (rk *denseRanker) search(c *collector, keep func(uint32) bool, wantTies bool, blocks []uint64, cell int32) {
	if keep == nil && blocks == nil && c.k == 1 {
		if rk.searchBest(c, wantTies) {
			if h := rk.opts.hooks; h != nil && h.afterSearchBest != nil {
				h.afterSearchBest(rk, c, wantTies)
			}
			return
		}
	}
	rk.searchScan(c, keep, wantTies, blocks, cell)
}

// searchScan is search over the blocks' bests as a slice, for any keep,
// blocks and k.
func (rk *denseRanker) searchScan(c *collector, keep func(uint32) bool, wantTies bool, blocks []uint64, cell int32) {
	in := func(q int) bool { return blocks == nil || blocks[q]&(1<<cell) != 0 }
	first, top := -1, math.Inf(-1)
	for q, x := range rk.bBest {
		if in(q) && (first < 0 || x > top) {
			first, top = q, x
		}
	}
	if first < 0 {
		return
	}
	thr := math.Inf(-1)
	if keep == nil {
		// Each block's best is a candidate's weight: the k-th largest of
		// them is at most the k-th best weight, so no candidate below it
		// ranks (nor ties with the best).
		thr, rk.order = kthLargest(rk.bBest, c.k, rk.order[:0])
	}
	thr = rk.scan(c, keep, first, thr)
	// The other blocks that can still rank, best first: with keep (the
	// alternates of one cell), the threshold rises fastest that way.
	order := rk.order[:0]
	for q, x := range rk.bBest {
		if q != first && x >= thr && in(q) {
			order = append(order, int32(q))
		}
	}
	rk.walk(c, keep, wantTies, order, thr)
}

// searchBest is search for the single best candidate of all (keep nil,
// every block, k 1) on bestTree: the block search starts from is the
// leftmost holding the largest best, and the blocks that can still rank
// are those at least the threshold, found by descending only into
// subtrees whose max reaches it. It returns false, having done nothing,
// when a block's best is NaN (search's scan then decides as it always
// has).
func (rk *denseRanker) searchBest(c *collector, wantTies bool) bool {
	t := rk.bestTree
	top := settle(t, rk.leaves, rk.bestAll, rk.bestQs, true)
	rk.bestAll, rk.bestQs = false, rk.bestQs[:0]
	if top != top {
		return false
	}
	i := 1
	for i < rk.leaves {
		if i *= 2; t[i] != t[i/2] {
			i++ // the left subtree's max is below its parent's
		}
	}
	first := i - rk.leaves
	thr := rk.scan(c, nil, first, top)
	order := rk.order[:0]
	var collect func(i int)
	collect = func(i int) {
		switch {
		case t[i] < thr:
		case i >= rk.leaves:
			if q := i - rk.leaves; q != first && q < rk.nb {
				order = append(order, int32(q))
			}
		default:
			collect(2 * i)
			collect(2*i + 1)
		}
	}
	collect(1)
	rk.walk(c, nil, wantTies, order, thr)
	return true
}

// walk offers c the candidates of the blocks of order (those besides the
// first that can rank under thr), best block first, and keeps order's
// memory for the next search.
func (rk *denseRanker) walk(c *collector, keep func(uint32) bool, wantTies bool, order []int32, thr float64) {
	// Taken best first from a heap rather than sorted: the threshold
	// usually stops the walk after a few blocks.
	h := blockHeap{order, rk.bBest}
	h.init()
	for len(h.q) > 0 {
		q := h.pop()
		if rk.bBest[q] < thr {
			break
		}
		// A block whose best only ties the k-th best cannot displace it
		// unless it holds a smaller id or a host chosen in the batch
		// (collector.better: only those of its hosts are offered), or the
		// ties themselves are wanted: blocks hold increasing ids.
		if t, full := c.threshold(); full && !wantTies && rk.bBest[q] == thr && uint32(int(q)*kernels.Block) > t.id {
			if c.chosen != nil {
				var buf [wordsPerBlock]uint64
				if words, any := c.chosen.words(buf[:0], rk.words(int(q)), int(q)); any {
					rk.scanWords(c, keep, int(q), thr, words)
				}
			}
			continue
		}
		thr = rk.scan(c, keep, int(q), thr)
	}
	rk.order = order
}

// scanExact offers block q's candidates whose scaled weight reaches cut
// (and kept) to c, with their exact weights.
func (rk *denseRanker) scanExact(c *collector, keep func(uint32) bool, q int, cut float64) {
	for k, w := range rk.words(q) {
		base := q*kernels.Block + k*64
		for ; w != 0; w &= w - 1 {
			id := uint32(base + bits.TrailingZeros64(w))
			if rk.weight(id) >= cut && (keep == nil || keep(id)) {
				c.offer(scored{id, rk.scoreOf(id)})
			}
		}
	}
}

// scanZero offers block q's candidates with weight 0 (one candidate).
func (rk *denseRanker) scanZero(c *collector, keep func(uint32) bool, q int) {
	for k, w := range rk.words(q) {
		for ; w != 0; w &= w - 1 {
			if id := uint32(q*kernels.Block + k*64 + bits.TrailingZeros64(w)); keep == nil || keep(id) {
				c.offer(scored{id, 0})
			}
		}
	}
}

// scan offers block q's candidates weighing at least thr (and kept) to c
// and returns the new threshold (the k-th best weight, once there are k).
func (rk *denseRanker) scan(c *collector, keep func(uint32) bool, q int, thr float64) float64 {
	return rk.scanWords(c, keep, q, thr, rk.words(q))
}

// scanWords is scan over words, a subset of block q's candidates.
func (rk *denseRanker) scanWords(c *collector, keep func(uint32) bool, q int, thr float64, words []uint64) float64 {
	ws, ov := rk.blockWeights(q), rk.overrides(q)
	for k, w := range words {
		if w == 0 {
			continue
		}
		base := uint32(q*kernels.Block + k*64)
		// The word's candidates below the threshold so far cannot rank:
		// one vector compare per eight rather than a test per candidate;
		// the overridden hosts' weights are score's (setOverride), tested
		// one by one. Candidates are offered in id order either way.
		xs := ws[k*64 : min(k*64+64, len(ws))]
		var o uint64
		if ov != nil {
			o = w & ov[k]
		}
		for w = kernels.NotBelow(xs, w&^o, thr) | o; w != 0; w &= w - 1 {
			i := bits.TrailingZeros64(w)
			x := xs[i]
			if o&(1<<i) != 0 {
				x = rk.score[base+uint32(i)]
			}
			id := base + uint32(i)
			if x < thr || (keep != nil && !keep(id)) {
				continue
			}
			c.offer(scored{id, x})
			if t, ok := c.threshold(); ok {
				thr = t.score
			}
		}
	}
	return thr
}
