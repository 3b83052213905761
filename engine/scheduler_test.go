package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/placer/placer/bitmap"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// replay recomputes every host's usage from the initial cloud and the
// journal, checking on the way that each committed instance fitted the
// state it was committed to. It returns the usage per node.
func replay(t *testing.T, c Cloud, journal []JournalEntry, capOf func(HostNode) (HostCapacity, bool)) map[HostNode]HostUsage {
	t.Helper()
	u := map[HostNode]HostUsage{}
	for _, h := range c.Hosts {
		u[HostNode{h.Host, nodeName(&h)}] = HostUsage{h.FreeRAMMB, h.FreeDiskGB * 1024, h.VCPUsUsed, h.NumInstances, h.NumIOOps}
	}
	for i, e := range journal {
		cur, ok := u[e.Host]
		if !ok && e.Kind != JournalAddHost && e.Kind != JournalAggregate {
			t.Fatalf("journal[%d]: %v on unknown host %v", i, e.Kind, e.Host)
		}
		switch e.Kind {
		case JournalPlace:
			next := HostUsage{cur.FreeRAMMB - e.Claim.MemoryMB, cur.FreeDiskMB - e.Claim.DiskMB,
				cur.VCPUsUsed + e.Claim.VCPUs, cur.NumInstances + 1, cur.NumIOOps + 1}
			if e.Whole { // an ironic node: Claim is what it took
				next.NumInstances, next.NumIOOps = cur.NumInstances, cur.NumIOOps
			}
			if capy, ok := capOf(e.Host); ok && capy.Exceeds(next) {
				t.Errorf("journal[%d]: %s committed on %v beyond its limits: %+v -> %+v", i, e.InstanceUUID, e.Host, cur, next)
			}
			u[e.Host] = next
		case JournalDelete:
			u[e.Host] = HostUsage{cur.FreeRAMMB + e.Claim.MemoryMB, cur.FreeDiskMB + e.Claim.DiskMB,
				cur.VCPUsUsed - e.Claim.VCPUs, cur.NumInstances - 1, cur.NumIOOps}
			if e.Whole {
				u[e.Host] = HostUsage{cur.FreeRAMMB + e.Claim.MemoryMB, cur.FreeDiskMB + e.Claim.DiskMB,
					cur.VCPUsUsed - e.Claim.VCPUs, cur.NumInstances, cur.NumIOOps}
			}
		case JournalUpdate, JournalAddHost:
			u[e.Host] = e.Usage
		case JournalRemoveHost:
			delete(u, e.Host)
		}
	}
	return u
}

// capacityIn looks a host's capacity up in snap (false: not there).
func capacityIn(snap *Snapshot) func(HostNode) (HostCapacity, bool) {
	return func(h HostNode) (HostCapacity, bool) {
		id, ok := snap.info.byHostNode(h)
		if !ok {
			return HostCapacity{}, false
		}
		return snap.Capacity(id), true
	}
}

