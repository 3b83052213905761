package engine

import (
	"context"
	"math"
	"math/bits"
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
// operations in the baseline's order; the host's overlay usage, when it
// has one, is looked up once for all of its weighers.
func (rk *denseRanker) scoreOf(id uint32) float64 {
	sh, j := rk.v.snap().at(id)
	var r *hostRes
	if rk.v.overlayed(id) {
		r = rk.v.usageOf(id)
	}
	s := 0.0
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		s += float64(sh.mult[w].At(j) * ((rk.rawWith(w, id, r) - lo) / (hi - lo))) // rounded: no FMA
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
// bounds holds are read from its buffers (rankcache.go) rather than
// weighed, and a rescoring that weighs any shard is kept for the next: in
// place of the one it started from, or, when none matched, if its bounds
// missed recently already (scoreCache.admit). A kept rescoring weighs
// into buffers of its own, which the ranker reads in place too; it holds
// the entry whose buffers it reads until its next full rescoring or its
// release (hold). The exceptions' weights go to score and override the
// buffer's (setOverride): a batch's exceptions (the snapshot's delta
// among them) touch most shards, and copying each shard one touched cost
// more than the copies of the weights it saved. A moved host's shard is
// copied into score instead (refresh, ownShard).
func (rk *denseRanker) rescoreAll() {
	s := rk.v.snap()
	rk.scaledPlan()
	var cache *scoreCache
	var kept *scoreEntry
	var fresh [][]float64 // per shard, the buffer a kept rescoring weighed it into
	if !rk.scaled && !rk.opts.noScoreCache {
		cache = &lineageOf(s.info).scores
		kept = cache.lookup(rk)
		if kept != nil || cache.admit(rk) {
			fresh = make([][]float64, len(s.shards))
		}
	}
	rk.clearOverrides()
	// The shards read in place (lent), or copied into score: all copied
	// when the batch has more instances left than there are shards (its
	// placements would make most of them its own, shard by shard: a
	// 100-instance batch read 0.91-0.95x while they did), and a shard
	// holding more exceptions than a lent one keeps overrides for (a long
	// batch's overlay covers most shards).
	many := rk.exCount[:0]
	lend := fresh != nil && rk.v.instancesLeft() <= len(s.shards)
	if lend {
		many = slices.Grow(many, len(s.shards))[:len(s.shards)]
		clear(many)
		rk.eachException(func(id uint32) { many[id>>bitmap.ShardBits]++ })
	}
	rk.exCount = many
	var weighed, derived, sparse atomic.Int32
	_ = bitmap.ForShards(context.WithoutCancel(rk.v.ctx()), s.n, func(k int) error {
		sh := s.shards[k]
		own := rk.score[k*bitmap.ShardSize : k*bitmap.ShardSize+sh.hostCount()]
		out, lent := own, lend && many[k] <= maxOverrides
		inScore := false // out is own, weighed in place
		switch {
		case rk.scaled:
			rk.weighScaled(k, out)
		case kept.has(s, k):
			out = kept.scores[k].w
		case rk.weighSparse(k, own):
			lent, inScore = false, true // its candidates' weights only: not kept (store)
			sparse.Add(1)
		default:
			if fresh != nil {
				out = cache.buffer()[:sh.hostCount()]
				fresh[k] = out
			}
			if kept.derivedShard(rk, s, k, out) {
				derived.Add(1)
			} else {
				rk.weigh(k, out)
			}
			weighed.Add(1)
		}
		if fresh != nil && !lent && !inScore { // fresh is nil with scaled weights
			copy(own, out)
			out = own
		}
		rk.shardW[k], rk.lent[k] = out, lent
		for q := k * blocksPerShard; q < min((k+1)*blocksPerShard, rk.nb); q++ {
			if !rk.hasExceptions(q) {
				rk.best(q) // the others' once their exceptions are weighed
			}
		}
		return nil
	})
	held := kept
	if fresh != nil && weighed.Load() > 0 {
		held = cache.store(rk, s, kept, fresh)
		cache.release(kept)
	}
	rk.hold(cache, held)
	if h := rk.opts.hooks; h != nil && h.afterRescore != nil && !rk.scaled {
		all := weighed.Load() + sparse.Load()
		h.afterRescore(len(s.shards)-int(all), int(all-derived.Load()), int(derived.Load()))
	}
	rk.weighExceptions()
	for q := range rk.nb {
		if rk.hasExceptions(q) {
			rk.best(q)
		}
	}
	rk.bestAll, rk.bestQs = true, rk.bestQs[:0]
}

// maxSparseWeigh is the most candidates a shard may hold to be weighed
// host by host (weighHosts) rather than with the column kernels, which
// weigh all of its hosts: a request whose filters leave few hosts in a
// shard (a zone, a hard-affinity group's hosts, a capability of one
// hardware model) weighed its 4,096 hosts for them. On the realistic
// stream 24% of the shards a full rescoring weighed held fewer than 64
// candidates, 17% none.
const maxSparseWeigh = 64

// weighSparse weighs, when shard k holds at most maxSparseWeigh
// candidates, those candidates alone into own (the shard's part of
// score), its other hosts' weights set to -Inf (no candidate's: never
// read, but a defined value for the block kernels), and reports whether
// it did. Never with scaled weights, whose search reads the scaled
// weights only.
//
// A host that joins the candidates later is weighed when it does (it is
// a moved host: update), so every candidate's weight stays its own.
func (rk *denseRanker) weighSparse(k int, own []float64) bool {
	if rk.scaled || rk.opts.noSparseWeigh {
		return false
	}
	in := rk.in[k*bitmap.ShardSize/64 : min((k+1)*bitmap.ShardSize/64, len(rk.in))]
	n := 0
	for _, w := range in {
		if n += bits.OnesCount64(w); n > maxSparseWeigh {
			return false
		}
	}
	var buf [maxSparseWeigh]uint16
	js := buf[:0]
	for i, w := range in {
		for ; w != 0; w &= w - 1 {
			js = append(js, uint16(i*64+bits.TrailingZeros64(w)))
		}
	}
	for i := range own {
		own[i] = math.Inf(-1)
	}
	rk.weighHosts(k, js, own)
	if h := rk.opts.hooks; h != nil && h.onSparseWeigh != nil {
		h.onSparseWeigh()
	}
	return true
}

// hold makes e (of cache c; nil: none), whose reader the caller is, the
// entry whose buffers the ranker reads, and ends the ranker's read of the
// one it held.
func (rk *denseRanker) hold(c *scoreCache, e *scoreEntry) {
	if rk.held != nil {
		rk.heldBy.release(rk.held)
	}
	rk.held, rk.heldBy = e, c
}

// setOverride notes that host id's weight is score's, not its shard's
// kept rescoring's (when it is lent): the caller writes score[id]. Only
// the exceptions a full rescoring weighs are overridden, at most
// maxOverrides a shard (rescoreAll lends no shard holding more).
func (rk *denseRanker) setOverride(id uint32) {
	k := id >> bitmap.ShardBits
	if !rk.lent[k] {
		return
	}
	if rk.ov == nil {
		rk.ov = rk.v.set()
		rk.ovCount = make([]int32, len(rk.lent))
	}
	if rk.ov.Has(id) {
		return
	}
	rk.ov.Add(id)
	rk.ovIDs = append(rk.ovIDs, id)
	rk.ovCount[k]++
}

// maxOverrides is the most exceptions a shard may hold and be lent by a
// full rescoring, its exceptions' weights overriding the kept ones.
// A placement's host is not overridden: refresh copies its shard at once,
// since the search comes back to its block (overriding placements' hosts,
// a 1,000-instance batch read 0.91x the copies' speed in paired runs;
// copying at the 8th, 0.94x; at once, 0.98x).
const maxOverrides = 32

// ownShard makes shard k's weights score's: the lent ones copied, its
// overridden hosts' kept.
func (rk *denseRanker) ownShard(k int) {
	base := uint32(k * bitmap.ShardSize)
	own := rk.score[base : int(base)+len(rk.shardW[k])]
	ids := rk.ovIDs[:0]
	var keep [maxOverrides]struct {
		id uint32
		x  float64
	}
	n := 0
	for _, id := range rk.ovIDs {
		if id>>bitmap.ShardBits != uint32(k) {
			ids = append(ids, id)
			continue
		}
		keep[n].id, keep[n].x = id, rk.score[id]
		n++
		rk.ov.Remove(id)
	}
	copy(own, rk.shardW[k])
	for _, e := range keep[:n] {
		rk.score[e.id] = e.x
	}
	rk.ovIDs = ids
	if n > 0 {
		rk.ovCount[k] = 0
	}
	rk.shardW[k], rk.lent[k] = own, false
}

// clearOverrides forgets every override (a full rescoring sets every
// shard's weights).
func (rk *denseRanker) clearOverrides() {
	for _, id := range rk.ovIDs {
		rk.ov.Remove(id)
		rk.ovCount[id>>bitmap.ShardBits] = 0
	}
	rk.ovIDs = rk.ovIDs[:0]
}

// overrides returns the words of block q's overridden hosts (nil: none).
func (rk *denseRanker) overrides(q int) []uint64 {
	if len(rk.ovIDs) == 0 || !rk.lent[q/blocksPerShard] || rk.ovCount[q/blocksPerShard] == 0 {
		return nil
	}
	ws := rk.ov.Words()
	ws = ws[q*wordsPerBlock : min((q+1)*wordsPerBlock, len(ws))]
	for _, w := range ws {
		if w != 0 {
			return ws
		}
	}
	return nil
}

// weight is candidate id's weight as the ranker holds it.
func (rk *denseRanker) weight(id uint32) float64 {
	k := id >> bitmap.ShardBits
	if !rk.lent[k] || len(rk.ovIDs) > 0 && rk.ov.Has(id) {
		return rk.score[id]
	}
	return rk.shardW[k][id&(bitmap.ShardSize-1)]
}

// blockWeights is block q's weights as its shard's slice holds them (but
// for its overrides).
func (rk *denseRanker) blockWeights(q int) []float64 {
	w := rk.shardW[q/blocksPerShard]
	off := q % blocksPerShard * kernels.Block
	return w[off:min(off+kernels.Block, len(w))]
}

// weighExceptions sets the weights of the exceptions in play (the
// overlay's and sparse hosts) as weightOf does, host by host (scoreOf
// finds a host's overlay usage once for all of its weighers).
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
	for _, id := range ids {
		rk.setOverride(id)
	}
	if rk.scaled {
		for _, id := range ids {
			rk.score[id] = rk.scaledOf(id)
		}
		return
	}
	for _, id := range ids {
		rk.score[id] = rk.scoreOf(id)
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
				score[j] += float64(m * ((col.At(int(j)) - lo) / span))
			}
			continue
		}
		mult := &sh.mult[w]
		for _, j := range js {
			score[j] += float64(mult.At(int(j)) * ((col.At(int(j)) - lo) / span))
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
// weighHosts and weighTerms follow the same rule, through weighs. The
// first pass sets the weights (kernels.SetScalar, SetCoded: 0 + its
// term, Nova's weights starting at 0.0) rather than adding to cleared
// ones: a pass less over the shard's weights, which a kept rescoring
// weighs into recycled buffers (on the realistic stream, clearing them
// was 4% of the workers' time).
func (rk *denseRanker) weigh(k int, score []float64) {
	s := rk.v.snap()
	sh := s.shards[k]
	first := true // the first weigher sets the weights (0 + its term)
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		switch {
		case !rk.weighs(a):
			continue
		case s.mults.uniform(w) && first:
			kernels.SetScalar(score, rk.col(k, w), s.mults.base[w], lo, hi-lo)
		case s.mults.uniform(w):
			kernels.AccumulateScalar(score, rk.col(k, w), s.mults.base[w], lo, hi-lo)
		case first:
			kernels.SetCoded(score, rk.col(k, w), &sh.mult[w], lo, hi-lo)
		default:
			kernels.AccumulateCoded(score, rk.col(k, w), &sh.mult[w], lo, hi-lo)
		}
		first = false
	}
	if first {
		clear(score) // no weigher contributes: every weight is 0
	}
}

// best recomputes block q's largest candidate weight.
func (rk *denseRanker) best(q int) {
	words, ov := rk.words(q), rk.overrides(q)
	if ov == nil {
		kernels.MaxMasked(rk.blockWeights(q), words, rk.bBest[q:q+1])
		return
	}
	var rest [wordsPerBlock]uint64
	for i, w := range words {
		rest[i] = w &^ ov[i]
	}
	kernels.MaxMasked(rk.blockWeights(q), rest[:len(words)], rk.bBest[q:q+1])
	for i, w := range words {
		for t := w & ov[i]; t != 0; t &= t - 1 {
			rk.bBest[q] = max(rk.bBest[q], rk.score[q*kernels.Block+i*64+bits.TrailingZeros64(t)])
		}
	}
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
		if h := rk.opts.hooks; h != nil && h.onSparseRefresh != nil {
			h.onSparseRefresh()
		}
	}
	if changed || !rk.valid {
		rk.rescoreAll()
		rk.valid = true
	} else {
		for _, id := range rk.moved {
			if rk.v.alive().Has(id) {
				// A placement's host: the search comes back to its block,
				// so its shard becomes score's rather than overridden.
				if k := int(id >> bitmap.ShardBits); rk.lent[k] {
					rk.ownShard(k)
				}
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
	if h := rk.opts.hooks; h != nil && h.afterRefresh != nil && !requery {
		h.afterRefresh(rk)
	}
}
