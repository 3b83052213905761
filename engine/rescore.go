package engine

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// The dense ranker's rescoring: every host's weight under Nova's bounds,
// shard by shard with the column kernels when a bound moved (rescoreAll),
// else only the hosts a placement changed, and the soft group's hosts
// when only its weigher's bounds moved (refresh); then each block's best
// weight.

// weightOf is what score holds for candidate id: its scaled weight or
// its weight.
func (rk *denseRanker) weightOf(id uint32) float64 {
	if rk.scaled {
		return rk.scaledOf(id)
	}
	return rk.scoreOf(id)
}

// scoreOf is candidate id's weight under lo/hi, with the baseline's
// operations in the baseline's order.
func (rk *denseRanker) scoreOf(id uint32) float64 {
	sh, j := rk.v.snap().at(id)
	s := 0.0
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		s += sh.mult[w].At(j) * ((rk.raw(w, id) - lo) / (hi - lo))
	}
	return s
}

// rescoreAll recomputes every weight with the column kernels, then those
// of the exceptions in play (the overlay's and sparse hosts), and every
// block's best: shard by shard, in parallel (each writes only its own
// hosts and blocks), but for the blocks holding an exception, whose best
// waits for the exceptions' weights.
//
// Without scaled weights, the shards a kept full rescoring under the same
// bounds read are copied from it (rankcache.go) rather than weighed, and
// a rescoring that weighed any shard is kept for the next: in place of
// the one it started from, or, when none matched, if its bounds missed
// recently already (scoreCache.admit).
func (rk *denseRanker) rescoreAll() {
	s := rk.v.snap()
	rk.scaledPlan()
	var cache *scoreCache
	var kept *scoreEntry
	if !rk.scaled && !rk.noCache {
		cache = &lineageOf(s.info).scores
		kept = cache.lookup(rk)
		defer cache.release(kept)
	}
	var weighed, derived atomic.Int32
	_ = bitmap.ForShards(context.WithoutCancel(rk.v.ctx()), s.n, func(k int) error {
		sh := s.shards[k]
		score := rk.score[k*bitmap.ShardSize : k*bitmap.ShardSize+sh.hostCount()]
		switch {
		case rk.scaled:
			rk.weighScaled(k, score)
		case kept.cachedShard(s, k, score):
		case kept.derivedShard(rk, s, k, score):
			weighed.Add(1) // a weight of its own: the new entry keeps it
			derived.Add(1)
		default:
			rk.weigh(k, score)
			weighed.Add(1)
		}
		for q := k * blocksPerShard; q < min((k+1)*blocksPerShard, rk.nb); q++ {
			if !rk.hasExceptions(q) {
				rk.best(q) // the others' once their exceptions are weighed
			}
		}
		return nil
	})
	if cache != nil && weighed.Load() > 0 && (kept != nil || cache.admit(rk)) {
		cache.store(rk, s, kept)
	}
	if h := rk.hooks; h != nil && h.afterRescore != nil && !rk.scaled {
		h.afterRescore(len(s.shards)-int(weighed.Load()), int(weighed.Load()-derived.Load()), int(derived.Load()))
	}
	rk.weighExceptions()
	for q := range rk.nb {
		if rk.hasExceptions(q) {
			rk.best(q)
		}
	}
	rk.bestAll, rk.bestQs = true, rk.bestQs[:0]
}

// weighExceptions sets the weights of the exceptions in play (the
// overlay's and sparse hosts) as weightOf does, the exact ones weigher by
// weigher: each host's terms in scoreOf's order.
func (rk *denseRanker) weighExceptions() {
	ids := rk.exIDs[:0]
	for _, id := range rk.v.overlayIDs() {
		if rk.v.alive().Has(id) {
			ids = append(ids, id)
		}
	}
	for _, id := range rk.sparseIDs {
		if rk.v.alive().Has(id) && !rk.v.overlayed(id) {
			ids = append(ids, id)
		}
	}
	rk.exIDs = ids
	if rk.scaled {
		for _, id := range ids {
			rk.score[id] = rk.scaledOf(id)
		}
		return
	}
	s := rk.v.snap()
	for _, id := range ids {
		rk.score[id] = 0
	}
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		for _, id := range ids {
			sh, j := s.at(id)
			rk.score[id] += sh.mult[w].At(j) * ((rk.raw(w, id) - lo) / (hi - lo))
		}
	}
}

