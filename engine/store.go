package engine

import (
	"slices"
	"sync"
	"sync/atomic"
)

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
// A Store is safe for concurrent use. Make one with NewStore: the zero
// Store is not usable.
type Store struct {
	// id tells the store's snapshots, and the plans made on them, from
	// another store's (Snapshot.store, Plan.store); never 0.
	id  uint64
	mu  sync.Mutex // serializes commits and updates
	cur atomic.Pointer[storeState]
	// rebuildMu serializes the rebuilds (AddHosts, RemoveHosts,
	// SetAggregateMetadata, which build their snapshot outside mu, and
	// ApplyExternal with a cloud); it is taken before mu.
	rebuildMu sync.Mutex

	// Under mu: what a rebuild needs, and the committed instances. cloud
	// (usage fields stale; Instances as given) is written under both mu
	// and rebuildMu, so either lets one read it: a rebuild derives its
	// new cloud holding rebuildMu alone.
	cloud  Cloud
	ledger map[string]ledgerEntry // committed instance uuid -> where, what
	// committed is the ledger's uuids per host, sorted, no host without
	// any (committed.go); its lists are never modified.
	committed map[HostNode][]string
	byGroup   map[string]map[string]int // group uuid -> host name -> members committed
	journal   []JournalEntry
	opts      StoreOptions
	// builtWith is the committed instances (per host, sorted) that the
	// current snapshot's instance lists hold: its build's
	// buildInput.committed; a derived build copies the lists of the hosts
	// whose committed instances are still these.
	builtWith map[HostNode][]string
	// joined is, for each node that joined the cloud after the Store was
	// made (added, or its record changed by ApplyExternal), the version
	// of the rebuild it joined at. A plan made before that version chose
	// the node that left, whose static data (service, hypervisor,
	// capabilities...) may not be the new one's: its placements there
	// are refused as HostRemoved, not re-checked on resources alone.
	joined map[HostNode]uint64

	// beforeCommit, when set (tests), runs under mu before a commit is
	// checked: it may call the *Locked update helpers to force conflicts.
	beforeCommit func(s *Store, p *Plan)
	// whileRebuilding, when set (tests), runs in a rebuild after the
	// snapshot is built and before it is installed, without mu.
	whileRebuilding func(s *Store)
	// preview marks Preview's temporary store: a snapshot it installs
	// keeps a lineage of its own, so that questions asked on it do not
	// evict the live store's kept rescorings and verdicts.
	preview bool
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
	// whole marks an instance on an ironic node (ironic.go), consumed
	// whole: claim is what it took, and no group count holds it.
	whole bool
}

// NewStore builds the first snapshot of c (see NewSnapshot) and returns a
// Store holding it. The Store keeps c's hosts for its rebuilds (AddHosts,
// RemoveHosts, SetAggregateMetadata), which check their own fields only
// when they join: the caller must not change them, or the maps and
// values their fields point to, afterwards.
func NewStore(c Cloud, opts StoreOptions) (*Store, error) {
	snap, err := NewSnapshot(c)
	if err != nil {
		return nil, err
	}
	s := &Store{
		id:        storeIDs.Add(1),
		cloud:     Cloud{Config: snap.cfg, Hosts: slices.Clone(c.Hosts), Aggregates: cloneAggregates(c.Aggregates)},
		ledger:    map[string]ledgerEntry{},
		committed: map[HostNode][]string{},
		byGroup:   map[string]map[string]int{},
		opts:      opts,
	}
	s.publish(&storeState{snap: snap, gens: newGens(snap.n, snap.version), rebuilt: snap.version})
	return s, nil
}

// storeIDs numbers the stores of the process (Store.id).
var storeIDs atomic.Uint64

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
	if st.snap.store != s.id { // before any reader has the snapshot
		st.snap.store = s.id
	}
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
// the newest snapshot. It panics when id is no host of that snapshot.
func (s *Store) Generation(id uint32) uint64 {
	st := s.cur.Load()
	st.snap.checkID(id)
	return st.gens.of(id)
}

// applyLocked derives the next state from st with the pending usage ov:
// only the shards holding a changed host are copied.
func (s *Store) applyLocked(st *storeState, ov *pendingUsage) *storeState {
	old := st.snap
	snap := old.derive()
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

// handOverScratch moves the pooled PlaceBatch scratch memory of the recent
// snapshots to snap. A scratch depends only on the host count (its buffers
// are sized for it and hold no state a batch reads: what they keep, such
// as the overlay's index, is read only where a batch wrote it), so a derived
// snapshot with the same hosts can use it; without this, every commit would
// leave the next batches to allocate (and page-fault) megabytes of fresh
// scratch at 50,000 hosts.
func (s *Store) handOverScratch(snap *Snapshot) {
	const keepRecent, maxMoved = 64, 64
	moved := 0
	for _, old := range s.recent {
		if old.n != snap.n || old.pool.held.Load() <= 0 {
			continue
		}
		for moved < maxMoved {
			sc := old.pool.get()
			if sc == nil {
				break
			}
			snap.pool.put(sc)
			moved++
		}
	}
	if len(s.recent) == keepRecent {
		copy(s.recent, s.recent[1:])
		s.recent = s.recent[:keepRecent-1]
	}
	s.recent = append(s.recent, snap)
}

// genTable holds the generation of every host of a Store: the version of
// the last publication that changed its usage. Successive usage states
// share one table (a rebuild starts a new one); commits write it under the
// Store's mutex before they publish, so that Generation never reports a
// change older than Snapshot shows. Only the newest state's values are
// ever read: a commit checks a plan against the newest state.
type genTable []atomic.Uint64

func newGens(n int, v uint64) *genTable {
	g := make(genTable, n)
	for i := range g {
		g[i].Store(v)
	}
	return &g
}

func (g *genTable) of(id uint32) uint64 { return (*g)[id].Load() }

func (g *genTable) set(id uint32, v uint64) { (*g)[id].Store(v) }

// acquire returns the newest snapshot and a lease on it: its columns are
// not recycled before release is called (once).
func (s *Store) acquire() (snap *Snapshot, release func()) {
	r := &s.rec
	r.mu.Lock()
	snap = s.cur.Load().snap
	if r.leases == nil {
		r.leases = map[uint64]int{}
	}
	r.leases[snap.version]++
	r.mu.Unlock()
	return snap, func() {
		r.mu.Lock()
		if r.leases[snap.version]--; r.leases[snap.version] == 0 {
			delete(r.leases, snap.version)
		}
		r.reclaimLocked()
		r.mu.Unlock()
	}
}

// View calls f with the newest snapshot, which stays valid for f's
// duration only: f must not keep it, or hand it to anything that outlives
// the call. Unlike Snapshot, View lets the Store reuse the snapshot's
// memory once f returns (its compactions then run without page faults);
// a placement followed by a Commit is the intended use. Store updates may
// be called from f.
func (s *Store) View(f func(snap *Snapshot)) {
	snap, release := s.acquire()
	defer release()
	f(snap)
}