func TestSchedulerStress(t *testing.T) {
	c := tightCloud(40)
	s := mustStore(t, c)
	// Whether two of 16 workers race for one host depends on how the
	// runtime schedules them (on 2 CPUs, often not at all), so a few
	// commits are also made to lose for certain: the host a plan chose
	// fills up just before the plan is verified (the hook runs under the
	// store's lock), and the worker must re-place.
	lost := loseCommits(s, 5, 3)
	sc := NewScheduler(s, SchedulerOptions{Workers: 16})
	ctx := context.Background()

	var mu sync.Mutex
	var committed []string
	stop := make(chan struct{})
	var upd sync.WaitGroup
	upd.Add(1)
	go func() { // external updates: reports, deletions, host churn
		defer upd.Done()
		r := rand.New(rand.NewPCG(1, 2))
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			snap := s.Snapshot()
			id := uint32(r.IntN(snap.Len()))
			switch {
			case k == 50:
				if _, err := s.RemoveHosts(snap.HostNode(id)); err != nil {
					t.Error(err)
				}
			case k == 80:
				if _, err := s.AddHosts(Host{Host: "late", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}); err != nil {
					t.Error(err)
				}
			case k == 120:
				if _, err := s.SetAggregateMetadata("agg", map[string]string{"k": "v"}, nil); err != nil {
					t.Error(err)
				}
			case k%3 == 0:
				mu.Lock()
				if len(committed) > 0 {
					i := r.IntN(len(committed))
					u := committed[i]
					committed[i] = committed[len(committed)-1]
					committed = committed[:len(committed)-1]
					mu.Unlock()
					s.DeleteInstance(u) // may be gone with a removed host
				} else {
					mu.Unlock()
				}
			default:
				// A compute node reports its usage unchanged but for
				// the finished I/O: the host's generation moves.
				u := snap.Usage(id)
				u.NumIOOps = 0
				s.UpdateHost(snap.HostNode(id), u)
			}
		}
	}()

	var wg sync.WaitGroup
	var nvh, conflicts int
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				n := 1 + (w+i)%3
				r := Request{NumInstances: n, Flavor: small}
				for k := range n {
					r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("w%d-r%d-%d", w, i, k))
				}
				if (w+i)%5 == 0 {
					r.InstanceGroup = &InstanceGroup{UUID: fmt.Sprintf("g%d", (w+i)%4), Policy: PolicyAntiAffinity, MaxServerPerHost: 2}
				}
				plan, err := sc.Place(ctx, r)
				mu.Lock()
				switch {
				case err == nil:
					for _, p := range plan.Placements {
						committed = append(committed, p.InstanceUUID)
					}
				case errors.Is(err, ErrNoValidHost):
					nvh++
				case errors.Is(err, ErrConflict):
					conflicts++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	upd.Wait()
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}

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
	st := sc.Stats()
	t.Logf("stats %+v, NoValidHost %d, conflicts %d, journal %d", st, nvh, conflicts, len(s.Journal()))
	forced := int64(lost())
	if st.Placed == 0 || forced == 0 || st.ConflictRetries < forced {
		t.Errorf("the stress test did not stress: %+v", st)
	}
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(tightCloud(4), StoreOptions{Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	commits := 0
	s.beforeCommit = func(s *Store, p *Plan) {
		if commits++; commits == 1 {
			fill(t, s, hn(p.Placements[0]))
		}
	}
	sc := NewScheduler(s, SchedulerOptions{Workers: 2, Metrics: m})
	ctx := context.Background()
	if _, err := sc.Place(ctx, req("a", "b")); err != nil { // one conflict, one retry
		t.Fatal(err)
	}
	big := req()
	big.NumInstances = 50
	if _, err := sc.Place(ctx, big); !errors.Is(err, ErrNoValidHost) {
		t.Fatal(err)
	}
	sc.Close()
	for name, c := range map[string]struct {
		c    prometheus.Collector
		want float64
	}{
		"placed":      {m.requests.WithLabelValues(OutcomePlaced), 1},
		"nvh":         {m.requests.WithLabelValues(OutcomeNoValidHost), 1},
		"placements":  {m.placements, 2},
		"accepted":    {m.commits.WithLabelValues("accepted"), 1},
		"conflict":    {m.commits.WithLabelValues("conflict"), 1},
		"retries":     {m.retries, 1},
		"queue":       {m.queueDepth, 0},
		"version":     {m.snapshotVersion, float64(s.Version())},
		"ram removed": {m.removed.WithLabelValues(RamFilter), 1},
	} {
		if got := testutil.ToFloat64(c.c); got != c.want {
			t.Errorf("%s = %v, want %v", name, got, c.want)
		}
	}
	if n := testutil.CollectAndCount(m.latency); n != 1 {
		t.Errorf("latency histogram: %d series", n)
	}
	if got, err := testutil.GatherAndCount(reg); err != nil || got < 10 {
		t.Errorf("gathered %d series, %v", got, err)
	}
	if _, err := NewMetrics(reg); err == nil {
		t.Error("registering twice succeeded")
	}
}

// TestRecycledColumns checks the recycler (recycle.go): compactions reuse
// the columns of the shards they retired, yet no snapshot a caller still
// holds (handed out by Snapshot, or leased by View or a worker) ever
// changes, and the final state is what the journal says.
func TestRecycledColumns(t *testing.T) {
	c := tightCloud(2 * bitmap.ShardSize) // full shards: only those recycle
	s := mustStore(t, c)
	usages := func(snap *Snapshot) []HostUsage {
		u := make([]HostUsage, snap.Len())
		for id := range u {
			u[id] = snap.Usage(uint32(id))
		}
		return u
	}
	escaped := s.Snapshot() // its columns must never be recycled
	atStart := usages(escaped)
	sc := NewScheduler(s, SchedulerOptions{Workers: 4})
	place := func(from, to int) {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from + w; i < to; i += 4 {
					r := Request{NumInstances: 10, Flavor: small}
					for k := range 10 {
						r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("r%d-%d", i, k))
					}
					if _, err := sc.Place(context.Background(), r); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
	}
	place(0, 60)
	s.View(func(leased *Snapshot) {
		held := usages(leased)
		place(60, 180)
		if !slices.Equal(usages(leased), held) {
			t.Error("a leased snapshot changed while leased")
		}
	})
	place(180, 300)
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(usages(escaped), atStart) {
		t.Error("a snapshot handed out by Snapshot changed")
	}
	s.rec.mu.Lock()
	reused := s.rec.reused
	s.rec.mu.Unlock()
	if reused == 0 {
		t.Error("no compaction reused a retired column")
	}

	final := s.Snapshot()
	want := replay(t, c, s.Journal(), capacityIn(final))
	for id := range uint32(final.Len()) {
		if got, h := final.Usage(id), final.HostNode(id); got != want[h] {
			t.Fatalf("%v: store %+v, recomputed %+v", h, got, want[h])
		}
	}
	t.Logf("%d columns reused, %d instances placed", reused, sc.Stats().Instances)
}

// TestSchedulerNamesTheRequestsUUID: a uuid the Store already committed
// is refused under the request's field, not the plan's the commit checks.
func TestSchedulerNamesTheRequestsUUID(t *testing.T) {
	s := mustStore(t, tightCloud(4))
	sc := NewScheduler(s, SchedulerOptions{Workers: 1})
	defer sc.Close()
	if _, err := sc.Place(context.Background(), req("a")); err != nil {
		t.Fatal(err)
	}
	_, err := sc.Place(context.Background(), req("b", "a"))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "request.instance_uuids[1]" || !strings.Contains(ve.Msg, `"a"`) {
		t.Fatalf("got %v, want a ValidationError on request.instance_uuids[1]", err)
	}
	if s.Instances() != 1 {
		t.Fatalf("%d instances committed, want 1", s.Instances())
	}
}

// TestNewSchedulerOnNil: a nil Backend panics in NewSchedulerOn, a nil
// *Store in a Backend too (it passed the interface's nil check, and the
// first Place panicked in a worker, ending the process), and so does a
// Backend without a Local store (a typed nil of another Backend).
func TestNewSchedulerOnNil(t *testing.T) {
	for _, b := range []Backend{nil, (*Store)(nil), noLocal{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewSchedulerOn(%#v) did not panic", b)
				}
			}()
			NewSchedulerOn(b, SchedulerOptions{Workers: 1}).Close()
		}()
	}
}

