package engine

import (
	"math"
	"slices"

	"github.com/placer/placer/internal/kernels"
)

// Lazy bounds. Nova's bounds are the extremes of each weigher's raw
// values over the candidates; the block statistics give them, at the cost
// of a pass over every block on the first instance of a batch. For a
// column weigher the shard's block summaries already bound each block:
// its candidates' largest raw value is at most the summary's largest over
// all of its hosts, or an exception's (the overlay's hosts, whose values
// are not their columns'), and their smallest at least the smallest of
// those. So when many blocks are stale (the first instance), a column
// weigher's leaves are seeded with those bounds (seed, seedExceptions),
// and bounds refines the trees from the root down: while the root's leaf
// is a bound, not the exact statistic, it computes that one leaf (restat
// of that weigher alone) and settles. When the root is an exact leaf it
// is the candidates' extreme, since every other leaf is at most (at least,
// for the minimum) its block's. On the synthetic realistic stream, the
// host holding a weigher's largest value is a candidate for most
// requests, and a request refines ~20 leaves in all its refreshes, where
// its first refresh alone restated 98 blocks of 6 weighers. A request
// whose candidates lack the largest hosts of every block because its
// filters rule their hardware model out is seeded by the models of its
// candidates (modelbounds.go): it refined ~340 leaves before. At worst
// (candidates lacking the hosts that hold a weigher's largest values in
// every block, for their usage) every leaf is refined: restatAll's
// kernel work, with each block's setup paid once per weigher. Computing
// every bound left in one pass past a number of refinements was tried:
// with a cap of 64 or 256, paired runs of the realistic stream read 3%
// slower than without. So was computing every leaf left of one weigher,
// and rebuilding its two trees once, after its first 8, 24 or 48
// refinements in a refresh (78% of the refinements are in a weigher's
// refines of 64 leaves or more, of 98):
// the walks it saves are not where a refinement's time goes (paired
// 0.98, 1.02 and 1.00; the 24 slower on one CPU, session 24).
//
// Each later refresh walks down a tree only when its root moved off the
// exact leaf it was found at (rootLeaf), and not at all once no leaf
// holds a bound (inexact): a 1,000-instance batch's refreshes walked both
// trees of every weigher each time, and read 14% slower for it (paired
// runs) until they checked the leaf first.
//
// A leaf restat computes (a stale block, a refined one) is exact until its
// block is stale again; a bound stays a bound while its block is not
// stale, as an exact statistic stays exact: nothing in the block moved.

// lazyWeigher reports whether weigher w's leaves may be seeded with the
// summaries' bounds: the column weighers, whose raw values the shard's
// block summaries describe.
func lazyWeigher(w int) bool { return colWeigher(w) }

// startLazy marks the lazy weighers among the active ones.
func (rk *denseRanker) startLazy() {
	n := 0
	for _, w := range rk.act {
		if lazyWeigher(w) {
			n++
		}
	}
	if n == 0 {
		return
	}

	rk.lazy = make([]bool, len(rk.act))
	rk.exact = make([][]bool, len(rk.act))
	rk.rootLeaf = make([][2]int32, len(rk.act))
	for a := range rk.rootLeaf {
		rk.rootLeaf[a] = [2]int32{-1, -1}
	}
	flags := make([]bool, n*rk.nb)
	for i := range flags {
		flags[i] = true // no leaf holds a bound before seed
	}
	for a, w := range rk.act {
		if lazyWeigher(w) {
			rk.lazy[a] = true
			rk.exact[a], flags = flags[:rk.nb:rk.nb], flags[rk.nb:]
		}
	}
}

