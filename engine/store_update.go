package engine

import (
	"fmt"
	"slices"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// JournalKind says what a JournalEntry records.
type JournalKind uint8

// The changes a Store journals.
const (
	// JournalPlace is one committed instance: Claim consumed on Host.
	JournalPlace JournalKind = iota + 1
	// JournalDelete is one deleted instance: Claim released on Host
	// (num_io_ops excepted, see DeleteInstance).
	JournalDelete
	// JournalUpdate is a compute node's report: Host's usage is now Usage.
	JournalUpdate
	// JournalAddHost is a new compute node with usage Usage.
	JournalAddHost
	// JournalRemoveHost is a removed compute node.
	JournalRemoveHost
	// JournalAggregate is an aggregate metadata change (no usage change).
	JournalAggregate
)

// JournalEntry is one committed change, in commit order. Replaying the
// entries of a Store's journal over the Cloud it was made from gives every
// host's usage in the Store's newest snapshot.
type JournalEntry struct {
	// Version is the version of the snapshot the change was published in.
	Version      uint64
	Kind         JournalKind
	Host         HostNode
	InstanceUUID string
	Claim        Claim
	Usage        HostUsage
	// Forced marks a placement made with force_hosts/force_nodes, which
	// skip every filter (Nova's admin override), or by the chance
	// scheduler, which runs none: it may exceed limits.
	Forced bool
	// Whole marks a placement on an ironic node, consumed whole, and its
	// deletion: Claim is what the placement took (the node's free RAM and
	// disk then, and the vCPUs it did not use), and num_instances and
	// num_io_ops do not change.
	Whole bool
}

// Journal returns a copy of the changes committed so far (empty unless
// StoreOptions.Journal is set).
func (s *Store) Journal() []JournalEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.journal)
}

// Instances returns how many instances the store's ledger holds (committed
// through Commit and not deleted).
func (s *Store) Instances() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ledger)
}

func (s *Store) record(e JournalEntry) {
	if s.opts.Journal {
		s.journal = append(s.journal, e)
	}
}

// UpdateHost records a compute node's usage report: host's usage becomes u
// (free_disk_mb in MB, as the scheduler keeps it). It is a commit: the
// host's new usage goes into the snapshot's usage delta (the shards are
// shared, and copied only when the delta is compacted), its generation
// moves (so plans made before it are re-checked on that host), and a new
// snapshot is published; readers of older snapshots see no change. It
// returns the new version; a node the store lacks is a *ValidationError
// matching ErrNotFound. What Nova derives from a report beyond these
// five values (the counters in stats, disk_mb_used) keeps the host
// record's values (docs/nova-semantics.md, "Deliberate differences"). On
// an ironic node num_instances and num_io_ops stay 0 whatever u says, as
// IronicNodeState reads none from its node (the journal records them so).
func (s *Store) UpdateHost(host HostNode, u HostUsage) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateHostLocked(host, u)
}

func (s *Store) updateHostLocked(host HostNode, u HostUsage) (uint64, error) {
	st := s.cur.Load()
	id, ok := st.snap.info.byHostNode(host)
	if !ok {
		return 0, NotFoundError("host", "no host %q node %q", host.Host, host.Node)
	}
	if err := ValidateUsage(u); err != nil {
		return 0, err
	}
	u = st.snap.reported(id, u)
	ov := pendingUsage{res: map[uint32]hostRes{}}
	ov.set(id, hostRes{u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps})
	next := s.applyLocked(st, &ov)
	s.record(JournalEntry{Version: next.snap.version, Kind: JournalUpdate, Host: host, Usage: u})
	s.publish(next)
	return next.snap.version, nil
}

// DeleteInstance releases the resources of an instance committed through
// the store (free_ram_mb, free_disk_mb, vcpus_used and num_instances;
// num_io_ops falls when the compute node reports it, see UpdateHost). It
// is a commit of the host's new usage (see applyLocked). Instances the store did
// not commit (those of the Cloud it was built from) are released by the
// compute node's report instead; for them it returns a *ValidationError
// matching ErrNotFound.
func (s *Store) DeleteInstance(uuid string) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deleteInstanceLocked(uuid)
}

