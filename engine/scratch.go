package engine

import (
	"sync"

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
}

type scratchPool struct{ p sync.Pool }

func (s *Snapshot) getScratch() *scratch {
	if sc, ok := s.pool.p.Get().(*scratch); ok {
		return sc
	}
	sc := &scratch{pos: make([]int32, s.n), ovIdx: make([]int32, s.n)}
	for i := range sc.pos {
		sc.pos[i] = -1
	}
	return sc
}

func (s *Snapshot) putScratch(sc *scratch) { s.pool.p.Put(sc) }