// TestPartialAfterConflicts: a request whose retry budget runs out places
// once more and commits what still fits; the Scheduler counts it as
// placed, its committed instances as placements, and as partial. Each
// commit before that fills the host of the plan's first placement (and
// empties the other), so every attempt conflicts; the last attempt puts
// both instances on the empty host, which then holds one (or none).
func TestPartialAfterConflicts(t *testing.T) {
	empty := HostUsage{FreeRAMMB: 8192, FreeDiskMB: 100 << 10}
	fitsOne := HostUsage{FreeRAMMB: 2048, FreeDiskMB: 100 << 10, VCPUsUsed: 3, NumInstances: 3}
	for _, c := range []struct {
		name      string
		partial   bool
		last      HostUsage // what the last commit finds on its host
		cache     time.Duration
		committed int
	}{
		{"one fits", true, fitsOne, 0, 1},
		{"one fits, caching", true, fitsOne, time.Hour, 1},
		{"none fits", true, HostUsage{FreeDiskMB: 100 << 10, VCPUsUsed: 4, NumInstances: 4}, 0, 0},
		{"all or nothing", false, fitsOne, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			m, err := NewMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewStore(tightCloud(2), StoreOptions{Metrics: m})
			if err != nil {
				t.Fatal(err)
			}
			commits := 0
			s.beforeCommit = func(s *Store, p *Plan) {
				commits++
				first := hn(p.Placements[0])
				u := c.last
				if commits <= 2 {
					u = HostUsage{FreeDiskMB: 100 << 10, VCPUsUsed: 4, NumInstances: 4}
					other := HostNode{"h0000", "h0000"}
					if first == other {
						other = HostNode{"h0001", "h0001"}
					}
					if _, err := s.updateHostLocked(other, empty); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := s.updateHostLocked(first, u); err != nil {
					t.Fatal(err)
				}
			}
			sc := NewScheduler(s, SchedulerOptions{Workers: 1, RetryBudget: 1, Metrics: m, CacheInterval: c.cache})
			var opts []PlaceOption
			if c.partial {
				opts = append(opts, PartialAfterConflicts())
			}
			plan, err := sc.Place(context.Background(), req("a", "b"), opts...)
			sc.Close()
			st := sc.Stats()
			wantCommits := 2
			if c.partial {
				wantCommits = 3
			}
			if commits != wantCommits {
				t.Errorf("%d commits, want %d", commits, wantCommits)
			}
			if s.Instances() != c.committed || len(plan.Placements) != c.committed {
				t.Fatalf("%d instances committed, plan of %d (%v), want %d", s.Instances(), len(plan.Placements), err, c.committed)
			}
			accepted := testutil.ToFloat64(m.commits.WithLabelValues("accepted"))
			if c.committed == 0 {
				var ce *ConflictError
				if !errors.As(err, &ce) || st.ConflictFailures != 1 || st.Placed != 0 || st.Partial != 0 || accepted != 0 {
					t.Errorf("got %v, stats %+v, %v accepted commits; want a conflict failure", err, st, accepted)
				}
				return
			}
			if err != nil || plan.Placements[0].InstanceUUID != "a" {
				t.Fatalf("got %+v, %v; want instance a placed", plan.Placements, err)
			}
			want := SchedulerStats{Requests: 1, Placed: 1, Instances: 1, Partial: 1, ConflictRetries: 2, WarmStarts: st.WarmStarts, CacheRefreshes: st.CacheRefreshes}
			if st != want {
				t.Errorf("stats %+v, want %+v", st, want)
			}
			if got := testutil.ToFloat64(m.requests.WithLabelValues(OutcomePlaced)); got != 1 || accepted != 1 {
				t.Errorf("%v requests placed, %v commits accepted; want 1 and 1", got, accepted)
			}
		})
	}
}

