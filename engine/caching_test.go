package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCachingWorkersDoNotSeeEachOther: two caching Schedulers (one worker
// each) on one Store, taking turns. Each sees its own commits at once
// (without a conflict) but not the other's: a plan on a host the other filled conflicts, and the
// retry, on a fresh view, goes elsewhere (or finds no host). Without
// caching the same turns place the same instances on the same hosts
// without a conflict. Nothing is ever overcommitted.
func TestCachingWorkersDoNotSeeEachOther(t *testing.T) {
	type turn struct {
		sched   int
		uuid    string
		host    string // "" : NoValidHost
		retries int64  // the scheduler's conflict retries after it, cached
	}
	turns := []turn{
		{0, "a", "h0000", 0},
		{0, "a2", "h0001", 0}, // it sees its own commit
		{1, "b", "h0002", 0},  // its first view is taken now: it sees a and a2
		{0, "c", "h0003", 1},  // its view has h0002 free: conflict, refresh
		{1, "d", "", 1},       // h0003 looks free; fresh, nothing is
	}
	for _, interval := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint(interval), func(t *testing.T) {
			c := tightCloud(4)
			s := mustStore(t, c)
			var scheds [2]*Scheduler
			for i := range scheds {
				scheds[i] = NewScheduler(s, SchedulerOptions{Workers: 1, CacheInterval: interval})
			}
			for _, tn := range turns {
				sc := scheds[tn.sched]
				plan, err := sc.Place(context.Background(), Request{InstanceUUIDs: []string{tn.uuid}, Flavor: whole})
				switch {
				case tn.host == "" && !errors.Is(err, ErrNoValidHost):
					t.Fatalf("%s: got %v, want NoValidHost", tn.uuid, err)
				case tn.host != "" && err != nil:
					t.Fatalf("%s: %v", tn.uuid, err)
				case tn.host != "" && plan.Placements[0].Host != tn.host:
					t.Errorf("%s: placed on %s, want %s", tn.uuid, plan.Placements[0].Host, tn.host)
				}
				want := tn.retries
				if interval == 0 {
					want = 0
				}
				if st := sc.Stats(); st.ConflictRetries != want {
					t.Errorf("after %s: scheduler %d retried %d times, want %d", tn.uuid, tn.sched, st.ConflictRetries, want)
				}
			}
			refreshes := scheds[0].Stats().CacheRefreshes + scheds[1].Stats().CacheRefreshes
			if want := map[time.Duration]int64{0: 0, time.Hour: 4}[interval]; refreshes != want {
				t.Errorf("%d refreshes, want %d", refreshes, want)
			}
			for _, sc := range scheds {
				if err := sc.Close(); err != nil {
					t.Fatal(err)
				}
			}
			checkJournal(t, c, s)
		})
	}
}

// TestCachingStaleUntilRefresh: a caching worker does not see a usage
// report made after its refresh (it keeps choosing the host that had the
// most free RAM), until its view is CacheInterval old.
func TestCachingStaleUntilRefresh(t *testing.T) {
	const interval = time.Minute
	for _, cached := range []bool{false, true} {
		c := tightCloud(2)
		c.Config.Weighers = []string{RAMWeigher}
		c.Hosts[0].FreeRAMMB = 4000 // h0001 has the most free RAM
		s := mustStore(t, c)
		var clock atomic.Int64 // minutes since the start
		start := time.Now()
		now := func() time.Time { return start.Add(time.Duration(clock.Load()) * time.Minute) }
		opts := SchedulerOptions{Workers: 1, clock: now}
		if cached {
			opts.CacheInterval = interval
		}
		sc := NewScheduler(s, opts)
		place := func(uuid string) string {
			t.Helper()
			plan, err := sc.Place(context.Background(), req(uuid))
			if err != nil {
				t.Fatal(err)
			}
			return plan.Placements[0].Host
		}
		if got := place("a"); got != "h0001" {
			t.Fatalf("a on %s, want h0001", got)
		}
		// h0000 now reports its RAM all free: it has the most.
		if _, err := s.UpdateHost(HostNode{"h0000", "h0000"}, HostUsage{FreeRAMMB: 8192, FreeDiskMB: 100 * 1024}); err != nil {
			t.Fatal(err)
		}
		want := "h0000"
		if cached {
			want = "h0001" // the cached view has h0000 at 4000 MB and h0001 at 6144
		}
		if got := place("b"); got != want {
			t.Errorf("cached %v: b on %s, want %s", cached, got, want)
		}
		clock.Add(1) // the view is now CacheInterval old
		if got := place("c"); got != "h0000" {
			t.Errorf("cached %v: after the interval, c on %s, want h0000", cached, got)
		}
		if err := sc.Close(); err != nil {
			t.Fatal(err)
		}
		if st := sc.Stats(); cached && st.CacheRefreshes < 2 || !cached && st.CacheRefreshes != 0 {
			t.Errorf("cached %v: %d refreshes", cached, st.CacheRefreshes)
		}
		checkJournal(t, c, s)
	}
}

