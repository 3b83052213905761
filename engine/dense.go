package engine

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// denseRanker ranks the candidates of a batch over host-indexed columns:
// the shards' raw columns (shard.rawCol) and multipliers, MetricsWeigher's
// column and the soft (anti-)affinity weighers' sparse values
// (denseraw.go), read in place with the candidate set as a mask, so that
// nothing is gathered per candidate.
//
// It works on blocks of kernels.Block hosts (eight words of the candidate
// set): per block and weigher, the minimum and maximum raw value over the
// block's candidates (an AVX-512 masked kernel, or the shard's block
// summary when every host of the block is a candidate or all share one
// value); Nova's normalisation bounds are the minimum and maximum of
// those. A full rescoring accumulates every host's weight with the column
// kernels, weigher by weigher, in the baseline's order (hosts out of play
// get a weight that is never read), then takes each block's largest
// candidate weight; the first instance's statistics and every full
// rescoring run shard by shard in parallel. The best candidates are then
// found in the block with the largest weight and in the blocks that can
// still rank. The per-block statistics and bests are the leaves of
// tournament trees (min and max per weigher, max of the bests), so that
// after a placement the bounds and the best block cost a walk up from the
// few blocks that changed, not a pass over every block. (Skipping blocks
// by an upper bound on their weights, from their extreme raw values, does
// not pay: on heterogeneous clouds nearly every block holds a host near
// the top of every weigher, so the bound rarely falls below the k-th
// best.)
//
// After a placement only the hosts it changed and the blocks whose
// candidates changed are recomputed; when no normalisation bound moves,
// every other weight stays what it was; when only a soft group's moves
// and its term on the hosts without a member stays what it was (bounds),
// the group's hosts are weighed again too (and their blocks' bests), and
// every other weight stays what it was. Hosts the
// batch consumed on (the overlay) are read from it, never from the
// snapshot's columns, and the hosts holding a member of a soft group from
// the group's counts. Every weight is computed with the baseline's
// operations in its order (weigh.go), so it is bit for bit the
// baseline's.
//
// Its parts, one file each: the block statistics (blockstats.go), the
// tournament trees over them (trees.go), the scaled weights (scaled.go),
// the rescoring (rescore.go) and the top-k search (search.go). It reads
// its batch through a rankView.
//
// Invariants: in holds the candidate words the statistics describe; for
// every block q not in stale, bLo[a][q]/bHi[a][q] are the minimum/maximum
// of weigher act[a]'s raw value over q's candidates on the batch's state
// (+Inf/-Inf without candidates), but for a weigher whose minval is 0,
// whose bLo is at most that minimum (never read: its lo is 0), and for a
// lazy weigher's block that is not exact, at most (bLo) and at least
// (bHi) those; lo/hi are Nova's bounds from them (lo 0 for the weighers
// whose minval is 0), the roots of the trees after bounds has refined
// them;
// while valid, weight(id) (score[id], or its shard's kept rescoring's
// when lent and not overridden) is candidate id's weight under lo/hi for
// every candidate not in moved, and
// bBest[q] (q not stale) the largest of q's candidates' weights (-Inf
// without any).
type denseRanker struct {
	v     rankView
	act   []int
	nb    int
	in    []uint64 // inSet's words
	inSet *bitmap.Set
	count int

	// metrics is the lineage's MetricsWeigher column (nil unless it
	// contributes or its missing metrics raise: trackMissing).
	metrics      *metricsCol
	trackMissing bool
	// soft is the contributing sparse weigher (-1: none); sparse and
	// sparseIDs the hosts whose raw value for it is not the default.
	soft      int
	sparse    *bitmap.Set
	sparseIDs []uint32

	lo, hi   []float64
	bLo, bHi [][]float64 // the leaves of loTree, hiTree
	// loTree[a] and hiTree[a] are tournament trees over the blocks: node i
	// (1 <= i < leaves) holds the min (max) of nodes 2i and 2i+1, leaf
	// leaves+q block q's bLo (bHi), leaves past nb +Inf (-Inf). Their
	// roots are Nova's bounds, kept up to date by bounds (the min tree of
	// a weigher whose minval is 0 is not: its lo is 0).
	loTree, hiTree [][]float64
	leaves         int
	// lazy[a] says that weigher act[a]'s leaves may be bounds rather than
	// the statistics (lazybounds.go): a leaf q with exact[a][q] false holds
	// at least (bHi) or at most (bLo) the statistic, from the block's
	// summaries. nil when no weigher is lazy.
	lazy     []bool
	exact    [][]bool
	inexact  atomic.Int32 // lazy leaves holding a bound (restatAll's shards add their changes in parallel)
	rootLeaf [][2]int32   // per lazy weigher and tree (lo, hi), the exact leaf refine last found the root at
	// mg is the snapshot's hosts grouped by hypervisor model for seed
	// (nil: not grouped), candModels the models of the candidates it
	// seeds, mbs per shard the summaries by model seed read last (nil:
	// none yet; modelbounds.go).
	mg         *modelGroups
	candModels uint16
	mbs        []*modelBounds
	// bestTree is the max tree over bBest (its leaves; padding -Inf), for
	// search. bestAll says every leaf may have changed since it was last
	// settled, else bestQs lists the blocks whose leaf may have.
	bestTree []float64
	bestAll  bool
	bestQs   []int32
	score    []float64
	// shardW[k] is shard k's weights: its part of score, or with lent[k]
	// a buffer of held, the kept rescoring the ranker reads (of cache
	// heldBy, the ranker one of its readers; nil: none), but for the
	// hosts in ov (listed in ovIDs), whose weights are score's.
	shardW  [][]float64
	lent    []bool
	held    *scoreEntry
	heldBy  *scoreCache
	ov      *bitmap.Set
	ovIDs   []uint32
	ovCount []int32 // per shard, its hosts in ov
	bBest   []float64
	stale   []int32
	isStale []bool
	moved   []uint32
	exIDs   []uint32 // weighExceptions' scratch
	exCount []int32  // rescoreAll's scratch: exceptions per shard
	order   []int32
	valid   bool

	// scaled is true when score holds scaled weights (scaledPlan) rather
	// than Nova's: within eps of each candidate's weight shifted by one
	// constant. cols and scale are the base terms' columns and factors
	// (weighers with a base multiplier of 0 have none); terms, tlo and inv
	// the weighers, their lo and 1/(hi-lo), for the hosts whose multiplier
	// differs from the base.
	scaled   bool
	scaledOK bool // scaled weights may be used (rankOptions.scaled)
	eps      float64
	cols     []int
	scale    []float64
	terms    []int
	tlo      []float64
	inv      []float64
	tbase    []float64

	// opts are the batch's options as the ranker was made with them; it
	// reads their switches (noScoreCache, noModelSeeds, noMetricsKept,
	// noSparseWeigh) and calls their hooks (nil in production).
	opts rankOptions
}

