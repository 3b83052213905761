package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/placer/placer/bitmap"
)

// tightCloud is n hosts of 8 GB, 4 vCPUs and 100 GB with no overcommit:
// a few instances fill a host, so conflicts are frequent.
func tightCloud(n int) Cloud {
	cfg := DefaultConfig()
	cfg.RAMAllocationRatio, cfg.CPUAllocationRatio, cfg.DiskAllocationRatio = 1, 1, 1
	cfg.Filters = append(cfg.Filters, NumInstancesFilter)
	cfg.MaxInstancesPerHost = 6
	c := Cloud{Config: cfg}
	for i := range n {
		c.Hosts = append(c.Hosts, Host{
			Host: fmt.Sprintf("h%04d", i), MemoryMB: 8192, FreeRAMMB: 8192,
			VCPUs: 4, LocalGB: 100, FreeDiskGB: 100,
		})
	}
	return c
}

var small = Flavor{Name: "small", MemoryMB: 2048, VCPUs: 1, RootGB: 10}

func req(uuids ...string) Request {
	return Request{InstanceUUIDs: uuids, Flavor: small}
}

func mustStore(t testing.TB, c Cloud) *Store {
	t.Helper()
	s, err := NewStore(c, StoreOptions{Journal: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPlan(t testing.TB, snap *Snapshot, r Request) Plan {
	t.Helper()
	p, err := PlaceBatch(context.Background(), snap, r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fill reports host full (no RAM left) from inside a commit.
func fill(t testing.TB, s *Store, hn HostNode) {
	t.Helper()
	if _, err := s.updateHostLocked(hn, HostUsage{FreeRAMMB: 0, FreeDiskMB: 0, VCPUsUsed: 4, NumInstances: 4}); err != nil {
		t.Fatal(err)
	}
}

func hn(p Placement) HostNode { return HostNode{p.Host, p.Node} }

// loseCommits makes n of s's commits lose for certain: every every-th
// commit, the host its plan chose fills up (a tightCloud host: 4 vCPUs,
// 4 instances) just before the plan is verified, under the store's lock.
// A host removed meanwhile loses the plan anyway, and another commit
// fills one. It returns how many commits it made lose so far.
func loseCommits(s *Store, every, n int) (lost func() int) {
	commits, filled := 0, 0
	s.beforeCommit = func(s *Store, p *Plan) {
		if commits++; filled < n && commits%every == 0 && len(p.Placements) > 0 {
			full := HostUsage{VCPUsUsed: 4, NumInstances: 4}
			if _, err := s.updateHostLocked(hn(p.Placements[0]), full); err == nil {
				filled++
			}
		}
	}
	return func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return filled
	}
}

func TestCommitHarness(t *testing.T) {
	t.Run("accept", func(t *testing.T) {
		s := mustStore(t, tightCloud(3*bitmap.ShardSize))
		old := s.Snapshot()
		plan := mustPlan(t, old, req("a"))
		res, err := s.Commit(plan)
		if err != nil || len(res.Accepted) != 1 || res.Rechecked != 0 {
			t.Fatalf("commit: %+v %v", res, err)
		}
		now := s.Snapshot()
		id := plan.Placements[0].HostID
		if got := now.Usage(id).FreeRAMMB; got != 8192-2048 {
			t.Errorf("free RAM after commit %d", got)
		}
		if got := old.Usage(id).FreeRAMMB; got != 8192 {
			t.Errorf("the old snapshot changed: free RAM %d", got)
		}
		if now.Version() <= old.Version() || s.Generation(id) != now.Version() {
			t.Errorf("versions: old %d new %d gen %d", old.Version(), now.Version(), s.Generation(id))
		}
		for i := range now.shards {
			if now.shards[i] != old.shards[i] {
				t.Errorf("shard %d copied: a commit goes to the usage delta", i)
			}
		}
		if _, ok := now.delta.lookup(id); !ok || now.delta.len() != 1 {
			t.Errorf("delta after one commit: %+v", now.delta)
		}
		if now.info != old.info {
			t.Error("host info copied on a usage commit")
		}
	})
	t.Run("compaction", func(t *testing.T) {
		// Past maxDelta hosts, a commit folds the delta into copies of
		// the shards it covers; every snapshot keeps its own state.
		s := mustStore(t, tightCloud(3*bitmap.ShardSize))
		first := s.Snapshot()
		var snaps []*Snapshot
		var ids []uint32
		for i := 0; i <= maxDelta; i++ {
			plan := mustPlan(t, s.Snapshot(), req(fmt.Sprintf("c%d", i)))
			if _, err := s.Commit(plan); err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, s.Snapshot())
			ids = append(ids, plan.Placements[0].HostID)
		}
		last := s.Snapshot()
		if last.delta != nil {
			t.Fatalf("no compaction after %d hosts: delta of %d", maxDelta+1, last.delta.len())
		}
		copied := 0
		for k := range last.shards {
			if last.shards[k] != first.shards[k] {
				copied++
			}
		}
		if copied == 0 {
			t.Error("compaction copied no shard")
		}
		for i, snap := range snaps {
			for _, id := range ids {
				want := int64(8192)
				used := 0
				for _, x := range ids[:i+1] {
					if x == id {
						used++
					}
				}
				want -= int64(used) * 2048
				if got := snap.Usage(id).FreeRAMMB; got != want {
					t.Fatalf("snapshot %d, host %d: free RAM %d, want %d", i, id, got, want)
				}
			}
		}
		if got := first.Usage(ids[0]).FreeRAMMB; got != 8192 {
			t.Errorf("the first snapshot changed: free RAM %d", got)
		}
		for k, sh := range last.shards {
			for w := range numWeighers {
				for j := 0; colWeigher(w) && j < sh.hostCount(); j++ {
					u := sh.usageAt(j)
					if col, want := sh.rawCol(w), sh.rawRes(w, j, &u); col.At(j) != want {
						t.Fatalf("shard %d host %d: raw column of weigher %d is %v, columns say %v", k, j, w, col.At(j), want)
					}
				}
			}
		}
	})
	t.Run("recheck and accept", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		plan := mustPlan(t, s.Snapshot(), req("a"))
		s.beforeCommit = func(s *Store, p *Plan) {
			// Another instance landed there meanwhile: still room.
			s.updateHostLocked(hn(p.Placements[0]), HostUsage{FreeRAMMB: 4096, FreeDiskMB: 90 * 1024, VCPUsUsed: 2, NumInstances: 2})
		}
		res, err := s.Commit(plan)
		if err != nil || res.Rechecked != 1 || len(res.Accepted) != 1 {
			t.Fatalf("commit: %+v %v", res, err)
		}
		if got := s.Snapshot().Usage(plan.Placements[0].HostID); got.FreeRAMMB != 2048 || got.NumInstances != 3 {
			t.Errorf("usage %+v", got)
		}
	})
	t.Run("reject", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		plan := mustPlan(t, s.Snapshot(), req("a", "b"))
		s.beforeCommit = func(s *Store, p *Plan) { fill(t, s, hn(p.Placements[1])) }
		before := s.Snapshot().Usage(plan.Placements[0].HostID)
		_, err := s.Commit(plan)
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || len(ce.Rejected) != 1 || ce.Rejected[0] != 1 || ce.Reasons[0] != RamFilter {
			t.Fatalf("want a conflict on placement 1 (RamFilter), got %v", err)
		}
		if after := s.Snapshot().Usage(plan.Placements[0].HostID); after != before || s.Instances() != 0 {
			t.Errorf("something was committed: %+v -> %+v, %d instances", before, after, s.Instances())
		}
	})
	t.Run("partial", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		plan := mustPlan(t, s.Snapshot(), req("a", "b"))
		if hn(plan.Placements[0]) == hn(plan.Placements[1]) {
			t.Fatal("want two hosts")
		}
		s.beforeCommit = func(s *Store, p *Plan) { fill(t, s, hn(p.Placements[0])) }
		res, err := s.Commit(plan, Partial())
		if err != nil || len(res.Accepted) != 1 || res.Accepted[0] != 1 || len(res.Rejected) != 1 || res.Rejected[0] != 0 {
			t.Fatalf("partial commit: %+v %v", res, err)
		}
		if s.Instances() != 1 {
			t.Errorf("%d instances committed, want 1", s.Instances())
		}
	})
	t.Run("anti-affinity", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		g := &InstanceGroup{UUID: "g", Policy: PolicyAntiAffinity}
		r1, r2 := req("a"), req("b")
		r1.InstanceGroup, r2.InstanceGroup = g, g
		snap := s.Snapshot()
		p1, p2 := mustPlan(t, snap, r1), mustPlan(t, snap, r2)
		if hn(p1.Placements[0]) != hn(p2.Placements[0]) {
			t.Fatal("want both plans on one host")
		}
		if _, err := s.Commit(p1); err != nil {
			t.Fatal(err)
		}
		_, err := s.Commit(p2)
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Reasons[0] != ServerGroupAntiAffinityFilter {
			t.Fatalf("want an anti-affinity conflict, got %v", err)
		}
	})
	t.Run("duplicate uuid", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		snap := s.Snapshot()
		p1, p2 := mustPlan(t, snap, req("a")), mustPlan(t, snap, req("a"))
		if _, err := s.Commit(p1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(p2); !errors.Is(err, ErrInvalid) {
			t.Fatalf("want a validation error, got %v", err)
		}
	})
}

