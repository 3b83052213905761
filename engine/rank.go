package engine

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// ranker keeps each candidate's raw weigher values across the instances
// of a batch, in compact columns aligned with ids, and finds the best
// candidates of an instance without rebuilding anything: a placement only
// refreshes the hosts it changed and drops the hosts that left play.
//
// Invariants: ids holds exactly the hosts in play (b.alive), in no
// particular order; pos[id] is id's index in ids, or -1; raw[a][k] is
// weigher act[a]'s raw value (clamped to its minval) for host ids[k] on the
// batch's current state, and mult[a][k] its multiplier; lo and hi are the
// normalisation bounds over the hosts in play (lo fixed at 0 for minval-0
// weighers). Weights computed here are bit-for-bit the baseline's (same
// operations in the same order): the only weighers left out are those that
// add exactly 0 to every weight.
type ranker struct {
	act   []int
	ids   []uint32
	pos   []int32
	raw   [][]float64
	mult  [][]float64 // nil where the multiplier is uniform: see multOf
	multV []float64   // the uniform multipliers
	score []float64
	in    *bitmap.Set // the hosts in ids
	lo    []float64
	hi    []float64
	tree  *kdTree // nil: linear scan with the column kernels

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

// Thresholds above which a batch builds the k-d tree: below them the
// linear scan costs less than building it. Variables so that tests can
// force either path.
var (
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
	b.candidates = len(b.rk.ids)
	if err := b.rk.check(b); err != nil {
		return nil, nil, err
	}
	best, ties = b.rk.top(b, sub, shuffle, nil)
	return best, ties, nil
}

func (b *batch) newRanker() error {
	n := b.s.n
	rk := &ranker{in: b.set()}
	rk.in.CopyFrom(b.alive)
	for _, w := range b.weighers {
		if w == wMetrics && len(b.cfg.MetricsWeightSetting) > 0 && b.cfg.MetricsRequired {
			rk.trackMissing = true // Nova raises even when the multiplier is 0
		}
		if b.contributes(w) {
			rk.act = append(rk.act, w)
		}
	}
	rk.ids = b.alive.AppendTo(b.sc.ids[:0])
	m := len(rk.ids)
	rk.pos = b.sc.pos
	for k, id := range rk.ids {
		rk.pos[id] = int32(k)
	}
	if rk.trackMissing {
		rk.missing = make([]bool, n)
		for _, id := range rk.ids {
			if _, err := b.metricsValue(id); err != nil {
				rk.missing[id] = true
				rk.missingAlive++
			}
		}
	}
	rk.raw = make([][]float64, len(rk.act))
	rk.mult = make([][]float64, len(rk.act))
	rk.multV = make([]float64, len(rk.act))
	rk.lo = make([]float64, len(rk.act))
	rk.hi = make([]float64, len(rk.act))
	rk.score = b.floats(m)
	for a, w := range rk.act {
		rk.raw[a] = b.floats(m)
		if b.s.multUniform[w] {
			rk.multV[a] = b.s.multValue[w]
		} else {
			rk.mult[a] = b.floats(m)
			for k, id := range rk.ids {
				sh, j := b.s.at(id)
				rk.mult[a][k] = sh.mult[w][j]
			}
		}
		if w == wMetrics {
			for k, id := range rk.ids {
				if x, err := b.metricsValue(id); err == nil {
					rk.raw[a][k] = x
				}
			}
			continue
		}
		if err := b.rawValues(w, rk.ids, rk.raw[a]); err != nil {
			return err
		}
	}
	b.rk = rk
	if m >= treeMinHosts && b.req.NumInstances >= treeMinInstances {
		rk.tree = buildKDTree(b, rk)
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

// update drops the hosts that left play and recomputes the raw values of
// the hosts the previous placement changed.
func (rk *ranker) update(b *batch, dirty []uint32) {
	in, alive := rk.in.Words(), b.alive.Words()
	for wi, w := range in {
		gone := w &^ alive[wi]
		for gone != 0 {
			t := bits.TrailingZeros64(gone)
			gone &= gone - 1
			rk.remove(b, uint32(wi*64+t))
		}
	}
	var one [1]uint32
	var val [1]float64
	for _, id := range dirty {
		k := rk.pos[id]
		if k < 0 {
			continue
		}
		one[0] = id
		for a, w := range rk.act {
			if w == wMetrics || w == wBuildFailure {
				continue // never change within a batch
			}
			_ = b.rawValues(w, one[:], val[:])
			rk.raw[a][k] = val[0]
		}
		if rk.tree != nil {
			rk.tree.refresh(b, rk, id)
		}
	}
}

// remove drops host id from the columns (swap with the last).
func (rk *ranker) remove(b *batch, id uint32) {
	k := rk.pos[id]
	last := int32(len(rk.ids) - 1)
	moved := rk.ids[last]
	rk.ids[k] = moved
	rk.pos[moved] = k
	for a := range rk.act {
		rk.raw[a][k] = rk.raw[a][last]
		rk.raw[a] = rk.raw[a][:last]
		if rk.mult[a] != nil {
			rk.mult[a][k] = rk.mult[a][last]
			rk.mult[a] = rk.mult[a][:last]
		}
	}
	rk.ids = rk.ids[:last]
	rk.score = rk.score[:last]
	rk.pos[id] = -1
	rk.in.Remove(id)
	if rk.missing != nil && rk.missing[id] {
		rk.missingAlive--
	}
	if rk.tree != nil {
		rk.tree.refresh(b, rk, id)
	}
}

// bounds sets lo and hi over the hosts in play.
func (rk *ranker) bounds() {
	if rk.tree != nil {
		rk.tree.rootBounds(rk)
	} else {
		for a := range rk.act {
			rk.lo[a], rk.hi[a] = kernels.MinMax(rk.raw[a])
		}
	}
	for a, w := range rk.act {
		if minvalZero(w) {
			rk.lo[a] = 0
		}
	}
}

// scoreAt is the total weight of the host at index k, with the baseline's
// operations in the baseline's order.
func (rk *ranker) scoreAt(k int32) float64 {
	s := 0.0
	for a := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		s += rk.multOf(a, k) * ((rk.raw[a][k] - lo) / (hi - lo))
	}
	return s
}

// multOf is the multiplier of weigher act[a] for the host at index k.
func (rk *ranker) multOf(a int, k int32) float64 {
	if m := rk.mult[a]; m != nil {
		return m[k]
	}
	return rk.multV[a]
}

// top returns the k best candidates satisfying keep (nil: all), and, when
// wantTies, every candidate tied with the best (in id order). One
// candidate weighs 0, as in Nova, where no weigher runs.
func (rk *ranker) top(b *batch, k int, wantTies bool, keep func(uint32) bool) (best, ties []scored) {
	var c collector
	c.init(k, wantTies)
	if len(rk.ids) <= 1 {
		for _, id := range rk.ids {
			if keep == nil || keep(id) {
				c.offer(scored{id, 0})
			}
		}
		return c.best, c.tieList()
	}
	rk.bounds()
	if rk.tree != nil {
		rk.tree.search(rk, &c, keep)
		return c.best, c.tieList()
	}
	score := rk.score
	clear(score)
	for a := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		switch {
		case lo == hi:
		case rk.mult[a] == nil:
			kernels.AccumulateScalar(score, rk.raw[a], rk.multV[a], lo, hi-lo)
		default:
			kernels.Accumulate(score, rk.raw[a], rk.mult[a], lo, hi-lo)
		}
	}
	thr := math.Inf(-1)
	for i, x := range score {
		if x < thr {
			continue
		}
		if id := rk.ids[i]; keep == nil || keep(id) {
			c.offer(scored{id, x})
			if t, ok := c.threshold(); ok && !wantTies {
				thr = t.score
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
