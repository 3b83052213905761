package engine

import (
	"math"
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// gatheredRanker keeps each candidate's raw weigher values and total
// weight across the instances of a batch, in columns gathered over the
// candidates, and finds the best candidates of an instance without
// rescoring every host when it can. It serves every weigher (metrics,
// server groups), where the dense ranker serves column weighers only.
//
// Nova normalises each weigher over the candidates: (x - lo) / (hi - lo).
// When no placement moves any weigher's lo or hi — the usual case, since
// many hosts share the extreme values — every weight but those of the
// hosts the placement changed stays exactly what it was, so only those are
// rescored. When a bound does move, every weight is recomputed with the
// column kernels. Either way each weight is computed with the baseline's
// operations in the baseline's order, so it is bit for bit the baseline's.
//
// Invariants: ids holds exactly the hosts in play (v.alive()), in no
// particular order; pos[id] is id's index in ids, or -1; raw[a][k] is
// weigher act[a]'s raw value (clamped to its minval) for host ids[k] on the
// batch's current state, mult[a][k] its multiplier (nil column: multV[a]
// for every host); while cached, bLo/bHi hold each block of blockSize
// positions' minimum and maximum raw values, and, while valid, score[k] is
// host ids[k]'s weight under the bounds lo/hi and bBest each block's
// largest weight.
type gatheredRanker struct {
	v     rankView
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

// newGatheredRanker starts a gathered ranker for the active weighers
// act over the batch's hosts in play, its ids and positions in sc's (fill
// computes its columns); trackMissing says that a candidate lacking a
// weighed metric raises (check).
func newGatheredRanker(v rankView, sc *scratch, act []int, trackMissing bool) *gatheredRanker {
	rk := &gatheredRanker{v: v, in: v.set(), act: act, trackMissing: trackMissing}
	rk.in.CopyFrom(v.alive())
	rk.ids = v.alive().AppendTo(sc.ids[:0])
	rk.pos = sc.pos
	for k, id := range rk.ids {
		rk.pos[id] = int32(k)
	}
	return rk
}

// fill computes the candidates' raw values and multipliers (and which of
// them lack a weighed metric).
func (rk *gatheredRanker) fill() error {
	v, s := rk.v, rk.v.snap()
	m := len(rk.ids)
	if rk.trackMissing {
		rk.missing = make([]bool, s.n)
		for _, id := range rk.ids {
			if _, err := v.metricsValue(id); err != nil {
				rk.missing[id] = true
				rk.missingAlive++
			}
		}
	}
	nA := len(rk.act)
	rk.raw, rk.mult = make([][]float64, nA), make([][]float64, nA)
	rk.multV, rk.lo, rk.hi = make([]float64, nA), make([]float64, nA), make([]float64, nA)
	rk.score = v.floats(m)
	for a, w := range rk.act {
		rk.raw[a] = v.floats(m)
		if s.mults.uniform(w) {
			rk.multV[a] = s.mults.base[w]
		} else {
			rk.mult[a] = v.floats(m)
			for k, id := range rk.ids {
				sh, j := s.at(id)
				rk.mult[a][k] = sh.mult[w].At(j)
			}
		}
		if w == wMetrics {
			for k, id := range rk.ids {
				if x, err := v.metricsValue(id); err == nil {
					rk.raw[a][k] = x
				}
			}
			continue
		}
		if err := v.rawValues(w, rk.ids, rk.raw[a]); err != nil {
			return err
		}
	}
	return nil
}

func (rk *gatheredRanker) size() int { return len(rk.ids) }

// release restores sc's positions (every entry -1) and gives back the
// ids' memory.
func (rk *gatheredRanker) release(sc *scratch) {
	for _, id := range rk.ids {
		sc.pos[id] = -1
	}
	sc.ids = rk.ids[:0]
}

func (rk *gatheredRanker) holds(st *bitmap.Set) bool { return st == rk.in }

// carries is false: the gathered ranker's raw values of the metrics and
// group weighers depend on the request, and it is not brought to a new
// snapshot.
func (rk *gatheredRanker) carries() bool { return false }

// blockSize is the number of candidate positions one block statistic
// covers: small enough that refreshing a block is cheap, large enough that
// scanning the blocks is.
const blockSize = 64

// check raises what Nova's weighers would raise for this instance.
func (rk *gatheredRanker) check() error {
	if rk.missingAlive == 0 || len(rk.ids) <= 1 {
		return nil
	}
	alive := rk.v.alive()
	for id := alive.Next(0); id >= 0; id = alive.Next(id + 1) {
		if rk.missing[id] {
			_, err := rk.v.metricsValue(uint32(id))
			return err
		}
	}
	return nil
}

// update drops the hosts that left play and recomputes the raw values of
// the hosts the previous placement changed.
func (rk *gatheredRanker) update(dirty []uint32) {
	in, alive := rk.in.Words(), rk.v.alive().Words()
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
			_ = rk.v.rawValues(w, one[:], val[:])
			rk.raw[a][k] = val[0]
		}
		rk.moved = append(rk.moved, k)
	}
	rk.v.synced()
}