// seed sets the lazy weighers' leaves of block q to bounds of its
// candidates' extremes (seedExceptions then widens them by the
// exceptions): the block's summaries', or with hosts grouped by
// hypervisor model, the extremes of the models its candidates hold
// (modelbounds.go); a block without a candidate gets its exact, empty
// statistics. A column weigher's raw values are never NaN (integers,
// and ratios validated finite), but should a bound be NaN, the leaf is
// computed exactly: a bound must not be NaN (refineTree). It returns the
// change it makes to the count of leaves holding a bound, for the caller
// to add to rk.inexact.
func (rk *denseRanker) seed(q int) (inexact int32) {
	var present, all uint16 // the models of the block's candidates, and of its hosts
	if slices.ContainsFunc(rk.words(q), func(w uint64) bool { return w != 0 }) {
		present, all = 1, 1
		if rk.mg != nil {
			all = rk.mg.inBlock[q]
			present = all & rk.candModels
		}
	}
	var mb *modelBounds
	b, byModel := q%blocksPerShard, false
	if present != all {
		// Unless a model the candidates lack holds one of the block's
		// extremes, the summaries are the models' bounds.
		if mb = rk.modelBounds(q / blocksPerShard); (all&^present)&mb.anyExt[b] == 0 {
			mb = nil
		}
	}
	for a, w := range rk.act {
		if !rk.lazy[a] {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		if present != 0 {
			sum := rk.summary(w, q)
			lo, hi = sum.lo, sum.hi
			if mb != nil && !mb.holds(w, b, present, minvalZero(w)) {
				lo, hi = mb.bounds(w, b, rk.mg.nc, present)
				byModel = true
			}
			if lo != lo || hi != hi {
				inexact += rk.restat(q, a, false)
				continue
			}
		}
		rk.bLo[a][q], rk.bHi[a][q] = lo, hi
		if exact := present == 0; exact != rk.exact[a][q] {
			rk.exact[a][q] = exact
			if exact {
				inexact--
			} else {
				inexact++
			}
		}
	}
	if h := rk.opts.hooks; byModel && h != nil && h.onModelSeed != nil {
		h.onModelSeed()
	}
	return inexact
}

// seedExceptions widens the seeded bounds of the stale blocks by the
// raw values of their exceptions that are candidates.
func (rk *denseRanker) seedExceptions() {
	rk.eachException(func(id uint32) {
		q := int(id) / kernels.Block
		if !rk.isStale[q] || rk.in[id/64]&(1<<(id%64)) == 0 {
			return
		}
		for a, w := range rk.act {
			if rk.lazy[a] && !rk.exact[a][q] {
				x := rk.raw(w, id)
				rk.bLo[a][q], rk.bHi[a][q] = min(rk.bLo[a][q], x), max(rk.bHi[a][q], x)
			}
		}
	})
}

// refine makes the roots of lazy weigher act[a]'s trees exact and returns
// them (lo 0 for a weigher whose minval is 0): while a root's leaf is a
// bound, it computes that block's statistics and settles both trees.
func (rk *denseRanker) refine(a int) (lo, hi float64) {
	w := rk.act[a]
	hi = rk.refineTree(a, rk.hiTree[a], &rk.rootLeaf[a][1])
	if minvalZero(w) {
		return 0, hi
	}
	return rk.refineTree(a, rk.loTree[a], &rk.rootLeaf[a][0]), hi
}

// refineTree refines tree, lazy weigher act[a]'s min or max tree (both
// settled), until its root is an exact leaf's, and returns the root. hint
// is the leaf where it found the root last (-1: none): when that leaf is
// exact and still holds the root's value, the root is exact without a
// walk down (a batch's later instances mostly leave the root where it
// was).
func (rk *denseRanker) refineTree(a int, tree []float64, hint *int32) float64 {
	if q := *hint; q >= 0 && rk.exact[a][q] && math.Float64bits(tree[rk.leaves+int(q)]) == math.Float64bits(tree[1]) {
		return tree[1]
	}
	for {
		root := tree[1]
		if root != root {
			// A NaN is the extreme whatever the other leaves are (Go's min
			// and max), and seed leaves no NaN bound: a candidate holds it.
			return root
		}
		i := 1
		for i < rk.leaves {
			i *= 2
			if math.Float64bits(tree[i]) != math.Float64bits(tree[i/2]) {
				i++
			}
		}
		q := i - rk.leaves
		if q >= rk.nb {
			return root
		}
		if rk.exact[a][q] {
			*hint = int32(q)
			return root
		}
		if h := rk.opts.hooks; h != nil && h.onRefine != nil {
			h.onRefine()
		}
		rk.inexact.Add(rk.restat(q, a, false))
		rk.settleLeaf(a, q)
	}
}

// settleLeaf settles lazy weigher act[a]'s trees after leaf q changed.
func (rk *denseRanker) settleLeaf(a, q int) {
	qs := [1]int32{int32(q)}
	settle(rk.hiTree[a], rk.leaves, false, qs[:], true)
	if !minvalZero(rk.act[a]) {
		settle(rk.loTree[a], rk.leaves, false, qs[:], false)
	}
}