func (s *Store) deleteInstanceLocked(uuid string) (uint64, error) {
	e, ok := s.ledger[uuid]
	if !ok {
		return 0, NotFoundError("instance_uuid", "instance %q was not committed through this store", uuid)
	}
	st := s.cur.Load()
	id, ok := st.snap.info.byHostNode(e.host)
	if !ok { // cannot happen: RemoveHosts drops the ledger entries
		return 0, fmt.Errorf("engine: instance %s on unknown host %v", uuid, e.host)
	}
	ov := pendingUsage{res: map[uint32]hostRes{}}
	ov.set(id, releaseOn(ov.get(st.snap, id), &e.claim, e.whole))
	next := s.applyLocked(st, &ov)
	if e.group != "" {
		next.snap.groupPlaced = setGroupPlaced(next.snap.groupPlaced, st.snap.groupPlaced, e.group, uuid, "")
	}
	if next.snap.tracksPlaced && notedOn(st.snap, e.host) {
		next.snap.placedSince = noteReleased(next.snap.placedSince, st.snap.placedSince, uuid, st.snap.listed(uuid))
	}
	s.forgetLocked(uuid, e)
	s.record(JournalEntry{Version: next.snap.version, Kind: JournalDelete, Host: e.host, InstanceUUID: uuid, Claim: e.claim, Whole: e.whole})
	s.publish(next)
	return next.snap.version, nil
}

// groupPlacedLocked is the snapshot's view of the group members the store
// committed on snap's hosts (a rebuild starts it afresh from the ledger).
func (s *Store) groupPlacedLocked(snap *Snapshot) *groupTable {
	var groups map[string]map[string]string
	for uuid, e := range s.ledger {
		if e.group == "" {
			continue
		}
		if _, ok := snap.info.byHostNode(e.host); !ok {
			continue
		}
		if groups == nil {
			groups = map[string]map[string]string{}
		}
		if groups[e.group] == nil {
			groups[e.group] = map[string]string{}
		}
		groups[e.group][uuid] = placedAt(e.host.Host, e.whole)
	}
	return newGroupTable(groups)
}

func (s *Store) forgetLocked(uuid string, e ledgerEntry) {
	s.ledgerForgetLocked(uuid, e)
	if m := s.byGroup[e.group]; m != nil && !e.whole && m[e.host.Host] > 0 {
		if m[e.host.Host]--; m[e.host.Host] == 0 {
			delete(m, e.host.Host)
		}
		if len(m) == 0 {
			delete(s.byGroup, e.group)
		}
	}
}

// AddHosts adds compute nodes. The host set changes, so a new snapshot is
// built (host ids are dense and aggregates are resolved per host), derived
// from the current one (derive.go: only the new hosts are parsed), outside
// the store's mutex: commits go on while it builds (see rebuild). Plans
// made before it are re-checked host by host, by name. It returns the new
// version. The Store keeps the hosts (see NewStore): the caller must not
// change them afterwards.
func (s *Store) AddHosts(hosts ...Host) (uint64, error) {
	n := 0 // the hosts before, under rebuildMu
	v, err := s.rebuild(func(c Cloud) (Cloud, []int32, error) {
		n = len(c.Hosts)
		old := keepAll(len(c.Hosts))
		for range hosts {
			old = append(old, -1)
		}
		// In place when the slice has room: the store's hosts are its own
		// (NewStore, RemoveHosts and ApplyExternal copy them), and no
		// cloud the store handed out reads past its own length. Copying
		// 50,000 hosts was a tenth of the rebuild.
		c.Hosts = append(c.Hosts, hosts...)
		return c, old, nil
	}, func(v uint64) {
		for i := range hosts {
			h := &hosts[i]
			r := usageOf(&s.cloud.Config, h)
			s.record(JournalEntry{Version: v, Kind: JournalAddHost, Host: HostNode{h.Host, nodeName(h)},
				Usage: HostUsage{r.freeRAM, r.freeDiskMB, r.vcpusUsed, r.numInstances, r.numIOOps}})
		}
	})
	// The rebuild's checks are ValidateAddHosts's (validateCloud, the old
	// hosts trusted): its errors named as ValidateAddHosts names them.
	return v, namedAsJoining(err, n)
}

// RemoveHosts removes compute nodes (dead nodes); the instances the store
// committed on them are forgotten, those committed while the snapshot was
// rebuilt too. It rebuilds the snapshot, as AddHosts does. An unknown node
// is a *ValidationError matching ErrNotFound and nothing changes.
func (s *Store) RemoveHosts(nodes ...HostNode) (uint64, error) {
	drop := make(map[HostNode]bool, len(nodes))
	return s.rebuild(func(c Cloud) (Cloud, []int32, error) {
		info := s.cur.Load().snap.info
		for i, hn := range nodes {
			if _, ok := info.byHostNode(hn); !ok {
				return c, nil, NotFoundError(fmt.Sprintf("hosts[%d]", i), "no host %q node %q", hn.Host, hn.Node)
			}
			drop[hn] = true
		}
		kept := make([]Host, 0, len(c.Hosts))
		old := make([]int32, 0, len(c.Hosts))
		for i := range c.Hosts {
			if h := &c.Hosts[i]; !drop[HostNode{h.Host, nodeName(h)}] {
				kept, old = append(kept, *h), append(old, int32(i))
			}
		}
		c.Hosts = kept
		return c, old, nil
	}, func(v uint64) {
		for uuid, e := range s.ledger {
			if drop[e.host] {
				s.forgetLocked(uuid, e)
			}
		}
		for _, hn := range nodes {
			s.record(JournalEntry{Version: v, Kind: JournalRemoveHost, Host: hn})
		}
	})
}

