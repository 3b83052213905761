package engine

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
)

// ErrConflict is matched (errors.Is) by every *ConflictError: a plan could
// not be committed because the hosts it chose changed under it and no
// longer fit, and nothing was committed.
var ErrConflict = errors.New("placement conflict")

// ConflictError says which placements of a plan no longer fit the newest
// state, and why. Nothing of the plan was committed.
type ConflictError struct {
	// Version is the store's version the plan was checked against.
	Version uint64
	// Rejected are the indexes (into Plan.Placements) that did not fit.
	Rejected []int
	// Reasons has, per rejected placement, the filter that refused it
	// ("HostRemoved" when its host is gone, "ServerGroupAntiAffinityFilter"
	// for the group rule).
	Reasons []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("placement conflict at version %d: %d placement(s) no longer fit (first: #%d, %s)",
		e.Version, len(e.Rejected), e.Rejected[0], e.Reasons[0])
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Store holds the current Snapshot of a cloud and applies changes to it by
// optimistic concurrency: placements are computed on an immutable snapshot
// without any lock, then committed.
//
// Invariants:
//   - Snapshot() always returns a complete, immutable snapshot; a commit
//     publishes a new one (atomically) and never changes an old one, so
//     readers of an older snapshot are never affected;
//   - versions strictly increase with every publication;
//   - every host carries a generation, the version of the last change that
//     touched its usage; a host whose generation is at most a plan's
//     BaseVersion is in exactly the state the plan was computed on;
//   - a usage commit shares every shard and the static per-host data with
//     the previous snapshot and records the changed hosts in the new
//     snapshot's usage delta; only a compaction (past maxDelta hosts)
//     copies the shards the delta covers;
//   - commits are serialized (one short critical section); a committed
//     instance always fitted, under the enabled resource filters, the
//     state it was committed to.
//
// A Store is safe for concurrent use.
type Store struct {
	mu  sync.Mutex // serializes commits and updates
	cur atomic.Pointer[storeState]

	// Under mu: what a rebuild needs, and the committed instances.
	cloud   Cloud                     // usage fields stale; Instances as given
	ledger  map[string]ledgerEntry    // committed instance uuid -> where, what
	byGroup map[string]map[string]int // group uuid -> host name -> members committed
	journal []JournalEntry
	opts    StoreOptions

	// beforeCommit, when set (tests), runs under mu before a commit is
	// checked: it may call the *Locked update helpers to force conflicts.
	beforeCommit func(s *Store, p *Plan)
	// recent are the last snapshots published by usage commits, whose
	// scratch pools handOverScratch drains into the next one.
	recent []*Snapshot
	// rec recycles the usage columns compactions replace.
	rec recycler
	// changes lists the hosts each usage publication changed (warm.go).
	changes changeLog
}

// StoreOptions configure a Store.
type StoreOptions struct {
	// Journal keeps every committed change in order (Store.Journal), so
	// that the final state can be recomputed from scratch. It costs memory
	// in proportion to the changes.
	Journal bool
	// Metrics, when set, is kept up to date with commits and versions.
	Metrics *Metrics
}

// storeState is one published state: the snapshot and its generations.
type storeState struct {
	snap *Snapshot
	// gens holds every host's generation (shared with the states before
	// it, back to the last rebuild).
	gens *genTable
	// rebuilt is the version of the last rebuild: host ids of a plan made
	// on an older snapshot must be looked up again by name.
	rebuilt uint64
	// retiring are the shards a compaction replaced to make snap, handed
	// to the recycler once snap is published.
	retiring []*shard
}

// ledgerEntry is one instance committed through the store.
type ledgerEntry struct {
	host  HostNode
	claim Claim
	group string // group uuid, "" without one
}

// NewStore builds the first snapshot of c (see NewSnapshot) and returns a
// Store holding it.
func NewStore(c Cloud, opts StoreOptions) (*Store, error) {
	snap, err := NewSnapshot(c)
	if err != nil {
		return nil, err
	}
	s := &Store{
		cloud:   Cloud{Config: snap.cfg, Hosts: slices.Clone(c.Hosts), Aggregates: cloneAggregates(c.Aggregates)},
		ledger:  map[string]ledgerEntry{},
		byGroup: map[string]map[string]int{},
		opts:    opts,
	}
	s.publish(&storeState{snap: snap, gens: newGens(snap.n, snap.version), rebuilt: snap.version})
	return s, nil
}

func cloneAggregates(aggs []Aggregate) []Aggregate {
	out := slices.Clone(aggs)
	for i := range out {
		out[i].Hosts = slices.Clone(out[i].Hosts)
		m := make(map[string]string, len(out[i].Metadata))
		for k, v := range out[i].Metadata {
			m[k] = v
		}
		out[i].Metadata = m
	}
	return out
}

func (s *Store) publish(st *storeState) {
	retiring := st.retiring
	st.retiring = nil
	s.cur.Store(st)
	if retiring != nil {
		s.rec.retire(retiring, st.snap.version)
	}
	if m := s.opts.Metrics; m != nil {
		m.snapshotVersion.Set(float64(st.snap.version))
	}
}

// Snapshot returns the newest snapshot. It never blocks.
func (s *Store) Snapshot() *Snapshot {
	s.rec.escapes.Add(1) // first: see recycler
	return s.cur.Load().snap
}

// Version returns the newest snapshot's version.
func (s *Store) Version() uint64 { return s.cur.Load().snap.version }

// Generation returns the version of the last change to host id's usage in
// the newest snapshot.
func (s *Store) Generation(id uint32) uint64 {
	st := s.cur.Load()
	return st.gens.of(id)
}

// CommitOption changes how Commit treats a plan.
type CommitOption func(*commitOpts)

type commitOpts struct{ partial bool }

// Partial makes a commit accept the placements that still fit and report
// the others (CommitResult.Rejected) instead of rejecting the whole plan.
func Partial() CommitOption { return func(o *commitOpts) { o.partial = true } }

// CommitResult is what a successful commit did.
type CommitResult struct {
	// Version is the version of the snapshot the commit published (the
	// current version when nothing was accepted).
	Version uint64
	// Accepted are the indexes of the committed placements, in order.
	Accepted []int
	// Rejected are the indexes of the placements that no longer fitted
	// (only with Partial), with the filter that refused each in Reasons.
	Rejected []int
	Reasons  []string
	// Rechecked is how many placements landed on hosts that had changed
	// since the plan's snapshot and were re-checked (and accepted or not).
	Rechecked int
}

// Commit applies plan to the newest state. Every host the plan touches is
// verified: a host unchanged since plan.BaseVersion is accepted as is (the
// plan was computed on exactly its state); a changed host is re-checked
// with the enabled resource filters (RAM, core, disk, io-ops, instance
// count, and the anti-affinity rule of the plan's group) on its newest
// usage — Omega's fine-grained conflict detection. A Forced plan
// (force_hosts/force_nodes) skipped the filters and is not re-checked. All-or-nothing unless
// Partial() is given: on a conflict nothing is committed and the error is
// a *ConflictError (errors.Is(err, ErrConflict)).
//
// An accepted placement is consumed as Nova's consume_from_request does
// (free_ram_mb -= memory, free_disk_mb -= (root+ephemeral)×1024, vcpus_used
// += vcpus, num_instances and num_io_ops + 1) and its instance uuid joins
// the store's ledger (DeleteInstance gives the resources back). Committing
// an instance uuid the ledger already holds is a *ValidationError.
func (s *Store) Commit(plan Plan, opts ...CommitOption) (CommitResult, error) {
	var o commitOpts
	for _, f := range opts {
		f(&o)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.beforeCommit != nil {
		s.beforeCommit(s, &plan)
	}
	res, err := s.commitLocked(&plan, o)
	if m := s.opts.Metrics; m != nil {
		m.observeCommit(res, err)
	}
	return res, err
}

// overlay is the running usage of the hosts a commit changes.
type overlay struct {
	ids []uint32
	res map[uint32]hostRes
}

func (ov *overlay) get(st *storeState, id uint32) hostRes {
	if r, ok := ov.res[id]; ok {
		return r
	}
	return st.snap.usage(id)
}

func (ov *overlay) set(id uint32, r hostRes) {
	if _, ok := ov.res[id]; !ok {
		ov.ids = append(ov.ids, id)
	}
	ov.res[id] = r
}

func (s *Store) commitLocked(plan *Plan, o commitOpts) (CommitResult, error) {
	st := s.cur.Load()
	snap := st.snap
	res := CommitResult{Version: snap.version}
	for i, p := range plan.Placements {
		if _, dup := s.ledger[p.InstanceUUID]; dup || slices.ContainsFunc(plan.Placements[:i],
			func(q Placement) bool { return q.InstanceUUID == p.InstanceUUID }) {
			return res, invalid(fmt.Sprintf("plan.placements[%d].instance_uuid", i), "instance %q is already committed", p.InstanceUUID)
		}
	}
	remap := plan.BaseVersion < st.rebuilt
	ov := overlay{res: make(map[uint32]hostRes, len(plan.Placements))}
	ids := make([]uint32, len(plan.Placements))
	var groupCount map[string]int // host name -> members, anti-affinity only
	// The group rule is re-checked only when the configuration enables the
	// filter that enforces it, as for the resource filters.
	antiAffinity := plan.Group != nil && plan.Group.Policy == PolicyAntiAffinity && !plan.Forced &&
		slices.Contains(snap.cfg.Filters, ServerGroupAntiAffinityFilter)
	if antiAffinity {
		groupCount = s.groupCountLocked(snap, plan.Group)
	}
	var conflict ConflictError
	reject := func(i int, why string) {
		conflict.Rejected = append(conflict.Rejected, i)
		conflict.Reasons = append(conflict.Reasons, why)
	}
	for i := range plan.Placements {
		p := &plan.Placements[i]
		id, touched := p.HostID, remap
		if remap {
			var ok bool
			if id, ok = snap.info.byHostNode(HostNode{p.Host, p.Node}); !ok {
				reject(i, "HostRemoved")
				continue
			}
		} else if int(id) >= snap.n || snap.info.hostOf(id) != p.Host || snap.info.nodeOf(id) != p.Node {
			return res, invalid(fmt.Sprintf("plan.placements[%d]", i), "host id %d is not %s/%s in the plan's snapshot", id, p.Host, p.Node)
		} else {
			touched = st.gens.of(id) > plan.BaseVersion
		}
		ids[i] = id
		r := ov.get(st, id)
		if touched && !plan.Forced {
			res.Rechecked++
			if ok, f := snap.claimFits(id, r, &plan.Claim); !ok {
				reject(i, f)
				continue
			}
		}
		if antiAffinity && !snap.info.instances.Has(snap.info.nameOf(id), p.InstanceUUID) {
			// The group rule is checked on every placement: other nodes of
			// the same host name and other requests of the group count. A
			// host already listing the instance's own uuid passes, as in
			// the filter.
			if groupCount[p.Host] >= plan.Group.MaxServerPerHost {
				reject(i, ServerGroupAntiAffinityFilter)
				continue
			}
			groupCount[p.Host]++
		}
		ov.set(id, consumeClaim(r, &plan.Claim))
		res.Accepted = append(res.Accepted, i)
	}
	if len(conflict.Rejected) > 0 && !o.partial {
		conflict.Version = snap.version
		res.Accepted = nil
		return res, &conflict
	}
	res.Rejected, res.Reasons = conflict.Rejected, conflict.Reasons
	if len(res.Accepted) == 0 {
		return res, nil
	}
	next := s.applyLocked(st, &ov)
	res.Version = next.snap.version
	for _, i := range res.Accepted {
		p := &plan.Placements[i]
		e := ledgerEntry{host: HostNode{p.Host, p.Node}, claim: plan.Claim}
		if plan.Group != nil {
			e.group = plan.Group.UUID
			next.snap.groupPlaced = setGroupPlaced(next.snap.groupPlaced, st.snap.groupPlaced, e.group, p.InstanceUUID, p.Host)
			if antiAffinity {
				m := s.byGroup[e.group]
				if m == nil {
					m = map[string]int{}
					s.byGroup[e.group] = m
				}
				m[p.Host]++
			}
		}
		s.ledger[p.InstanceUUID] = e
		if s.opts.Journal {
			s.journal = append(s.journal, JournalEntry{
				Version: res.Version, Kind: JournalPlace, Host: e.host,
				InstanceUUID: p.InstanceUUID, Claim: plan.Claim, Forced: plan.Forced,
			})
		}
	}
	s.publish(next)
	return res, nil
}

// setGroupPlaced returns groupPlaced with group's member uuid on host
// (host "" removes it), copying what it changes: the outer map once per
// derived snapshot (while it is still the parent's), and the group's map.
func setGroupPlaced(cur, parent map[string]map[string]string, group, uuid, host string) map[string]map[string]string {
	if cur == nil || sameMap(cur, parent) {
		next := make(map[string]map[string]string, len(cur)+1)
		for g, m := range cur {
			next[g] = m
		}
		cur = next
	}
	m := make(map[string]string, len(cur[group])+1)
	for u, h := range cur[group] {
		m[u] = h
	}
	if host == "" {
		delete(m, uuid)
	} else {
		m[uuid] = host
	}
	if len(m) == 0 {
		delete(cur, group)
	} else {
		cur[group] = m
	}
	return cur
}

// sameMap reports whether two maps are the same map (not merely equal).
func sameMap(a, b map[string]map[string]string) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// groupCountLocked counts, per host name, the anti-affinity group's members
// already there: those the snapshot lists on the host and those committed
// through the store.
func (s *Store) groupCountLocked(snap *Snapshot, g *GroupClaim) map[string]int {
	count := map[string]int{}
	for _, m := range g.Members {
		if e, committed := s.ledger[m]; committed {
			if e.group != g.UUID { // else counted below, under its group
				count[e.host.Host]++
			}
			continue
		}
		for nid := range snap.info.instances.NamesOf(m) {
			count[snap.info.names.Name(nid)]++
		}
	}
	for host, c := range s.byGroup[g.UUID] {
		count[host] += c
	}
	return count
}

// applyLocked derives the next state from st with the overlay's usage:
// only the shards holding a changed host are copied.
func (s *Store) applyLocked(st *storeState, ov *overlay) *storeState {
	old := st.snap
	snap := &Snapshot{
		version: snapshotVersions.Add(1), cfg: old.cfg, n: old.n,
		filters: old.filters, weighers: old.weighers,
		shards: slices.Clone(old.shards), info: old.info,
		mults:       old.mults,
		groupPlaced: old.groupPlaced,
	}
	s.handOverScratch(snap)
	next := &storeState{snap: snap, gens: st.gens, rebuilt: st.rebuilt}
	for _, id := range ov.ids {
		next.gens.set(id, snap.version)
	}
	snap.delta = old.delta.with(ov)
	s.changes.add(snap.version, ov.ids)
	if snap.delta.len() > maxDelta {
		next.retiring = snap.compact(&s.rec)
	}
	return next
}

// compact folds the snapshot's usage delta into copies of the shards it
// covers (snap is not published yet), with columns from r, and returns
// the shards it replaced. The hosts whose usage the columns cannot hold
// stay in the delta.
func (snap *Snapshot) compact(r *recycler) (replaced []*shard) {
	copied := map[int]bool{}
	born := r.escapes.Load()
	var wide usageDelta
	for i, id := range snap.delta.ids {
		k, j := int(id>>bitmap.ShardBits), int(id&(bitmap.ShardSize-1))
		res := snap.delta.res[i]
		if !res.fitsColumns() {
			wide.ids, wide.res = append(wide.ids, id), append(wide.res, res)
			continue
		}
		if !copied[k] {
			copied[k] = true
			replaced = append(replaced, snap.shards[k])
			snap.shards[k] = snap.shards[k].cloneUsage(r)
			snap.shards[k].bornEscapes = born
		}
		snap.shards[k].setUsage(j, res)
	}
	for k := range copied {
		snap.shards[k].statBlocks()
	}
	snap.delta = nil
	if len(wide.ids) > 0 {
		snap.delta = &wide
	}
	return replaced
}

// cloneUsage copies a shard for a usage change: the consumable columns are
// copied (into columns from r, nil: fresh ones), every other column is
// shared.
func (sh *shard) cloneUsage(r *recycler) *shard {
	c := *sh
	c.freeRAM = r.cloneInts(sh.freeRAM)
	c.freeDiskMB = r.cloneInts(sh.freeDiskMB)
	c.vcpusUsed = r.cloneInts(sh.vcpusUsed)
	c.numInstances = r.cloneInts(sh.numInstances)
	c.numIOOps = r.cloneInts(sh.numIOOps)
	return &c
}

// handOverScratch moves the pooled PlaceBatch scratch memory of the recent
// snapshots to snap. A scratch depends only on the host count (its buffers
// are sized for it and hold no state between batches), so a derived
// snapshot with the same hosts can use it; without this, every commit would
// leave the next batches to allocate (and page-fault) megabytes of fresh
// scratch at 50,000 hosts.
func (s *Store) handOverScratch(snap *Snapshot) {
	const keepRecent, maxMoved = 64, 64
	moved := 0
	for _, old := range s.recent {
		if old.n != snap.n {
			continue
		}
		for moved < maxMoved {
			sc, ok := old.pool.p.Get().(*scratch)
			if !ok {
				break
			}
			snap.pool.p.Put(sc)
			moved++
		}
	}
	if len(s.recent) == keepRecent {
		copy(s.recent, s.recent[1:])
		s.recent = s.recent[:keepRecent-1]
	}
	s.recent = append(s.recent, snap)
}
