package engine

import (
	"context"
	"math/rand/v2"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/nova"
)

// batch is the private state of one PlaceBatch call: the request in the
// forms the filters need, the overlay of consumed resources, the group
// bookkeeping and the hosts still in play. The snapshot is only read.
//
// Invariants: ov holds the snapshot's usage delta and every host the
// batch consumed on, with their usage now; alive holds the hosts in play
// for instance index (those that passed its filters on the snapshot with
// ov, or the forced ones); once started, rk describes alive but for the
// words aliveWords lists (any word when aliveAll); every set of taken
// and column of takenCols came from sc or was made for it, and goes back
// to it on release (the sets but when keepSets).
type batch struct {
	ctx context.Context
	s   *Snapshot
	cfg *Config
	req *Request

	index int    // instance being placed
	uuid  string // its uuid
	// chosen says which hosts this batch chose, and at which instance
	// last: of hosts of equal weight, the most recently chosen ranks first
	// (collector.better), as in Nova's list.
	chosen recency

	// The request, pre-digested.
	claim    Claim // what each instance consumes and the resource filters ask for
	img      nova.ImageRequest
	query    *nova.Query
	group    *groupState
	filters  []*filterImpl              // the snapshot's chain, from the catalogue
	chainBuf [catalogueSize]*filterImpl // filters' backing array
	weighers []int                      // active weigher indexes, in config order (the snapshot's: read only)

	// ov is the current usage of the hosts consumed in this batch, and
	// of those in the snapshot's usage delta.
	ov overlay

	alive *bitmap.Set // hosts in play
	// aliveWords lists words of alive that filterNext changed since the
	// ranker last read alive (ranking.update); aliveAll says that any word
	// may have changed. The ranker resets both (aliveSynced).
	aliveWords []uint32
	aliveAll   bool
	prev       *bitmap.Set // the hosts in play for the previous instance
	forced     bool        // force_hosts/force_nodes: no filter runs

	rng        *rand.Rand
	w          weighScratch
	rk         ranking
	opts       rankOptions // which ranker, and the tests' hooks
	candidates int         // hosts that passed the filters for this instance

	sc        *scratch
	taken     []*bitmap.Set
	takenBuf  [4]*bitmap.Set // taken's first backing array
	takenCols [][]float64
	keepSets  bool // sets escape to the caller (FilterHosts): never pooled
}

// newBatch makes the batch of req (parsed as p) on s, ranked as opts say,
// its memory from s's scratch pool.
func newBatch(ctx context.Context, s *Snapshot, req *Request, p parsedRequest, opts rankOptions) *batch {
	sc := s.getScratch()
	b := &batch{s: s, sc: sc, ov: overlay{idx: sc.ovIdx, ids: sc.ovIDs[:0], res: sc.ovRes[:0]}, opts: opts}
	b.chosen.at = sc.chosenAt[:0]
	b.taken = b.takenBuf[:0]
	b.ov.in = b.set()
	b.reset(ctx, s, req, p)
	return b
}

// reset readies b for instance 0 of req (parsed as p) on s: what a batch
// derives from its request and snapshot, a fresh generator and an overlay
// holding s's usage delta alone. newBatch starts every batch with it, and
// a Scheduler worker's kept batch is brought to its next request with it
// (warm.go); the hosts in play and the ranker are theirs to set.
func (b *batch) reset(ctx context.Context, s *Snapshot, req *Request, p parsedRequest) {
	b.ctx, b.s, b.cfg, b.req = ctx, s, &s.cfg, req
	b.index, b.uuid, b.candidates = 0, "", 0
	b.chosen.reset(&b.ov) // a new request starts from a list of its own
	b.claim = claimOf(req)
	b.img, b.query = p.img, p.query
	b.group = nil
	if g := req.InstanceGroup; g != nil {
		b.group = newGroupState(s, g, req.InstanceUUIDs, b.set())
	}
	b.filters = b.chainBuf[:0]
	for _, i := range s.chain {
		b.filters = append(b.filters, filterTable[i])
	}
	b.weighers = s.weighers
	b.rng = newRNG(&s.cfg)
	b.ov.reset(s.delta)
}

// newRNG is a batch's generator: seeded by the configuration alone, so
// that a plan is a function of the snapshot and the request.
func newRNG(cfg *Config) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15))
}

// aliveSynced notes that the ranker has read every change of alive.
func (b *batch) aliveSynced() { b.aliveWords, b.aliveAll = b.aliveWords[:0], false }

// cur returns host id's current resources (the overlay's, else the
// snapshot's).
func (b *batch) cur(id uint32) hostRes { return b.ov.usage(b.s, id) }

// consume applies Nova's consume_from_request and _consume_selected_host to
// host id in the overlay, and returns the hosts whose filter results or
// weights may have changed.
func (b *batch) consume(id uint32, uuid string, dirty []uint32) []uint32 {
	b.ov.set(id, b.s.consumeOn(id, b.cur(id), &b.claim))
	dirty = append(dirty, id)
	if g := b.group; g != nil {
		info := b.s.info
		nid := info.instKey(id)
		g.addHost(b.s, info.hostOf(id))
		if !b.hasInstance(nid, uuid) {
			g.add(nid, uuid)
			if g.members[uuid] {
				g.count[nid]++
			}
		}
		var one [1]uint32
		for _, other := range info.instNodes(nid, &one) {
			if other != id {
				dirty = append(dirty, other)
			}
		}
	}
	return dirty
}

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
	sc.ovIDs, sc.ovRes = b.ov.ids[:0], b.ov.res[:0]
	sc.chosenAt = b.chosen.at[:0]
	b.ov = overlay{}
	b.chosen = recency{}
	if b.rk != nil {
		b.rk.release(sc)
	}
	b.sc, b.taken, b.takenCols = nil, nil, nil
	b.s.putScratch(sc)
}
