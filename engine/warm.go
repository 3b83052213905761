package engine

import (
	"context"
	"reflect"

	"github.com/placer/placer/bitmap"
)

// warmBatch is a Scheduler worker's batch, kept from one request to the
// next. A worker's requests are often alike (one flavor, no group), and
// between two of them a Store changes the usage of a few hosts only: the
// next request's instance 0 candidates and ranking are then the kept
// batch's, brought up to date on the hosts that changed (from the Store's
// change log) and on those the kept batch consumed on, instead of a filter
// pass and a full ranking over every host. The plan is the one PlaceBatch
// makes on the new snapshot, bit for bit (TestWarmMatchesPlaceBatch).
//
// Invariants, while b is non-nil:
//   - b was made by a successful PlaceBatch loop for a request equal to
//     key apart from its instance uuids and count, warmable, on snapshot
//     b.s, and b.rk is a *denseRanker;
//   - on b.s, every host outside consumed has in b.alive its instance 0
//     verdict (the kept batch's later instances only remove the hosts it
//     consumed on, as no group is involved), and the ranker describes
//     b.alive and b.s with b's overlay once the hosts in consumed are
//     passed to its update;
//   - b's scratch is out of every snapshot's pool; it goes back to one
//     when the batch is dropped.
type warmBatch struct {
	b        *batch
	key      Request
	consumed []uint32 // the hosts of the kept batch's placements

	opts rankOptions // the options of the batches it makes (tests)

	ids         []uint32    // changed hosts (scratch)
	dirty, pass *bitmap.Set // their set, and those that pass (scratch)
}

// warmable reports whether r's instance 0 verdict on a host depends on that
// host's state and r alone, with nothing set-wide (server groups, forced,
// requested or ignored hosts, hints naming instances), so that the verdicts
// of unchanged hosts carry over from one snapshot to the next.
func warmable(r *Request) bool {
	h := &r.SchedulerHints
	return r.InstanceGroup == nil && len(r.IgnoreHosts) == 0 && len(r.ForceHosts) == 0 &&
		len(r.ForceNodes) == 0 && r.RequestedDestination == nil &&
		len(h.SameHost) == 0 && len(h.DifferentHost) == 0
}

// warmKey is r without its instance uuids and count: what instance 0's
// candidates and weights depend on.
func warmKey(r *Request) Request {
	k := *r
	k.InstanceUUIDs, k.NumInstances = nil, 0
	return k
}

// place places req on s as PlaceBatch does, from the kept batch when it
// can be brought up to date (log lists the changes since its snapshot;
// warm reports that it was), and keeps the batch for the next request
// when it may serve it.
func (w *warmBatch) place(ctx context.Context, s *Snapshot, req Request, log *changeLog) (plan Plan, warm bool, err error) {
	if err := checkSnapshot(s); err != nil {
		return Plan{}, false, err
	}
	r, p, err := prepareRequest(&s.cfg, req)
	if err != nil {
		return Plan{}, false, err
	}
	key := warmKey(&r)
	b := w.rebase(ctx, s, &r, p, &key, log)
	if warm = b != nil; !warm {
		w.drop(s)
		b = newBatch(ctx, s, &r, p, w.opts)
	}
	plan, err = b.place(warm)
	if err != nil || b.rk == nil || !b.rk.carries() || !warmable(&r) {
		b.release()
		w.b = nil
		return plan, warm, err
	}
	w.b, w.key = b, key
	w.consumed = w.consumed[:0]
	for _, p := range plan.Placements {
		w.consumed = append(w.consumed, p.HostID)
	}
	b.recycleTemps()
	return plan, warm, nil
}

// rebase brings the kept batch to instance 0 of r (parsed as p) on s, or returns nil
// (the batch may then be half moved: drop it) when it cannot.
func (w *warmBatch) rebase(ctx context.Context, s *Snapshot, r *Request, p parsedRequest, key *Request, log *changeLog) *batch {
	b := w.b
	if b == nil || b.s.info != s.info || !warmable(r) || !reflect.DeepEqual(&w.key, key) {
		return nil
	}
	ids, ok := log.since(b.s.version, s.version, w.ids[:0])
	w.ids = ids
	if !ok {
		return nil
	}
	b.reset(ctx, s, r, p)

	// The changed hosts and those the kept batch consumed on go through
	// instance 0's filters again, on s.
	if w.dirty == nil || w.dirty.Len() != s.n { // the host set may have changed since
		w.dirty, w.pass = bitmap.NewSet(s.n), bitmap.NewSet(s.n)
	}
	w.dirty.Reset()
	for _, id := range ids {
		w.dirty.Add(id)
	}
	for _, id := range w.consumed {
		w.dirty.Add(id)
	}
	w.pass.CopyFrom(w.dirty)
	w.ids = w.dirty.AppendTo(w.ids[:0])
	if b.refilter(w.pass, w.ids) != nil {
		return nil // the same error awaits PlaceBatch: let it report it
	}
	b.alive.AndNot(w.dirty)
	b.alive.Or(w.pass)
	if b.alive.Count() == 0 {
		return nil // PlaceBatch explains the NoValidHost
	}
	b.aliveAll = true // alive changed by whole words above
	b.rk.update(w.ids)
	return b
}

// drop lets go of the kept batch: its scratch goes to s's pool when it
// fits s, else to its own snapshot's.
func (w *warmBatch) drop(s *Snapshot) {
	b := w.b
	if b == nil {
		return
	}
	if s != nil && s.n == b.s.n {
		b.s = s
	}
	b.release()
	w.b = nil
}

// recycleTemps gives back to the scratch the sets the batch took for one
// request only (masks, the alternates' selection), keeping those its
// state lives in.
func (b *batch) recycleTemps() {
	kept := b.taken[:0]
	for _, st := range b.taken {
		if st == b.ov.in || st == b.alive || st == b.prev || b.rk.holds(st) {
			kept = append(kept, st)
			continue
		}
		b.sc.sets = append(b.sc.sets, st)
	}
	clear(b.taken[len(kept):])
	b.taken = kept
}
