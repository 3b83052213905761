package engine

import (
	"math"
	"slices"
	"testing"
)

// TestWideUsageStore follows hosts whose usage the int32 columns cannot
// hold through a Store: in the first snapshot's delta, reported by an
// update, kept through a compaction and a rebuild, always read back
// exactly and placed on as a snapshot built afresh from the same usage
// places.
func TestWideUsageStore(t *testing.T) {
	const n = 600
	c := tightCloud(n)
	c.Config.RAMAllocationRatio = 1e6 // the wide hosts pass RamFilter
	c.Hosts[3].MemoryMB, c.Hosts[3].FreeRAMMB = 1<<33, 1<<33
	s := mustStore(t, c)
	want := map[uint32]HostUsage{3: s.Snapshot().Usage(3)}
	if want[3].FreeRAMMB != 1<<33 {
		t.Fatalf("host 3: free RAM %d, want %d", want[3].FreeRAMMB, int64(1)<<33)
	}
	if d := s.Snapshot().delta; d == nil || !slices.Equal(d.ids, []uint32{3}) {
		t.Fatalf("first snapshot's delta %v, want host 3 alone", d)
	}
	// A report past the columns, in both directions, then enough reports
	// within them to compact.
	wide := HostUsage{FreeRAMMB: math.MinInt32 - 1, FreeDiskMB: math.MaxInt32 + 1, VCPUsUsed: 2, NumInstances: 1, NumIOOps: 1 << 40}
	if _, err := s.UpdateHost(HostNode{"h0005", "h0005"}, wide); err != nil {
		t.Fatal(err)
	}
	want[5] = wide
	for id := uint32(100); id < 100+maxDelta-1; id++ { // the last one compacts
		u := HostUsage{FreeRAMMB: 4096, FreeDiskMB: 50 * 1024, VCPUsUsed: 2, NumInstances: 2}
		if _, err := s.UpdateHost(HostNode{c.Hosts[id].Host, c.Hosts[id].Host}, u); err != nil {
			t.Fatal(err)
		}
		want[id] = u
	}
	snap := s.Snapshot()
	if d := snap.delta; d == nil || !slices.Equal(d.ids, []uint32{3, 5}) {
		t.Fatalf("delta after compaction %v, want hosts 3 and 5", d)
	}
	check := func(what string, snap *Snapshot) {
		t.Helper()
		for id, u := range want {
			if got := snap.Usage(id); got != u {
				t.Fatalf("%s: host %d usage %+v, want %+v", what, id, got, u)
			}
		}
		// The same cloud, built afresh with this usage, places alike.
		fresh := c
		fresh.Hosts = slices.Clone(c.Hosts)
		for id := range uint32(snap.Len()) {
			u, h := snap.Usage(id), &fresh.Hosts[id]
			h.FreeRAMMB, h.VCPUsUsed, h.NumInstances, h.NumIOOps = u.FreeRAMMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps
			h.FreeDiskGB = u.FreeDiskMB / 1024
		}
		f, err := NewSnapshot(fresh)
		if err != nil {
			t.Fatal(err)
		}
		r := req("a", "b", "c", "d")
		got, exp := mustPlan(t, snap, r), mustPlan(t, f, r)
		for i := range got.Placements {
			if g, e := got.Placements[i], exp.Placements[i]; g.Host != e.Host || g.Weight != e.Weight {
				t.Fatalf("%s: placement %d on %s (weight %v), afresh on %s (%v)", what, i, g.Host, g.Weight, e.Host, e.Weight)
			}
		}
		if got.Placements[0].Host != "h0003" {
			t.Fatalf("%s: first placement on %s, want h0003 (the most free RAM)", what, got.Placements[0].Host)
		}
	}
	check("after compaction", snap)
	// A rebuild carries the usage over.
	if _, err := s.AddHosts(Host{Host: "new", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}); err != nil {
		t.Fatal(err)
	}
	c.Hosts = append(c.Hosts, Host{Host: "new", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100})
	want[n] = HostUsage{FreeRAMMB: 8192, FreeDiskMB: 100 * 1024} // as added: nothing used
	check("after a rebuild", s.Snapshot())
	if d := s.Snapshot().delta; d == nil || !slices.Equal(d.ids, []uint32{3, 5}) {
		t.Fatalf("delta after the rebuild %v, want hosts 3 and 5", d)
	}
}
