package engine

import "github.com/placer/placer/bitmap"

// baselineRanker is the literal Nova loop: for every instance it weighs
// every candidate from scratch (batch.weigh, weigh.go) and picks the best
// by a scan. The incremental rankers are held to its choices, bit for
// bit; tests and benchmarks rank with it to compare.
//
// Invariants: once started and after every update, cands and score are
// the hosts in play in id order and their weights on the batch's state
// (the batch's weighScratch), or err is what weighing them raised.
type baselineRanker struct {
	v     rankView
	cands []uint32
	score []float64
	err   error
}

// weigh weighs the hosts in play afresh.
func (rk *baselineRanker) weigh() error {
	rk.cands, rk.score, rk.err = rk.v.weighAll()
	return rk.err
}

// update weighs the hosts in play afresh (reading alive whole, it needs
// none of its changes).
func (rk *baselineRanker) update([]uint32) {
	rk.v.synced()
	rk.weigh()
}

func (rk *baselineRanker) check() error { return rk.err }

func (rk *baselineRanker) size() int { return len(rk.cands) }

// top returns the k best candidates satisfying keep (nil: all), and, when
// wantTies, every candidate tied with the best (collector.tieList's order).
func (rk *baselineRanker) top(k int, wantTies bool, keep func(uint32) bool, _ int32) (best, ties []scored) {
	cands, score := rk.cands, rk.score
	if keep != nil {
		cands, score = nil, nil
		for i, id := range rk.cands {
			if keep(id) {
				score = append(score, rk.score[i])
				cands = append(cands, id)
			}
		}
	}
	c := collector{chosen: rk.v.chosen()}
	c.init(min(k, len(cands)), wantTies)
	for i, id := range cands {
		c.offer(scored{id, score[i]})
	}
	return c.best, c.tieList()
}

// release has nothing to give back: the baseline's memory is the batch's
// weighScratch.
func (rk *baselineRanker) release(*scratch) {}

func (rk *baselineRanker) holds(*bitmap.Set) bool { return false }

// carries is false: the baseline keeps nothing from one instance to the
// next.
func (rk *baselineRanker) carries() bool { return false }
