package engine

import (
	"errors"
	"fmt"
	"slices"
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
	// ("HostRemoved" when its host is gone, or was removed and added
	// again since the plan's snapshot, "ServerGroupAntiAffinityFilter" or
	// "ServerGroupAffinityFilter" for the group rules).
	Reasons []string
}

func (e *ConflictError) Error() string {
	if len(e.Rejected) == 0 || len(e.Reasons) == 0 {
		return fmt.Sprintf("placement conflict at version %d", e.Version)
	}
	return fmt.Sprintf("placement conflict at version %d: %d placement(s) no longer fit (first: #%d, %s)",
		e.Version, len(e.Rejected), e.Rejected[0], e.Reasons[0])
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// CommitOption changes how Commit treats a plan.
type CommitOption func(*commitOpts)

type commitOpts struct {
	partial bool
	dry     *PendingUsage // DryRun: fill it, commit nothing
}

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
// usage — Omega's fine-grained conflict detection. The hard group rules
// are re-checked on every placement (when their filter is enabled): an
// anti-affinity group's members per host, and an affinity group's host,
// which members committed since the plan was made (by a concurrent
// request of the group) pin. A Forced plan
// (force_hosts/force_nodes, or the chance scheduler) skipped the filters
// and is not re-checked. All-or-nothing unless
// Partial() is given: on a conflict nothing is committed and the error is
// a *ConflictError (errors.Is(err, ErrConflict)).
//
// An accepted placement is consumed as Nova's consume_from_request does
// (free_ram_mb -= memory, free_disk_mb -= (root+ephemeral)×1024, vcpus_used
// += vcpus, num_instances and num_io_ops + 1; an ironic node whole: free
// RAM and disk 0, every vCPU used) and its instance uuid joins the
// store's ledger (DeleteInstance gives the resources back).
//
// plan must come from PlaceBatch (or the Scheduler) on one of this store's
// snapshots, as it was returned: Commit trusts a host unchanged since
// plan.BaseVersion to fit. What it can tell is wrong is a
// *ValidationError naming the field, and nothing is committed: a plan
// made on another store's snapshot (a bare NewSnapshot's, a Preview's), a BaseVersion past
// the store's version, a negative claim, an
// anti-affinity group allowing fewer than 1 member per host, an empty
// instance uuid, or one the ledger (or the plan) already holds.
func (s *Store) Commit(plan Plan, opts ...CommitOption) (CommitResult, error) {
	var o commitOpts
	for _, f := range opts {
		f(&o)
	}
	if p := o.dry; p != nil { // a reused one keeps nothing of its last run
		p.Hosts, p.Usage, p.Claims, p.Whole = p.Hosts[:0], p.Usage[:0], p.Claims[:0], p.Whole[:0]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.beforeCommit != nil {
		s.beforeCommit(s, &plan)
	}
	res, err := s.commitLocked(&plan, o)
	if m := s.opts.Metrics; m != nil && o.dry == nil {
		m.observeCommit(res, err)
	}
	return res, err
}

func (s *Store) commitLocked(plan *Plan, o commitOpts) (CommitResult, error) {
	st := s.cur.Load()
	snap := st.snap
	res := CommitResult{Version: snap.version}
	if err := s.checkPlanLocked(plan, snap); err != nil {
		return res, err
	}
	// A plan of no snapshot (a Plan literal: store 0) is not trusted with
	// host ids or a base version: its hosts are found by name and all
	// re-checked, as after a rebuild.
	remap := plan.BaseVersion < st.rebuilt || plan.store == 0
	ov := pendingUsage{res: make(map[uint32]hostRes, len(plan.Placements))}
	ids := make([]uint32, len(plan.Placements))
	var taken []Claim // what each consumed on an ironic node (all of it)
	if snap.info.ironic != nil {
		taken = make([]Claim, len(plan.Placements))
	}
	var groupCount map[string]int // host name -> members, anti-affinity only
	// The group rule is re-checked only when the configuration enables the
	// filter that enforces it, as for the resource filters.
	antiAffinity := plan.Group != nil && plan.Group.Policy == PolicyAntiAffinity && !plan.Forced &&
		slices.Contains(snap.cfg.LoadFilters(), ServerGroupAntiAffinityFilter)
	if antiAffinity {
		groupCount = s.groupCountLocked(snap, plan.Group)
	}
	affinity := plan.Group != nil && plan.Group.Policy == PolicyAffinity && !plan.Forced &&
		slices.Contains(snap.cfg.LoadFilters(), ServerGroupAffinityFilter)
	var groupHosts map[string]bool // affinity only
	if affinity {
		groupHosts = s.groupHostsLocked(snap, plan.Group)
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
			// A plan of this store whose snapshot is older than the node's
			// joining chose the node that left: another host's data. (A
			// literal's version dates nothing: it is re-checked.)
			if id, ok = snap.info.byHostNode(HostNode{p.Host, p.Node}); !ok || plan.store != 0 && s.joined[HostNode{p.Host, p.Node}] > plan.BaseVersion {
				reject(i, "HostRemoved")
				continue
			}
		} else if int(id) >= snap.n || snap.info.hostOf(id) != p.Host || snap.info.nodeOf(id) != p.Node {
			return CommitResult{Version: snap.version}, invalid(fmt.Sprintf("plan.placements[%d]", i), "host id %d is not %s/%s in the plan's snapshot", id, p.Host, p.Node)
		} else {
			touched = st.gens.of(id) > plan.BaseVersion
		}
		ids[i] = id
		r := ov.get(snap, id)
		if touched && !plan.Forced {
			res.Rechecked++
			if ok, f := snap.claimFits(id, r, &plan.Claim); !ok {
				reject(i, f)
				continue
			}
		}
		if antiAffinity && !snap.info.isIronic(id) && !snap.info.instHas(snap.info.nameOf(id), p.InstanceUUID) {
			// The group rule is checked on every placement: other nodes of
			// the same host name and other requests of the group count. A
			// host already listing the instance's own uuid passes, as in
			// the filter. An ironic node's instances are its own and
			// start empty for every request (ironic.go): nothing of
			// another request counts there.
			if groupCount[p.Host] >= plan.Group.MaxServerPerHost {
				reject(i, ServerGroupAntiAffinityFilter)
				continue
			}
			groupCount[p.Host]++
		}
		if affinity {
			// Members committed since the plan was made (by a concurrent
			// request of the group) pin the group's host; with none, the
			// plan's first placement does, as in the batch.
			if len(groupHosts) == 0 {
				groupHosts = map[string]bool{p.Host: true}
			} else if !groupHosts[p.Host] {
				reject(i, ServerGroupAffinityFilter)
				continue
			}
		}
		after := snap.consumeOn(id, r, &plan.Claim)
		ov.set(id, after)
		if taken != nil {
			taken[i] = takenBy(r, after)
		}
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
	// claimOf is what placement i takes: the plan's claim, or on an
	// ironic node, consumed whole, what it took of the node (whole).
	claimOf := func(i int) (c Claim, whole bool) {
		if snap.info.isIronic(ids[i]) {
			return taken[i], true
		}
		return plan.Claim, false
	}
	if o.dry != nil {
		o.dry.fill(snap, &ov, res.Accepted, claimOf)
		return res, nil
	}
	next := s.applyLocked(st, &ov)
	res.Version = next.snap.version
	var buf [8]ledgerPut // most commits: no allocation
	put := buf[:0]
	for _, i := range res.Accepted {
		p := &plan.Placements[i]
		e := ledgerEntry{host: HostNode{p.Host, p.Node}}
		e.claim, e.whole = claimOf(i)
		if plan.Group != nil {
			e.group = plan.Group.UUID
			next.snap.groupPlaced = setGroupPlaced(next.snap.groupPlaced, st.snap.groupPlaced, e.group, p.InstanceUUID, placedAt(p.Host, e.whole))
			if !e.whole { // an ironic node's members count for no other request (ironic.go)
				s.joinGroupLocked(e.group, p.Host)
			}
		}
		if next.snap.tracksPlaced && notedOn(snap, e.host) {
			next.snap.placedSince = s.notePlacedLocked(next.snap.placedSince, st.snap.placedSince, p.InstanceUUID, e.host)
		}
		put = append(put, ledgerPut{p.InstanceUUID, ids[i], e})
		if s.opts.Journal {
			s.journal = append(s.journal, JournalEntry{
				Version: res.Version, Kind: JournalPlace, Host: e.host,
				InstanceUUID: p.InstanceUUID, Claim: e.claim, Forced: plan.Forced, Whole: e.whole,
			})
		}
	}
	s.ledgerPutAllLocked(put)
	s.publish(next)
	return res, nil
}

// groupHostsLocked is the affinity group's host names as a batch on snap
// reads them (newGroupState): those the request gave and those of the
// members the store committed in the group, on an ironic node too (its
// host joins group.hosts). Not the hosts of the request's other members:
// ServerGroupAffinityFilter reads group.hosts alone, and a commit held to
// more than a fresh placement is refused at every retry.
func (s *Store) groupHostsLocked(snap *Snapshot, g *GroupClaim) map[string]bool {
	hosts := map[string]bool{}
	for _, h := range g.Hosts {
		hosts[h] = true
	}
	for _, at := range snap.groupPlaced.members(g.UUID) {
		host, _ := placedOn(at)
		hosts[host] = true
	}
	for host := range s.byGroup[g.UUID] {
		hosts[host] = true
	}
	return hosts
}

// groupCountLocked counts, per host name, the anti-affinity group's members
// already there: those the store committed in the group where it
// committed them (none on an ironic node), the request's other members
// where snap has them (instanceKeys), as a batch on snap counts them. But a
// member the store committed outside the group counts where it was
// committed when snap keeps no notes of the instances committed since
// its lists (tracksPlaced): the batch, which sees it in the lists only
// after a rebuild, may place beside it, and the commit is stricter than
// the batch rather than let two members share a host (Nova's host state
// would show the instance).
func (s *Store) groupCountLocked(snap *Snapshot, g *GroupClaim) map[string]int {
	count := map[string]int{}
	for _, m := range g.Members {
		if e, committed := s.ledger[m]; committed {
			if e.group == g.UUID {
				continue // counted below, under its group
			}
			if !snap.tracksPlaced {
				if !e.whole {
					count[e.host.Host]++
				}
				continue
			}
		}
		for nid := range snap.instanceKeys(m) {
			count[snap.info.names.Name(nid)]++
		}
	}
	for host, c := range s.byGroup[g.UUID] {
		count[host] += c
	}
	return count
}

// checkClaim refuses a claim (named field) past a request's bounds
// (limits.go): a literal's claim past them would wrap the usage's int64
// arithmetic in a few commits (a forced one skips every check), and a
// deletion would give it back.
func checkClaim(field string, c Claim) error {
	const diskMB = 2 * MaxGB * 1024 // root_gb + ephemeral_gb
	for _, v := range []struct {
		field string
		v     int64
		max   int64
	}{{"memory_mb", c.MemoryMB, MaxMB}, {"vcpus", c.VCPUs, MaxMB}, {"disk_mb", c.DiskMB, diskMB},
		{"disk_request_mb", c.DiskRequestMB, diskMB + MaxMB}} {
		if v.v < 0 || v.v > v.max {
			return invalid(field+"."+v.field, "want a number from 0 to %d, got %d", v.max, v.v)
		}
	}
	return nil
}

// checkPlanLocked returns a *ValidationError for what plan cannot hold
// when it comes from PlaceBatch on one of the store's snapshots, whose
// newest is snap.
func (s *Store) checkPlanLocked(plan *Plan, snap *Snapshot) error {
	if plan.store != 0 && plan.store != s.id {
		return invalid("plan", "made on another store's snapshot (a second Store's, a bare NewSnapshot's, or a Store.Preview's, which shows a change without making it): place on this store's own snapshots to commit")
	}
	if plan.BaseVersion > snap.version {
		return invalid("plan.base_version", "version %d is past the store's %d: the plan was not made on this store", plan.BaseVersion, snap.version)
	}
	if err := checkClaim("plan.claim", plan.Claim); err != nil {
		return err
	}
	if g := plan.Group; g != nil && g.UUID == "" {
		// "" is the ledger's "no group": the members would be counted
		// with every groupless instance on their hosts.
		return invalid("plan.group.uuid", "want a non-empty uuid: a server group is committed by its uuid (request.instance_group.uuid)")
	}
	if g := plan.Group; g != nil && g.Policy == PolicyAntiAffinity && g.MaxServerPerHost < 1 {
		return invalid("plan.group.max_server_per_host", "want an integer >= 1, got %d", g.MaxServerPerHost)
	}
	var seen map[string]bool // a plan's own uuids, past a few (a scan of them all was quadratic)
	if len(plan.Placements) > 16 {
		seen = make(map[string]bool, len(plan.Placements))
	}
	for i, p := range plan.Placements {
		field := func() string { return fmt.Sprintf("plan.placements[%d].instance_uuid", i) }
		if p.InstanceUUID == "" {
			return invalid(field(), "want a non-empty uuid")
		}
		twice := seen[p.InstanceUUID]
		if seen == nil {
			twice = slices.ContainsFunc(plan.Placements[:i], func(q Placement) bool { return q.InstanceUUID == p.InstanceUUID })
		} else {
			seen[p.InstanceUUID] = true
		}
		if _, dup := s.ledger[p.InstanceUUID]; dup || twice {
			return invalid(field(), "instance %q is already committed", p.InstanceUUID)
		}
	}
	return nil
}
