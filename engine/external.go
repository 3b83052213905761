package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A Store can mirror a commit layer shared by several processes
// (engine/etcdstore): plans are made on its snapshots and checked against
// its newest state with DryRun, committed elsewhere, and what was
// committed (here or by the other processes) comes back through
// ApplyExternal.

// PendingUsage is what a commit would apply: the new usage of every host
// its accepted placements touch, in the order they were first touched.
type PendingUsage struct {
	Hosts []HostNode
	Usage []HostUsage
	// Claims and Whole are, for each accepted placement in
	// CommitResult.Accepted order, what it takes: the plan's claim, or,
	// on an ironic node consumed whole (Whole), what it takes of the node
	// (Instance.Whole says how such a claim is given back).
	Claims []Claim
	Whole  []bool
}

// fill appends to p, which Commit emptied, what the accepted placements
// leave on their hosts and take.
func (p *PendingUsage) fill(snap *Snapshot, ov *pendingUsage, accepted []int, claimOf func(i int) (Claim, bool)) {
	for _, id := range ov.ids {
		r := ov.res[id]
		p.Hosts = append(p.Hosts, HostNode{snap.info.hostOf(id), snap.info.nodeOf(id)})
		p.Usage = append(p.Usage, HostUsage{r.freeRAM, r.freeDiskMB, r.vcpusUsed, r.numInstances, r.numIOOps})
	}
	for _, i := range accepted {
		c, whole := claimOf(i)
		p.Claims, p.Whole = append(p.Claims, c), append(p.Whole, whole)
	}
}

// DryRun makes Commit check the plan exactly as it would commit it (the
// same re-checks, conflicts and CommitResult) and apply nothing: into
// receives the usage the accepted placements would leave on their hosts
// (nothing when none is accepted). The Store's metrics do not count it.
func DryRun(into *PendingUsage) CommitOption { return func(o *commitOpts) { o.dry = into } }

// Consume returns u after one instance of claim c: Nova's
// consume_from_request, as a commit applies it.
func (u HostUsage) Consume(c Claim) HostUsage {
	r := consumeClaim(hostRes{u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps}, &c)
	return HostUsage{r.freeRAM, r.freeDiskMB, r.vcpusUsed, r.numInstances, r.numIOOps}
}

// Release returns u without one instance of claim c, as DeleteInstance
// gives it back (num_io_ops excepted).
func (u HostUsage) Release(c Claim) HostUsage {
	r := releaseClaim(hostRes{u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps}, &c)
	return HostUsage{r.freeRAM, r.freeDiskMB, r.vcpusUsed, r.numInstances, r.numIOOps}
}

// ConsumeWhole returns u after an instance that took an ironic node whole,
// c being what it took (PendingUsage.Claims, Instance.Whole): free RAM
// and disk less c's, vCPUs used plus c's, the counters unchanged, as
// IronicNodeState's consume leaves them.
func (u HostUsage) ConsumeWhole(c Claim) HostUsage {
	u.FreeRAMMB -= c.MemoryMB
	u.FreeDiskMB -= c.DiskMB
	u.VCPUsUsed += c.VCPUs
	return u
}

// ReleaseWhole undoes ConsumeWhole (the instance deleted).
func (u HostUsage) ReleaseWhole(c Claim) HostUsage {
	r := releaseOn(hostRes{u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps}, &c, true)
	return HostUsage{r.freeRAM, r.freeDiskMB, r.vcpusUsed, r.numInstances, r.numIOOps}
}

// HostUsageOf is one host's usage.
type HostUsageOf struct {
	Host  HostNode
	Usage HostUsage
}

// Instance is an instance committed through a commit layer: where, what
// it claimed, and its server group ("" without one).
type Instance struct {
	UUID  string
	Host  HostNode
	Claim Claim
	Group string
	// Whole marks an instance that took an ironic node whole: Claim is
	// what it took (PendingUsage.Claims), its deletion gives that back
	// with the counters unchanged, and as a group member it counts for no
	// other request (each ironic node has its own instances).
	Whole bool
}

// ExternalChange is state committed outside the Store, by the commit
// layer it mirrors. ApplyExternal applies it as one change.
type ExternalChange struct {
	// Cloud, when set, replaces the hosts (their static data), the
	// aggregates and the configuration: the snapshot is rebuilt from it as
	// AddHosts rebuilds it (surviving hosts keep their usage, new ones
	// start from their Host fields), and the instances of the nodes it
	// drops are forgotten. The Store keeps its hosts, as NewStore keeps
	// its cloud's (later rebuilds copy what they parsed of them): the
	// caller must not change them, or the maps and values their fields
	// point to, afterwards.
	Cloud *Cloud
	// ChangedHosts, with Cloud, names the nodes whose records (their
	// Host, usage aside: instances, stats, metrics and counters) are new
	// or not the ones the Store holds: plans made before count them as
	// removed (another host's data under the name). Nil lets the Store
	// compare every node's record with its own, which costs ~2 µs a
	// node.
	ChangedHosts []HostNode
	// Reset forgets every committed instance first (a re-list: Placed is
	// then the whole set).
	Reset bool
	// Usage sets hosts' usage. Hosts the snapshot does not have are
	// skipped.
	Usage []HostUsageOf
	// Placed instances join the committed instances (an instance already
	// held, or on a host the snapshot does not have, is skipped): they
	// count as server group members and, from the next rebuild, in their
	// hosts' instance lists. Their usage comes with Usage.
	Placed []Instance
	// Deleted instances leave the committed instances (their usage comes
	// with Usage).
	Deleted []string
}