// hasExceptions reports whether block q holds an exception (an overlay's
// or sparse host), whose weight the kernels do not compute.
func (rk *denseRanker) hasExceptions(q int) bool {
	var buf [wordsPerBlock]uint64
	return slices.ContainsFunc(rk.exceptionWords(q, &buf), func(w uint64) bool { return w != 0 })
}

// weighHosts sets the weights of shard k's hosts js (offsets) in score to
// what weigh writes for them: the same terms, weigher by weigher, each
// computed as the kernels compute it (their portable form, which every
// kernel path matches bit for bit), added in the same order to 0.
func (rk *denseRanker) weighHosts(k int, js []uint16, score []float64) {
	s := rk.v.snap()
	sh := s.shards[k]
	for _, j := range js {
		score[j] = 0
	}
	for a, w := range rk.act {
		if !rk.weighs(a) {
			continue
		}
		lo, span, col := rk.lo[a], rk.hi[a]-rk.lo[a], rk.col(k, w)
		if s.mults.uniform(w) {
			m := s.mults.base[w]
			for _, j := range js {
				score[j] += m * ((col.At(int(j)) - lo) / span)
			}
			continue
		}
		mult := &sh.mult[w]
		for _, j := range js {
			score[j] += mult.At(int(j)) * ((col.At(int(j)) - lo) / span)
		}
	}
}

// weighs reports whether weigh runs weigher act[a]'s pass: not when its
// values are all equal (it adds nothing), nor for a sparse weigher whose
// term on the hosts holding its default is 0 (sparseTerm; its other
// hosts, exceptions, are weighed one by one).
func (rk *denseRanker) weighs(a int) bool {
	lo, hi := rk.lo[a], rk.hi[a]
	w := rk.act[a]
	return lo != hi && !(sparseWeigher(w) && sparseTerm(w, lo, hi) == 0)
}

// weigh sets shard k's hosts' weights (score) with Nova's operations,
// for the weighers whose pass it runs (weighs). A sparse weigher whose
// term on the hosts holding its default is 0 (sparseTerm: its default at
// its lower bound) adds 0 to every host but the sparse ones: its pass is
// left out (a weight is never -0, so adding a zero leaves it as it is).
// weighHosts and weighTerms follow the same rule, through weighs.
func (rk *denseRanker) weigh(k int, score []float64) {
	s := rk.v.snap()
	sh := s.shards[k]
	clear(score)
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		switch {
		case !rk.weighs(a):
		case s.mults.uniform(w):
			kernels.AccumulateScalar(score, rk.col(k, w), s.mults.base[w], lo, hi-lo)
		default:
			kernels.AccumulateCoded(score, rk.col(k, w), &sh.mult[w], lo, hi-lo)
		}
	}
}

// best recomputes block q's largest candidate weight.
func (rk *denseRanker) best(q int) {
	off := q * kernels.Block
	kernels.MaxMasked(rk.score[off:min(off+kernels.Block, rk.v.snap().n)], rk.words(q), rk.bBest[q:q+1])
}

// refresh brings the stale blocks, the bounds and the weights up to date.
func (rk *denseRanker) refresh() {
	requery := rk.valid && len(rk.stale) == 0 && len(rk.moved) == 0
	rk.restatAll()
	changed, sparseOnly := rk.bounds()
	if changed && sparseOnly && rk.valid && !rk.scaled {
		// Only the sparse hosts' weights moved with the bounds: weigh
		// them again, as moved hosts, and keep every other weight.
		for _, id := range rk.sparseIDs {
			if rk.v.alive().Has(id) {
				rk.moved = append(rk.moved, id)
				rk.markStale(int(id) / kernels.Block) // its best, not its statistics, moved
			}
		}
		changed = false
		if h := rk.hooks; h != nil && h.onSparseRefresh != nil {
			h.onSparseRefresh()
		}
	}
	if changed || !rk.valid {
		rk.rescoreAll()
		rk.valid = true
	} else {
		for _, id := range rk.moved {
			if rk.v.alive().Has(id) {
				rk.score[id] = rk.weightOf(id)
			}
		}
		for _, q := range rk.stale {
			rk.best(int(q))
		}
		if rk.bestQs = append(rk.bestQs, rk.stale...); len(rk.bestQs) > rk.nb {
			rk.bestAll, rk.bestQs = true, rk.bestQs[:0]
		}
	}
	for _, q := range rk.stale {
		rk.isStale[q] = false
	}
	rk.stale, rk.moved = rk.stale[:0], rk.moved[:0]
	if h := rk.hooks; h != nil && h.afterRefresh != nil && !requery {
		h.afterRefresh(rk)
	}
}
