package engine

import (
	"context"
	"errors"
	"time"
)

// The caching mode of a Scheduler (SchedulerOptions.CacheInterval): Nova's
// CachingScheduler (caching_scheduler.py at rocky-eol; see
// docs/nova-semantics.md#the-caching-scheduler and docs/concurrency.md).
// Each worker places on its own view of the Store: the snapshot it leased
// at its last refresh, with its own commits since applied over it. It
// does not see what the Store published since (other workers' commits,
// usage reports, deletions, host, aggregate and service changes) until
// its next refresh: when the view is CacheInterval old, or when a commit
// of its conflicted (the view is known stale). Commits still go through
// Store.Commit's re-check of every host changed since the leased
// snapshot, so staleness shows as conflicts and retries, never as
// overcommitment.

// cachedView is one worker's view. A nil *cachedView is the default
// mode: every placement leases the Store's newest snapshot.
//
// Invariants, once refreshed: base is the snapshot leased from the Store
// at refresh (release returns the lease); view is base with the worker's
// commits since applied (its usage, its group members), with base's host
// ids, never published; stale says that the next placement refreshes.
type cachedView struct {
	base     *Snapshot
	release  func()
	at       time.Time
	view     *Snapshot
	stale    bool
	rec      recycler // the view's own compactions: never retires anything
	interval time.Duration
}

// newCache is a worker's view when s caches, else nil.
func (s *Scheduler) newCache() *cachedView {
	if s.opts.CacheInterval <= 0 {
		return nil
	}
	return &cachedView{interval: s.opts.CacheInterval, stale: true}
}

// acquire returns the snapshot the worker places on and what to call once
// it has placed: the Store's newest, leased for the placement, without a
// view; the view, refreshed first when it is due, with one (refreshed
// then says so). A worker's kept batch cannot be brought from the old
// view to the refreshed one (the Store's change log lists versions, and
// the view's versions are not the Store's): refreshed tells the worker
// to drop it. Between refreshes it can: the view changes only by the
// worker's own commits, whose hosts the batch re-checks anyway.
func (c *cachedView) acquire(s *Scheduler, now time.Time) (snap *Snapshot, release func(), refreshed bool) {
	if c == nil {
		snap, release = s.store.Local().acquire()
		return snap, release, false
	}
	if c.stale || now.Sub(c.at) >= c.interval {
		c.drop()
		c.base, c.release = s.store.Local().acquire()
		c.view, c.at, c.stale = c.base, now, false
		s.refreshes.Add(1)
		refreshed = true
	}
	return c.view, func() {}, refreshed
}

// commit commits plan, made on the view, through the commit layer: as
// made on the leased snapshot (its BaseVersion), so that the commit
// re-checks every host changed since. A commit applies the plan to the
// view; a conflict marks it stale. Without a view it is CommitPlan.
//
// A partial commit (Partial) leaves in plan the placements committed, in
// order; one that committed none is a *ConflictError.
func (c *cachedView) commit(ctx context.Context, store Backend, plan *Plan, partial bool) error {
	var opts []CommitOption
	if partial {
		opts = []CommitOption{Partial()}
	}
	if c != nil {
		plan.BaseVersion = c.base.version
	}
	res, err := store.CommitPlan(ctx, *plan, opts...)
	if err == nil && partial {
		err = keepAccepted(plan, res, store)
	}
	if c == nil {
		return err
	}
	switch {
	case err == nil:
		c.view = c.view.withPlan(plan, &c.rec)
		// A placement a partial commit rejected found its host changed
		// since the view's base: the next request starts from a fresh view.
		c.stale = c.stale || len(res.Rejected) > 0
	case errors.Is(err, ErrConflict):
		c.stale = true
	}
	return err
}

// keepAccepted leaves in plan the placements a partial commit accepted
// (res), in order; none accepted is a *ConflictError, nothing committed.
func keepAccepted(plan *Plan, res CommitResult, store Backend) error {
	if len(res.Accepted) == 0 {
		// Nothing was published: the version is the store's as it answers.
		return &ConflictError{Version: store.Local().Version(), Rejected: res.Rejected, Reasons: res.Reasons}
	}
	if len(res.Accepted) < len(plan.Placements) {
		kept := make([]Placement, 0, len(res.Accepted))
		for _, i := range res.Accepted {
			kept = append(kept, plan.Placements[i])
		}
		plan.Placements = kept
	}
	return nil
}

// drop returns the view's lease (nil: nothing to do).
func (c *cachedView) drop() {
	if c == nil || c.release == nil {
		return
	}
	c.release()
	c.base, c.view, c.release = nil, nil, nil
}

// withPlan returns a private snapshot: s with plan's placements consumed
// as Store.Commit consumes them, and its group members recorded, folding
// its usage delta into private shard copies past maxDelta hosts (with
// columns from rec). It shares the rest with s, its scratch pool included
// (a scratch depends only on the host count).
func (s *Snapshot) withPlan(plan *Plan, rec *recycler) *Snapshot {
	ov := pendingUsage{res: make(map[uint32]hostRes, len(plan.Placements))}
	d := *s
	d.version = snapshotVersions.Add(1)
	for _, p := range plan.Placements {
		ov.set(p.HostID, s.consumeOn(p.HostID, ov.get(s, p.HostID), &plan.Claim))
		if g := plan.Group; g != nil {
			d.groupPlaced = setGroupPlaced(d.groupPlaced, s.groupPlaced, g.UUID, p.InstanceUUID, placedAt(p.Host, s.info.isIronic(p.HostID)))
		}
		if s.tracksPlaced && !s.info.isIronic(p.HostID) {
			d.placedSince = notePlaced(d.placedSince, s.placedSince, p.InstanceUUID, p.Host)
		}
	}
	d.delta = s.delta.with(&ov)
	if d.delta.len() > maxDelta {
		d.shards = append([]*shard(nil), s.shards...)
		d.compact(rec)
	}
	return &d
}