// ApplyExternal applies ch to the Store: the rebuild first (ch.Cloud;
// its snapshot is built outside the Store's mutex, as AddHosts builds
// one, and a cloud NewSnapshot refuses changes nothing, Reset included),
// then the instances and the usage, published as one snapshot (two with
// a rebuild). It returns the newest version. Hosts whose usage changed
// get a new generation, so plans made before are re-checked on them, and
// enter the change log (warm starts stay warm). ApplyExternal does not
// journal: the commit layer it mirrors keeps the record.
func (s *Store) ApplyExternal(ch ExternalChange) (uint64, error) {
	// Usage is checked as UpdateHost checks a report, and claims as a
	// plan's, before anything changes: a record no report or plan could
	// make is refused, not applied.
	for i, in := range ch.Placed {
		if err := checkClaim(fmt.Sprintf("placed[%d] (%s).claim", i, in.UUID), in.Claim); err != nil {
			return 0, err
		}
	}
	for i, u := range ch.Usage {
		if err := ValidateUsage(u.Usage); err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return 0, invalid(fmt.Sprintf("usage[%d] (%s/%s).%s", i, u.Host.Host, u.Host.Node, strings.TrimPrefix(ve.Field, "usage.")), "%s", ve.Msg)
			}
			return 0, err
		}
	}
	var snap *Snapshot
	var c Cloud
	var in buildInput
	if ch.Cloud != nil {
		// A rebuild, as AddHosts makes one: none of those meanwhile, and
		// NewSnapshot outside mu (commits and dry runs go on), from the
		// committed instances as they are now (none after a Reset).
		s.rebuildMu.Lock()
		defer s.rebuildMu.Unlock()
		c = *ch.Cloud
		in.changed = ch.ChangedHosts
		if in.changed == nil { // compared here, outside mu: rebuildMu keeps s.cloud as it is
			in.changed = changedHosts(&s.cloud, &c)
		}
		c.Hosts = slices.Clone(c.Hosts)
		c.Aggregates = cloneAggregates(c.Aggregates)
		if !ch.Reset {
			s.mu.Lock()
			in.committed = s.committedLocked()
			s.mu.Unlock()
		}
		var err error
		if snap, err = s.buildOutside(c, in); err != nil {
			return 0, err // nothing changed
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch.Reset {
		s.ledgerResetLocked()
		s.byGroup = map[string]map[string]int{}
	}
	if ch.Cloud != nil {
		keep := make(map[HostNode]bool, len(c.Hosts))
		for i := range c.Hosts {
			keep[HostNode{c.Hosts[i].Host, nodeName(&c.Hosts[i])}] = true
		}
		for uuid, e := range s.ledger {
			if !keep[e.host] {
				s.forgetLocked(uuid, e)
			}
		}
		s.installLocked(c, snap, in)
	}
	st := s.cur.Load()
	snap = st.snap
	groups := snap.groupPlaced
	if ch.Reset && ch.Cloud == nil {
		groups = nil
	}
	// recordsChanged: the group records or the notes changed, to publish.
	recordsChanged := ch.Reset && ch.Cloud == nil && snap.groupPlaced.len() > 0
	placed := snap.placedSince
	for _, uuid := range ch.Deleted {
		e, ok := s.ledger[uuid]
		if !ok {
			continue
		}
		s.forgetLocked(uuid, e)
		if e.group != "" {
			groups = setGroupPlaced(groups, snap.groupPlaced, e.group, uuid, "")
			recordsChanged = true
		}
		if snap.tracksPlaced && notedOn(snap, e.host) {
			placed = noteReleased(placed, snap.placedSince, uuid, snap.listed(uuid))
			recordsChanged = true
		}
	}
	var put []ledgerPut // the lists merged once (ledgerPutAllLocked)
	for _, in := range ch.Placed {
		if _, dup := s.ledger[in.UUID]; dup {
			continue
		}
		id, ok := snap.info.byHostNode(in.Host)
		if !ok {
			continue
		}
		e := ledgerEntry{host: in.Host, claim: in.Claim, group: in.Group, whole: in.Whole}
		s.ledger[in.UUID] = e // now: a uuid given twice is taken once
		put = append(put, ledgerPut{in.UUID, id, e})
		if in.Group != "" {
			if !in.Whole {
				s.joinGroupLocked(in.Group, in.Host.Host)
			}
			groups = setGroupPlaced(groups, snap.groupPlaced, in.Group, in.UUID, placedAt(in.Host.Host, in.Whole))
			recordsChanged = true
		}
		if snap.tracksPlaced && notedOn(snap, in.Host) {
			placed = s.notePlacedLocked(placed, snap.placedSince, in.UUID, in.Host)
			recordsChanged = true
		}
	}
	s.ledgerPutAllLocked(put)
	if ch.Reset && ch.Cloud == nil && snap.tracksPlaced { // the ledger is new; the lists are not
		placed, recordsChanged = s.placedSinceLocked(snap), true
	}
	ov := pendingUsage{res: make(map[uint32]hostRes, len(ch.Usage))}
	for _, u := range ch.Usage {
		if id, ok := snap.info.byHostNode(u.Host); ok {
			r := snap.reported(id, u.Usage)
			ov.set(id, hostRes{r.FreeRAMMB, r.FreeDiskMB, r.VCPUsUsed, r.NumInstances, r.NumIOOps})
		}
	}
	if len(ov.ids) == 0 && !recordsChanged {
		return snap.version, nil
	}
	next := s.applyLocked(st, &ov)
	next.snap.groupPlaced, next.snap.placedSince = groups, placed
	s.publish(next)
	return next.snap.version, nil
}

// joinGroupLocked counts a member of group committed on host (name), for
// the commit checks of the group's later plans.
func (s *Store) joinGroupLocked(group, host string) {
	m := s.byGroup[group]
	if m == nil {
		m = map[string]int{}
		s.byGroup[group] = m
	}
	m[host]++
}
