package engine

import (
	"math"
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// ranker keeps each candidate's raw weigher values and total weight across
// the instances of a batch, and finds the best candidates of an instance
// without rescoring every host when it can.
//
// Nova normalises each weigher over the candidates: (x - lo) / (hi - lo).
// When no placement moves any weigher's lo or hi — the usual case, since
// many hosts share the extreme values — every weight but those of the
// hosts the placement changed stays exactly what it was, so only those are
// rescored. When a bound does move, every weight is recomputed with the
// column kernels. Either way each weight is computed with the baseline's
// operations in the baseline's order, so it is bit for bit the baseline's.
//
// Invariants: ids holds exactly the hosts in play (b.alive), in no
// particular order; pos[id] is id's index in ids, or -1; raw[a][k] is
// weigher act[a]'s raw value (clamped to its minval) for host ids[k] on the
// batch's current state, mult[a][k] its multiplier (nil column: multV[a]
// for every host); while cached, bLo/bHi hold each block of blockSize
// positions' minimum and maximum raw values, and, while valid, score[k] is
// host ids[k]'s weight under the bounds lo/hi and bBest each block's
// largest weight.
type ranker struct {
	b     *batch
	act   []int
	ids   []uint32
	pos   []int32
	raw   [][]float64
	mult  [][]float64
	multV []float64
	score []float64
	in    *bitmap.Set // the hosts in ids
	lo    []float64
	hi    []float64

	cached bool        // block statistics are maintained (second instance on)
	valid  bool        // score and bBest hold the weights under lo/hi
	bLo    [][]float64 // per weigher, per block: minimum raw value
	bHi    [][]float64 // per weigher, per block: maximum raw value
	bBest  []float64   // per block: largest weight
	moved  []int32     // positions whose values changed since the last rank

	trackMissing bool
	missing      []bool
	missingAlive int
}

// ranking is what PlaceBatch asks of a ranker: the ranker (gathered
// columns, any weigher) or the denseRanker (host-indexed columns under a
// candidate mask, column weighers only).
type ranking interface {
	// update notes the hosts that left play and those the last placement
	// changed (dirty).
	update(b *batch, dirty []uint32)
	// check raises what Nova's weighers would raise for this instance.
	check(b *batch) error
	// top returns the k best candidates satisfying keep (nil: all), and
	// the ties at the top weight when wantTies. cell, when not -1, says
	// that keep accepts only hosts of that cell (a ranker may skip the
	// hosts of other cells without asking keep).
	top(k int, wantTies bool, keep func(uint32) bool, cell int32) (best, ties []scored)
	// size is the number of candidates.
	size() int
}

func (rk *ranker) size() int { return len(rk.ids) }

// blockSize is the number of candidate positions one block statistic
// covers: small enough that refreshing a block is cheap, large enough that
// scanning the blocks is.
const blockSize = 64

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
		b.aliveSynced() // the baseline reads alive afresh
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
		b.aliveSynced() // the ranker starts from alive as it is
	} else {
		b.rk.update(b, dirty)
	}
	b.candidates = b.rk.size()
	if err := b.rk.check(b); err != nil {
		return nil, nil, err
	}
	best, ties = b.rk.top(sub, shuffle, nil, -1)
	return best, ties, nil
}

// useDenseRanker lets PlaceBatch rank with the dense ranker when every
// contributing weigher is a column weigher; tests compare both rankers.
var useDenseRanker = true

// onDenseRanker, when set (tests), is called for every batch ranked by
// the dense ranker.
var onDenseRanker func()

