package engine

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// denseRanker ranks the candidates of a batch whose contributing weighers
// are all column weighers (colWeigher), over host-indexed columns: the
// shards' raw columns (shard.rawCol) and multipliers, read in place with the
// candidate set as a mask, so that nothing is gathered per candidate.
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
// every other weight stays what it was (as in the gathered ranker,
// rank.go). Hosts the batch consumed on (the overlay) are read from it,
// never from the snapshot's columns. Every weight is computed with the
// baseline's operations in its order (weigh.go), so it is bit for bit the
// baseline's.
//
// Invariants: in holds the candidate words the statistics describe; for
// every block q not in stale, bLo[a][q]/bHi[a][q] are the minimum/maximum
// of weigher act[a]'s raw value over q's candidates on the batch's state
// (+Inf/-Inf without candidates), but for a weigher whose minval is 0,
// whose bLo is at most that minimum (never read: its lo is 0); lo/hi are Nova's bounds from them (lo 0
// for the weighers whose minval is 0); while valid, score[id] is
// candidate id's weight under lo/hi for every candidate not in moved, and
// bBest[q] (q not stale) the largest of q's candidates' weights (-Inf
// without any).
type denseRanker struct {
	v     rankView
	hooks *rankHooks // nil in production
	act   []int
	nb    int
	in    []uint64 // inSet's words
	inSet *bitmap.Set
	count int

	lo, hi   []float64
	bLo, bHi [][]float64 // the leaves of loTree, hiTree
	// loTree[a] and hiTree[a] are tournament trees over the blocks: node i
	// (1 <= i < leaves) holds the min (max) of nodes 2i and 2i+1, leaf
	// leaves+q block q's bLo (bHi), leaves past nb +Inf (-Inf). Their
	// roots are Nova's bounds, kept up to date by bounds (the min tree of
	// a weigher whose minval is 0 is not: its lo is 0).
	loTree, hiTree [][]float64
	leaves         int
	// bestTree is the max tree over bBest (its leaves; padding -Inf), for
	// search. bestAll says every leaf may have changed since it was last
	// settled, else bestQs lists the blocks whose leaf may have.
	bestTree []float64
	bestAll  bool
	bestQs   []int32
	score    []float64
	bBest    []float64
	stale    []int32
	isStale  []bool
	moved    []uint32
	order    []int32
	valid    bool

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
}

// wordsPerBlock is the number of candidate words of a block.
const wordsPerBlock = kernels.Block / 64

// newDenseRanker starts a dense ranker for the active weighers act over
// the hosts in play of the batch v views, with the batch's options o.
func newDenseRanker(v rankView, act []int, o *rankOptions) *denseRanker {
	s := v.snap()
	nb := (s.n + kernels.Block - 1) / kernels.Block
	rk := &denseRanker{v: v, hooks: o.hooks, act: act, nb: nb, scaledOK: o.scaled > 0 || o.scaled == 0 && useScaledWeights}
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
	rk.inSet = v.set()
	rk.in = rk.inSet.Words()
	copy(rk.in, v.alive().Words())
	rk.count = v.alive().Count()
	return rk
}

func (rk *denseRanker) size() int { return rk.count }

// check has nothing to raise: the column weighers raise nothing.
func (rk *denseRanker) check() error { return nil }

// release has nothing to give back but the sets and columns the batch
// gives back itself.
func (rk *denseRanker) release(*scratch) {}

func (rk *denseRanker) holds(st *bitmap.Set) bool { return st == rk.inSet }

// carries is true: the dense ranker's state is the hosts in play and the
// snapshot's and overlay's columns, which update brings up to date.
func (rk *denseRanker) carries() bool { return true }

func (rk *denseRanker) markStale(q int) {
	if !rk.isStale[q] {
		rk.isStale[q] = true
		rk.stale = append(rk.stale, int32(q))
	}
}

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
		if v.alive().Has(id) {
			rk.moved = append(rk.moved, id)
			rk.markStale(int(id) / kernels.Block)
		}
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

