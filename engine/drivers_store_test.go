package engine

import (
	"context"
	"errors"
	"testing"
)

// ironicCloud is two ironic nodes of one host "bm" and one ordinary host
// "vm", under the ironic host manager, each of 8 GB, 4 vCPUs and 100 GB,
// all free.
func ironicCloud() Cloud {
	cfg := DefaultConfig()
	cfg.HostManager = HostManagerIronic
	cfg.Weighers = []string{RAMWeigher}
	ironic := HVTypeIronic
	c := Cloud{Config: cfg}
	for _, hn := range []HostNode{{"bm", "n1"}, {"bm", "n2"}, {"vm", "vm"}} {
		h := Host{Host: hn.Host, Node: hn.Node, MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}
		if hn.Host == "bm" {
			h.HypervisorType = &ironic
		}
		c.Hosts = append(c.Hosts, h)
	}
	return c
}

// TestIronicStore: a Store consumes an ironic node whole on commit,
// re-checks it as the filters do (a second plan on the node conflicts),
// gives back what it took on deletion, and journals it so that a replay
// gets the same usage; an anti-affinity member on one ironic node does not
// keep the group off the host's other node (each has its own instances).
func TestIronicStore(t *testing.T) {
	c := ironicCloud()
	s := mustStore(t, c)
	snap := s.Snapshot()
	first := mustPlan(t, snap, req("a"))
	second := mustPlan(t, snap, req("b")) // the same choice, on the same snapshot
	if p := first.Placements[0]; p.Node != "n1" || second.Placements[0].Node != "n1" {
		t.Fatalf("placed on %s and %s, want n1 twice", p.Node, second.Placements[0].Node)
	}
	if _, err := s.Commit(first); err != nil {
		t.Fatal(err)
	}
	n1, _ := s.Snapshot().info.byHostNode(HostNode{"bm", "n1"})
	if u := s.Snapshot().Usage(n1); u != (HostUsage{FreeRAMMB: 0, FreeDiskMB: 0, VCPUsUsed: 4}) {
		t.Errorf("n1 after a: %+v, want consumed whole, counters 0", u)
	}
	var ce *ConflictError
	// (RamFilter's ratio of 1.5 leaves room on a node consumed whole;
	// DiskFilter's 1.0 does not.)
	if _, err := s.Commit(second); !errors.As(err, &ce) || ce.Reasons[0] != DiskFilter {
		t.Errorf("b on n1 again: %v, want a DiskFilter conflict", err)
	}

	if _, err := s.DeleteInstance("a"); err != nil {
		t.Fatal(err)
	}
	if u := s.Snapshot().Usage(n1); u != (HostUsage{FreeRAMMB: 8192, FreeDiskMB: 100 * 1024}) {
		t.Errorf("n1 after a's deletion: %+v, want all free", u)
	}
	// Anti-affinity: c's group member on n1 does not count on n2, the
	// same host's other node.
	g := &InstanceGroup{UUID: "g", Policy: PolicyAntiAffinity, Members: []string{"c", "d"}}
	for _, u := range []string{"c", "d"} {
		r := req(u)
		r.InstanceGroup = g
		plan := mustPlan(t, s.Snapshot(), r)
		if _, err := s.Commit(plan); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		want := map[string]string{"c": "n1", "d": "n2"}[u]
		if got := plan.Placements[0].Node; got != want {
			t.Errorf("%s on %s, want %s", u, got, want)
		}
	}

	journal := s.Journal()
	if !journal[0].Whole || journal[0].Claim.MemoryMB != 8192 {
		t.Errorf("journal[0]: %+v, want a whole node's placement taking 8192 MB", journal[0])
	}
	checkJournal(t, c, s)
}

