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
}

type scratchPool struct{ p sync.Pool }

func (s *Snapshot) getScratch() *scratch {
	if sc, ok := s.pool.p.Get().(*scratch); ok {
		return sc
	}
	sc := &scratch{pos: make([]int32, s.n)}
	for i := range sc.pos {
		sc.pos[i] = -1
	}
	return sc
}

func (s *Snapshot) putScratch(sc *scratch) { s.pool.p.Put(sc) }

// set returns an empty host set of the batch's snapshot.
func (b *batch) set() *bitmap.Set {
	sc := b.sc
	var st *bitmap.Set
	if k := len(sc.sets) - 1; k >= 0 && !b.keepSets {
		st, sc.sets = sc.sets[k], sc.sets[:k]
		st.Reset()
	} else {
		st = bitmap.NewSet(b.s.n)
	}
	b.taken = append(b.taken, st)
	return st
}

// floats returns a float slice of length m from the scratch.
func (b *batch) floats(m int) []float64 {
	sc := b.sc
	var f []float64
	if k := len(sc.cols) - 1; k >= 0 && cap(sc.cols[k]) >= m {
		f, sc.cols = sc.cols[k][:m], sc.cols[:k]
	} else {
		f = make([]float64, m, max(m, b.s.n))
	}
	b.takenCols = append(b.takenCols, f)
	return f
}

// release gives the batch's memory back to the snapshot's pool. Nothing
// the caller keeps may point into it.
func (b *batch) release() {
	sc := b.sc
	if sc == nil {
		return
	}
	if !b.keepSets {
		sc.sets = append(sc.sets, b.taken...)
	}
	sc.cols = append(sc.cols, b.takenCols...)
	if b.rk != nil {
		b.rk.release(sc)
	}
	b.sc, b.taken, b.takenCols = nil, nil, nil
	b.s.putScratch(sc)
}
