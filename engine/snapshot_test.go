package engine

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestDeriveCopiesEveryField checks that a snapshot a Store derives
// carries every field of its parent, but for those derive renews (its
// version, its scratch pool, its own copy of the shards' slice). The
// parent has a value in every field, so that a field derive failed to
// carry over would show; a field added to Snapshot without a value here
// fails the test until it is given one.
func TestDeriveCopiesEveryField(t *testing.T) {
	c := Cloud{Config: DefaultConfig()}
	for i := range 3 {
		c.Hosts = append(c.Hosts, Host{Host: fmt.Sprint("h", i), MemoryMB: 1024, FreeRAMMB: 1024, VCPUs: 2, LocalGB: 10, FreeDiskGB: 10})
	}
	parent, err := NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	parent.delta = &usageDelta{ids: []uint32{1}, res: []hostRes{{freeRAM: 512}}}
	parent.groupPlaced = setGroupPlaced(nil, nil, "g", "inst", "h1")
	parent.placedSince, parent.tracksPlaced = notePlaced(nil, nil, "inst", "h1"), true
	parent.store = 7
	field := func(v reflect.Value, i int) any {
		f := v.Field(i)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	pv := reflect.ValueOf(parent).Elem()
	for i := range pv.NumField() {
		if pv.Field(i).IsZero() {
			t.Fatalf("the parent's %s is zero: give it a value, so that derive is seen to carry it", pv.Type().Field(i).Name)
		}
	}
	d := parent.derive()
	dv := reflect.ValueOf(d).Elem()
	for i := range pv.NumField() {
		name := pv.Type().Field(i).Name
		switch name {
		case "version":
			if d.version <= parent.version {
				t.Errorf("derived version %d, parent's %d", d.version, parent.version)
			}
		case "pool":
			if d.pool == nil || d.pool == parent.pool {
				t.Errorf("derived pool %p, parent's %p: want a pool of its own", d.pool, parent.pool)
			}
		case "shards":
			if !reflect.DeepEqual(d.shards, parent.shards) || &d.shards[0] == &parent.shards[0] {
				t.Errorf("derived shards %p, parent's %p: want a copy of the slice", d.shards, parent.shards)
			}
		default:
			if !reflect.DeepEqual(field(dv, i), field(pv, i)) {
				t.Errorf("derived %s differs from the parent's", name)
			}
		}
	}
}

// TestNamesKeepNoSnapshot checks that the host and node names a plan (its
// placements and alternates, the chance scheduler's too) and HostNode
// hand out are strings of their own, not slices of the
// snapshot's text of every name (hostcols.Names): a plan kept by the
// Store's ledger or a caller kept that text alive, one per snapshot a
// Store ever built (placer soak's heap grew 2.5x).
func TestNamesKeepNoSnapshot(t *testing.T) {
	c := tightCloud(4)
	c.Hosts[1].Node = "node-of-h0001" // a node named apart from its host
	snap, err := NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	shares := func(a, b string) bool { return len(a) > 0 && unsafe.StringData(a) == unsafe.StringData(b) }
	for id := range uint32(snap.Len()) {
		hn := snap.HostNode(id)
		if hn.Host != snap.info.hostOf(id) || hn.Node != snap.info.nodeOf(id) {
			t.Fatalf("host %d: HostNode %v, want %q %q", id, hn, snap.info.hostOf(id), snap.info.nodeOf(id))
		}
		if shares(hn.Host, snap.info.hostOf(id)) || shares(hn.Node, snap.info.nodeOf(id)) {
			t.Fatalf("host %d: HostNode shares the snapshot's names", id)
		}
	}
	for i := range 4 {
		r := req(fmt.Sprintf("inst-%d", i))
		r.ForceHosts = []string{c.Hosts[i].Host}
		p := mustPlan(t, snap, r).Placements[0]
		if shares(p.Host, snap.info.hostOf(p.HostID)) || shares(p.Node, snap.info.nodeOf(p.HostID)) {
			t.Fatalf("placement on host %d shares the snapshot's names", p.HostID)
		}
		if p.Host != c.Hosts[i].Host || p.Node != nodeName(&c.Hosts[i]) {
			t.Fatalf("placement %d on %q %q, want %q %q", i, p.Host, p.Node, c.Hosts[i].Host, nodeName(&c.Hosts[i]))
		}
	}
	// The alternates, and the chance scheduler's placements.
	alts := mustPlan(t, snap, req("alternates")).Placements[0].Alternates
	if len(alts) == 0 {
		t.Fatal("a plan on four hosts with max_attempts 3 has no alternates")
	}
	for _, a := range alts {
		id, ok := snap.info.byHostNode(a)
		if !ok || shares(a.Host, snap.info.hostOf(id)) || shares(a.Node, snap.info.nodeOf(id)) {
			t.Fatalf("alternate %v shares the snapshot's names (or is no host: %v)", a, !ok)
		}
	}
	cc := c
	cc.Config.SchedulerDriver = DriverChanceScheduler
	chance, err := NewSnapshot(cc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		p := mustPlan(t, chance, req(fmt.Sprintf("chance-%d", i))).Placements[0]
		if shares(p.Host, chance.info.hostOf(p.HostID)) || shares(p.Node, chance.info.nodeOf(p.HostID)) {
			t.Fatalf("the chance scheduler's placement on host %d shares the snapshot's names", p.HostID)
		}
	}
}
