package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/placer/placer/bitmap"
)

// TestCommitWhileRebuilding commits, deletes and reports usage while
// AddHosts, RemoveHosts and SetAggregateMetadata install their snapshots
// (whileRebuilding runs between building the rebuild's snapshot and
// publishing it, without the mutex): none of them waits for the rebuild,
// and the published snapshot holds their usage, a version after theirs,
// and (for RemoveHosts) forgets an instance committed meanwhile on a
// removed host. (A commit during NewSnapshot itself reads nothing the
// build writes; the race tests of the Scheduler and simulate cover that
// overlap.)
func TestCommitWhileRebuilding(t *testing.T) {
	s := mustStore(t, tightCloud(8))
	var during []uint64 // versions published while a rebuild built
	var placed []Placement
	var reported []uint64 // versions of the usage reports made meanwhile
	var deleted Placement
	n := 0
	s.whileRebuilding = func(s *Store) {
		done := make(chan error, 1)
		go func() {
			n++
			p, err := PlaceBatch(context.Background(), s.Snapshot(), req("while-"+string(rune('a'+n))))
			if err != nil {
				done <- err
				return
			}
			res, err := s.Commit(p)
			if err == nil {
				during = append(during, res.Version)
				placed = append(placed, p.Placements[0])
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("commit while rebuilding: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a commit waited for the rebuild")
		}
		// A usage report and a deletion in the same window.
		if _, err := s.UpdateHost(HostNode{"h0007", "h0007"}, HostUsage{FreeRAMMB: 1024, FreeDiskMB: 1024, VCPUsUsed: 3, NumInstances: 3}); err != nil {
			t.Fatalf("usage report while rebuilding: %v", err)
		}
		reported = append(reported, s.Version())
		if n == 2 { // the first instance committed in the window goes
			if _, err := s.DeleteInstance("while-b"); err != nil {
				t.Fatalf("deletion while rebuilding: %v", err)
			}
			deleted = placed[0]
			placed = placed[1:]
		}
	}
	check := func(what string, v uint64) {
		t.Helper()
		if len(during) == 0 || v <= during[len(during)-1] || v <= reported[len(reported)-1] {
			t.Fatalf("%s: version %d, not after the commit and report made while it built (%v, %v)", what, v, during, reported)
		}
		snap := s.Snapshot()
		if id, ok := snap.info.byHostNode(HostNode{"h0007", "h0007"}); !ok || snap.Usage(id).FreeRAMMB != 1024 {
			t.Fatalf("%s: the usage report made while it built is lost", what)
		}
		p := placed[len(placed)-1]
		id, ok := snap.info.byHostNode(hn(p))
		if !ok {
			return
		}
		if got := snap.Usage(id); got.FreeRAMMB != 8192-small.MemoryMB*int64(countOn(placed, p.Host)) {
			t.Fatalf("%s: %s's free RAM %d after %d instances of %d MB: the commit made while it built is lost",
				what, p.Host, got.FreeRAMMB, countOn(placed, p.Host), small.MemoryMB)
		}
	}
	v, err := s.AddHosts(Host{Host: "new", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100})
	if err != nil {
		t.Fatal(err)
	}
	check("AddHosts", v)
	v, err = s.SetAggregateMetadata("agg", map[string]string{"k": "v"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("SetAggregateMetadata", v)
	if deleted.Host == "" {
		t.Fatal("no deletion was made while rebuilding")
	}
	if id, ok := s.Snapshot().info.byHostNode(hn(deleted)); ok && countOn(placed, deleted.Host) == 0 &&
		s.Snapshot().Usage(id).FreeRAMMB != 8192 {
		t.Fatalf("SetAggregateMetadata: %s's free RAM %d after its only instance was deleted while it built, want 8192",
			deleted.Host, s.Snapshot().Usage(id).FreeRAMMB)
	}
	// The commit made while RemoveHosts builds lands on the host it
	// removes (the plan is made on the snapshot before it): that instance
	// is forgotten with the host.
	target := placed[len(placed)-1]
	s.whileRebuilding = func(s *Store) {
		snap := s.Snapshot()
		p := mustPlan(t, snap, Request{InstanceUUIDs: []string{"doomed"}, Flavor: small, ForceHosts: []string{target.Host}})
		if _, err := s.Commit(p); err != nil {
			t.Errorf("commit while rebuilding: %v", err)
		}
	}
	if _, err := s.RemoveHosts(hn(target)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteInstance("doomed"); err == nil {
		t.Fatal("the instance committed on a removed host while it was removed is still held")
	}
	if slices.ContainsFunc(s.Journal(), func(e JournalEntry) bool { return e.InstanceUUID == "doomed" }) == false {
		t.Fatal("the commit made while rebuilding is not in the journal")
	}
}

func countOn(ps []Placement, host string) int {
	n := 0
	for _, p := range ps {
		if p.Host == host {
			n++
		}
	}
	return n
}

// TestAddHostsValidates: a rebuild checks the fields of the hosts it adds
// (those of the store's own hosts it trusts, see validateCloud), and the
// checks across hosts cover the old ones too; the error names a host by
// its index among those added, and a refused addition changes nothing.
func TestAddHostsValidates(t *testing.T) {
	s := mustStore(t, tightCloud(3))
	v0 := s.Snapshot().Version()
	ok := Host{Host: "new", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}
	bad := ok
	bad.MemoryMB = -1
	ip := "not-an-ip"
	badIP := ok
	badIP.Host, badIP.HostIP = "new2", &ip
	dup := ok
	dup.Host = s.Snapshot().HostNode(1).Host
	for _, c := range []struct {
		hosts []Host
		field string
	}{
		{[]Host{bad}, "hosts[0].memory_mb"},
		{[]Host{ok, badIP}, "hosts[1].host_ip"},
		{[]Host{dup}, "hosts[0]"},
		{[]Host{ok, ok}, "hosts[1]"},
	} {
		_, err := s.AddHosts(c.hosts...)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Fatalf("AddHosts(%v): %v, want a ValidationError on %s", c.hosts, err, c.field)
		}
		if snap := s.Snapshot(); snap.Len() != 3 || snap.Version() != v0 {
			t.Fatalf("a refused AddHosts left %d hosts, version %d (was %d)", snap.Len(), snap.Version(), v0)
		}
	}
	if _, err := s.AddHosts(ok); err != nil {
		t.Fatal(err)
	}
}

// TestSetAggregateMetadataValidates: an aggregate change the cloud's
// checks would refuse is a *ValidationError naming the aggregate's field,
// and changes nothing; a cloud with a host added names it among those
// added (ValidateAddHosts), whatever the cloud's size.
func TestSetAggregateMetadataValidates(t *testing.T) {
	s := mustStore(t, tightCloud(3))
	v0 := s.Version()
	for _, c := range []struct {
		name  string
		set   map[string]string
		field string
	}{
		{"", nil, "aggregate.name"},
		{"a", map[string]string{"ram_weight_multiplier": "nan"}, "aggregate.metadata.ram_weight_multiplier"},
		{"a", map[string]string{"cpu_allocation_ratio": "inf"}, "aggregate.metadata.cpu_allocation_ratio"},
	} {
		_, err := s.SetAggregateMetadata(c.name, c.set, nil)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Errorf("SetAggregateMetadata(%q, %v): %v, want a ValidationError on %s", c.name, c.set, err, c.field)
		}
		if s.Version() != v0 {
			t.Fatalf("a refused aggregate change moved the version %d -> %d", v0, s.Version())
		}
	}
	// Only the ratios Nova reads are bounded: another *_allocation_ratio
	// key is an opaque string to Nova.
	if _, err := s.SetAggregateMetadata("gpu", map[string]string{"gpu_allocation_ratio": "inf"}, nil); err != nil {
		t.Errorf("gpu_allocation_ratio inf: %v", err)
	}
	// A list of changes counts by what it leaves, named by the last change
	// to the aggregate at fault.
	inf, two := map[string]string{"ram_weight_multiplier": "inf"}, map[string]string{"ram_weight_multiplier": "2"}
	c := tightCloud(2)
	if err := ValidateAggregateChanges(&c, []AggregateChange{{Name: "a", Set: inf}, {Name: "a", Set: two}}); err != nil {
		t.Errorf("inf then 2: %v", err)
	}
	err := ValidateAggregateChanges(&c, []AggregateChange{{Name: "a", Set: two}, {Name: "b", Set: two}, {Name: "a", Set: inf}})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "changes[2].metadata.ram_weight_multiplier" {
		t.Errorf("2 then inf: %v", err)
	}
	big := tightCloud(20) // past joiningFew: the checks across hosts use maps
	hosts := tightCloud(12).Hosts[2:]
	for i := range hosts {
		hosts[i].Host += "-new"
	}
	hosts[9].Host = big.Hosts[17].Host
	err = ValidateAddHosts(&big, hosts)
	if !errors.As(err, &ve) || ve.Field != "hosts[9]" || !strings.Contains(ve.Msg, "the cloud's hosts[17]") {
		t.Errorf("a duplicate of the cloud's host 17 as hosts[9]: %v", err)
	}
}

// TestRebuildsWhileCompacting checks the rebuilds on full shards while
// usage reports made as each one builds compact the delta (the shards it
// began from are retired and their columns recycled): an aggregate no
// host is in (every shard kept), a host added and one removed (the kept
// hosts start with the usage of the snapshot the rebuild leased, and the
// install carries over what changed since). Every report is in the
// published snapshot, and its block summaries match its columns. Then a
// Preview that keeps the shards, held while later compactions recycle
// columns, never changes. Nothing here calls Snapshot(), whose escapes
// would stop the recycling.
func TestRebuildsWhileCompacting(t *testing.T) {
	const n = 2 * bitmap.ShardSize // full shards: only those recycle
	c := tightCloud(n)
	// An aggregate across both shards, whose values the last rebuild
	// changes (every shard reclassed: reclassedShard).
	fast := Aggregate{Name: "fast", Metadata: map[string]string{"ram_weight_multiplier": "2"}}
	for i := 1; i < n; i += 3 {
		fast.Hosts = append(fast.Hosts, fmt.Sprintf("h%04d", i))
	}
	c.Aggregates = append(c.Aggregates, fast)
	s := mustStore(t, c)
	want := map[string]HostUsage{} // by host name: a removal renumbers
	removed := map[string]bool{}
	round := 0
	// report sets a usage on maxDelta+1 hosts (one compaction at least).
	report := func() {
		round++
		for k := range maxDelta + 1 {
			name := fmt.Sprintf("h%04d", (k*7+round*13)%n)
			if removed[name] {
				continue
			}
			u := HostUsage{FreeRAMMB: int64(1000 + round), FreeDiskMB: int64(2000 + k), VCPUsUsed: 1, NumInstances: int64(round % 5)}
			if _, err := s.UpdateHost(HostNode{name, name}, u); err != nil {
				t.Fatal(err)
			}
			want[name] = u
		}
	}
	check := func(what string) {
		t.Helper()
		s.View(func(snap *Snapshot) {
			for name, u := range want {
				id, ok := snap.info.byHostNode(HostNode{name, name})
				if !ok {
					t.Fatalf("%s: no host %s", what, name)
				}
				if got := snap.Usage(id); got != u {
					t.Fatalf("%s: %s's usage %+v, want %+v", what, name, got, u)
				}
			}
			if err := CheckSummaries(snap); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		})
	}
	report()
	// began is the snapshot each rebuild began from, which it leases
	// while it builds: the compactions the reports make meanwhile must not
	// recycle its columns (its usage must not change).
	var began, newest *Snapshot
	var beganUsage []HostUsage
	s.whileRebuilding = func(*Store) {
		report()
		report()
		// One report more, left in the delta: the install must carry it
		// over, on a kept shard too.
		u := HostUsage{FreeRAMMB: int64(500 + round), FreeDiskMB: 700, VCPUsUsed: 2, NumInstances: 1}
		if _, err := s.UpdateHost(HostNode{"h0100", "h0100"}, u); err != nil {
			t.Fatal(err)
		}
		want["h0100"] = u
		if newest = s.cur.Load().snap; newest.delta.len() == 0 {
			t.Fatal("no usage left in the delta for the install to carry over")
		}
		for id, u := range beganUsage {
			if got := began.Usage(uint32(id)); got != u {
				t.Errorf("the snapshot a rebuild began from changed while it built (host %d: %+v, was %+v): its columns were recycled", id, got, u)
				return
			}
		}
	}
	remove := func(name string) error {
		delete(want, name)
		removed[name] = true
		_, err := s.RemoveHosts(HostNode{name, name})
		return err
	}
	rebuilds := []struct {
		name string
		do   func() error
		// kept is how many leading shards the install takes from the
		// newest snapshot (Store.installLocked): all of them when no
		// shard column changes, else the full shards of kept hosts at
		// their own ids.
		kept int
	}{
		{"an aggregate no host is in", func() error {
			_, err := s.SetAggregateMetadata("maintenance", map[string]string{"note": "window"}, nil)
			return err
		}, 2},
		{"a host added", func() error {
			_, err := s.AddHosts(Host{Host: "late", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100})
			return err
		}, 2},
		{"a host of the first shard removed", func() error { return remove("h0005") }, 0},
		{"a host of the second shard removed", func() error { return remove("h5000") }, 1},
		{"an aggregate's multiplier and ratio changed", func() error {
			_, err := s.SetAggregateMetadata("fast", map[string]string{"ram_weight_multiplier": "3", "cpu_allocation_ratio": "2"}, nil)
			return err
		}, 0},
	}
	for i, rb := range rebuilds {
		reused := s.rec.reused
		began = s.cur.Load().snap
		beganUsage = make([]HostUsage, began.Len())
		for id := range beganUsage {
			beganUsage[id] = began.Usage(uint32(id))
		}
		beforeInfo := began.info
		if err := rb.do(); err != nil {
			t.Fatal(err)
		}
		if s.rec.reused == reused {
			t.Fatalf("%s: no column was recycled while it built: the test compacts too little", rb.name)
		}
		if kept := lineageOf(s.cur.Load().snap.info) == lineageOf(beforeInfo); kept != (i == 0) {
			t.Fatalf("%s: the lineage kept: %v", rb.name, kept)
		}
		got, kept := s.cur.Load().snap, 0
		for kept < min(len(got.shards), len(newest.shards)) && got.shards[kept] == newest.shards[kept] {
			kept++
		}
		if kept != rb.kept {
			t.Fatalf("%s: %d leading shards kept, want %d", rb.name, kept, rb.kept)
		}
		if err := DerivedMatchesBuilt(s); err != nil { // the kept shards' columns too
			t.Fatalf("%s: %v", rb.name, err)
		}
		check(rb.name)
	}
	s.whileRebuilding = nil

	preview, err := s.Preview([]AggregateChange{{Name: "maintenance", Set: map[string]string{"availability_zone": "p"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(preview.shards, s.cur.Load().snap.shards) {
		t.Fatal("the preview did not keep the shards")
	}
	if lineageOf(preview.info) == lineageOf(s.cur.Load().snap.info) {
		t.Fatal("the preview shares the store's lineage")
	}
	held := make([]HostUsage, preview.Len())
	for id := range held {
		held[id] = preview.Usage(uint32(id))
	}
	reused := s.rec.reused
	for range 4 {
		report()
	}
	if s.rec.reused == reused {
		t.Fatal("no column was recycled after the preview")
	}
	for id, u := range held {
		if got := preview.Usage(uint32(id)); got != u {
			t.Fatalf("the preview's host %d changed from %+v to %+v: its columns were recycled", id, u, got)
		}
	}
	check("after the preview")
}

// TestKeptShardsStayUntouched removes hosts past the first shards while
// an aggregate's multiplier is the most common on the hosts left but not
// before: the leading shards keep their ids, but their multOver lists the
// hosts off the replaced snapshot's base multiplier, so the rebuild must
// build them again, and never write to the published ones (a snapshot
// handed out before reads them). Then a removal that keeps the bases
// keeps the leading shards.
func TestKeptShardsStayUntouched(t *testing.T) {
	const n = 3 * bitmap.ShardSize
	c := tightCloud(n)
	heavy := Aggregate{Name: "heavy", Metadata: map[string]string{"ram_weight_multiplier": "2"}}
	for i := bitmap.ShardSize - 1; i < 2*bitmap.ShardSize; i++ {
		heavy.Hosts = append(heavy.Hosts, fmt.Sprintf("h%04d", i))
	}
	c.Aggregates = []Aggregate{heavy}
	s := mustStore(t, c)
	pre := s.Snapshot()
	overs := func(snap *Snapshot) [][numWeighers][]uint16 {
		var out [][numWeighers][]uint16
		for _, sh := range snap.shards {
			var o [numWeighers][]uint16
			for w := range o {
				o[w] = slices.Clone(sh.multOver[w])
			}
			out = append(out, o)
		}
		return out
	}
	preOvers, preMults := overs(pre), pre.mults
	if preMults.base[wRAM] != 1 {
		t.Fatalf("RAM's base multiplier %v before, want 1", preMults.base[wRAM])
	}
	var gone []HostNode
	for i := 2 * bitmap.ShardSize; i < n; i++ {
		name := fmt.Sprintf("h%04d", i)
		gone = append(gone, HostNode{name, name})
	}
	if _, err := s.RemoveHosts(gone...); err != nil {
		t.Fatal(err)
	}
	post := s.cur.Load().snap
	if post.mults.base[wRAM] != 2 {
		t.Fatalf("RAM's base multiplier %v after, want 2", post.mults.base[wRAM])
	}
	if !reflect.DeepEqual(overs(pre), preOvers) || pre.mults != preMults {
		t.Fatal("the rebuild changed the multipliers of a published snapshot's shards")
	}
	for k := range post.shards {
		if post.shards[k] == pre.shards[k] {
			t.Fatalf("shard %d kept across a change of the base multipliers", k)
		}
	}
	if err := DerivedMatchesBuilt(s); err != nil {
		t.Fatal(err)
	}
	// A host of the second shard removed, the bases unchanged (4,096
	// hosts at 2 left, 4,095 at 1): the first shard is kept.
	before := s.cur.Load().snap
	if _, err := s.RemoveHosts(HostNode{"h5000", "h5000"}); err != nil {
		t.Fatal(err)
	}
	after := s.cur.Load().snap
	if after.mults.base[wRAM] != 2 {
		t.Fatalf("RAM's base multiplier %v, want 2", after.mults.base[wRAM])
	}
	if after.shards[0] != before.shards[0] || after.shards[1] == before.shards[1] {
		t.Fatal("a removal in the second shard did not keep the first one alone")
	}
	if err := DerivedMatchesBuilt(s); err != nil {
		t.Fatal(err)
	}
}