// wordsPerBlock is the number of candidate words of a block.
const wordsPerBlock = kernels.Block / 64

// newDenseRanker starts a dense ranker for the active weighers act over
// the hosts in play of the batch v views, with the batch's options o;
// trackMissing says that a candidate lacking a weighed metric raises
// (check).
func newDenseRanker(v rankView, act []int, o *rankOptions, trackMissing bool) *denseRanker {
	s := v.snap()
	nb := (s.n + kernels.Block - 1) / kernels.Block
	rk := &denseRanker{v: v, act: act, nb: nb, scaledOK: o.scaled > 0 || o.scaled == 0 && useScaledWeights,
		trackMissing: trackMissing, soft: -1, opts: *o}
	if trackMissing || slices.Contains(act, wMetrics) {
		rk.metrics = s.metricsCol()
	}
	nA := len(act)
	rk.lo, rk.hi = make([]float64, nA), make([]float64, nA)
	// The block statistics in one column from the scratch: every block
	// starts stale, so restat writes each leaf before it is read; bounds
	// builds the inner nodes on the first refresh. The padding leaves are
	// set here.
	rk.leaves = 1 << bits.Len(uint(nb-1))
	tree := 2 * rk.leaves
	stats := v.floats((2*nA + 1) * tree)
	rk.bLo, rk.bHi = make([][]float64, nA), make([][]float64, nA)
	rk.loTree, rk.hiTree = make([][]float64, nA), make([][]float64, nA)
	for a := range act {
		lo, hi := stats[2*a*tree:(2*a+1)*tree:(2*a+1)*tree], stats[(2*a+1)*tree:(2*a+2)*tree:(2*a+2)*tree]
		for i := rk.leaves + nb; i < tree; i++ {
			lo[i], hi[i] = math.Inf(1), math.Inf(-1)
		}
		rk.loTree[a], rk.hiTree[a] = lo, hi
		rk.bLo[a], rk.bHi[a] = lo[rk.leaves:rk.leaves+nb:rk.leaves+nb], hi[rk.leaves:rk.leaves+nb:rk.leaves+nb]
	}
	rk.startLazy()
	rk.bestTree = stats[2*nA*tree:]
	for i := rk.leaves + nb; i < tree; i++ {
		rk.bestTree[i] = math.Inf(-1)
	}
	rk.bBest = rk.bestTree[rk.leaves : rk.leaves+nb : rk.leaves+nb]
	rk.bestAll = true
	rk.isStale = make([]bool, nb)
	rk.stale = make([]int32, nb)
	for q := range nb {
		rk.isStale[q], rk.stale[q] = true, int32(q)
	}
	rk.score = v.floats(s.n)
	rk.shardW, rk.lent = make([][]float64, len(s.shards)), make([]bool, len(s.shards))
	for k, sh := range s.shards {
		rk.shardW[k] = rk.score[k*bitmap.ShardSize : k*bitmap.ShardSize+sh.hostCount()]
	}
	rk.inSet = v.set()
	rk.in = rk.inSet.Words()
	copy(rk.in, v.alive().Words())
	rk.count = v.alive().Count()
	rk.startSparse()
	return rk
}

