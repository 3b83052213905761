package engine

import (
	"context"
	"fmt"
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