// TestCloseWhileQueueFull: a caller waiting for room in a full queue
// held the Scheduler's lock, so Close waited for it, and every Place
// after Close began waited too, deaf to its context, until the queue
// drained. Now Close tells the waiting caller (ErrClosed), a later Place
// is ErrClosed at once, and the queued requests still finish.
func TestCloseWhileQueueFull(t *testing.T) {
	s := mustStore(t, tightCloud(4))
	hold, entered := holdCommits(s)
	sc := NewScheduler(s, SchedulerOptions{Workers: 1, QueueSize: 1})
	ctx := context.Background()
	errs := make(chan error, 3)
	place := func(uuid string) {
		_, err := sc.Place(ctx, req(uuid))
		errs <- err
	}
	go place("a") // its commit waits on hold
	<-entered
	go place("b") // queued
	for sc.queue.waiting() == 0 {
		time.Sleep(time.Millisecond)
	}
	go place("c") // waits for room
	time.Sleep(20 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- sc.Close() }()
	for {
		sc.mu.Lock()
		c := sc.close
		sc.mu.Unlock()
		if c {
			break
		}
		time.Sleep(time.Millisecond)
	}
	late := make(chan error, 1)
	go func() {
		tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := sc.Place(tctx, req("d"))
		late <- err
	}()
	select {
	case err := <-late:
		if err != ErrClosed {
			t.Errorf("Place after Close began: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Place after Close began waited for the queue to drain")
	}
	select {
	case err := <-errs: // c, told while waiting for room
		if err != ErrClosed {
			t.Errorf("the caller waiting for room: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the caller waiting for room was not told of Close")
	}
	close(hold)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a queued request: %v", err)
		}
	}
	if n := s.Instances(); n != 2 {
		t.Errorf("%d instances committed, want 2 (a and b)", n)
	}
}