func TestSchedulerHarness(t *testing.T) {
	ctx := context.Background()
	t.Run("reject and retry", func(t *testing.T) {
		s := mustStore(t, tightCloud(4))
		commits := 0
		s.beforeCommit = func(s *Store, p *Plan) {
			if commits++; commits == 1 {
				fill(t, s, hn(p.Placements[0]))
			}
		}
		sc := NewScheduler(s, SchedulerOptions{Workers: 1})
		defer sc.Close()
		plan, err := sc.Place(ctx, req("a"))
		if err != nil {
			t.Fatal(err)
		}
		st := sc.Stats()
		if st.ConflictRetries != 1 || st.ConflictFailures != 0 || st.Placed != 1 || commits != 2 {
			t.Errorf("stats %+v after %d commits", st, commits)
		}
		if plan.BaseVersion == 0 || s.Instances() != 1 {
			t.Errorf("plan %+v, %d instances", plan, s.Instances())
		}
	})
	t.Run("budget exhausted", func(t *testing.T) {
		s := mustStore(t, tightCloud(8))
		commits := 0
		s.beforeCommit = func(s *Store, p *Plan) { commits++; fill(t, s, hn(p.Placements[0])) }
		sc := NewScheduler(s, SchedulerOptions{Workers: 2, RetryBudget: 3})
		defer sc.Close()
		_, err := sc.Place(ctx, req("a"))
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("want ErrConflict, got %v", err)
		}
		st := sc.Stats()
		if st.ConflictRetries != 3 || st.ConflictFailures != 1 || commits != 4 || s.Instances() != 0 {
			t.Errorf("stats %+v, %d commits, %d instances", st, commits, s.Instances())
		}
	})
	t.Run("no valid host", func(t *testing.T) {
		s := mustStore(t, tightCloud(2))
		sc := NewScheduler(s, SchedulerOptions{})
		defer sc.Close()
		r := req()
		r.NumInstances = 20
		if _, err := sc.Place(ctx, r); !errors.Is(err, ErrNoValidHost) {
			t.Fatalf("want NoValidHost, got %v", err)
		}
	})
	t.Run("closed and canceled", func(t *testing.T) {
		s := mustStore(t, tightCloud(2))
		sc := NewScheduler(s, SchedulerOptions{})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := sc.Place(cctx, req("a")); !errors.Is(err, context.Canceled) {
			t.Errorf("canceled: %v", err)
		}
		sc.Close()
		if _, err := sc.Place(ctx, req("b")); !errors.Is(err, ErrClosed) {
			t.Errorf("closed: %v", err)
		}
		if s.Instances() != 0 {
			t.Error("committed after cancel")
		}
	})
}