// TestCachingStress: caching workers of several Schedulers place on one
// Store while usage reports and deletions come in: plans conflict and are
// retried, and nothing is ever overcommitted.
func TestCachingStress(t *testing.T) {
	c := tightCloud(24)
	s := mustStore(t, c)
	// Whether a stale view ever picks a host that is full by now depends
	// on how the runtime interleaves the six workers (on a loaded 2-CPU
	// machine, sometimes never), so three commits are made to lose for
	// certain: the host the plan chose on its (stale) view fills up just
	// before the commit is verified (under the store's lock).
	lost := loseCommits(s, 7, 3)
	var scheds []*Scheduler
	for range 3 {
		scheds = append(scheds, NewScheduler(s, SchedulerOptions{Workers: 2, CacheInterval: 20 * time.Millisecond}))
	}
	var mu sync.Mutex
	var committed []string
	stop := make(chan struct{})
	var upd sync.WaitGroup
	upd.Add(1)
	go func() {
		defer upd.Done()
		r := rand.New(rand.NewPCG(3, 4))
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			if k%2 == 0 {
				mu.Lock()
				var u string
				if len(committed) > 0 {
					i := r.IntN(len(committed))
					u = committed[i]
					committed[i] = committed[len(committed)-1]
					committed = committed[:len(committed)-1]
				}
				mu.Unlock()
				if u != "" {
					if _, err := s.DeleteInstance(u); err != nil {
						t.Error(err)
					}
				}
			} else {
				snap := s.Snapshot()
				id := uint32(r.IntN(snap.Len()))
				u := snap.Usage(id)
				u.NumIOOps = 0
				if _, err := s.UpdateHost(snap.HostNode(id), u); err != nil {
					t.Error(err)
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := scheds[w%len(scheds)]
			for i := range 30 {
				n := 1 + (w+i)%3
				r := Request{NumInstances: n, Flavor: small}
				for k := range n {
					r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("w%d-r%d-%d", w, i, k))
				}
				if (w+i)%5 == 0 {
					r.InstanceGroup = &InstanceGroup{UUID: fmt.Sprintf("g%d", (w+i)%4), Policy: PolicyAntiAffinity, MaxServerPerHost: 2}
				}
				plan, err := sc.Place(context.Background(), r)
				switch {
				case err == nil:
					mu.Lock()
					for _, p := range plan.Placements {
						committed = append(committed, p.InstanceUUID)
					}
					mu.Unlock()
				case errors.Is(err, ErrNoValidHost), errors.Is(err, ErrConflict):
				default:
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	upd.Wait()
	var retries, refreshes int64
	for _, sc := range scheds {
		if err := sc.Close(); err != nil {
			t.Fatal(err)
		}
		retries += sc.Stats().ConflictRetries
		refreshes += sc.Stats().CacheRefreshes
	}
	t.Logf("%d conflict retries, %d refreshes", retries, refreshes)
	forced := int64(lost())
	if forced == 0 || retries < forced || refreshes < int64(len(scheds))+forced {
		t.Errorf("%d conflict retries, %d refreshes, %d forced: a lost commit did not make its view refresh", retries, refreshes, forced)
	}
	checkJournal(t, c, s)
}

// TestCachingLongView: a worker whose view outlives many of its own
// commits (past maxDelta hosts, where the view folds its usage into
// private shard copies) still sees every one of them: each instance of
// the whole flavor lands on a host of its own without a conflict.
func TestCachingLongView(t *testing.T) {
	const n = maxDelta + 150
	c := tightCloud(n + 10)
	s := mustStore(t, c)
	sc := NewScheduler(s, SchedulerOptions{Workers: 1, CacheInterval: time.Hour})
	seen := map[string]bool{}
	for i := range n {
		plan, err := sc.Place(context.Background(), Request{InstanceUUIDs: []string{fmt.Sprint("i", i)}, Flavor: whole})
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		h := plan.Placements[0].Host
		if seen[h] {
			t.Fatalf("instance %d on %s again", i, h)
		}
		seen[h] = true
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if st := sc.Stats(); st.ConflictRetries != 0 || st.CacheRefreshes != 1 {
		t.Errorf("%d conflict retries, %d refreshes: want 0 and 1", st.ConflictRetries, st.CacheRefreshes)
	}
	checkJournal(t, c, s)
}

// TestCachingRefreshDropsWarmBatch: a caching worker's kept batch is not
// carried over a refresh. h0003's usage report comes in after the worker's
// view was taken; a1 and a2 are placed on the view (their batches rebased
// from one view to the next), so the batch kept after a2 is on a view
// whose version is newer than the report: the Store's change log, read
// from that version at the refresh, would not name h0003, and the batch
// would keep h0003's RamFilter verdict of before the report. The plan
// after the refresh must be the one PlaceBatch makes on the refreshed
// snapshot (h0003, now the freest).
func TestCachingRefreshDropsWarmBatch(t *testing.T) {
	const interval = time.Minute
	var clock atomic.Int64 // minutes since the start
	start := time.Now()
	now := func() time.Time { return start.Add(time.Duration(clock.Load()) * time.Minute) }
	c := tightCloud(4)
	c.Config.Weighers = []string{RAMWeigher}
	c.Hosts[3].FreeRAMMB = 1024 // fails RamFilter for small
	s := mustStore(t, c)
	sc := NewScheduler(s, SchedulerOptions{Workers: 1, CacheInterval: interval, clock: now})
	defer sc.Close()
	place := func(uuid string) string {
		t.Helper()
		plan, err := sc.Place(context.Background(), req(uuid))
		if err != nil {
			t.Fatal(err)
		}
		return plan.Placements[0].Host
	}
	place("a0") // the view is taken now
	if _, err := s.UpdateHost(HostNode{"h0003", "h0003"}, HostUsage{FreeRAMMB: 8192, FreeDiskMB: 100 * 1024}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"a1", "a2"} {
		if got := place(u); got == "h0003" {
			t.Fatalf("%s on h0003: the view saw the report", u)
		}
	}
	clock.Add(1) // the view is now CacheInterval old
	want := mustPlan(t, s.Snapshot(), req("a3")).Placements[0].Host
	if got := place("a3"); got != want || got != "h0003" {
		t.Errorf("a3 after the refresh on %s, want %s (PlaceBatch's) and h0003", got, want)
	}
	if st := sc.Stats(); st.WarmStarts < 2 || st.ConflictRetries != 0 || st.CacheRefreshes != 2 {
		t.Errorf("stats %+v: want warm starts (a1, a2), no conflict, 2 refreshes", st)
	}
}

// TestCachingRechecksSinceRefresh: a commit from a view is re-checked on
// every host changed since the view's refresh, not only since the view's
// last own commit. h0002 fills up after the refresh; the worker then
// commits a2 (its view moves on, newer than h0002's report) and places
// a3 on h0002, which its view still has free: the commit conflicts, and
// the retry, on a refreshed view, goes to h0003.
func TestCachingRechecksSinceRefresh(t *testing.T) {
	c := tightCloud(4)
	s := mustStore(t, c)
	sc := NewScheduler(s, SchedulerOptions{Workers: 1, CacheInterval: time.Hour})
	place := func(uuid string) string {
		t.Helper()
		plan, err := sc.Place(context.Background(), Request{InstanceUUIDs: []string{uuid}, Flavor: whole})
		if err != nil {
			t.Fatalf("%s: %v", uuid, err)
		}
		return plan.Placements[0].Host
	}
	for _, step := range []struct{ uuid, want string }{{"a", "h0000"}, {"fill", ""}, {"a2", "h0001"}, {"a3", "h0003"}} {
		if step.uuid == "fill" {
			if _, err := s.UpdateHost(HostNode{"h0002", "h0002"}, HostUsage{FreeRAMMB: 0, FreeDiskMB: 0, VCPUsUsed: 4, NumInstances: 4}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := place(step.uuid); got != step.want {
			t.Errorf("%s on %s, want %s", step.uuid, got, step.want)
		}
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if st := sc.Stats(); st.ConflictRetries != 1 || st.CacheRefreshes != 2 {
		t.Errorf("stats %+v: want 1 conflict retry and 2 refreshes", st)
	}
	checkJournal(t, c, s)
}