// SetAggregateMetadata changes aggregate name's metadata: keys of set are
// set, keys of del removed. An aggregate that does not exist is created
// with no hosts. Aggregate overrides are resolved per host at build time,
// so the snapshot is rebuilt, as AddHosts does (derive.go). It returns
// the new version.
func (s *Store) SetAggregateMetadata(name string, set map[string]string, del []string) (uint64, error) {
	return s.rebuild(func(c Cloud) (Cloud, []int32, error) {
		c = c.WithAggregates([]AggregateChange{{Name: name, Set: set, Delete: del}})
		if i := slices.IndexFunc(c.Aggregates, func(a Aggregate) bool { return a.Name == name }); i >= 0 {
			if err := ValidateAggregate(c.Aggregates[i]); err != nil {
				return c, nil, err // named "aggregate", not by its index in the cloud
			}
		}
		return c, keepAll(len(c.Hosts)), nil
	}, func(v uint64) {
		s.record(JournalEntry{Version: v, Kind: JournalAggregate})
	})
}

// rebuild replaces the store's cloud by the one change derives from it
// and publishes a whole new snapshot of it, then calls after with the
// new version: change under rebuildMu alone, the publication and after
// under the mutex too, and after only when the rebuild succeeded.
// change also says, per host of the new cloud, its index in
// the store's cloud, which is its id in the current snapshot (-1: a host
// that joins): those hosts are the store's own, unchanged, so their own
// fields are not validated again and what the build would parse of them
// is copied from the current snapshot (derive.go). The build, the
// expensive part (a hundred milliseconds or more at 50,000 hosts), runs
// outside the mutex, so that commits, deletions and usage
// reports go on meanwhile: the snapshot is built from the cloud and the
// committed instances as they were when the rebuild began, and
// installLocked carries over the usage of the newest state when it is
// published. Rebuilds are serialized among themselves (rebuildMu,
// taken before mu), so the cloud does not change in between, and change
// runs before mu is taken (RemoveHosts copies every host it keeps).
//
// What a caller sees: the usage committed while it built is in the new
// snapshot; an instance committed (or deleted) while it built joins (or
// leaves) its host's instance list at the next rebuild, as one committed
// after it does, and the hints see it at once (placedSince).
func (s *Store) rebuild(change func(c Cloud) (Cloud, []int32, error), after func(v uint64)) (uint64, error) {
	s.rebuildMu.Lock()
	defer s.rebuildMu.Unlock()
	c, old, err := change(s.cloud) // rebuildMu keeps s.cloud and the host set still
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	trusted := 0
	for trusted < len(old) && old[trusted] >= 0 {
		trusted++
	}
	in := buildInput{trusted: trusted, derive: newDerivation(s.cur.Load().snap.info, old, s.cloud.Aggregates, s.builtWith)}
	in.committed = s.committedLocked()
	// The current snapshot, leased while the build reads its usage (the
	// kept hosts start with it, so that the install, under the mutex,
	// carries over only what commits changed since).
	usage, release := s.acquire()
	in.derive.usage = usage
	s.mu.Unlock()
	snap, err := func() (*Snapshot, error) {
		defer release() // even if the build panics: a lease left behind stops all recycling
		return s.buildOutside(c, in)
	}()
	in.derive.usage = nil
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.installLocked(c, snap, in)
	after(v)
	return v, nil
}

// buildOutside builds a rebuild's snapshot of c (newSnapshot) without
// the mutex (the caller holds rebuildMu); a test's whileRebuilding then
// runs.
func (s *Store) buildOutside(c Cloud, in buildInput) (*Snapshot, error) {
	snap, err := newSnapshot(c, in)
	if err == nil && s.whileRebuilding != nil {
		s.whileRebuilding(s)
	}
	return snap, err
}

// rebuildLocked builds a whole new snapshot from c, whose hosts are the
// store's (its aggregates may differ), under the mutex (see rebuild and
// installLocked): the current usage of every host is carried over
// exactly, and the instances committed through the store join their
// hosts' instance lists (which same_host/different_host hints read
// through placedSince until then).
func (s *Store) rebuildLocked(c Cloud) (uint64, error) {
	old := keepAll(len(c.Hosts))
	in := buildInput{trusted: len(old), derive: newDerivation(s.cur.Load().snap.info, old, s.cloud.Aggregates, s.builtWith)}
	in.committed = s.committedLocked()
	snap, err := newSnapshot(c, in)
	if err != nil {
		return 0, err
	}
	return s.installLocked(c, snap, in), nil
}

