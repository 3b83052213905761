package engine

import (
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// The dense ranker's block statistics: per block of kernels.Block hosts
// and per weigher, the minimum and maximum raw value over the block's
// candidates (the leaves of the trees, trees.go), recomputed for the
// blocks marked stale, from the shard's block summaries where they stand
// for the candidates, else with a masked kernel, then from the overlay for
// the hosts the batch consumed on. On a ranker's first refresh the column
// weighers' leaves are seeded with bounds instead, which bounds refines
// (lazybounds.go).

// markStale marks block q for restat.
func (rk *denseRanker) markStale(q int) {
	if !rk.isStale[q] {
		rk.isStale[q] = true
		rk.stale = append(rk.stale, int32(q))
	}
}

// block returns block q's shard, the offset of its first host in the shard
// and its number of hosts.
func (rk *denseRanker) block(q int) (sh *shard, off, m int) {
	const perShard = bitmap.ShardSize / kernels.Block
	sh = rk.v.snap().shards[q/perShard]
	off = (q % perShard) * kernels.Block
	return sh, off, min(kernels.Block, sh.hostCount()-off)
}

// words returns block q's candidate words.
func (rk *denseRanker) words(q int) []uint64 {
	return rk.in[q*wordsPerBlock : min((q+1)*wordsPerBlock, len(rk.in))]
}

// restat recomputes block q's statistics: from the block's summaries
// (rk.summary) when its candidates are all of its hosts, its raw values
// are one value or hosts among those holding its largest (and smallest)
// values are candidates, else the kernel over the candidates whose
// columns hold their raw values; then the exceptions (the overlay's and
// sparse hosts), one by one. It computes them for weigher act[only]
// alone when only >= 0, else for every weigher but, when skipLazy, the
// lazy ones (lazybounds.go); a lazy weigher's statistics it computes are
// exact. It returns the change it makes to the count of leaves holding a
// bound (0 or less), for the caller to add to rk.inexact.
func (rk *denseRanker) restat(q, only int, skipLazy bool) (inexact int32) {
	_, off, m := rk.block(q)
	k := q / blocksPerShard
	words := rk.words(q)
	var clean, exBuf [wordsPerBlock]uint64
	ex := rk.exceptionWords(q, &exBuf)
	for i, w := range words {
		ex[i] &= w
		clean[i] = w &^ ex[i]
	}
	words = clean[:len(words)]
	some, full := false, true
	for i, w := range words {
		some = some || w != 0
		full = full && w == fullWord(m-i*64)
	}
	// The block's exceptions, each looked up once in the overlay for
	// every weigher.
	var idBuf [8]uint32
	var resBuf [8]*hostRes
	exIDs, exRes := idBuf[:0], resBuf[:0]
	for i, t := range ex {
		for ; t != 0; t &= t - 1 {
			id := uint32(q*kernels.Block + i*64 + bits.TrailingZeros64(t))
			var r *hostRes
			if rk.v.overlaid() && rk.v.overlayWords()[id/64]&(1<<(id%64)) != 0 {
				r = rk.v.usageOf(id)
			}
			exIDs, exRes = append(exIDs, id), append(exRes, r)
		}
	}
	for a, w := range rk.act {
		lazy := rk.lazy != nil && rk.lazy[a]
		if only >= 0 && a != only || skipLazy && lazy {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		// A weigher whose minval is 0 takes 0 as its lower bound (bounds):
		// only its maximum is needed, so only the host holding the
		// block's largest value need be a candidate.
		hiOnly := minvalZero(w)
		switch {
		case !some:
		case sparseWeigher(w):
			lo, hi = sparseDefault(w), sparseDefault(w)
		default:
			sum := rk.summary(w, q)
			if full || sum.cnst {
				// Every host is a candidate, or all hold one value.
				lo, hi = sum.lo, sum.hi
				break
			}
			// The first candidates among the block's largest and smallest
			// values hold the candidates' extremes (for hiOnly, only the
			// largest is needed).
			if x, ok := rk.firstValue(sum.hi, &sum.top, sum.nTop, words, q, w); ok {
				if hiOnly {
					lo, hi = sum.lo, x
					break
				}
				if y, ok := rk.firstValue(sum.lo, &sum.bottom, sum.nBot, words, q, w); ok {
					lo, hi = y, x
					break
				}
			}
			if w == wMetrics && !rk.opts.noMetricsKept {
				kept := rk.metrics.extremes(q, &clean, words, rk.col(k, w).Slice(off, off+m), rk.bLo[a][q:q+1], rk.bHi[a][q:q+1])
				if h := rk.opts.hooks; kept && h != nil && h.onMetricsKept != nil {
					h.onMetricsKept()
				}
			} else {
				kernels.MinMaxMasked(rk.col(k, w).Slice(off, off+m), words, rk.bLo[a][q:q+1], rk.bHi[a][q:q+1])
			}
			lo, hi = rk.bLo[a][q], rk.bHi[a][q]
		}
		for i, id := range exIDs {
			x := rk.rawWith(w, id, exRes[i])
			lo, hi = min(lo, x), max(hi, x)
		}
		rk.bLo[a][q], rk.bHi[a][q] = lo, hi
		if lazy && !rk.exact[a][q] {
			rk.exact[a][q] = true
			inexact--
		}
	}
	return inexact
}

// firstValue returns weigher w's raw value of the first host of ats[:n]
// (offsets in block q) that is a candidate of words, or false when none
// is; ext is the value of ats[0] (the block's extreme), returned without
// reading the columns.
func (rk *denseRanker) firstValue(ext float64, ats *[extremes]uint16, n uint8, words []uint64, q, w int) (float64, bool) {
	switch i := firstIn(ats, n, words); i {
	case -1:
		return 0, false
	case 0:
		return ext, true
	default:
		id := uint32(q*kernels.Block + int(ats[i]))
		if w == wMetrics {
			return rk.metrics.raw[id], true
		}
		// The host's raw value from its columns (not an exception: the
		// overlay's hosts are not in words), as rawWith reads it.
		sh, j := rk.v.snap().at(id)
		u := sh.usageAt(j)
		return sh.rawRes(w, j, &u), true
	}
}

// fullWord is the word of a block whose first n hosts (from this word on)
// are all candidates.
func fullWord(n int) uint64 {
	if n >= 64 {
		return math.MaxUint64
	}
	return 1<<n - 1
}

// restatAll recomputes the statistics of the stale blocks, those of
// different shards in parallel when they are many (the first instance).
// On the ranker's first refresh, the lazy weighers' leaves are seeded
// with bounds instead (seed), which bounds refines where it needs to; a
// warm start's later refreshes, whose leaves a placement or a new
// snapshot made stale, compute them (a seeded leaf costs a refinement
// on every refresh whose root it reaches).
func (rk *denseRanker) restatAll() {
	if len(rk.stale) < rk.nb/2 {
		n := int32(0)
		for _, q := range rk.stale {
			n += rk.restat(int(q), -1, false)
		}
		rk.inexact.Add(n)
		return
	}
	seed := rk.lazy != nil && !rk.valid
	if seed {
		rk.startSeeds()
	}
	if seed && !slices.Contains(rk.lazy, false) {
		// Only lazy weighers: seeding reads a summary per block and
		// weigher, too little to share out.
		n := int32(0)
		for _, q := range rk.stale {
			n += rk.seed(int(q))
		}
		rk.inexact.Add(n)
		rk.seedExceptions()
		return
	}
	// Each shard's blocks are restated by one goroutine (restat writes
	// only its block's entries and reads the batch); the background
	// context never stops a shard, so every stale block is done. Each
	// shard adds its change to the count of inexact leaves once: an
	// atomic add per leaf, from both processors when the helpers share
	// the shards out, was 4% of a lone worker's time on the realistic
	// stream.
	_ = bitmap.ForShards(context.WithoutCancel(rk.v.ctx()), rk.v.snap().n, func(k int) error {
		n := int32(0)
		for q := k * blocksPerShard; q < min((k+1)*blocksPerShard, rk.nb); q++ {
			if rk.isStale[q] {
				if seed {
					n += rk.seed(q)
				}
				n += rk.restat(q, -1, seed)
			}
		}
		if n != 0 {
			rk.inexact.Add(n)
		}
		return nil
	})
	if seed {
		rk.seedExceptions()
	}
}

// bounds brings the trees up to date with the stale blocks' statistics
// (rebuilding them when many are stale), takes lo/hi from their roots and
// reports whether any moved, and whether only the sparse hosts' weights
// moved with them (sparseOnly): every weigher whose bounds moved is the
// sparse one, and what it adds to a host holding its default value
// (sparseTerm) is what it added before, so that every other host's
// weight is what it was.
func (rk *denseRanker) bounds() (changed, sparseOnly bool) {
	rebuild := len(rk.stale) > rk.nb/8
	sparseOnly = true
	for a, w := range rk.act {
		var lo float64
		if minvalZero(w) {
			lo = 0
		} else {
			lo = settle(rk.loTree[a], rk.leaves, rebuild, rk.stale, false)
		}
		hi := settle(rk.hiTree[a], rk.leaves, rebuild, rk.stale, true)
		if rk.lazy != nil && rk.lazy[a] && rk.inexact.Load() > 0 {
			lo, hi = rk.refine(a)
		}
		if math.Float64bits(lo) != math.Float64bits(rk.lo[a]) || math.Float64bits(hi) != math.Float64bits(rk.hi[a]) {
			if !sparseWeigher(w) || math.Float64bits(sparseTerm(w, lo, hi)) != math.Float64bits(sparseTerm(w, rk.lo[a], rk.hi[a])) {
				sparseOnly = false
			}
			rk.lo[a], rk.hi[a], changed = lo, hi, true
		}
	}
	return changed, changed && sparseOnly
}

// sparseTerm is what sparse weigher w's normalised value is, under bounds
// lo and hi, on a host holding its default raw value: (d-lo)/(hi-lo), the
// host's multiplier times which is added to its weight; +0 where the
// weigher adds nothing (all raw values equal, or the default at the lower
// bound: a multiplier times a zero adds a signed zero, which leaves a
// weight as it is).
func sparseTerm(w int, lo, hi float64) float64 {
	if lo == hi {
		return 0
	}
	q := (sparseDefault(w) - lo) / (hi - lo)
	if q == 0 {
		return 0
	}
	return q
}