// TestCommitRefusesWhatNoPlanHolds checks that a plan PlaceBatch could not
// have made on the store is a *ValidationError naming the field, and
// leaves the store as it was: a host unchanged since BaseVersion is taken
// to fit, so a later BaseVersion or a negative claim would overcommit it.
func TestCommitRefusesWhatNoPlanHolds(t *testing.T) {
	s := mustStore(t, tightCloud(4))
	good := mustPlan(t, s.Snapshot(), req("a", "b"))
	if _, err := s.Commit(good); err != nil {
		t.Fatal(err)
	}
	v, usage := s.Version(), s.Snapshot().Usage(good.Placements[0].HostID)
	for _, c := range []struct {
		field string
		edit  func(p *Plan)
	}{
		{"plan.base_version", func(p *Plan) { p.BaseVersion = v + 1 }},
		{"plan.claim.memory_mb", func(p *Plan) { p.Claim.MemoryMB = -1 << 40 }},
		{"plan.claim.vcpus", func(p *Plan) { p.Claim.VCPUs = -100 }},
		{"plan.claim.disk_mb", func(p *Plan) { p.Claim.DiskMB = -1 }},
		{"plan.claim.disk_request_mb", func(p *Plan) { p.Claim.DiskRequestMB = -1 }},
		// Past a request's bounds: a forced literal would wrap the usage.
		{"plan.claim.memory_mb", func(p *Plan) { p.Claim.MemoryMB, p.Forced = 1<<62, true }},
		{"plan.claim.vcpus", func(p *Plan) { p.Claim.VCPUs = MaxMB + 1 }},
		{"plan.claim.disk_request_mb", func(p *Plan) { p.Claim.DiskRequestMB = 1 << 62 }},
		{"plan.group.max_server_per_host", func(p *Plan) {
			p.Group = &GroupClaim{UUID: "g", Policy: PolicyAntiAffinity, MaxServerPerHost: 0}
		}},
		{"plan.placements[1].instance_uuid", func(p *Plan) { p.Placements[1].InstanceUUID = "" }},
		{"plan.placements[0].instance_uuid", func(p *Plan) { p.Placements[0].InstanceUUID = "a" }},
		{"plan.placements[1].instance_uuid", func(p *Plan) { p.Placements[1].InstanceUUID = p.Placements[0].InstanceUUID }},
	} {
		p := mustPlan(t, s.Snapshot(), req("c", "d"))
		p.Placements = append([]Placement(nil), p.Placements...)
		c.edit(&p)
		_, err := s.Commit(p)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Errorf("%s: err %v", c.field, err)
		}
		if s.Version() != v || s.Snapshot().Usage(good.Placements[0].HostID) != usage {
			t.Fatalf("%s: a refused plan changed the store", c.field)
		}
	}
	if p := mustPlan(t, s.Snapshot(), req("c", "d")); func() error { _, err := s.Commit(p); return err }() != nil {
		t.Fatal("the same plan, unedited, is refused")
	}
	if msg := (&ConflictError{Version: 3}).Error(); msg != "placement conflict at version 3" {
		t.Errorf("an empty ConflictError reads %q", msg)
	}
}

