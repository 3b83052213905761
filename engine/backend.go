package engine

import (
	"context"
	"errors"
)

// ErrUnavailable is matched (errors.Is) by the errors of a commit layer
// that could not reach its shared state (engine/etcdstore: no etcd quorum
// within the time allowed). Nothing was committed, and the caller may
// retry, unless the error's message says the outcome is unknown (a
// transaction sent whose answer never came: engine/etcdstore's commit
// past its CommitTimeout or in a closing process, or a cloud change):
// then the shared state tells (etcdstore.InstanceKey for a commit).
var ErrUnavailable = errors.New("commit layer unavailable")

// Backend is the commit layer a Scheduler places and commits on: a Store,
// or a layer shared by several processes (engine/etcdstore) that keeps a
// local Store up to date as its mirror and commits elsewhere.
//
// Plans are made on the snapshots of Local(): its leases, versions and
// change log (warm starts) are the Scheduler's. CommitPlan commits a plan
// made on one of them, with Store.Commit's contract: all or nothing
// unless Partial(), a *ConflictError when a placement no longer fits, a
// *ValidationError for an instance already committed. A shared layer may
// also fail with an error matching ErrUnavailable (nothing committed,
// unless it says the outcome is unknown); ctx bounds the wait, but a
// commit already sent is seen through to a known outcome within the
// layer's own time limit, never reported failed when it was known to be
// applied.
type Backend interface {
	// Local is the Store whose snapshots plans are made on.
	Local() *Store
	// CommitPlan commits plan (made on a snapshot of Local()).
	CommitPlan(ctx context.Context, plan Plan, opts ...CommitOption) (CommitResult, error)
}

// Local returns s: an in-process Store is its own mirror.
func (s *Store) Local() *Store { return s }

// CommitPlan is Commit; an in-process commit does not wait, so ctx is not
// used.
func (s *Store) CommitPlan(_ context.Context, plan Plan, opts ...CommitOption) (CommitResult, error) {
	return s.Commit(plan, opts...)
}

// ObserveCommit records a commit made by another commit layer (a Backend
// that checks plans with DryRun and commits elsewhere) in m, as Store
// records its own: commits by result, placements, re-checked hosts.
func (m *Metrics) ObserveCommit(res CommitResult, err error) { m.observeCommit(res, err) }

// IsPartial reports whether opts hold Partial(): a commit layer that
// commits a large plan in pieces may do so only for a partial commit.
func IsPartial(opts ...CommitOption) bool {
	var o commitOpts
	for _, f := range opts {
		f(&o)
	}
	return o.partial
}