// restat recomputes block q's statistics: from the shard's block
// summaries when the block's candidates are all of its hosts, its raw
// values are one value or hosts holding its extremes are candidates, else
// the kernel over the candidates the batch did not consume on; then those
// it did, from the overlay.
func (rk *denseRanker) restat(q int) {
	sh, off, m := rk.block(q)
	words := rk.words(q)
	var clean [wordsPerBlock]uint64
	var dirty []uint64
	if rk.v.overlaid() {
		touched := rk.v.overlayWords()[q*wordsPerBlock:]
		for k, w := range words {
			clean[k] = w &^ touched[k]
		}
		dirty = touched[:len(words)]
		words = clean[:len(words)]
	}
	some, full := false, true
	for k, w := range words {
		some = some || w != 0
		full = full && w == fullWord(m-k*64)
	}
	// The overlay's candidates of the block, each looked up once for
	// every weigher.
	var resBuf [8]*hostRes
	var idxBuf [8]int
	overRes, overIdx := resBuf[:0], idxBuf[:0]
	for k, t := range dirty {
		for t &= rk.in[q*wordsPerBlock+k]; t != 0; t &= t - 1 {
			id := uint32(q*kernels.Block + k*64 + bits.TrailingZeros64(t))
			overRes = append(overRes, rk.v.usageOf(id))
			overIdx = append(overIdx, int(id)-q*kernels.Block+off)
		}
	}
	qs := q % blocksPerShard
	for a, w := range rk.act {
		lo, hi := math.Inf(1), math.Inf(-1)
		// A weigher whose minval is 0 takes 0 as its lower bound (bounds):
		// only its maximum is needed, so only the host holding the
		// block's largest value need be a candidate.
		hiOnly := minvalZero(w)
		switch {
		case !some:
		case full || sh.blk.rawConst[w][qs] ||
			hasBit(words, sh.blk.rawHiAt[w][qs]) && (hiOnly || hasBit(words, sh.blk.rawLoAt[w][qs])):
			// Every host is a candidate, or all hold one value, or the
			// block's extremes (its largest, for hiOnly) are candidates':
			// no candidate lies beyond the block's extremes.
			lo, hi = sh.blk.rawLo[w][qs], sh.blk.rawHi[w][qs]
		default:
			kernels.MinMaxMasked(sh.rawCol(w).Slice(off, off+m), words, rk.bLo[a][q:q+1], rk.bHi[a][q:q+1])
			lo, hi = rk.bLo[a][q], rk.bHi[a][q]
		}
		for i, r := range overRes {
			x := sh.rawRes(w, overIdx[i], r)
			lo, hi = min(lo, x), max(hi, x)
		}
		rk.bLo[a][q], rk.bHi[a][q] = lo, hi
	}
}

