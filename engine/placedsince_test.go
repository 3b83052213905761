package engine

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestHintsSeeCommittedInstances: a different_host or same_host hint
// naming an instance the Store committed finds it on its host at once,
// and a released one nowhere, before and after a rebuild takes the live
// ones into the instance lists, through Commit, DeleteInstance,
// ApplyExternal (another process's commits and releases) and a caching
// view's own commits (withPlan). They were looked up in the lists alone,
// which took committed instances in only at the next rebuild: a
// different_host hint let the new instance land beside one just made.
func TestHintsSeeCommittedInstances(t *testing.T) {
	c := tightCloud(3)
	c.Config.Filters = append(c.Config.Filters, DifferentHostFilter, SameHostFilter)
	s := mustStore(t, c)
	hostsFor := func(snap *Snapshot, hint string, uuid string) []string {
		t.Helper()
		r := req(fmt.Sprint("probe-", hint, "-", uuid))
		if hint == "different" {
			r.SchedulerHints.DifferentHost = []string{uuid}
		} else {
			r.SchedulerHints.SameHost = []string{uuid}
		}
		set, _, err := FilterHosts(context.Background(), snap, r)
		if err != nil {
			t.Fatal(err)
		}
		hosts := []string{}
		for id := range uint32(snap.Len()) {
			if set.Has(id) {
				hosts = append(hosts, snap.HostNode(id).Host)
			}
		}
		return hosts
	}
	want := func(what string, got []string, hosts ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(hosts) {
			t.Errorf("%s: hosts %v pass, want %v", what, got, hosts)
		}
	}
	plan := mustPlan(t, s.Snapshot(), req("x"))
	if _, err := s.Commit(plan); err != nil {
		t.Fatal(err)
	}
	on := plan.Placements[0].Host
	others := []string{}
	for _, h := range []string{"h0000", "h0001", "h0002"} {
		if h != on {
			others = append(others, h)
		}
	}
	want("different_host x, committed", hostsFor(s.Snapshot(), "different", "x"), others...)
	want("same_host x, committed", hostsFor(s.Snapshot(), "same", "x"), on)
	if _, err := s.SetAggregateMetadata("a", map[string]string{"k": "v"}, nil); err != nil { // a rebuild: x joins the lists
		t.Fatal(err)
	}
	want("different_host x, after a rebuild", hostsFor(s.Snapshot(), "different", "x"), others...)
	if _, err := s.DeleteInstance("x"); err != nil {
		t.Fatal(err)
	}
	want("different_host x, released after the rebuild", hostsFor(s.Snapshot(), "different", "x"), "h0000", "h0001", "h0002")
	want("same_host x, released after the rebuild", hostsFor(s.Snapshot(), "same", "x"))

	// Another process's commit and release (an etcd mirror's).
	if _, err := s.ApplyExternal(ExternalChange{Placed: []Instance{{UUID: "y", Host: HostNode{"h0002", "h0002"}, Claim: Claim{MemoryMB: 1024, VCPUs: 1, DiskMB: 1024, DiskRequestMB: 1024}}}}); err != nil {
		t.Fatal(err)
	}
	want("same_host y, placed by another process", hostsFor(s.Snapshot(), "same", "y"), "h0002")
	if _, err := s.ApplyExternal(ExternalChange{Deleted: []string{"y"}}); err != nil {
		t.Fatal(err)
	}
	want("same_host y, released by another process", hostsFor(s.Snapshot(), "same", "y"))

	// A caching view's own commit.
	snap := s.Snapshot()
	p := mustPlan(t, snap, req("z"))
	view := snap.withPlan(&p, &s.rec)
	want("same_host z, in the view that committed it", hostsFor(view, "same", "z"), p.Placements[0].Host)
}

// notes is a placedSince table as uuid -> where.
func notes(t *groupTable) map[string]string {
	out := map[string]string{}
	for _, m := range t.all() {
		for u, at := range m {
			out[u] = at
		}
	}
	return out
}