// TestLedgerListsOfLargeCommits: a commit of many instances merges them
// into each host's list at once (ledgerPutAllLocked); the lists equal a
// grouping of the ledger after commits of every size, over lists a
// rebuild holds, and after deletions.
func TestLedgerListsOfLargeCommits(t *testing.T) {
	c := tightCloud(3)
	c.Config.RAMAllocationRatio, c.Config.CPUAllocationRatio, c.Config.DiskAllocationRatio = 1e3, 1e3, 1e3
	c.Config.Filters = DefaultFilters
	s := mustStore(t, c)
	next := 0
	commit := func(n int) {
		t.Helper()
		uuids := make([]string, n)
		for i := range uuids {
			// Descending and interleaved with the earlier ones: merges, not appends.
			uuids[i] = fmt.Sprintf("u%05d", (n-i)*7919%100000+next)
		}
		next++
		p := mustPlan(t, s.Snapshot(), Request{InstanceUUIDs: uuids, Flavor: Flavor{MemoryMB: 1}})
		if _, err := s.Commit(p); err != nil {
			t.Fatal(err)
		}
		if err := CommittedMatchesLedger(s); err != nil {
			t.Fatalf("after a commit of %d: %v", n, err)
		}
	}
	commit(5)
	commit(40)
	s.mu.Lock()
	held := s.committedLocked() // a rebuild's copy: its lists must not change
	s.mu.Unlock()
	before := fmt.Sprint(held)
	commit(200)
	commit(9)
	if fmt.Sprint(held) != before {
		t.Fatal("a commit changed the lists a rebuild holds")
	}
	for u := range s.ledger {
		if _, err := s.DeleteInstance(u); err != nil {
			t.Fatal(err)
		}
		break
	}
	commit(30)
	if err := CommittedMatchesLedger(s); err != nil {
		t.Fatal(err)
	}
	if s.Instances() != 5+40+200+9+30-1 {
		t.Fatalf("%d instances", s.Instances())
	}
}