// hasBit reports whether bit i of words is set (false for noHost).
func hasBit(words []uint64, i uint16) bool {
	return int(i)/64 < len(words) && words[i/64]&(1<<(i%64)) != 0
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
func (rk *denseRanker) restatAll() {
	if len(rk.stale) < rk.nb/2 {
		for _, q := range rk.stale {
			rk.restat(int(q))
		}
		return
	}
	// Each shard's blocks are restated by one goroutine (restat writes
	// only its block's entries and reads the batch); the background
	// context never stops a shard, so every stale block is done.
	_ = bitmap.ForShards(context.WithoutCancel(rk.v.ctx()), rk.v.snap().n, func(k int) error {
		for q := k * blocksPerShard; q < min((k+1)*blocksPerShard, rk.nb); q++ {
			if rk.isStale[q] {
				rk.restat(q)
			}
		}
		return nil
	})
}

// bounds brings the trees up to date with the stale blocks' statistics
// (rebuilding them when many are stale), takes lo/hi from their roots and
// reports whether any moved.
func (rk *denseRanker) bounds() (changed bool) {
	rebuild := len(rk.stale) > rk.nb/8
	for a, w := range rk.act {
		var lo float64
		if minvalZero(w) {
			lo = 0
		} else {
			lo = settle(rk.loTree[a], rk.leaves, rebuild, rk.stale, false)
		}
		hi := settle(rk.hiTree[a], rk.leaves, rebuild, rk.stale, true)
		if math.Float64bits(lo) != math.Float64bits(rk.lo[a]) || math.Float64bits(hi) != math.Float64bits(rk.hi[a]) {
			rk.lo[a], rk.hi[a], changed = lo, hi, true
		}
	}
	return changed
}

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

// Scaled weights. Nova's weight of a host is the sum over weighers of
// m*((r-lo)/(hi-lo)), m the host's multiplier; every full rescoring of the
// dense ranker would pay a division per host and weigher and read every
// multiplier column. With m0 a weigher's base multiplier (the most common)
// and d = hi-lo, the scaled weight sums r*(m0/d) over the weighers
// (kernels.WeighScaled: columns of r only), then, for the few hosts whose
// m differs from m0 (shard.multOver), ((r-lo)*(m-m0))*(1/d). A weigher
// whose multiplier many hosts override has no base (m0 = 0): every host
// adds ((r-lo)*m)*(1/d) (kernels.AccumulateScaled). Its exact
// value is the weight plus the constant sum of -lo*m0/d, the same for
// every host. With B the sum over weighers of |m0/d|*max(|lo|,|hi|) (a
// bound on every |r*m0/d|, since lo <= r <= hi for a candidate) and M the
// sum of the largest |m| plus |m0|, each of the at most 8n roundings of
// the scaled weight (factors, products, differences, sums) errs by at most
// 2^-53 of B+M, and each of Nova's 4n by at most 2^-53 of M, so that for
// n <= 10 weighers
//
//	|scaled(h) - (weight(h) + constant)| <= 120 * 2^-53 * (B+M) < eps
//
// with eps = (B+M) * 2^-44 (a margin of 4), plus 2^-860 for what
// underflows (every d and |m| lies within 2^+-200, or the ranker keeps
// the exact kernels). The ranking on scaled weights then bounds the exact
// one: if the k-th best scaled weight is t, every host of the exact top k
// (and every host tied with the best) has a scaled weight of at least
// t - 2*eps, and only those are weighed exactly (top).

// useScaledWeights is whether scaled weights are on by default (a batch's
// rankOptions.scaled may turn them on or off either way). They pay where the kernels
// are portable Go (scalar divisions: 50,000 hosts x 1 instance 1.13 ->
// 0.81 ms, x 1,000 16.4 -> 12.8 ms, interleaved A/B). With the AVX-512
// kernels, which the columns' bandwidth bounds, they cost more than they
// save (x 1 193 -> 224 us, x 1,000 5.4 -> 7.3 ms: the second, exact pass
// of top and the longer per-host sums). Never changed once set.
var useScaledWeights = !kernels.SIMD

// scaledPlan decides whether the next full rescoring uses scaled weights
// under lo/hi and sets the terms and eps.
func (rk *denseRanker) scaledPlan() {
	s := rk.v.snap()
	rk.scaled, rk.eps = false, 0
	rk.cols, rk.scale = rk.cols[:0], rk.scale[:0]
	rk.terms, rk.tlo, rk.inv, rk.tbase = rk.terms[:0], rk.tlo[:0], rk.inv[:0], rk.tbase[:0]
	if !rk.scaledOK {
		return
	}
	bound, mult := 0.0, 0.0
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		d, m0 := hi-lo, s.mults.base[w]
		if !(d >= 0x1p-200 && d <= 0x1p200 && s.mults.maxAbs[w] <= 0x1p200) {
			return
		}
		if manyOver(s, w) {
			m0 = 0
		}
		if c := m0 / d; c != 0 {
			if math.Abs(c) < 0x1p-1000 { // subnormal: too coarse
				return
			}
			rk.cols, rk.scale = append(rk.cols, w), append(rk.scale, c)
			bound += math.Abs(c) * max(math.Abs(lo), math.Abs(hi))
		}
		rk.terms, rk.tlo, rk.inv = append(rk.terms, w), append(rk.tlo, lo), append(rk.inv, 1/d)
		rk.tbase = append(rk.tbase, m0)
		mult += s.mults.maxAbs[w] + math.Abs(m0)
	}
	if len(rk.terms) == 0 || !(bound+mult <= 0x1p900) {
		return
	}
	rk.scaled, rk.eps = true, (bound+mult)*0x1p-44+0x1p-860
}

// scaledOf is candidate id's scaled weight, with rescoreAll's operations
// in its order.
func (rk *denseRanker) scaledOf(id uint32) float64 {
	s := 0.0
	for t, w := range rk.cols {
		if p := rk.v.raw(w, id) * rk.scale[t]; t == 0 {
			s = p
		} else {
			s += float64(p)
		}
	}
	sh, j := rk.v.snap().at(id)
	for t, w := range rk.terms {
		if m, base := sh.mult[w].At(j), rk.tbase[t]; base == 0 || math.Float64bits(m) != math.Float64bits(base) {
			s += float64(float64((rk.v.raw(w, id)-rk.tlo[t])*(m-base)) * rk.inv[t])
		}
	}
	return s
}

// manyOver reports whether so many hosts have a multiplier of weigher w
// other than the base that a pass over all of them is cheaper than one
// per such host.
func manyOver(s *Snapshot, w int) bool { return s.mults.overs[w]*16 > s.n }

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
		s += sh.mult[w].At(j) * ((rk.v.raw(w, id) - lo) / (hi - lo))
	}
	return s
}

// rescoreAll recomputes every weight with the column kernels, then those
// of the candidates the batch consumed on, and every block's best: shard
// by shard, in parallel (each writes only its own hosts and blocks).
func (rk *denseRanker) rescoreAll() {
	s := rk.v.snap()
	rk.scaledPlan()
	_ = bitmap.ForShards(context.WithoutCancel(rk.v.ctx()), s.n, func(k int) error {
		sh := s.shards[k]
		score := rk.score[k*bitmap.ShardSize : k*bitmap.ShardSize+sh.hostCount()]
		if rk.scaled {
			rk.weighScaled(sh, score)
		} else {
			rk.weigh(sh, score)
		}
		for q := k * blocksPerShard; q < min((k+1)*blocksPerShard, rk.nb); q++ {
			rk.best(q)
		}
		return nil
	})
	for _, id := range rk.v.overlayIDs() {
		if rk.v.alive().Has(id) {
			rk.score[id] = rk.weightOf(id)
			rk.best(int(id) / kernels.Block)
		}
	}
	rk.bestAll, rk.bestQs = true, rk.bestQs[:0]
}