// TestAbandonedJobLeavesQueue: a queued request whose caller gave up
// leaves the queue at once, so the next caller finds its room and the
// queue depth counts it out; it held its slot until a worker took it
// out (a full queue of abandoned requests blocked new callers).
func TestAbandonedJobLeavesQueue(t *testing.T) {
	s := mustStore(t, tightCloud(4))
	hold, entered := holdCommits(s)
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScheduler(s, SchedulerOptions{Workers: 1, QueueSize: 1, Metrics: m})
	defer sc.Close()
	errs := make(chan error, 3)
	go func() { _, err := sc.Place(context.Background(), req("a")); errs <- err }() // its commit waits on hold
	<-entered
	bctx, cancel := context.WithCancel(context.Background())
	go func() { _, err := sc.Place(bctx, req("b")); errs <- err }()
	for sc.queue.waiting() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned request: %v, want context.Canceled", err)
	}
	if n, d := sc.queue.waiting(), testutil.ToFloat64(m.queueDepth); n != 0 || d != 0 {
		t.Fatalf("after its caller gave up: %d queued, queue depth %v; want 0 and 0", n, d)
	}
	cctx, cancelC := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelC()
	go func() { _, err := sc.Place(cctx, req("c")); errs <- err }()
	for sc.queue.waiting() == 0 {
		select {
		case err := <-errs:
			t.Fatalf("the next request found no room: %v", err)
		default:
			time.Sleep(time.Millisecond)
		}
	}
	if d := testutil.ToFloat64(m.queueDepth); d != 1 {
		t.Fatalf("queue depth %v with one request queued", d)
	}
	close(hold)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a and c: %v", err)
		}
	}
	if n := s.Instances(); n != 2 {
		t.Errorf("%d instances committed, want 2 (a and c)", n)
	}
}

// TestPlacementPanicRaisedOnCaller: a panic while a worker places a
// request is raised on Place's caller as a *PlacementPanic (a worker's
// panic ended the process: no caller could recover it), nothing of the
// request is committed, and the worker, its kept batch forgotten, places
// the next requests, a warm start's included.
func TestPlacementPanicRaisedOnCaller(t *testing.T) {
	for _, cold := range []bool{false, true} {
		s := mustStore(t, tightCloud(4))
		sc := NewScheduler(s, SchedulerOptions{Workers: 1, ColdStart: cold, beforePlace: func(r *Request) {
			if r.InstanceUUIDs[0] == "boom" {
				panic("a bug")
			}
		}})
		place := func(uuid string) (p *PlacementPanic, err error) {
			defer func() {
				if v := recover(); v != nil {
					var ok bool
					if p, ok = v.(*PlacementPanic); !ok {
						panic(v)
					}
				}
			}()
			_, err = sc.Place(context.Background(), req(uuid))
			return nil, err
		}
		if p, err := place("a"); p != nil || err != nil {
			t.Fatalf("cold %v: a: %v %v", cold, p, err)
		}
		p, err := place("boom")
		if p == nil || p.Value != "a bug" || !strings.Contains(string(p.Stack), "TestPlacementPanicRaisedOnCaller") || err != nil {
			t.Fatalf("cold %v: the panicking request: %v, %v; want a *PlacementPanic of the test's hook", cold, p, err)
		}
		for _, u := range []string{"b", "c"} {
			if p, err := place(u); p != nil || err != nil {
				t.Fatalf("cold %v: %s after the panic: %v %v", cold, u, p, err)
			}
		}
		if st := sc.Stats(); s.Instances() != 3 || st.Placed != 3 || st.Requests != 4 {
			t.Errorf("cold %v: %d instances, %+v; want 3 placed of 4 requests", cold, s.Instances(), st)
		}
		if err := sc.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// waiting is how many jobs are queued.
func (q *jobQueue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for j := q.head; j != nil; j = j.next {
		n++
	}
	return n
}

// holdCommits makes s's commits wait until hold is closed; entered
// receives a value when the first one is waiting.
func holdCommits(s *Store) (hold chan struct{}, entered chan struct{}) {
	hold, entered = make(chan struct{}), make(chan struct{}, 1)
	s.beforeCommit = func(*Store, *Plan) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-hold
	}
	return hold, entered
}

// noLocal is a Backend without a Local store.
type noLocal struct{ Backend }

func (noLocal) Local() *Store { return nil }

// TestStatsConsistent reads Stats while requests finish: no outcome is
// ever counted without its request (Requests was counted first and read
// first, so a read could find more placed than finished requests). A
// race: the old order failed it only when a request finished between two
// of the reads.
func TestStatsConsistent(t *testing.T) {
	s := mustStore(t, tightCloud(64))
	sc := NewScheduler(s, SchedulerOptions{Workers: 4})
	defer sc.Close()
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				_, _ = sc.Place(context.Background(), req(fmt.Sprintf("w%d-%d", w, i)))
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	reads := 0
	for {
		st := sc.Stats()
		reads++
		if st.Placed+st.NoValidHost > st.Requests || st.Partial > st.Placed || st.Instances < st.Placed {
			t.Fatalf("read %d: %+v", reads, st)
		}
		select {
		case <-done:
			if st := sc.Stats(); st.Requests != 600 || st.Placed == 0 {
				t.Fatalf("at the end: %+v, want 600 requests, some placed", st)
			}
			return
		default:
		}
	}
}