// TestCommitRefusesGroupWithoutUUID: a plan whose server group has no
// uuid is refused, nothing committed: "" is the ledger's "no group", and
// its members were counted with every groupless instance on their hosts
// (the release of a groupless one lowered the group's count).
func TestCommitRefusesGroupWithoutUUID(t *testing.T) {
	s := mustStore(t, tightCloud(3))
	r := Request{InstanceUUIDs: []string{"b"}, Flavor: Flavor{MemoryMB: 1}, InstanceGroup: &InstanceGroup{Policy: PolicyAntiAffinity}}
	_, err := s.Commit(mustPlan(t, s.Snapshot(), r))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "plan.group.uuid" || s.Instances() != 0 {
		t.Fatalf("a group without a uuid: %v, %d instances committed", err, s.Instances())
	}
	r.InstanceGroup.UUID = "g"
	if _, err := s.Commit(mustPlan(t, s.Snapshot(), r)); err != nil {
		t.Fatal(err)
	}
}

// A plan made on another store's snapshot of the same cloud (or on a bare
// NewSnapshot) is refused:
// versions are process-wide, so with this store's version past the
// plan's, and the plan's host unchanged here since before it, Commit
// would take the host as the plan saw it and accept it unchecked, on a
// host this store has filled.
func TestCommitRefusesAnotherStoresPlan(t *testing.T) {
	a, b := mustStore(t, tightCloud(2)), mustStore(t, tightCloud(2))
	if _, err := b.Commit(mustPlan(t, b.Snapshot(), req("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"))); err != nil {
		t.Fatal(err) // b's two hosts are full: 4 vCPUs, 4 instances of 1 each
	}
	if _, err := a.Commit(mustPlan(t, a.Snapshot(), req("a0"))); err != nil {
		t.Fatal(err) // a's version is now past b's last change
	}
	plan := mustPlan(t, a.Snapshot(), req("x"))
	other := 1 - plan.Placements[0].HostID
	snap := b.Snapshot()
	if _, err := b.UpdateHost(snap.HostNode(other), snap.Usage(other)); err != nil {
		t.Fatal(err) // b's version is now past the plan's, its host unchanged
	}
	_, err := b.Commit(plan)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "plan" || b.Instances() != 8 {
		t.Fatalf("a plan of another store's snapshot: %v, %d instances on b", err, b.Instances())
	}
	if _, err := a.Commit(plan); err != nil {
		t.Fatalf("the plan on its own store: %v", err)
	}
	// A bare snapshot of the cloud is no store's either.
	bare, err := NewSnapshot(tightCloud(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(mustPlan(t, bare, req("y"))); !errors.As(err, &ve) || ve.Field != "plan" || b.Instances() != 8 {
		t.Fatalf("a plan of a bare snapshot: %v, %d instances on b", err, b.Instances())
	}
}

// TestStoreNotFound: a change naming a node or an instance the store does
// not hold matches ErrNotFound (a service's 404), whatever field it names,
// and changes nothing; the store's other refusals do not.
func TestStoreNotFound(t *testing.T) {
	s := mustStore(t, tightCloud(2))
	if _, err := s.Commit(mustPlan(t, s.Snapshot(), req("a"))); err != nil {
		t.Fatal(err)
	}
	v := s.Snapshot().Version()
	ghost := HostNode{Host: "ghost", Node: "ghost"}
	for name, change := range map[string]func() error{
		"RemoveHosts": func() error {
			_, err := s.RemoveHosts(HostNode{Host: "h0000", Node: "h0000"}, ghost)
			return err
		},
		"UpdateHost":     func() error { _, err := s.UpdateHost(ghost, HostUsage{}); return err },
		"DeleteInstance": func() error { _, err := s.DeleteInstance("b"); return err },
	} {
		err := change()
		if !errors.Is(err, ErrNotFound) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s of what the store lacks: %v, want ErrNotFound and ErrInvalid", name, err)
		}
	}
	if s.Snapshot().Version() != v || s.Snapshot().Len() != 2 || s.Instances() != 1 {
		t.Fatalf("refused changes changed the store: version %d (was %d), %d hosts, %d instances",
			s.Snapshot().Version(), v, s.Snapshot().Len(), s.Instances())
	}
	bad := HostUsage{FreeRAMMB: 1, VCPUsUsed: -1}
	if _, err := s.UpdateHost(HostNode{Host: "h0000", Node: "h0000"}, bad); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotFound) {
		t.Fatalf("a bad report of a known node: %v, want ErrInvalid alone", err)
	}
}