// weigh sets the shard's hosts' weights (score) with Nova's operations.
func (rk *denseRanker) weigh(sh *shard, score []float64) {
	s := rk.v.snap()
	clear(score)
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		switch {
		case lo == hi:
		case s.mults.uniform(w):
			kernels.AccumulateScalar(score, sh.rawCol(w), s.mults.base[w], lo, hi-lo)
		default:
			kernels.AccumulateCoded(score, sh.rawCol(w), &sh.mult[w], lo, hi-lo)
		}
	}
}

// weighScaled sets the shard's hosts' scaled weights (score), as
// scaledOf computes one.
func (rk *denseRanker) weighScaled(sh *shard, score []float64) {
	var cols [numWeighers]kernels.Col
	for t, w := range rk.cols {
		cols[t] = sh.rawCol(w)
	}
	kernels.WeighScaled(score, cols[:len(rk.cols)], rk.scale)
	for t, w := range rk.terms {
		raw, mult, base, lo, inv := sh.rawCol(w), &sh.mult[w], rk.tbase[t], rk.tlo[t], rk.inv[t]
		if base == 0 {
			kernels.AccumulateScaledCoded(score, raw, mult, lo, 0, inv)
			continue
		}
		for _, j := range sh.multOver[w] {
			score[j] += float64(float64((raw.At(int(j))-lo)*(mult.At(int(j))-base)) * inv)
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
	if rk.bounds() || !rk.valid {
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

// top returns the k best candidates satisfying keep (nil: all), and, when
// wantTies, every candidate tied with the best (in id order). One
// candidate weighs 0, as in Nova, where no weigher runs.
func (rk *denseRanker) top(k int, wantTies bool, keep func(uint32) bool, cell int32) (best, ties []scored) {
	var c collector
	c.init(k, wantTies)
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

// search offers to c the candidates (satisfying keep) whose score can
// rank among c's best, block by block from the block with the largest;
// with blocks (Snapshot's blockCells), only the blocks holding hosts of
// cell (keep accepts no other).
func (rk *denseRanker) search(c *collector, keep func(uint32) bool, wantTies bool, blocks []uint64, cell int32) {
	if keep == nil && blocks == nil && c.k == 1 {
		if rk.searchBest(c, wantTies) {
			if h := rk.hooks; h != nil && h.afterSearchBest != nil {
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
		// unless it holds a smaller id (or the ties themselves are
		// wanted): blocks hold increasing ids.
		if t, full := c.threshold(); full && !wantTies && rk.bBest[q] == thr && uint32(int(q)*kernels.Block) > t.id {
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
			if rk.score[id] >= cut && (keep == nil || keep(id)) {
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
	n := rk.v.snap().n
	for k, w := range rk.words(q) {
		base := q*kernels.Block + k*64
		if w == 0 {
			continue
		}
		// The word's candidates below the threshold so far cannot rank:
		// one vector compare per eight rather than a test per candidate.
		for w = kernels.NotBelow(rk.score[base:min(base+64, n)], w, thr); w != 0; w &= w - 1 {
			id := uint32(base + bits.TrailingZeros64(w))
			x := rk.score[id]
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

// kthLargest returns the k-th largest of xs (-Inf when xs has fewer than
// k elements or holds a NaN), with buf as scratch, which it returns.
func kthLargest(xs []float64, k int, buf []int32) (float64, []int32) {
	if k <= 0 || k > len(xs) {
		return math.Inf(-1), buf
	}
	top := math.Inf(-1)
	for q, x := range xs {
		if x != x {
			return math.Inf(-1), buf
		}
		top = max(top, x)
		if k > 1 {
			buf = append(buf, int32(q))
		}
	}
	if k == 1 {
		return top, buf
	}
	slices.SortFunc(buf, func(p, q int32) int { return cmp.Compare(xs[q], xs[p]) })
	return xs[buf[k-1]], buf
}

// argmax returns the index and value of the largest element (the first on
// ties; 0 and -Inf when xs is empty or all -Inf).
func argmax(xs []float64) (int, float64) {
	at, top := 0, math.Inf(-1)
	for i, x := range xs {
		if x > top {
			at, top = i, x
		}
	}
	return at, top
}

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
