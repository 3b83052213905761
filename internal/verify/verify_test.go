package verify_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
	"github.com/placer/placer/internal/verify"
)

// run is a small run of a Store and a Scheduler: requests placed by
// concurrent callers while one more caller makes external changes (usage
// reports, deletions, a dead node, a new node, an aggregate change). It
// returns the run as the verifier takes it, and the store.
func run(t *testing.T, profile string, hosts, requests int, seed uint64) (verify.Input, *engine.Store) {
	t.Helper()
	return runWith(t, synth.Options{Hosts: hosts, Seed: seed, Profile: profile}, requests)
}

// runWith is run on a cloud of any synth options (ironic nodes, the
// chance scheduler).
func runWith(t *testing.T, opts synth.Options, requests int) (verify.Input, *engine.Store) {
	t.Helper()
	seed := opts.Seed
	gen := synth.New(opts)
	cloud := gen.Cloud()
	reqs := gen.Requests(requests)
	store, err := engine.NewStore(cloud, engine.StoreOptions{Journal: true})
	if err != nil {
		t.Fatal(err)
	}
	sc := engine.NewScheduler(store, engine.SchedulerOptions{Workers: 2})
	in := verify.Input{Cloud: cloud, Requests: make([]verify.Request, len(reqs))}

	var (
		mu     sync.Mutex
		placed []string
		wg     sync.WaitGroup
		next   = make(chan int)
		done   = make(chan struct{})
		// structural asks the updater for the host removal (0), the
		// host addition (1) and the aggregate change (2), sent by the
		// feeder a quarter, a half and three quarters of the way: by
		// progress, not by time, so that a fast run has them all.
		structural = make(chan int)
	)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				plan, err := sc.Place(context.Background(), reqs[i])
				in.Requests[i] = verify.FromPlace(reqs[i], plan, err)
				if err == nil {
					mu.Lock()
					for _, p := range plan.Placements {
						placed = append(placed, p.InstanceUUID)
					}
					mu.Unlock()
				}
			}
		}()
	}
	events := make(chan []verify.Event, 1)
	go func() {
		var evs []verify.Event
		r := rand.New(rand.NewPCG(seed, 7))
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			kind := -1
			select {
			case <-done:
				events <- evs
				return
			case kind = <-structural:
			case <-tick.C:
			}
			snap := store.Snapshot()
			switch {
			case kind == 0:
				hn := snap.HostNode(uint32(r.IntN(snap.Len())))
				if v, err := store.RemoveHosts(hn); err == nil {
					evs = append(evs, verify.Event{Version: v, Kind: verify.RemoveHost, Host: hn})
				}
			case kind == 1:
				h := engine.Host{Host: "late-node", MemoryMB: 262144, FreeRAMMB: 262144, VCPUs: 64, LocalGB: 2000, FreeDiskGB: 2000}
				if v, err := store.AddHosts(h); err == nil {
					evs = append(evs, verify.Event{Version: v, Kind: verify.AddHost, NewHost: h})
				}
			case kind == 2:
				// Looser limits on the hosts of a real aggregate (rich:
				// AggregateRamFilter and AggregateCoreFilter read them).
				set := map[string]string{"ram_allocation_ratio": "6.0", "cpu_allocation_ratio": "64.0"}
				if v, err := store.SetAggregateMetadata("overcommit", set, nil); err == nil {
					evs = append(evs, verify.Event{Version: v, Kind: verify.SetAggregate, Aggregate: "overcommit", Set: set})
				}
			case r.IntN(4) == 0:
				mu.Lock()
				var u string
				if n := len(placed); n > 0 {
					i := r.IntN(n)
					u, placed[i] = placed[i], placed[n-1]
					placed = placed[:n-1]
				}
				mu.Unlock()
				if u == "" {
					continue
				}
				v, err := store.DeleteInstance(u)
				if err == nil {
					evs = append(evs, verify.Event{Version: v, Kind: verify.Delete, Instance: u})
				} else if !errors.Is(err, engine.ErrInvalid) { // gone with a removed node: ErrInvalid
					t.Error(err)
				}
			default:
				id := uint32(r.IntN(snap.Len()))
				hn, u := snap.HostNode(id), snap.Usage(id)
				u.NumIOOps = 0 // finished I/O; a report may undo claims made since snap
				if v, err := store.UpdateHost(hn, u); err == nil {
					evs = append(evs, verify.Event{Version: v, Kind: verify.Report, Host: hn, Usage: u, ReadVersion: snap.Version()})
				}
			}
		}
	}()
	for i := range reqs {
		for k := range 3 {
			if i == (k+1)*len(reqs)/4 {
				structural <- k
			}
		}
		next <- i
	}
	close(next)
	wg.Wait()
	close(done)
	in.Events = <-events
	sc.Close()
	in.Commits = verify.CommitsOf(store.Journal())
	in.Final = verify.FinalOf(store.Snapshot(), store.Instances())
	return in, store
}