// TestChanceStore: a chance plan is consumed by Store.Commit without a
// re-check (Nova's chance scheduler claims nothing), even on a host that
// filled up since; a Scheduler places chance requests without warm starts.
func TestChanceStore(t *testing.T) {
	c := tightCloud(2)
	c.Config.SchedulerDriver = DriverChanceScheduler
	s := mustStore(t, c)
	plan := mustPlan(t, s.Snapshot(), Request{InstanceUUIDs: []string{"a"}, Flavor: whole})
	if !plan.Forced || plan.Placements[0].Weight != 0 || plan.Placements[0].Limits.Set != 0 {
		t.Fatalf("chance plan: %+v", plan)
	}
	p := plan.Placements[0]
	if _, err := s.UpdateHost(hn(p), HostUsage{FreeRAMMB: 0, FreeDiskMB: 0, VCPUsUsed: 4, NumInstances: 4}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Commit(plan)
	if err != nil || res.Rechecked != 0 {
		t.Fatalf("commit: %+v %v, want accepted without a re-check", res, err)
	}
	id, _ := s.Snapshot().info.byHostNode(hn(p))
	if u := s.Snapshot().Usage(id); u.FreeRAMMB != -8192 || u.NumInstances != 5 {
		t.Errorf("%v after the chance plan: %+v", hn(p), u)
	}
	if !s.Journal()[1].Forced {
		t.Error("the chance placement is not journaled as forced")
	}

	sc := NewScheduler(s, SchedulerOptions{Workers: 1})
	for _, u := range []string{"b", "c", "d"} {
		if _, err := sc.Place(context.Background(), req(u)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if st := sc.Stats(); st.WarmStarts != 0 || st.Placed != 3 {
		t.Errorf("stats %+v: want 3 placed, no warm start", st)
	}
}

// TestIronicGroupsOnMixedHost: host "bm" has two ironic nodes and an
// ordinary node n3 running x. A group member on an ironic node is in that
// node's instances alone, for no later request: it keeps no later member
// off n3 (the planner reads the Store's record of it so), and x, in the
// ordinary nodes' instances, keeps none off the ironic nodes (the commit
// check counts so).
func TestIronicGroupsOnMixedHost(t *testing.T) {
	c := ironicCloud()
	c.Hosts[2] = Host{Host: "bm", Node: "n3", MemoryMB: 8192, FreeRAMMB: 6144, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100, Instances: []string{"x"}}
	c.Hosts = append(c.Hosts, Host{Host: "o", MemoryMB: 8192, FreeRAMMB: 4096, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100})
	s := mustStore(t, c)
	place := func(uuid string, g *InstanceGroup, dest *Destination) string {
		t.Helper()
		r := req(uuid)
		r.InstanceGroup, r.RequestedDestination = g, dest
		plan, err := PlaceBatch(context.Background(), s.Snapshot(), r)
		if err != nil {
			t.Fatalf("%s: %v", uuid, err)
		}
		if _, err := s.Commit(plan); err != nil {
			t.Fatalf("%s: %v", uuid, err)
		}
		return plan.Placements[0].Node
	}
	h := &InstanceGroup{UUID: "h", Policy: PolicyAntiAffinity, Members: []string{"p", "q"}}
	if got := place("p", h, nil); got != "n1" {
		t.Fatalf("p on %s, want n1", got)
	}
	if got := place("q", h, &Destination{Host: "bm", Node: "n3"}); got != "n3" {
		t.Errorf("q on %s, want n3", got)
	}
	g := &InstanceGroup{UUID: "g", Policy: PolicyAntiAffinity, Members: []string{"x", "c"}}
	if got := place("c", g, nil); got != "n2" {
		t.Errorf("c on %s, want n2", got)
	}
	checkJournal(t, c, s)
}

// whole is a flavor taking all of one of tightCloud's hosts.
var whole = Flavor{Name: "whole", MemoryMB: 8192, VCPUs: 4, RootGB: 100}

// checkJournal replays s's journal from c (replay) and requires every
// node's usage to be the store's, and within its limits.
func checkJournal(t *testing.T, c Cloud, s *Store) {
	t.Helper()
	final := s.Snapshot()
	want := replay(t, c, s.Journal(), capacityIn(final))
	if len(want) != final.Len() {
		t.Errorf("%d hosts recomputed, %d in the store", len(want), final.Len())
	}
	for id := range uint32(final.Len()) {
		got, h := final.Usage(id), final.HostNode(id)
		if got != want[h] {
			t.Errorf("%v: store %+v, recomputed %+v", h, got, want[h])
		}
		if final.Capacity(id).Exceeds(got) {
			t.Errorf("%v over its limits: %+v", h, got)
		}
	}
}

// TestIronicAffinityCommit: a member an affinity group committed on an
// ironic node pins the group's host for the commits of its other
// requests, as it does for their batches (its host joins group.hosts):
// two requests of a new group planned on one snapshot onto two hosts
// both committed before, the group split across the hosts.
func TestIronicAffinityCommit(t *testing.T) {
	c := ironicCloud()
	c.Hosts[1].Host = "bm2" // n1 on bm, n2 on bm2: two host names
	s := mustStore(t, c)
	snap := s.Snapshot()
	g := &InstanceGroup{UUID: "g", Policy: PolicyAffinity}
	a, b := req("a"), req("b")
	a.InstanceGroup, b.InstanceGroup = g, g
	a.IgnoreHosts, b.IgnoreHosts = []string{"bm2", "vm"}, []string{"bm", "vm"}
	pa, pb := mustPlan(t, snap, a), mustPlan(t, snap, b)
	if pa.Placements[0].Host != "bm" || pb.Placements[0].Host != "bm2" {
		t.Fatalf("planned on %s and %s, want bm and bm2", pa.Placements[0].Host, pb.Placements[0].Host)
	}
	if _, err := s.Commit(pa); err != nil {
		t.Fatal(err)
	}
	var ce *ConflictError
	if _, err := s.Commit(pb); !errors.As(err, &ce) || ce.Reasons[0] != ServerGroupAffinityFilter {
		t.Fatalf("b on bm2 after a on bm: %v, want a ServerGroupAffinityFilter conflict", err)
	}
	if _, err := PlaceBatch(context.Background(), s.Snapshot(), b); !errors.Is(err, ErrNoValidHost) {
		t.Fatalf("b placed afresh: %v, want NoValidHost (the group is on bm)", err)
	}
}

// TestIronicReportKeepsCountersZero: a usage report on an ironic node sets
// its free RAM, free disk and vCPUs used, and leaves num_instances and
// num_io_ops at 0 whatever it says, as IronicNodeState reads neither
// (usageOf); through UpdateHost and ApplyExternal alike, journaled so. An
// ordinary node takes the report's counters. With the counters taken, a
// node that a whole rebuild passes failed AggregateNumInstancesFilter
// (FuzzStore's seed 885), checked by mutation.
func TestIronicReportKeepsCountersZero(t *testing.T) {
	c := ironicCloud()
	c.Config.Filters = append(c.Config.Filters, NumInstancesFilter)
	c.Config.MaxInstancesPerHost = 1
	s, err := NewStore(c, StoreOptions{Journal: true})
	if err != nil {
		t.Fatal(err)
	}
	report := HostUsage{FreeRAMMB: 4096, FreeDiskMB: 50 * 1024, VCPUsUsed: 2, NumInstances: 5, NumIOOps: 9}
	if _, err := s.UpdateHost(HostNode{"bm", "n1"}, report); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyExternal(ExternalChange{Usage: []HostUsageOf{{HostNode{"bm", "n2"}, report}, {HostNode{"vm", "vm"}, report}}}); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	whole := report
	whole.NumInstances, whole.NumIOOps = 0, 0
	for id, want := range []HostUsage{whole, whole, report} {
		if got := snap.Usage(uint32(id)); got != want {
			t.Errorf("%v: usage %+v, want %+v", snap.HostNode(uint32(id)), got, want)
		}
	}
	if j := s.Journal(); len(j) == 0 || j[len(j)-1].Kind != JournalUpdate || j[len(j)-1].Usage != whole {
		t.Errorf("the report's journal entry: %+v, want usage %+v", j[len(j)-1], whole)
	}
	// The ironic nodes pass NumInstancesFilter (0 < 1), the ordinary one
	// (5 instances) does not.
	plan := mustPlan(t, snap, req("a"))
	if p := plan.Placements[0]; p.Host != "bm" {
		t.Errorf("placed on %s/%s, want an ironic node", p.Host, p.Node)
	}
}