// TestPlacedSinceInvariant: after every change of a Store, whatever
// made it (commits, commits during a rebuild, releases, rebuilds, nodes
// removed and added back, another process's changes, a re-list, uuids
// released and committed again on their node or another), the newest
// snapshot's notes are those placedSinceLocked computes from the ledger
// and the lists, over hosts of several nodes. (A removal published notes
// of the instances on the node it removed, forgotten just after.)
func TestPlacedSinceInvariant(t *testing.T) {
	c := tightCloud(6)
	c.Hosts[4].Host, c.Hosts[4].Node = "multi", "m1"
	c.Hosts[5].Host, c.Hosts[5].Node = "multi", "m2"
	c.Config.Filters = append(c.Config.Filters, DifferentHostFilter, SameHostFilter)
	s := mustStore(t, c)
	r := rand.New(rand.NewPCG(1, 2))
	var live []string
	removed := map[HostNode]Host{}
	n := 0
	commit := func(st *Store) {
		n++
		// Few uuids: a released one is committed again, on its host or
		// another.
		u := fmt.Sprint("i", r.IntN(10))
		if slices.Contains(live, u) {
			return
		}
		plan, err := PlaceBatch(context.Background(), st.Snapshot(), req(u))
		if err != nil {
			return // full
		}
		if _, err := st.Commit(plan); err == nil {
			live = append(live, plan.Placements[0].InstanceUUID)
		}
	}
	for step := range 1500 {
		op := r.IntN(8)
		switch op {
		case 0, 1:
			commit(s)
		case 2:
			if len(live) > 0 {
				k := r.IntN(len(live))
				if _, err := s.DeleteInstance(live[k]); err == nil {
					live = slices.Delete(live, k, k+1)
				}
			}
		case 3: // a rebuild, an instance committed while it builds
			s.whileRebuilding = func(st *Store) { commit(st) }
			if _, err := s.SetAggregateMetadata("a", map[string]string{"k": fmt.Sprint(step)}, nil); err != nil {
				t.Fatal(err)
			}
			s.whileRebuilding = nil
		case 4: // a node removed, one committed on it meanwhile
			snap := s.Snapshot()
			if snap.Len() > 3 {
				hn := snap.HostNode(uint32(r.IntN(snap.Len())))
				id, _ := snap.info.byHostNode(hn)
				h := s.cloud.Hosts[id]
				s.whileRebuilding = func(st *Store) { commit(st) }
				if _, err := s.RemoveHosts(hn); err != nil {
					t.Fatal(err)
				}
				s.whileRebuilding = nil
				removed[hn] = h
				live = slices.DeleteFunc(live, func(u string) bool { _, ok := s.ledger[u]; return !ok })
			}
		case 5: // a removed node back
			for hn, h := range removed {
				if _, err := s.AddHosts(h); err != nil {
					t.Fatal(err)
				}
				delete(removed, hn)
				break
			}
		case 6: // another process commits and releases
			snap := s.Snapshot()
			hn := snap.HostNode(uint32(r.IntN(snap.Len())))
			u := fmt.Sprint("ext", step)
			ch := ExternalChange{Placed: []Instance{{UUID: u, Host: hn, Claim: Claim{MemoryMB: 1, VCPUs: 0, DiskMB: 0}}}}
			if len(live) > 0 && r.IntN(2) == 0 {
				k := r.IntN(len(live))
				ch.Deleted = []string{live[k]}
				live = slices.Delete(live, k, k+1)
			}
			if _, err := s.ApplyExternal(ch); err != nil {
				t.Fatal(err)
			}
			live = append(live, u)
		case 7: // a re-list: every instance given again, one left out
			var ch ExternalChange
			ch.Reset = true
			s.mu.Lock()
			for u, e := range s.ledger {
				ch.Placed = append(ch.Placed, Instance{UUID: u, Host: e.host, Claim: e.claim, Group: e.group, Whole: e.whole})
			}
			s.mu.Unlock()
			slices.SortFunc(ch.Placed, func(a, b Instance) int { return strings.Compare(a.UUID, b.UUID) })
			if len(ch.Placed) > 0 {
				left := ch.Placed[r.IntN(len(ch.Placed))].UUID
				ch.Placed = slices.DeleteFunc(ch.Placed, func(in Instance) bool { return in.UUID == left })
			}
			if _, err := s.ApplyExternal(ch); err != nil {
				t.Fatal(err)
			}
			live = live[:0]
			for _, in := range ch.Placed {
				live = append(live, in.UUID)
			}
		}
		s.mu.Lock()
		snap := s.cur.Load().snap
		want, got := notes(s.placedSinceLocked(snap)), notes(snap.placedSince)
		s.mu.Unlock()
		if !maps.Equal(want, got) {
			t.Fatalf("step %d (op %d): the snapshot notes %v, the ledger and lists give %v", step, op, got, want)
		}
	}
}
