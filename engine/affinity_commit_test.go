package engine

import (
	"context"
	"errors"
	"testing"
)

// TestCommitAffinity: two requests of one hard-affinity group planned on
// the same snapshot, before any member is placed, may choose different
// hosts; the commit of the second must then be refused
// (ServerGroupAffinityFilter), as the anti-affinity rule is, or the group
// ends up on two hosts.
func TestCommitAffinity(t *testing.T) {
	g := &InstanceGroup{UUID: "g", Policy: PolicyAffinity}
	planTwo := func(t *testing.T, s *Store) (Plan, Plan) {
		r1, r2 := req("a"), req("b")
		r1.InstanceGroup, r2.InstanceGroup = g, g
		snap := s.Snapshot()
		// Each request ignores the host the other lands on: both plans
		// are valid on the snapshot, on two hosts.
		r1.IgnoreHosts = []string{snap.HostNode(1).Host}
		p1 := mustPlan(t, snap, r1)
		r2.IgnoreHosts = []string{p1.Placements[0].Host}
		p2 := mustPlan(t, snap, r2)
		if p1.Placements[0].Host == p2.Placements[0].Host {
			t.Fatal("want the plans on two hosts")
		}
		return p1, p2
	}
	t.Run("gang", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		p1, p2 := planTwo(t, s)
		if _, err := s.Commit(p1); err != nil {
			t.Fatal(err)
		}
		_, err := s.Commit(p2)
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Reasons[0] != ServerGroupAffinityFilter {
			t.Fatalf("want an affinity conflict, got %v", err)
		}
		if s.Instances() != 1 {
			t.Errorf("%d instances committed, want 1", s.Instances())
		}
	})
	t.Run("same host accepted", func(t *testing.T) {
		// A member already committed on the plan's host: accepted.
		s := mustStore(t, tightCloud(4))
		r1, r2 := req("a"), req("b")
		r1.InstanceGroup, r2.InstanceGroup = g, g
		snap := s.Snapshot()
		p1, p2 := mustPlan(t, snap, r1), mustPlan(t, snap, r2)
		if p1.Placements[0].Host != p2.Placements[0].Host {
			t.Fatal("want both plans on one host")
		}
		if _, err := s.Commit(p1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(p2); err != nil {
			t.Fatalf("second member on the first one's host: %v", err)
		}
	})
	t.Run("filter disabled", func(t *testing.T) {
		// Without ServerGroupAffinityFilter the rule is not enforced at
		// planning, nor at commit.
		c := tightCloud(4)
		c.Config.Filters = []string{RamFilter, CoreFilter, DiskFilter}
		s := mustStore(t, c)
		p1, p2 := planTwo(t, s)
		if _, err := s.Commit(p1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(p2); err != nil {
			t.Fatalf("affinity re-checked without its filter: %v", err)
		}
	})
	t.Run("partial", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		p1, p2 := planTwo(t, s)
		if _, err := s.Commit(p1); err != nil {
			t.Fatal(err)
		}
		res, err := s.Commit(p2, Partial())
		if err != nil || len(res.Accepted) != 0 || len(res.Rejected) != 1 || res.Reasons[0] != ServerGroupAffinityFilter {
			t.Fatalf("partial: %+v %v", res, err)
		}
	})
}

// TestCommitGroupAsBatch: the commit holds a plan to the group rules a
// fresh placement applies, no more, no less. An affinity request listing
// a member the cloud shows on one host, with no group hosts, may be
// placed on any host (ServerGroupAffinityFilter reads group.hosts alone),
// and its commit is accepted (it was refused at every retry: the commit
// pinned the member's host). An anti-affinity request listing an
// instance the Store committed outside the group counts it on its host at
// once where the snapshots note the instances committed since their
// lists (a hints' filter enabled), in its batch and at its commit alike,
// and not once it is released; without the notes, the batch sees it only
// after a rebuild and may place beside it, and the commit refuses that
// (stricter than the batch, rather than two members on one host).
func TestCommitGroupAsBatch(t *testing.T) {
	c := tightCloud(3)
	c.Hosts[0].Instances = []string{"m"}
	s := mustStore(t, c)
	r := req("a")
	r.InstanceGroup = &InstanceGroup{UUID: "g", Policy: PolicyAffinity, Members: []string{"m"}}
	r.IgnoreHosts = []string{"h0000"}
	plan := mustPlan(t, s.Snapshot(), r)
	if _, err := s.Commit(plan); err != nil {
		t.Fatalf("an affinity plan a fresh placement makes: %v", err)
	}

	for _, tracked := range []bool{false, true} {
		c := tightCloud(3)
		if tracked {
			c.Config.Filters = append(c.Config.Filters, DifferentHostFilter)
		}
		s := mustStore(t, c)
		anti := req("b")
		anti.InstanceGroup = &InstanceGroup{UUID: "h", Policy: PolicyAntiAffinity, Members: []string{"o"}}
		anti.IgnoreHosts = []string{"h0000", "h0001"} // h0002 alone
		before := mustPlan(t, s.Snapshot(), anti)     // o is nowhere yet
		o := req("o")                                 // outside any group, onto h0002
		o.IgnoreHosts = []string{"h0000", "h0001"}
		if _, err := s.Commit(mustPlan(t, s.Snapshot(), o)); err != nil {
			t.Fatal(err)
		}
		_, err := PlaceBatch(context.Background(), s.Snapshot(), anti)
		if errors.Is(err, ErrNoValidHost) != tracked {
			t.Fatalf("tracked %v: b placed afresh beside o: %v", tracked, err)
		}
		_, err = s.Commit(before)
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Reasons[0] != ServerGroupAntiAffinityFilter {
			t.Fatalf("tracked %v: b's older plan beside o: %v, want an anti-affinity conflict", tracked, err)
		}
		if !tracked {
			continue
		}
		if _, err := s.DeleteInstance("o"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(mustPlan(t, s.Snapshot(), anti)); err != nil {
			t.Fatalf("b once o is released: %v", err)
		}
	}
}
