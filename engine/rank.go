package engine

import (
	"cmp"
	"math"
	"slices"
)

// ranker keeps each candidate's raw weigher values across the instances
// of a batch and finds the best candidates of an instance without scoring
// every host when it can.
//
// Invariants: raw[a][id] is weigher act[a]'s raw value (clamped to its
// minval) for every host id in play, on the batch's current state; lo and
// hi are the normalisation bounds over the hosts in play (lo fixed at 0 for
// minval-0 weighers); scores computed here are bit-for-bit the baseline's
// (same operations, same order), because the only weighers left out are
// those whose multiplier is 0 on every host, which add exactly 0.
type ranker struct {
	act  []int
	raw  [][]float64
	lo   []float64
	hi   []float64
	tree *kdTree // nil: linear scan

	// Hosts in play lacking a weighed metric, when metrics are required.
	trackMissing bool
	missing      []bool
	missingAlive int
}

// contributes reports whether weigher w can add anything but 0 to a weight
// in this batch: leaving the others out changes no weight, bit for bit
// (x + 0 == x), and saves their passes.
func (b *batch) contributes(w int) bool {
	if b.s.multZero[w] {
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

// Thresholds above which a batch builds the k-d tree: below them a linear
// scan of the candidates costs less than building it.
const (
	treeMinHosts     = 2048
	treeMinInstances = 8
)

// useBaseline makes PlaceBatch weigh every candidate from scratch for every
// instance (the literal Nova loop); tests and benchmarks compare it with
// the ranker.
var useBaseline = false

// rank returns the best host_subset_size candidates of the current
// instance (and the ties at the top weight when shuffling), after
// bringing the ranker up to date with the hosts the previous placement
// changed.
func (b *batch) rank(dirty []uint32) (best, ties []scored, err error) {
	sub := b.cfg.HostSubsetSize
	shuffle := b.cfg.ShuffleBestSameWeighedHosts
	if useBaseline {
		if err := b.weigh(); err != nil {
			return nil, nil, err
		}
		b.candidates = len(b.w.cands)
		best, ties = b.rankScan(sub, shuffle)
		return best, ties, nil
	}
	if b.rk == nil {
		if err := b.newRanker(); err != nil {
			return nil, nil, err
		}
	} else {
		b.rk.update(b, dirty)
	}
	b.candidates = b.alive.Count()
	if err := b.rk.check(b); err != nil {
		return nil, nil, err
	}
	best, ties = b.rk.top(b, sub, shuffle, nil)
	return best, ties, nil
}

func (b *batch) newRanker() error {
	rk := &ranker{}
	n := b.s.n
	for _, w := range b.weighers {
		if w == wMetrics && len(b.cfg.MetricsWeightSetting) > 0 && b.cfg.MetricsRequired {
			rk.trackMissing = true // Nova raises even when the multiplier is 0
		}
		if b.contributes(w) {
			rk.act = append(rk.act, w)
		}
	}
	rk.raw = make([][]float64, len(rk.act))
	rk.lo = make([]float64, len(rk.act))
	rk.hi = make([]float64, len(rk.act))
	cands := b.alive.AppendTo(nil)
	if rk.trackMissing {
		rk.missing = make([]bool, n)
		for _, id := range cands {
			if _, err := b.metricsValue(id); err != nil {
				rk.missing[id] = true
				rk.missingAlive++
			}
		}
	}
	for a, w := range rk.act {
		rk.raw[a] = make([]float64, n)
		if w == wMetrics {
			if err := rk.fillMetrics(b, cands); err != nil {
				return err
			}
			continue
		}
		vals := make([]float64, len(cands))
		if err := b.rawValues(w, cands, vals); err != nil {
			return err
		}
		for k, id := range cands {
			rk.raw[a][id] = vals[k]
		}
	}
	if len(cands) >= treeMinHosts && b.req.NumInstances >= treeMinInstances {
		rk.tree = buildKDTree(b, rk, cands)
	}
	b.rk = rk
	return nil
}

// fillMetrics computes MetricsWeigher's raw values, which never change.
// With metrics_required a host lacking a metric is an error only when it is
// weighed, so it is remembered rather than reported here.
func (rk *ranker) fillMetrics(b *batch, cands []uint32) error {
	a := len(rk.raw) - 1
	for i, w := range rk.act {
		if w == wMetrics {
			a = i
		}
	}
	for _, id := range cands {
		if x, err := b.metricsValue(id); err == nil {
			rk.raw[a][id] = x
		}
	}
	return nil
}

// check raises what Nova's weighers would raise for this instance.
func (rk *ranker) check(b *batch) error {
	if rk.missingAlive == 0 || b.candidates <= 1 {
		return nil
	}
	for id := b.alive.Next(0); id >= 0; id = b.alive.Next(id + 1) {
		if rk.missing[id] {
			_, err := b.metricsValue(uint32(id))
			return err
		}
	}
	return nil
}

// update recomputes the raw values of the hosts the previous placement
// changed and forgets the hosts no longer in play.
func (rk *ranker) update(b *batch, dirty []uint32) {
	if rk.tree != nil {
		rk.tree.sync(b, rk)
	}
	var one [1]uint32
	var val [1]float64
	for _, id := range dirty {
		if !b.alive.Has(id) {
			continue
		}
		one[0] = id
		for a, w := range rk.act {
			if w == wMetrics || w == wBuildFailure || w == wCrossCell {
				continue // never change within a batch
			}
			_ = b.rawValues(w, one[:], val[:])
			rk.raw[a][id] = val[0]
		}
		if rk.tree != nil {
			rk.tree.refresh(b, rk, id)
		}
	}
	if rk.missing != nil {
		rk.missingAlive = 0
		for id := b.alive.Next(0); id >= 0; id = b.alive.Next(id + 1) {
			if rk.missing[id] {
				rk.missingAlive++
			}
		}
	}
}

// bounds sets lo and hi over the hosts in play.
func (rk *ranker) bounds(b *batch) {
	if rk.tree != nil {
		rk.tree.rootBounds(rk)
	} else {
		for a := range rk.act {
			lo, hi := math.Inf(1), math.Inf(-1)
			raw := rk.raw[a]
			for id := b.alive.Next(0); id >= 0; id = b.alive.Next(id + 1) {
				lo, hi = min(lo, raw[id]), max(hi, raw[id])
			}
			rk.lo[a], rk.hi[a] = lo, hi
		}
	}
	for a, w := range rk.act {
		if minvalZero(w) {
			rk.lo[a] = 0
		}
	}
}

// score is host id's total weight, with the baseline's operations in the
// baseline's order.
func (rk *ranker) score(b *batch, id uint32) float64 {
	sh, j := b.s.at(id)
	s := 0.0
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		s += sh.mult[w][j] * ((rk.raw[a][id] - lo) / (hi - lo))
	}
	return s
}

// top returns the k best candidates satisfying keep (nil: all), and, when
// wantTies, every candidate tied with the best (in id order). One
// candidate weighs 0, as in Nova, where no weigher runs.
func (rk *ranker) top(b *batch, k int, wantTies bool, keep func(uint32) bool) (best, ties []scored) {
	if b.candidates <= 1 {
		if id := b.alive.Next(0); id >= 0 && (keep == nil || keep(uint32(id))) && k > 0 {
			best = []scored{{uint32(id), 0}}
			ties = best[:1:1]
		}
		return best, ties
	}
	rk.bounds(b)
	var c collector
	c.init(k, wantTies)
	if rk.tree != nil {
		rk.tree.search(b, rk, &c, keep)
	} else {
		for id := b.alive.Next(0); id >= 0; id = b.alive.Next(id + 1) {
			if keep == nil || keep(uint32(id)) {
				c.offer(scored{uint32(id), rk.score(b, uint32(id))})
			}
		}
	}
	return c.best, c.tieList()
}

// collector keeps the k best candidates offered, and every candidate tied
// with the best when asked to.
type collector struct {
	k        int
	wantTies bool
	best     []scored
	ties     []scored
}

func (c *collector) init(k int, wantTies bool) {
	c.k, c.wantTies = k, wantTies
	c.best = make([]scored, 0, k)
}

// threshold is the weight below which nothing can enter any more (and
// the id below which an equal weight still can), or ok=false while there is
// room.
func (c *collector) threshold() (s scored, ok bool) {
	if len(c.best) < c.k {
		return scored{}, false
	}
	return c.best[c.k-1], true
}

func (c *collector) offer(x scored) {
	if c.k == 0 {
		return
	}
	if c.wantTies {
		switch {
		case len(c.ties) == 0 || x.score > c.ties[0].score:
			c.ties = append(c.ties[:0], x)
		case x.score == c.ties[0].score:
			c.ties = append(c.ties, x)
		}
	}
	if len(c.best) == c.k && !better(x, c.best[c.k-1]) {
		return
	}
	pos := len(c.best)
	for pos > 0 && better(x, c.best[pos-1]) {
		pos--
	}
	if len(c.best) < c.k {
		c.best = append(c.best, scored{})
	}
	copy(c.best[pos+1:], c.best[pos:len(c.best)-1])
	c.best[pos] = x
}

// tieList returns the ties in id order.
func (c *collector) tieList() []scored {
	if !c.wantTies {
		return nil
	}
	sortByID(c.ties)
	return c.ties
}

func sortByID(s []scored) {
	slices.SortFunc(s, func(a, b scored) int { return cmp.Compare(a.id, b.id) })
}
