package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestDryRun: a dry run checks a plan as Commit would, commits nothing,
// and reports the usage the real commit then leaves.
func TestDryRun(t *testing.T) {
	s := mustStore(t, tightCloud(4))
	snap := s.Snapshot()
	plan := mustPlan(t, snap, req("a", "b"))
	v := s.Version()
	var pend PendingUsage
	res, err := s.Commit(plan, DryRun(&pend))
	if err != nil || len(res.Accepted) != 2 {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if s.Version() != v || s.Instances() != 0 {
		t.Fatalf("dry run committed: version %d -> %d, %d instances", v, s.Version(), s.Instances())
	}
	if len(pend.Hosts) == 0 || len(pend.Hosts) != len(pend.Usage) {
		t.Fatalf("pending usage %+v", pend)
	}
	if _, err := s.Commit(plan); err != nil {
		t.Fatal(err)
	}
	after := s.Snapshot()
	for i, h := range pend.Hosts {
		id, _ := after.info.byHostNode(h)
		if got := after.Usage(id); got != pend.Usage[i] {
			t.Errorf("%v: committed %+v, dry run said %+v", h, got, pend.Usage[i])
		}
	}
	// A dry run of a plan that no longer fits reports the conflict.
	fillAll := func(hn HostNode) {
		if _, err := s.UpdateHost(hn, HostUsage{VCPUsUsed: 4, NumInstances: 4}); err != nil {
			t.Fatal(err)
		}
	}
	p2 := mustPlan(t, s.Snapshot(), req("c"))
	fillAll(hn(p2.Placements[0]))
	if _, err := s.Commit(p2, DryRun(&pend)); !errors.Is(err, ErrConflict) {
		t.Fatalf("dry run on a full host: %v", err)
	}
	// pend was the first dry run's: a run that accepts nothing leaves it
	// empty, not holding the last run's hosts.
	if len(pend.Hosts) != 0 || len(pend.Usage) != 0 || len(pend.Claims) != 0 {
		t.Fatalf("a reused PendingUsage after a refused dry run: %+v", pend)
	}
}

// TestApplyExternal: instances and usage committed elsewhere reach the
// snapshot, the ledger (duplicates refused, deletions) and the group
// rule, and move the generations of the hosts they touch.
func TestApplyExternal(t *testing.T) {
	s := mustStore(t, tightCloud(4))
	snap := s.Snapshot()
	h0 := snap.HostNode(0)
	g := &InstanceGroup{UUID: "g", Policy: PolicyAntiAffinity}
	r := req("b")
	r.InstanceGroup = g
	plan := mustPlan(t, snap, r) // made before the external change
	target := hn(plan.Placements[0])
	claim := plan.Claim
	u := snap.Usage(plan.Placements[0].HostID).Consume(claim)
	v, err := s.ApplyExternal(ExternalChange{
		Usage:  []HostUsageOf{{Host: target, Usage: u}},
		Placed: []Instance{{UUID: "a", Host: target, Claim: claim, Group: "g"}},
	})
	if err != nil || v <= snap.Version() {
		t.Fatalf("apply: %d %v", v, err)
	}
	id := plan.Placements[0].HostID
	if got := s.Snapshot().Usage(id); got != u {
		t.Fatalf("usage %+v, want %+v", got, u)
	}
	if s.Generation(id) != v || s.Generation(0) == v && h0 != target {
		t.Fatalf("generations: changed host %d, other %d, version %d", s.Generation(id), s.Generation(0), v)
	}
	if s.Instances() != 1 {
		t.Fatalf("%d instances, want 1", s.Instances())
	}
	// The member placed elsewhere counts for the anti-affinity rule.
	plan.Group.Members = append(plan.Group.Members, "a")
	var ce *ConflictError
	if _, err := s.Commit(plan); !errors.As(err, &ce) || ce.Reasons[0] != ServerGroupAntiAffinityFilter {
		t.Fatalf("want an anti-affinity conflict, got %v", err)
	}
	// The same instance committed here is a duplicate.
	var ve *ValidationError
	if _, err := s.Commit(mustPlan(t, s.Snapshot(), req("a"))); !errors.As(err, &ve) {
		t.Fatalf("want a duplicate, got %v", err)
	}
	// A re-list (Reset) with the instance gone forgets it.
	if _, err := s.ApplyExternal(ExternalChange{Reset: true, Usage: []HostUsageOf{{Host: target, Usage: snap.Usage(id)}}}); err != nil {
		t.Fatal(err)
	}
	if s.Instances() != 0 || s.Snapshot().Usage(id) != snap.Usage(id) {
		t.Fatalf("after reset: %d instances, usage %+v", s.Instances(), s.Snapshot().Usage(id))
	}
	// Placed again, then Deleted.
	s.ApplyExternal(ExternalChange{Placed: []Instance{{UUID: "a", Host: target, Claim: claim, Group: "g"}}})
	s.ApplyExternal(ExternalChange{Deleted: []string{"a"}})
	if s.Instances() != 0 {
		t.Fatalf("deleted: %d instances", s.Instances())
	}
	// A Cloud without the host drops it and its instances.
	s.ApplyExternal(ExternalChange{Placed: []Instance{{UUID: "a", Host: target, Claim: claim}}})
	c := tightCloud(4)
	c.Hosts = c.Hosts[:0]
	for _, h := range tightCloud(4).Hosts {
		if h.Host != target.Host {
			c.Hosts = append(c.Hosts, h)
		}
	}
	if _, err := s.ApplyExternal(ExternalChange{Cloud: &c}); err != nil {
		t.Fatal(err)
	}
	if s.Instances() != 0 || s.Snapshot().Len() != 3 {
		t.Fatalf("host removed: %d instances, %d hosts", s.Instances(), s.Snapshot().Len())
	}
	// A re-list whose cloud NewSnapshot refuses changes nothing: the
	// instances are still held, the snapshot is the one before.
	if _, err := s.ApplyExternal(ExternalChange{Placed: []Instance{{UUID: "b", Host: s.Snapshot().HostNode(0), Claim: claim}}}); err != nil {
		t.Fatal(err)
	}
	bad := tightCloud(4)
	bad.Hosts[1].Host = bad.Hosts[0].Host // two nodes of one name and node
	before := s.Version()
	if _, err := s.ApplyExternal(ExternalChange{Reset: true, Cloud: &bad}); !errors.As(err, &ve) {
		t.Fatalf("a re-list of an invalid cloud: want a *ValidationError, got %v", err)
	}
	if s.Instances() != 1 || s.Version() != before {
		t.Fatalf("after a refused re-list: %d instances (want 1), version %d -> %d", s.Instances(), before, s.Version())
	}
	// Built outside the mutex: a commit goes through while it builds,
	// and its usage is in the snapshot the rebuild publishes.
	full := tightCloud(4)
	var during Placement
	var freeBefore int64
	s.whileRebuilding = func(s *Store) {
		snap := s.Snapshot()
		plan := mustPlan(t, snap, req("while"))
		during, freeBefore = plan.Placements[0], snap.Usage(plan.Placements[0].HostID).FreeRAMMB
		if _, err := s.Commit(plan); err != nil {
			t.Errorf("a commit while ApplyExternal rebuilt: %v", err)
		}
	}
	if _, err := s.ApplyExternal(ExternalChange{Cloud: &full}); err != nil {
		t.Fatal(err)
	}
	s.whileRebuilding = nil
	after := s.Snapshot()
	if id, ok := after.info.byHostNode(hn(during)); !ok || after.Usage(id).FreeRAMMB != freeBefore-small.MemoryMB {
		t.Fatalf("the commit made while ApplyExternal rebuilt is not in its snapshot: %s free RAM %+v, want %d",
			during.Host, after.Usage(id), freeBefore-small.MemoryMB)
	}
}

// TestApplyExternalRefusesBadUsage: a usage record no report could make
// (a negative counter, a size past the bounds) is refused, naming its
// node and field, and nothing of the change is applied (it was applied).
func TestApplyExternalRefusesBadUsage(t *testing.T) {
	s := mustStore(t, tightCloud(2))
	v := s.Version()
	h0 := s.Snapshot().HostNode(0)
	for _, u := range []HostUsage{{FreeRAMMB: 1024, VCPUsUsed: -1}, {FreeRAMMB: MaxMB + 1}} {
		_, err := s.ApplyExternal(ExternalChange{
			Usage:  []HostUsageOf{{Host: h0, Usage: HostUsage{FreeRAMMB: 1}}, {Host: s.Snapshot().HostNode(1), Usage: u}},
			Placed: []Instance{{UUID: "a", Host: h0, Claim: Claim{MemoryMB: 1}}},
		})
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.HasPrefix(ve.Field, "usage[1] (h0001/h0001).") {
			t.Fatalf("%+v: %v, want a ValidationError naming usage[1]", u, err)
		}
		if s.Version() != v || s.Instances() != 0 {
			t.Fatalf("%+v: a refused change was applied (version %d, %d instances)", u, s.Version(), s.Instances())
		}
	}
	_, err := s.ApplyExternal(ExternalChange{Placed: []Instance{{UUID: "a", Host: h0, Claim: Claim{MemoryMB: 1 << 62}}}})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "placed[0] (a).claim.memory_mb" || s.Instances() != 0 {
		t.Fatalf("a claim past the bounds: %v, %d instances", err, s.Instances())
	}
}