// installLocked publishes snap, built from c and in, as the store's
// newest state: it takes a version after every
// one published so far (commits may have published while it was built),
// the usage of every surviving host is carried over exactly from the
// newest state (found by its id there, d's, else by name), and the group
// members committed through the store are its groupPlaced. It returns
// the new version.
func (s *Store) installLocked(c Cloud, snap *Snapshot, in buildInput) uint64 {
	old := s.cur.Load().snap
	d := in.derive
	snap.version = snapshotVersions.Add(1)
	if d != nil && d.prev != old.info { // cannot happen: rebuilds are serialized
		if d.keepShards || d.keepPrefix > 0 { // the build left shards to an install from prev
			d.keepShards, d.keepPrefix, snap.shards, snap.delta = false, 0, nil, nil
			snap.buildShards(&c, d.classVals, d)
		}
		d = nil
	}
	if d != nil && d.keepShards { // the build left the shards to the install
		return s.publishKeptLocked(c, snap, in, old)
	}
	// The usage carried over: in the columns, or, past them, in the delta
	// (which holds the hosts of the new cloud past them until then).
	var wide usageDelta
	changed := make([]uint64, len(snap.shards)) // per shard, bit q: block q's usage changed
	from := uint32(0)                           // the first host whose usage is carried over here
	if d != nil && d.keepPrefix > 0 {
		// The leading shards are old's, its newest (a compaction since
		// may have retired those the build began from), with their
		// usage and their hosts' entries in old's delta.
		copy(snap.shards, old.shards[:d.keepPrefix])
		from = uint32(d.keepPrefix * bitmap.ShardSize)
		old.delta.each(func(id uint32, r hostRes) {
			if id < from {
				wide.ids, wide.res = append(wide.ids, id), append(wide.res, r)
			}
		})
	}
	for id := from; id < uint32(snap.n); id++ {
		r, ok := snap.usage(id), false
		if o := d.oldID(int(id)); o >= 0 {
			r, ok = old.usage(uint32(o)), true
		} else if d == nil {
			hn := HostNode{snap.info.hostOf(id), snap.info.nodeOf(id)}
			if oid, found := old.info.byHostNode(hn); found {
				r, ok = old.usage(oid), true
			}
		}
		sh, j := snap.at(id)
		switch {
		case ok && r.fitsColumns():
			if sh.usageAt(j) != r {
				sh.setUsage(j, r)
				changed[id>>bitmap.ShardBits] |= 1 << (j / kernels.Block)
			}
		case !r.fitsColumns():
			wide.ids, wide.res = append(wide.ids, id), append(wide.res, r)
		}
	}
	snap.delta = nil
	if len(wide.ids) > 0 {
		snap.delta = &wide
	}
	for k, sh := range snap.shards {
		if changed[k] != 0 {
			sh.statBlocks(changed[k], nil) // on the usage just carried over
		}
	}
	return s.publishBuiltLocked(c, snap, in, old)
}

// publishKeptLocked publishes snap, whose build kept every shard column of
// old's (derivation.keepShards): it takes old's shards, the newest, with
// their usage and old's delta, and shares old's lineage (the kept
// rescorings and verdicts, which read the shards and the metrics alone,
// both unchanged), but for a Preview's. Not the shards the build began
// from: a compaction since may have retired them, and the recycler then
// hands their columns out again.
func (s *Store) publishKeptLocked(c Cloud, snap *Snapshot, in buildInput, old *Snapshot) uint64 {
	snap.shards = slices.Clone(old.shards)
	snap.delta, snap.mults = old.delta, old.mults
	if !s.preview {
		shareLineage(snap.info, old.info)
	}
	return s.publishBuiltLocked(c, snap, in, old)
}

// publishBuiltLocked publishes snap, built from c and in, its shards
// holding the newest usage, after old (the newest state): its server
// groups' members are the store's on its hosts (old's table where snap
// keeps all of old's hosts: no member is on a host that joins), and
// every host's generation starts at its version.
func (s *Store) publishBuiltLocked(c Cloud, snap *Snapshot, in buildInput, old *Snapshot) uint64 {
	if in.derive.keepsAll(old) {
		snap.groupPlaced = old.groupPlaced // read only once published
	} else {
		snap.groupPlaced = s.groupPlacedLocked(snap) // O(ledger)
	}
	s.noteJoinedLocked(c, snap, in)
	s.cloud, s.builtWith = c, in.committed
	snap.placedSince = s.placedSinceLocked(snap) // the lists are new
	s.changes.reset(snap.version)
	s.publish(&storeState{snap: snap, gens: newGens(snap.n, snap.version), rebuilt: snap.version})
	return snap.version
}
