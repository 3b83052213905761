package engine

import (
	"github.com/placer/placer/bitmap"
)

// ranking is what the placement loop asks of a ranker: the best
// candidates of each instance, by Nova's weights. Two implement it: the
// baseline (baseline.go: every candidate weighed afresh for every
// instance, the literal Nova loop) and the dense ranker (dense.go:
// host-indexed columns under a candidate mask). Each reads its batch
// through a rankView; both make the same choices, bit for bit.
type ranking interface {
	// update notes the hosts that left play and those the last placement
	// changed (dirty).
	update(dirty []uint32)
	// check raises what Nova's weighers would raise for this instance.
	check() error
	// top returns the k best candidates satisfying keep (nil: all), and
	// the ties at the top weight when wantTies. cell, when not -1, says
	// that keep accepts only hosts of that cell (a ranker may skip the
	// hosts of other cells without asking keep).
	top(k int, wantTies bool, keep func(uint32) bool, cell int32) (best, ties []scored)
	// size is the number of candidates.
	size() int
	// release gives back to sc what the ranker holds of it beyond the
	// sets and columns it took through its view (the batch gives those
	// back itself), restoring sc's invariants.
	release(sc *scratch)
	// holds reports whether the ranker's state lives in set st: a warm
	// batch keeps such sets from one request to the next.
	holds(st *bitmap.Set) bool
	// carries reports whether the ranker may serve a Scheduler worker's
	// next alike request (warm.go): its state describes the batch's hosts
	// in play on its current snapshot and overlay, and update alone
	// brings it up to date with any change of them.
	carries() bool
}

// rankOptions choose a batch's ranker and let tests watch it. The zero
// value is what PlaceBatch and the Scheduler use; tests set them per
// batch (export_test.go), so that batches with different options may
// run at once.
type rankOptions struct {
	// baseline ranks with the baseline ranker, whatever the weighers.
	baseline bool
	// scaled turns the dense ranker's scaled weights on (1) or off (-1);
	// 0 leaves them where they pay (useScaledWeights).
	scaled int8
	// hooks, when set, are called as the rankers work.
	hooks *rankHooks
	// noScoreCache keeps the dense ranker from the kept full rescorings
	// (rankcache.go): every full rescoring weighs every shard.
	noScoreCache bool
	// noFitCache keeps the batch's resource filters from the verdicts
	// kept across batches (fitcache.go): every pass judges its hosts.
	noFitCache bool
	// noModelSeeds seeds the lazy bounds from the block summaries alone,
	// not by hypervisor model (modelbounds.go).
	noModelSeeds bool
	// noMetricsKept runs MetricsWeigher's block kernel every time, not
	// reading the extremes its lineage kept (metricsCol.kept).
	noMetricsKept bool
	// noSparseWeigh makes a full rescoring weigh every shard it weighs
	// with the column kernels, however few candidates it holds
	// (weighSparse).
	noSparseWeigh bool
}

// rankHooks let tests watch the rankers of a batch; a nil hook is not
// called.
type rankHooks struct {
	// onDense is called when the batch starts its dense ranker.
	onDense func()
	// afterRefresh is called with the dense ranker at the end of every
	// refresh that had something to bring up to date (not when the
	// alternates of a one-instance batch rank again on instance 0's
	// weights, from before its consumption, as Nova does).
	afterRefresh func(rk *denseRanker)
	// afterSearchBest is called with what the dense ranker's searchBest
	// offered c, to compare with searchScan's.
	afterSearchBest func(rk *denseRanker, c *collector, wantTies bool)
	// afterRescore is called after every full rescoring without scaled
	// weights with the number of shards copied from a kept rescoring, the
	// number weighed and the number derived from a kept rescoring of
	// their parent (copied, then their changed hosts weighed).
	afterRescore func(copied, weighed, derived int)
	// afterFitPass is called after every resource pass that could use
	// the verdicts kept across batches, with whether it found them.
	afterFitPass func(kept bool)
	// onSparseRefresh is called when a refresh whose bounds moved weighed
	// only the sparse hosts again (the others' weights did not move).
	onSparseRefresh func()
	// onRefine is called when bounds computes a lazy weigher's leaf
	// (lazybounds.go).
	onRefine func()
	// onModelSeed is called when seed bounds a block by the models its
	// candidates hold, fewer than the block's (modelbounds.go); from the
	// shards' goroutines, in parallel.
	onModelSeed func()
	// onMetricsKept is called when restat reads a block's MetricsWeigher
	// extremes from its lineage's column (metricsCol.kept), not the
	// kernel's; from the shards' goroutines.
	onMetricsKept func()
	// onSparseWeigh is called when a full rescoring weighs a shard's
	// candidates host by host (weighSparse), from the shards' goroutines.
	onSparseWeigh func()
}

// contributes reports whether weigher w can add anything but 0 to a weight
// in this batch: leaving the others out changes no weight, bit for bit
// (x + 0 == x), and saves their passes.
func (b *batch) contributes(w int) bool {
	if b.s.mults.zero(w) {
		return false
	}
	switch w {
	case wCrossCell:
		return false // 0 for every host of a boot
	case wMetrics:
		return len(b.cfg.MetricsWeightSetting) > 0
	case wSoftAffinity:
		return b.group != nil && b.group.policy == PolicySoftAffinity
	case wSoftAntiAffinity:
		return b.group != nil && b.group.policy == PolicySoftAntiAffinity
	}
	return true
}

// rank returns the best host_subset_size candidates of the current
// instance (and the ties at the top weight when shuffling), after
// starting the batch's ranker on instance 0's candidates or bringing it up
// to date with the hosts the previous placement changed.
func (b *batch) rank(dirty []uint32) (best, ties []scored, err error) {
	if b.rk == nil {
		if err := b.newRanker(); err != nil {
			return nil, nil, err
		}
		b.aliveSynced() // the ranker starts from alive as it is
	} else {
		b.rk.update(dirty)
	}
	b.candidates = b.rk.size()
	if err := b.rk.check(); err != nil {
		return nil, nil, err
	}
	best, ties = b.rk.top(b.cfg.HostSubsetSize, b.cfg.ShuffleBestSameWeighedHosts, nil, -1)
	return best, ties, nil
}

// newRanker starts the batch's ranking on instance 0's candidates: with
// the baseline when its options ask for it, else with the dense ranker.
func (b *batch) newRanker() error {
	v := rankView{b}
	if b.opts.baseline {
		rk := &baselineRanker{v: v}
		b.rk = rk
		return rk.weigh()
	}
	var act []int
	trackMissing := false
	for _, w := range b.weighers {
		if w == wMetrics && len(b.cfg.MetricsWeightSetting) > 0 && b.cfg.MetricsRequired {
			trackMissing = true // Nova raises even when the multiplier is 0
		}
		if b.contributes(w) {
			act = append(act, w)
		}
	}
	if h := b.opts.hooks; h != nil && h.onDense != nil {
		h.onDense()
	}
	b.rk = newDenseRanker(v, act, &b.opts, trackMissing)
	return nil
}
