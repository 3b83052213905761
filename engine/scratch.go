package engine

import (
	"sync"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
)

// scratch is the reusable memory of one PlaceBatch, sized for its snapshot
// and kept in the snapshot's pool between calls, so that a batch allocates
// in proportion to its instances, not to the hosts (and touches no fresh
// pages: on these machines a page fault costs more than the work).
//
// Invariant while in the pool: every entry of pos is -1.
type scratch struct {
	sets []*bitmap.Set
	pos  []int32
	ids  []uint32
	cols [][]float64
	// ovIdx, ovIDs and ovRes are the batch's overlay's memory (overlay:
	// ovIdx per host, its entries meaningful only for the overlay's hosts).
	ovIdx []int32
	ovIDs []uint32
	ovRes []hostRes
	// chosenAt is the batch's recency.at (per overlay slot).
	chosenAt []int32
	// touched, touchedOff and was are applyFused's (overlayByShard).
	touched    []uint32
	touchedOff []int32
	was        []bool
}

// scratchPool is a snapshot's pool of scratch. held counts the scratches
// put in and not taken out since, a hint only (the collector may have
// dropped some, and a Get may miss one another processor holds): a
// Store's hand-over (handOverScratch) skips the pools it shows empty
// without asking them. A batch always asks (a fresh scratch costs far
// more than the question).
type scratchPool struct {
	p    sync.Pool
	held atomic.Int64
}

// get takes a scratch from the pool (nil: none).
func (p *scratchPool) get() *scratch {
	sc, ok := p.p.Get().(*scratch)
	if !ok {
		return nil
	}
	p.held.Add(-1)
	return sc
}

func (p *scratchPool) put(sc *scratch) {
	p.p.Put(sc)
	p.held.Add(1)
}

func (s *Snapshot) getScratch() *scratch {
	if sc := s.pool.get(); sc != nil {
		return sc
	}
	sc := &scratch{pos: make([]int32, s.n), ovIdx: make([]int32, s.n)}
	for i := range sc.pos {
		sc.pos[i] = -1
	}
	return sc
}

func (s *Snapshot) putScratch(sc *scratch) { s.pool.put(sc) }