// newRanker starts the batch's ranking on instance 0's candidates: with
// the dense ranker when every contributing weigher is a column weigher,
// else with the gathered-column ranker.
func (b *batch) newRanker() error {
	var act []int
	trackMissing, cols := false, useDenseRanker
	for _, w := range b.weighers {
		if w == wMetrics && len(b.cfg.MetricsWeightSetting) > 0 && b.cfg.MetricsRequired {
			trackMissing = true // Nova raises even when the multiplier is 0
		}
		if b.contributes(w) {
			act = append(act, w)
			cols = cols && colWeigher(w)
		}
	}
	if cols && !trackMissing {
		if onDenseRanker != nil {
			onDenseRanker()
		}
		b.rk = b.newDenseRanker(act)
		return nil
	}
	rk := &ranker{b: b, in: b.set(), act: act, trackMissing: trackMissing}
	rk.in.CopyFrom(b.alive)
	rk.ids = b.alive.AppendTo(b.sc.ids[:0])
	m := len(rk.ids)
	rk.pos = b.sc.pos
	for k, id := range rk.ids {
		rk.pos[id] = int32(k)
	}
	if rk.trackMissing {
		rk.missing = make([]bool, b.s.n)
		for _, id := range rk.ids {
			if _, err := b.metricsValue(id); err != nil {
				rk.missing[id] = true
				rk.missingAlive++
			}
		}
	}
	nA := len(rk.act)
	rk.raw, rk.mult = make([][]float64, nA), make([][]float64, nA)
	rk.multV, rk.lo, rk.hi = make([]float64, nA), make([]float64, nA), make([]float64, nA)
	rk.score = b.floats(m)
	for a, w := range rk.act {
		rk.raw[a] = b.floats(m)
		if b.s.mults.uniform(w) {
			rk.multV[a] = b.s.mults.base[w]
		} else {
			rk.mult[a] = b.floats(m)
			for k, id := range rk.ids {
				sh, j := b.s.at(id)
				rk.mult[a][k] = sh.mult[w].At(j)
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
			rk.remove(uint32(wi*64 + t))
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
		rk.moved = append(rk.moved, k)
	}
	b.aliveSynced()
}

// remove drops host id from the columns (the last host takes its place).
func (rk *ranker) remove(id uint32) {
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
	rk.score[k] = rk.score[last]
	rk.score = rk.score[:last]
	rk.ids = rk.ids[:last]
	rk.pos[id] = -1
	rk.in.Remove(id)
	if rk.missing != nil && rk.missing[id] {
		rk.missingAlive--
	}
	if k != last {
		rk.moved = append(rk.moved, k)
	}
	rk.moved = append(rk.moved, last) // its block shrank
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

// rescoreAll recomputes every weight under lo/hi with the column kernels.
func (rk *ranker) rescoreAll() {
	score := rk.score
	clear(score)
	for a := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		switch {
		case lo == hi:
		case rk.mult[a] == nil:
			kernels.AccumulateScalar(score, kernels.Floats(rk.raw[a]), rk.multV[a], lo, hi-lo)
		default:
			kernels.Accumulate(score, kernels.Floats(rk.raw[a]), rk.mult[a], lo, hi-lo)
		}
	}
}

// bounds sets lo and hi over the hosts in play and reports whether any
// moved.
func (rk *ranker) bounds() (changed bool) {
	for a, w := range rk.act {
		var lo, hi float64
		if rk.cached {
			lo, _ = kernels.MinMax(rk.bLo[a])
			_, hi = kernels.MinMax(rk.bHi[a])
		} else {
			lo, hi = kernels.MinMax(rk.raw[a])
		}
		if minvalZero(w) {
			lo = 0
		}
		if math.Float64bits(lo) != math.Float64bits(rk.lo[a]) || math.Float64bits(hi) != math.Float64bits(rk.hi[a]) {
			rk.lo[a], rk.hi[a], changed = lo, hi, true
		}
	}
	return changed
}

// blocks is the number of blocks over the hosts in play.
func (rk *ranker) blocks() int { return (len(rk.ids) + blockSize - 1) / blockSize }

// blockRaw recomputes block q's raw statistics.
func (rk *ranker) blockRaw(q int) {
	from, to := q*blockSize, min((q+1)*blockSize, len(rk.ids))
	for a := range rk.act {
		rk.bLo[a][q], rk.bHi[a][q] = kernels.MinMax(rk.raw[a][from:to])
	}
}

// blockBest recomputes block q's largest weight.
func (rk *ranker) blockBest(q int) {
	from, to := q*blockSize, min((q+1)*blockSize, len(rk.ids))
	_, rk.bBest[q] = kernels.MinMax(rk.score[from:to])
}

// startCache builds the block statistics (from the second instance on: a
// one-instance batch never needs them).
func (rk *ranker) startCache() {
	b := rk.b
	nb := rk.blocks()
	rk.bLo, rk.bHi = make([][]float64, len(rk.act)), make([][]float64, len(rk.act))
	for a := range rk.act {
		rk.bLo[a], rk.bHi[a] = b.floats(nb), b.floats(nb)
	}
	rk.bBest = b.floats(nb)
	for q := 0; q < nb; q++ {
		rk.blockRaw(q)
	}
	rk.cached = true
	rk.valid = false // the weights are rescored, and every block's best set
}

// refresh brings the statistics of the blocks holding moved positions up
// to date, and the weights too when the bounds did not move.
func (rk *ranker) refresh() {
	nb := rk.blocks()
	for a := range rk.act {
		rk.bLo[a], rk.bHi[a] = rk.bLo[a][:nb], rk.bHi[a][:nb]
	}
	rk.bBest = rk.bBest[:nb]
	for _, k := range rk.moved {
		if q := int(k) / blockSize; q < nb {
			rk.blockRaw(q)
		}
	}
}

// top returns the k best candidates satisfying keep (nil: all), and, when
// wantTies, every candidate tied with the best (in id order). One
// candidate weighs 0, as in Nova, where no weigher runs.
func (rk *ranker) top(k int, wantTies bool, keep func(uint32) bool, _ int32) (best, ties []scored) {
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
	if rk.valid && !rk.cached && len(rk.moved) == 0 {
		// Same state as the last call (alternates of a one-instance batch).
		return rk.scan(&c, keep)
	}
	if !rk.cached && rk.valid {
		rk.startCache()
	} else if rk.cached {
		rk.refresh()
	}
	changed := rk.bounds()
	switch {
	case changed || !rk.valid:
		rk.rescoreAll()
		rk.valid = true
		if rk.cached {
			for q := range rk.bBest {
				rk.blockBest(q)
			}
		}
	default:
		for _, k := range rk.moved {
			if int(k) < len(rk.ids) {
				rk.score[k] = rk.scoreAt(k)
			}
		}
		for _, k := range rk.moved {
			if q := int(k) / blockSize; q < len(rk.bBest) {
				rk.blockBest(q)
			}
		}
	}
	rk.moved = rk.moved[:0]
	if !rk.cached {
		return rk.scan(&c, keep)
	}
	return rk.scanBlocks(&c, keep)
}

// scan offers every candidate to c.
func (rk *ranker) scan(c *collector, keep func(uint32) bool) (best, ties []scored) {
	rk.scanRange(c, keep, 0, len(rk.ids), math.Inf(-1))
	return c.best, c.tieList()
}

// scanBlocks offers to c the candidates of every block whose largest
// weight can still rank, starting with the best block.
func (rk *ranker) scanBlocks(c *collector, keep func(uint32) bool) (best, ties []scored) {
	first, top := 0, math.Inf(-1)
	for q, x := range rk.bBest {
		if x > top {
			first, top = q, x
		}
	}
	thr := rk.scanBlock(c, keep, first, math.Inf(-1))
	for q, x := range rk.bBest {
		if q != first && x >= thr {
			thr = rk.scanBlock(c, keep, q, thr)
		}
	}
	return c.best, c.tieList()
}

// scanBlock offers block q's candidates weighing at least thr to c and
// returns the new threshold.
func (rk *ranker) scanBlock(c *collector, keep func(uint32) bool, q int, thr float64) float64 {
	return rk.scanRange(c, keep, q*blockSize, min((q+1)*blockSize, len(rk.ids)), thr)
}

// scanRange offers the candidates at positions [from, to) weighing at
// least thr to c and returns the new threshold (the k-th best weight, once
// there are k).
func (rk *ranker) scanRange(c *collector, keep func(uint32) bool, from, to int, thr float64) float64 {
	for i := from; i < to; i++ {
		x := rk.score[i]
		if x < thr {
			continue
		}
		if id := rk.ids[i]; keep == nil || keep(id) {
			c.offer(scored{id, x})
			if t, ok := c.threshold(); ok {
				thr = t.score
			}
		}
	}
	return thr
}