func (rk *denseRanker) size() int { return rk.count }

// check raises what Nova's weighers would raise for this instance: the
// ComputeHostMetricNotFound of the first candidate lacking a weighed
// metric, when there is more than one candidate (else no weigher runs).
func (rk *denseRanker) check() error {
	if !rk.trackMissing || !rk.metrics.anyMissing || rk.count <= 1 {
		return nil
	}
	for k, w := range rk.metrics.missing.Words() {
		if w &= rk.in[k]; w != 0 {
			_, err := rk.v.metricsValue(uint32(k*64 + bits.TrailingZeros64(w)))
			return err
		}
	}
	return nil
}

// release ends the ranker's read of the kept rescoring it holds; the
// batch gives its sets and columns back itself.
func (rk *denseRanker) release(*scratch) { rk.hold(nil, nil) }

func (rk *denseRanker) holds(st *bitmap.Set) bool {
	return st == rk.inSet || st == rk.sparse || st == rk.ov
}

// carries is true: the dense ranker's state is the hosts in play and the
// snapshot's and overlay's columns, which update brings up to date.
func (rk *denseRanker) carries() bool { return true }

// update notes the blocks whose candidates changed since the last rank,
// and the hosts the last placement changed. Only the words the batch
// changed are compared (all of them after a set-wide change), and the
// count follows their population.
func (rk *denseRanker) update(dirty []uint32) {
	v := rk.v
	alive := v.alive().Words()
	sync := func(k int) {
		if w := alive[k]; rk.in[k] != w {
			rk.count += bits.OnesCount64(w) - bits.OnesCount64(rk.in[k])
			rk.in[k] = w
			rk.markStale(k / wordsPerBlock)
		}
	}
	if words, all := v.changes(); all {
		for k := range alive {
			sync(k)
		}
	} else {
		for _, k := range words {
			sync(int(k))
		}
	}
	v.synced()
	for _, id := range dirty {
		rk.addSparse(id)
		if v.alive().Has(id) {
			rk.moved = append(rk.moved, id)
			rk.markStale(int(id) / kernels.Block)
		}
	}
}

// top returns the k best candidates satisfying keep (nil: all), and, when
// wantTies, every candidate tied with the best (collector.tieList's order). One
// candidate weighs 0, as in Nova, where no weigher runs.
func (rk *denseRanker) top(k int, wantTies bool, keep func(uint32) bool, cell int32) (best, ties []scored) {
	var c collector
	c.init(k, wantTies)
	c.chosen = rk.v.chosen()
	if rk.count <= 1 {
		for q := range rk.nb {
			rk.scanZero(&c, keep, q)
		}
		return c.best, c.tieList()
	}
	rk.refresh()
	blocks := rk.v.snap().info.blockCells
	if cell < 0 || cell >= 64 {
		blocks = nil
	}
	if !rk.scaled {
		rk.search(&c, keep, wantTies, blocks, cell)
		return c.best, c.tieList()
	}
	// The k-th best scaled weight bounds the scaled weights of the exact
	// top k and of the hosts tied with the best (see scaledPlan): weigh
	// exactly only the candidates that reach it.
	var approx collector
	approx.init(k, false)
	rk.search(&approx, keep, false, blocks, cell)
	cut := math.Inf(-1)
	if t, ok := approx.threshold(); ok {
		cut = t.score - 2*rk.eps
	}
	for q, x := range rk.bBest {
		if x >= cut {
			rk.scanExact(&c, keep, q, cut)
		}
	}
	return c.best, c.tieList()
}