// remove drops host id from the columns (the last host takes its place).
func (rk *gatheredRanker) remove(id uint32) {
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
func (rk *gatheredRanker) scoreAt(k int32) float64 {
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
func (rk *gatheredRanker) multOf(a int, k int32) float64 {
	if m := rk.mult[a]; m != nil {
		return m[k]
	}
	return rk.multV[a]
}

// rescoreAll recomputes every weight under lo/hi with the column kernels.
func (rk *gatheredRanker) rescoreAll() {
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
func (rk *gatheredRanker) bounds() (changed bool) {
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
func (rk *gatheredRanker) blocks() int { return (len(rk.ids) + blockSize - 1) / blockSize }

// blockRaw recomputes block q's raw statistics.
func (rk *gatheredRanker) blockRaw(q int) {
	from, to := q*blockSize, min((q+1)*blockSize, len(rk.ids))
	for a := range rk.act {
		rk.bLo[a][q], rk.bHi[a][q] = kernels.MinMax(rk.raw[a][from:to])
	}
}

// blockBest recomputes block q's largest weight.
func (rk *gatheredRanker) blockBest(q int) {
	from, to := q*blockSize, min((q+1)*blockSize, len(rk.ids))
	_, rk.bBest[q] = kernels.MinMax(rk.score[from:to])
}

// startCache builds the block statistics (from the second instance on: a
// one-instance batch never needs them).
func (rk *gatheredRanker) startCache() {
	v := rk.v
	nb := rk.blocks()
	rk.bLo, rk.bHi = make([][]float64, len(rk.act)), make([][]float64, len(rk.act))
	for a := range rk.act {
		rk.bLo[a], rk.bHi[a] = v.floats(nb), v.floats(nb)
	}
	rk.bBest = v.floats(nb)
	for q := 0; q < nb; q++ {
		rk.blockRaw(q)
	}
	rk.cached = true
	rk.valid = false // the weights are rescored, and every block's best set
}

// refresh brings the statistics of the blocks holding moved positions up
// to date, and the weights too when the bounds did not move.
func (rk *gatheredRanker) refresh() {
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
func (rk *gatheredRanker) top(k int, wantTies bool, keep func(uint32) bool, _ int32) (best, ties []scored) {
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
func (rk *gatheredRanker) scan(c *collector, keep func(uint32) bool) (best, ties []scored) {
	rk.scanRange(c, keep, 0, len(rk.ids), math.Inf(-1))
	return c.best, c.tieList()
}

// scanBlocks offers to c the candidates of every block whose largest
// weight can still rank, starting with the best block.
func (rk *gatheredRanker) scanBlocks(c *collector, keep func(uint32) bool) (best, ties []scored) {
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
func (rk *gatheredRanker) scanBlock(c *collector, keep func(uint32) bool, q int, thr float64) float64 {
	return rk.scanRange(c, keep, q*blockSize, min((q+1)*blockSize, len(rk.ids)), thr)
}

// scanRange offers the candidates at positions [from, to) weighing at
// least thr to c and returns the new threshold (the k-th best weight, once
// there are k).
func (rk *gatheredRanker) scanRange(c *collector, keep func(uint32) bool, from, to int, thr float64) float64 {
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