func check(t *testing.T, in verify.Input) *verify.Result {
	t.Helper()
	res, err := verify.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// wantOnly asserts that the run failed with problems of kind k only, one
// of them holding every part of want, and logs the messages.
func wantOnly(t *testing.T, res *verify.Result, k verify.Kind, want ...string) {
	t.Helper()
	if res.OK() {
		t.Fatalf("the fault went unnoticed")
	}
	found := false
	for _, p := range res.Problems {
		t.Logf("%s", p)
		if p.Kind != k {
			t.Errorf("a problem of another kind: %s", p)
			continue
		}
		all := true
		for _, w := range want {
			all = all && strings.Contains(p.Message, w)
		}
		found = found || all
	}
	if !found {
		t.Errorf("no %s problem mentions %q", k, want)
	}
}

func TestCleanRuns(t *testing.T) {
	for _, profile := range []string{synth.Basic, synth.Rich} {
		t.Run(profile, func(t *testing.T) {
			in, _ := run(t, profile, 300, 250, 1)
			res := check(t, in)
			if !res.OK() {
				t.Fatalf("a clean run fails:\n%s", res.Error())
			}
			kinds := map[verify.EventKind]int{}
			for _, e := range in.Events {
				kinds[e.Kind]++
			}
			t.Logf("%d placements, %d events %v, %d instances, %d hosts, %d forced over limits",
				res.Placements, res.Events, kinds, res.Instances, res.Hosts, res.ForcedOverLimits)
			if res.Placements == 0 || kinds[verify.Report] == 0 || kinds[verify.Delete] == 0 ||
				kinds[verify.AddHost] != 1 || kinds[verify.RemoveHost] != 1 || kinds[verify.SetAggregate] != 1 {
				t.Fatalf("the run is not the one meant: %d placements, events %v", res.Placements, kinds)
			}
		})
	}
}

// TestCleanRunsIronic is TestCleanRuns on clouds with ironic nodes under
// the filter scheduler and the chance scheduler (which reads no filter
// and no forced host: its placements are judged as forced ones): the
// runs verify, with instances on ironic nodes. (Whether one of those is
// deleted depends on timing: TestIronicDeletion makes sure.)
func TestCleanRunsIronic(t *testing.T) {
	for _, driver := range []string{engine.DriverFilterScheduler, engine.DriverChanceScheduler} {
		t.Run(driver, func(t *testing.T) {
			in, _ := runWith(t, synth.Options{Hosts: 300, Seed: 2, Profile: synth.Basic, IronicNodes: 0.3, SchedulerDriver: driver}, 250)
			res := check(t, in)
			if !res.OK() {
				t.Fatalf("a clean run fails:\n%s", res.Error())
			}
			ironic := ironicNodes(in.Cloud)
			whole := 0
			for _, r := range in.Requests {
				for _, p := range r.Placed {
					if ironic[p.Host] {
						whole++
					}
				}
			}
			t.Logf("%d placements (%d on ironic nodes), %d events, %d unfiltered over limits", res.Placements, whole, res.Events, res.ForcedOverLimits)
			if whole == 0 {
				t.Fatalf("no placement on an ironic node")
			}
			// The driver ran: the chance scheduler, reading no filter, goes
			// over limits on a cloud half used.
			if driver == engine.DriverChanceScheduler && res.ForcedOverLimits == 0 {
				t.Fatalf("the chance scheduler's run went over no limit: the filter scheduler ran?")
			}
		})
	}
}

// TestChanceOnHostDown plants, in a chance scheduler's run, a placement
// on a node whose compute service is down or disabled (committed as the
// chance scheduler's plans are, forced): misplaced, and named.
func TestChanceOnHostDown(t *testing.T) {
	in, store := runWith(t, synth.Options{Hosts: 300, Seed: 2, Profile: synth.Basic, SchedulerDriver: engine.DriverChanceScheduler}, 100)
	snap := store.Snapshot()
	down := -1
	for id := range snap.Len() {
		hn := snap.HostNode(uint32(id))
		for i := range in.Cloud.Hosts {
			h := &in.Cloud.Hosts[i]
			if h.Host == hn.Host && (h.Node == hn.Node || h.Node == "" && hn.Node == h.Host) && (h.Service.Down || h.Service.Disabled) {
				down = id
			}
		}
	}
	if down < 0 {
		t.Fatal("the cloud has no node down or disabled")
	}
	hn := snap.HostNode(uint32(down))
	req := engine.Request{InstanceUUIDs: []string{"on-a-down-node"}, Flavor: engine.Flavor{Name: "tiny", MemoryMB: 64, VCPUs: 1}}
	plan := engine.Plan{BaseVersion: snap.Version(), Claim: engine.Claim{MemoryMB: 64, VCPUs: 1}, Forced: true,
		Placements: []engine.Placement{{InstanceUUID: "on-a-down-node", HostID: uint32(down), Host: hn.Host, Node: hn.Node}}}
	if _, err := store.Commit(plan); err != nil {
		t.Fatal(err)
	}
	in.Requests = append(in.Requests, verify.FromPlace(req, plan, nil))
	in.Commits = verify.CommitsOf(store.Journal())
	in.Final = verify.FinalOf(store.Snapshot(), store.Instances())
	wantOnly(t, check(t, in), verify.Misplaced, "on-a-down-node", "disabled or down")
}

// ironicNodes are the ironic nodes of c.
func ironicNodes(c engine.Cloud) map[engine.HostNode]bool {
	out := map[engine.HostNode]bool{}
	for i := range c.Hosts {
		if h := &c.Hosts[i]; h.HypervisorType != nil && *h.HypervisorType == engine.HVTypeIronic {
			node := h.Node
			if node == "" {
				node = h.Host
			}
			out[engine.HostNode{Host: h.Host, Node: node}] = true
		}
	}
	return out
}

// TestIronicDeletion places instances on a cloud of ironic nodes, each
// taking its node whole; on some of those nodes a usage report comes
// next, then a second instance forced onto the node (it takes nothing:
// the node is taken), then the first instance's deletion (giving back
// what it took, the counters unchanged); later requests place on the
// nodes so freed. The run verifies. It fails if a deletion gives back the
// flavor instead of what the instance took, checked by mutation.
func TestIronicDeletion(t *testing.T) {
	gen := synth.New(synth.Options{Hosts: 40, Seed: 5, Profile: synth.Basic, IronicNodes: 1})
	cloud := gen.Cloud()
	store, err := engine.NewStore(cloud, engine.StoreOptions{Journal: true})
	if err != nil {
		t.Fatal(err)
	}
	in := verify.Input{Cloud: cloud}
	ironic := ironicNodes(cloud)
	place := func(req engine.Request) engine.Plan {
		t.Helper()
		plan, err := engine.PlaceBatch(context.Background(), store.Snapshot(), req)
		if err == nil {
			if _, err = store.Commit(plan); err != nil {
				t.Fatal(err)
			}
		}
		in.Requests = append(in.Requests, verify.FromPlace(req, plan, err))
		return plan
	}
	freed := map[engine.HostNode]bool{}
	whole, deleted, reports, seconds, reused := 0, 0, 0, 0, 0
	for i, req := range gen.Requests(60) {
		req.ForceHosts, req.ForceNodes = nil, nil
		for _, p := range place(req).Placements {
			hn := engine.HostNode{Host: p.Host, Node: p.Node}
			if !ironic[hn] {
				continue
			}
			whole++
			if freed[hn] {
				reused++
			}
			if i%2 != 0 {
				continue
			}
			if i%4 == 0 { // a report of the node's usage in between
				snap := store.Snapshot() // no rebuild here: ids hold
				if snap.HostNode(p.HostID) != hn {
					t.Fatalf("host id %d is %v, not %v", p.HostID, snap.HostNode(p.HostID), hn)
				}
				u := snap.Usage(p.HostID)
				v, err := store.UpdateHost(hn, u)
				if err != nil {
					t.Fatal(err)
				}
				in.Events = append(in.Events, verify.Event{Version: v, Kind: verify.Report, Host: hn, Usage: u, ReadVersion: snap.Version()})
				reports++
			}
			if i%8 == 0 { // a second instance forced onto the taken node
				second := gen.Requests(1)[0]
				second.NumInstances, second.InstanceUUIDs = 1, []string{"second-" + p.InstanceUUID}
				second.ForceHosts, second.ForceNodes = []string{p.Host}, []string{p.Node}
				if pl := place(second).Placements; len(pl) == 1 && pl[0].Host == p.Host && pl[0].Node == p.Node {
					seconds++
				}
			}
			v, err := store.DeleteInstance(p.InstanceUUID)
			if err != nil {
				t.Fatal(err)
			}
			in.Events = append(in.Events, verify.Event{Version: v, Kind: verify.Delete, Instance: p.InstanceUUID})
			deleted++
			freed[hn] = true
		}
	}
	in.Commits = verify.CommitsOf(store.Journal())
	in.Final = verify.FinalOf(store.Snapshot(), store.Instances())
	res := check(t, in)
	if !res.OK() {
		t.Fatalf("the run fails:\n%s", res.Error())
	}
	t.Logf("%d placements on ironic nodes, %d deleted, %d after a report, %d with a second instance forced on, %d on a node freed before",
		whole, deleted, reports, seconds, reused)
	if whole == 0 || deleted == 0 || reports == 0 || seconds == 0 || reused == 0 {
		t.Fatalf("the run is not the one meant")
	}
}

// placedReq is the index of a request with a plan, and the plan's first
// instance.
func placedReq(t *testing.T, in verify.Input) (int, verify.Placed) {
	t.Helper()
	for i := len(in.Requests) - 1; i >= 0; i-- { // late: fewer reports after it
		if r := in.Requests[i]; len(r.Placed) > 0 && !r.Forced {
			return i, r.Placed[0]
		}
	}
	t.Fatal("no request was placed")
	return 0, verify.Placed{}
}

// held is whether placed instance p is held at the end: not deleted, and
// its host not removed (a removal forgets the host's instances). Any
// removal of p's host counts, even one before p: the callers need an
// instance surely held, not every one.
func held(in verify.Input, p verify.Placed) bool {
	for _, e := range in.Events {
		if e.Kind == verify.Delete && e.Instance == p.Instance || e.Kind == verify.RemoveHost && e.Host == p.Host {
			return false
		}
	}
	return true
}

// reportedAfter is whether host sent a usage report published after
// version v.
func reportedAfter(in verify.Input, host engine.HostNode, v uint64) bool {
	for _, e := range in.Events {
		if e.Kind == verify.Report && e.Host == host && e.Version > v {
			return true
		}
	}
	return false
}

func TestPlantedFaults(t *testing.T) {
	in, store := run(t, synth.Basic, 200, 150, 2)
	if res := check(t, in); !res.OK() {
		t.Fatalf("the clean run fails:\n%s", res.Error())
	}
	clone := func() verify.Input {
		c := in
		c.Requests = append([]verify.Request(nil), in.Requests...)
		c.Events = append([]verify.Event(nil), in.Events...)
		c.Commits = append([]verify.Commit(nil), in.Commits...)
		c.Final.Usage = make(map[engine.HostNode]engine.HostUsage, len(in.Final.Usage))
		for k, u := range in.Final.Usage {
			c.Final.Usage[k] = u
		}
		return c
	}
	commitOf := func(in verify.Input, u string) int {
		for i, c := range in.Commits {
			if c.Instance == u {
				return i
			}
		}
		t.Fatalf("instance %s is not committed", u)
		return -1
	}

	t.Run("doubled claim", func(t *testing.T) {
		// The store committed an instance twice: its record holds it twice
		// and the host's usage has the claim twice. The instance is a held
		// one whose host has room for the claim three times over at the
		// end (RAM and disk; the cloud's vCPU ratio leaves more room), so
		// that the second claim, judged at its commit's version, does not
		// also overcommit it, and whose host sent no usage report after
		// the commit (a report replaces the usage the claims made, and the
		// end's usage, with the claim twice, would then mismatch too).
		f := clone()
		i, p := -1, verify.Placed{}
		for j := len(f.Requests) - 1; j >= 0 && i < 0; j-- {
			r := f.Requests[j]
			if len(r.Placed) == 0 || r.Forced || !held(f, r.Placed[0]) ||
				reportedAfter(f, r.Placed[0].Host, f.Commits[commitOf(f, r.Placed[0].Instance)].Version) {
				continue
			}
			u, fl := f.Final.Usage[r.Placed[0].Host], r.Flavor
			if u.FreeRAMMB >= 3*fl.MemoryMB && u.FreeDiskMB >= 3*(fl.RootGB+fl.EphemeralGB)*1024 {
				i, p = j, r.Placed[0]
			}
		}
		if i < 0 {
			t.Fatal("no held instance's host has room for its claim twice: the fault is not planted")
		}
		c := f.Commits[commitOf(f, p.Instance)]
		f.Commits = append(f.Commits, verify.Commit{Version: c.Version, Instance: c.Instance, Host: c.Host})
		fl, u := f.Requests[i].Flavor, f.Final.Usage[p.Host]
		u.FreeRAMMB -= fl.MemoryMB
		u.FreeDiskMB -= (fl.RootGB + fl.EphemeralGB) * 1024
		u.VCPUsUsed += fl.VCPUs
		u.NumInstances++
		u.NumIOOps++
		f.Final.Usage[p.Host] = u
		wantOnly(t, check(t, f), verify.DoubledClaim, p.Instance, "committed 2 times")
	})

	t.Run("lost claim", func(t *testing.T) {
		// The store lost the resources of an instance it committed (and
		// its caller was told of): the host's usage lacks the claim, the
		// ledger the instance.
		f := clone()
		i, p := placedReq(t, f)
		if !held(f, p) {
			t.Fatal("the fixture's first placed instance was deleted: pick a seed where it is held, or the fault is not planted")
		}
		fl, u := f.Requests[i].Flavor, f.Final.Usage[p.Host]
		u.FreeRAMMB += fl.MemoryMB
		u.VCPUsUsed -= fl.VCPUs
		u.NumInstances--
		f.Final.Usage[p.Host] = u
		f.Final.Instances--
		wantOnly(t, check(t, f), verify.UsageMismatch, "host "+p.Host.Host, "free_ram_mb", "vcpus_used", "num_instances")
	})

	t.Run("plan returned but not committed", func(t *testing.T) {
		// A caller was told of a plan the store never committed: place a
		// request on the final snapshot and hand its plan to the caller
		// without committing it.
		// The first of another seed's requests that the final snapshot
		// can place (its host-picking hints dropped: they may name a
		// host the run removed).
		f := clone()
		var req engine.Request
		var plan engine.Plan
		for _, r := range synth.New(synth.Options{Hosts: 200, Seed: 2, Profile: synth.Basic}).Requests(20) {
			for j := range r.InstanceUUIDs {
				r.InstanceUUIDs[j] = "never-committed-" + r.InstanceUUIDs[j]
			}
			r.ForceHosts, r.ForceNodes, r.IgnoreHosts, r.RequestedDestination = nil, nil, nil, nil
			p, err := engine.PlaceBatch(context.Background(), store.Snapshot(), r)
			if errors.Is(err, engine.ErrNoValidHost) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			req, plan = r, p
			break
		}
		if len(plan.Placements) == 0 {
			t.Fatal("none of 20 requests fits the final snapshot: the fault is not planted")
		}
		f.Requests = append(f.Requests, verify.FromPlace(req, plan, nil))
		wantOnly(t, check(t, f), verify.LostClaim, req.InstanceUUIDs[0], "never committed")
	})

	t.Run("report of a wrong read", func(t *testing.T) {
		// A report copies what the store showed into the account: the
		// store having shown a node 1 GiB short is caught at the read's
		// version (and the account ends apart from the store's).
		f := clone()
		k := slices.IndexFunc(f.Events, func(e verify.Event) bool { return e.Kind == verify.Report && e.ReadVersion > 0 })
		if k < 0 {
			t.Fatal("the run has no report that says what it read")
		}
		f.Events = slices.Clone(f.Events)
		f.Events[k].Usage.FreeRAMMB -= 1024
		wantOnly(t, check(t, f), verify.UsageMismatch, hostNameOf(f.Events[k].Host), "the store showed")
	})

	t.Run("broken request rules", func(t *testing.T) {
		// What the run placed, with rules its requests would have broken:
		// the host ignored, another destination, a group's policy.
		i, p := placedReq(t, in)
		plant := func(edit func(r *verify.Request), want ...string) {
			t.Helper()
			f := clone()
			r := f.Requests[i]
			r.Group, r.IgnoreHosts, r.Destination = nil, nil, nil
			edit(&r)
			f.Requests[i] = r
			wantOnly(t, check(t, f), verify.BrokenRule, want...)
		}
		plant(func(r *verify.Request) { r.IgnoreHosts = []string{"elsewhere", strings.ToUpper(p.Host.Host)} }, p.Instance, "ignores")
		plant(func(r *verify.Request) { r.Destination = &engine.Destination{Host: "elsewhere"} }, p.Instance, "destination")
		plant(func(r *verify.Request) { // Nova strips ignored hosts before it matches forced ones
			r.Forced, r.ForceHosts, r.IgnoreHosts = true, []string{p.Host.Host}, []string{p.Host.Host}
		}, p.Instance, "ignores")
		plant(func(r *verify.Request) {
			r.Group = &engine.InstanceGroup{UUID: "g", Policy: engine.PolicyAffinity, Hosts: []string{"elsewhere"}}
		}, "affinity group g", p.Host.Host)
		// A request the run placed twice on one host (the fixture's seed
		// makes some).
		for j, r := range in.Requests {
			if r.Forced || len(r.Placed) < 2 || r.Placed[0].Host.Host != r.Placed[1].Host.Host {
				continue
			}
			i = j
			plant(func(r *verify.Request) {
				r.Group = &engine.InstanceGroup{UUID: "g", Policy: engine.PolicyAntiAffinity, MaxServerPerHost: 1}
			}, "anti-affinity group g", r.Placed[0].Host.Host)
			return
		}
		t.Fatal("no request of the run has two instances on one host")
	})

	t.Run("over-limit host", func(t *testing.T) {
		// The store does not re-check a forced plan: one whose request
		// forced nothing (as its caller knows it) goes through, as a bug
		// of PlaceBatch would. Commit one that needs more RAM than the
		// host has, on the real store, and verify the run with it.
		f := clone()
		base := check(t, f).ForcedOverLimits
		snap := store.Snapshot()
		id := uint32(0)
		hn, u := snap.HostNode(id), snap.Usage(id)
		req := engine.Request{InstanceUUIDs: []string{"too-big"},
			Flavor: engine.Flavor{Name: "huge", MemoryMB: u.FreeRAMMB + 4*262144, VCPUs: 1}}
		plan := engine.Plan{BaseVersion: snap.Version(), Claim: engine.Claim{MemoryMB: req.Flavor.MemoryMB, VCPUs: 1}, Forced: true,
			Placements: []engine.Placement{{InstanceUUID: "too-big", HostID: id, Host: hn.Host, Node: hn.Node}}}
		if _, err := store.Commit(plan); err != nil {
			t.Fatal(err)
		}
		f.Requests = append(f.Requests, verify.FromPlace(req, plan, nil))
		f.Commits = verify.CommitsOf(store.Journal())
		f.Final = verify.FinalOf(store.Snapshot(), store.Instances())
		res := check(t, f)
		wantOnly(t, res, verify.Overcommit, "too-big", hostNameOf(hn), "RamFilter refuses")
		if res.OvercommittedHosts != 1 {
			t.Errorf("overcommitted hosts %d, want 1", res.OvercommittedHosts)
		}
		// Forced, the same placement is allowed and counted apart.
		f.Requests[len(f.Requests)-1].Forced = true
		if res := check(t, f); !res.OK() || res.ForcedOverLimits != base+1 {
			t.Errorf("forced: %d forced over limits, want %d; problems:\n%s", res.ForcedOverLimits, base+1, res.Error())
		}
		// Forced to its own host (named in capitals: Nova compares them
		// lower-cased), still allowed; forced to another, it is misplaced.
		f.Requests[len(f.Requests)-1].ForceHosts = []string{strings.ToUpper(hn.Host)}
		if res := check(t, f); !res.OK() {
			t.Errorf("forced to its own host: problems:\n%s", res.Error())
		}
		f.Requests[len(f.Requests)-1].ForceHosts = []string{"elsewhere"}
		wantOnly(t, check(t, f), verify.Misplaced, "too-big", "outside them")
	})

	t.Run("commit no caller was told of", func(t *testing.T) {
		f := clone()
		i, p := placedReq(t, f)
		f.Requests[i].Placed = nil // as if Place had returned an error
		res := check(t, f)
		wantOnly(t, res, verify.UnclaimedCommit, p.Instance, "its caller got an error")
	})

	t.Run("misplaced", func(t *testing.T) {
		// The caller is told another host, one the cloud has throughout
		// the run (not removed, not added), so that the only problem is
		// the claim on the wrong host.
		f := clone()
		i, p := placedReq(t, f)
		changed := map[string]bool{}
		for _, e := range f.Events {
			switch e.Kind {
			case verify.RemoveHost:
				changed[e.Host.Host] = true
			case verify.AddHost:
				changed[e.NewHost.Host] = true
			}
		}
		var other []verify.Placed
		for j := range f.Requests {
			if pl := f.Requests[j].Placed; len(pl) > 0 && pl[0].Host != p.Host && !changed[pl[0].Host.Host] {
				other = pl
				break
			}
		}
		if other == nil {
			t.Fatal("no other host placed on that the run did not add or remove: the fault is not planted")
		}
		f.Requests[i].Placed = append([]verify.Placed(nil), f.Requests[i].Placed...)
		f.Requests[i].Placed[0].Host = other[0].Host
		res := check(t, f)
		if res.Count(verify.Misplaced) != 1 {
			t.Fatalf("misplaced %d, want 1:\n%s", res.Count(verify.Misplaced), res.Error())
		}
		t.Log(res.Error())
	})

	t.Run("order", func(t *testing.T) {
		// The order matters: a usage report moved after the claims that
		// followed it overwrites them.
		f := clone()
		last := f.Commits[len(f.Commits)-1].Version
		moved := false
		for j := range f.Events {
			e := &f.Events[j]
			if e.Kind != verify.Report {
				continue
			}
			for _, c := range f.Commits {
				if c.Host == e.Host && c.Version > e.Version {
					e.Version, moved = last+1, true
					break
				}
			}
			if moved {
				break
			}
		}
		if !moved {
			t.Fatal("no usage report of the fixture is followed by a claim on its host: the fault cannot be planted; pick another seed")
		}
		wantOnly(t, check(t, f), verify.UsageMismatch, "the store holds")
	})
}

func hostNameOf(hn engine.HostNode) string {
	if hn.Node == hn.Host {
		return hn.Host
	}
	return hn.Host + "/" + hn.Node
}

// TestAggregateChange: limits follow an aggregate's metadata. One host of
// 1000 MB in an aggregate with ram_allocation_ratio 1.0 takes one 800 MB
// instance; at 2.0 it takes a second.
func TestAggregateChange(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Filters = []string{engine.AggregateRamFilter}
	cloud := engine.Cloud{Config: cfg,
		Hosts:      []engine.Host{{Host: "h1", MemoryMB: 1000, FreeRAMMB: 1000, VCPUs: 4, LocalGB: 10, FreeDiskGB: 10}},
		Aggregates: []engine.Aggregate{{Name: "agg", Hosts: []string{"h1"}, Metadata: map[string]string{"ram_allocation_ratio": "1.0"}}}}
	store, err := engine.NewStore(cloud, engine.StoreOptions{Journal: true})
	if err != nil {
		t.Fatal(err)
	}
	sc := engine.NewScheduler(store, engine.SchedulerOptions{Workers: 1})
	defer sc.Close()
	in := verify.Input{Cloud: cloud}
	place := func(uuid string) error {
		req := engine.Request{InstanceUUIDs: []string{uuid}, Flavor: engine.Flavor{Name: "m", MemoryMB: 800, VCPUs: 1}}
		plan, err := sc.Place(context.Background(), req)
		in.Requests = append(in.Requests, verify.FromPlace(req, plan, err))
		return err
	}
	if err := place("a"); err != nil {
		t.Fatal(err)
	}
	if err := place("b"); !errors.Is(err, engine.ErrNoValidHost) {
		t.Fatalf("b at ratio 1.0: %v, want NoValidHost", err)
	}
	set := map[string]string{"ram_allocation_ratio": "2.0"}
	v, err := store.SetAggregateMetadata("agg", set, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Events = append(in.Events, verify.Event{Version: v, Kind: verify.SetAggregate, Aggregate: "agg", Set: set})
	if err := place("c"); err != nil {
		t.Fatalf("c at ratio 2.0: %v", err)
	}
	in.Commits = verify.CommitsOf(store.Journal())
	in.Final = verify.FinalOf(store.Snapshot(), store.Instances())
	if res := check(t, in); !res.OK() {
		t.Fatalf("the run fails:\n%s", res.Error())
	}
	// Had the ratio stayed 1.0, c would be over the limit.
	in.Events[0].Set = map[string]string{"note": "no ratio"}
	wantOnly(t, check(t, in), verify.Overcommit, "instance c", "AggregateRamFilter refuses")
}
