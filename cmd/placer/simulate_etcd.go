package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/engine/etcdstore"
	"github.com/placer/placer/internal/etcdtest"
	"github.com/placer/placer/internal/synth"
	"github.com/placer/placer/internal/verify"
)

// etcdSim are the etcd options of placer simulate.
type etcdSim struct {
	members, placers int
	faults           bool
}

// plantEtcdFault, when set (tests), changes etcd's state before the run
// is verified.
var plantEtcdFault func(ctx context.Context, cli *clientv3.Client) error

// etcdPlacer is one placer process of the etcd simulation: its own etcd
// client, store (mirror) and Scheduler.
type etcdPlacer struct {
	cli   *clientv3.Client
	store *etcdstore.Store
	sched *engine.Scheduler
}

func (p *etcdPlacer) close() {
	p.sched.Close()
	p.store.Close()
	p.cli.Close()
}

// runEtcdSimulation is placer simulate against an embedded etcd cluster
// of o.members members on loopback, with o.placers placer stores of
// workers workers each sharing the request stream, a background stream of
// outside changes through etcd and, with o.faults, the etcd leader killed
// and restarted and one placer replaced by a fresh one mid-run. It
// verifies the run from etcd's final state alone (verifyEtcd).
func runEtcdSimulation(ctx context.Context, nHosts, nReq, workers int, seed uint64, o etcdSim, progress io.Writer) (*simReport, error) {
	gen := synth.New(synth.Options{Hosts: nHosts, Seed: seed, Profile: synth.Basic})
	cloud := gen.Cloud()
	reqs := gen.Requests(nReq)
	cl, err := etcdtest.Start(etcdtest.Options{Members: o.members, LogOutput: io.Discard})
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	admin, err := cl.NewClient()
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	if _, err := etcdstore.Load(ctx, admin, "", cloud, 0); err != nil {
		return nil, err
	}
	var stats []*etcdstore.Store
	var scheds []*engine.Scheduler
	var pmu sync.Mutex // stats and scheds
	newPlacer := func() (*etcdPlacer, error) {
		cli, err := cl.NewClient()
		if err != nil {
			return nil, err
		}
		st, err := etcdstore.Open(ctx, cli, etcdstore.Options{})
		if err != nil {
			cli.Close()
			return nil, err
		}
		sc := engine.NewSchedulerOn(st, engine.SchedulerOptions{Workers: workers})
		pmu.Lock()
		stats, scheds = append(stats, st), append(scheds, sc)
		pmu.Unlock()
		return &etcdPlacer{cli: cli, store: st, sched: sc}, nil
	}
	slots := make([]atomic.Pointer[etcdPlacer], o.placers)
	// A run that ends early closes its placers too (their watches would
	// hold the cluster's close up); the run's end closes them itself.
	placersClosed := false
	// replaced are the placers the faults replaced (set once the
	// background goroutines are waited for), closed with the others.
	var replaced []*etcdPlacer
	defer func() {
		if placersClosed {
			return
		}
		for i := range slots {
			if p := slots[i].Load(); p != nil {
				p.close()
			}
		}
		for _, p := range replaced {
			p.store.Close()
			p.cli.Close()
		}
	}()
	for i := range slots {
		p, err := newPlacer()
		if err != nil {
			return nil, err
		}
		slots[i].Store(p)
	}
	rep := &simReport{Hosts: nHosts, Workers: workers, Requests: nReq, FilterRemoved: map[string]int64{},
		EtcdMembers: o.members, Placers: o.placers}
	rep.UtilizationBefore = slots[0].Load().store.Local().Snapshot().Utilization().Map()

	var (
		mu        sync.Mutex
		committed []string
		done      atomic.Int64
		other     atomic.Int64
		unavail   atomic.Int64
		latency   = make([]float64, nReq)
		plans     = make([]engine.Plan, nReq)
		events    []verify.Event
		uncertain []verify.Event // updates whose calls failed: applied or not, etcd tells
		faults    []string
		unknown   []int // requests answered ErrUnavailable
	)
	bgCtx, stopBg := context.WithCancel(ctx)
	var bg sync.WaitGroup
	bg.Add(1)
	go func() {
		defer bg.Done()
		var refused []string
		events, uncertain, refused = etcdUpdates(bgCtx, admin, &slots[0], seed, &mu, &committed, &done, nReq)
		if !o.faults { // with faults, a change the lost leader refused is expected
			rep.UpdateErrors = len(refused)
			for _, e := range refused[:min(len(refused), 10)] {
				rep.Problems = append(rep.Problems, "update_error: "+e)
			}
		}
	}()
	if o.faults {
		bg.Add(1)
		go func() {
			defer bg.Done()
			faults, replaced = injectFaults(bgCtx, cl, slots, newPlacer, &done, nReq)
		}()
	}

	start := time.Now()
	next := make(chan int)
	var wg sync.WaitGroup
	for range 2 * workers * o.placers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				var plan engine.Plan
				var err error
				for {
					plan, err = slots[i%o.placers].Load().sched.Place(ctx, reqs[i])
					if !errors.Is(err, engine.ErrClosed) || ctx.Err() != nil {
						break // ErrClosed: the placer was replaced; the new one takes it
					}
				}
				latency[i] = time.Since(t0).Seconds()
				var nvh *engine.NoValidHostError
				switch {
				case err == nil:
					plans[i] = plan
					mu.Lock()
					for _, p := range plan.Placements {
						committed = append(committed, p.InstanceUUID)
					}
					mu.Unlock()
				case errors.As(err, &nvh):
					mu.Lock()
					for _, f := range nvh.Filters {
						rep.FilterRemoved[f.Name] += int64(f.Start - f.End)
					}
					mu.Unlock()
				case errors.Is(err, engine.ErrConflict):
				case errors.Is(err, engine.ErrUnavailable):
					// A commit's outcome may be unknown (a crash, a lost
					// leader): the instances' keys in etcd tell (verifyEtcd).
					unavail.Add(1)
					mu.Lock()
					unknown = append(unknown, i)
					mu.Unlock()
				default:
					other.Add(1)
				}
				done.Add(1)
			}
		}()
	}
feed:
	for i := range reqs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	stopBg()
	bg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The updates whose outcome the updater could not know (the leader
	// lost mid-call) are learnt from etcd, as a caller would, now that it
	// answers.
	for _, ev := range uncertain {
		applied, err := updateApplied(ctx, admin, ev)
		if err != nil {
			return nil, fmt.Errorf("simulate: reading back an update whose call failed: %w", err)
		}
		if applied {
			events = append(events, ev)
			rep.UnknownUpdatesApplied++
		}
	}
	sctx, scancel := context.WithTimeout(context.Background(), time.Minute)
	if p := slots[0].Load(); p.store.Sync(sctx) == nil {
		rep.UtilizationAfter = p.store.Local().Snapshot().Utilization().Map()
	}
	scancel()
	for i := range slots {
		slots[i].Load().close()
	}
	placersClosed = true
	for _, p := range replaced {
		p.store.Close()
		p.cli.Close()
	}
	for _, sc := range scheds {
		st := sc.Stats()
		rep.Placed += st.Placed
		rep.Placements += st.Instances
		rep.NoValidHost += st.NoValidHost
		rep.ConflictRetries += st.ConflictRetries
		rep.ConflictFailures += st.ConflictFailures
		rep.WarmStarts += st.WarmStarts
	}
	for _, st := range stats {
		s := st.Stats()
		rep.EtcdCommits += s.Commits
		rep.EtcdFailedTxns += s.FailedTxns
		rep.EtcdResends += s.Resends
		rep.EtcdRelists += s.Relists
		rep.WatchLagMaxSeconds = max(rep.WatchLagMaxSeconds, s.WatchLagMaxSeconds)
	}
	rep.OtherErrors, rep.Unavailable = other.Load(), unavail.Load()
	rep.ExternalUpdates = int64(len(events))
	rep.Faults = faults
	rep.Seconds = elapsed.Seconds()
	rep.PlacementsPerSecond = float64(rep.Placements) / elapsed.Seconds()
	slices.Sort(latency)
	rep.LatencyP50, rep.LatencyP95, rep.LatencyP99 = quantile(latency, 0.50), quantile(latency, 0.95), quantile(latency, 0.99)

	t0 := time.Now()
	vctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if plantEtcdFault != nil {
		if err := plantEtcdFault(vctx, admin); err != nil {
			return nil, err
		}
	}
	if err := verifyEtcd(vctx, admin, cloud, reqs, plans, unknown, events, rep); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // interrupted while verifying: no verdict
		return nil, err
	}
	rep.VerifySeconds = time.Since(t0).Seconds()
	rep.Verified = rep.OvercommittedHosts == 0 && rep.UsageMismatches == 0 && rep.LostClaims == 0 &&
		rep.DoubledClaims == 0 && rep.UnclaimedCommits == 0 && rep.MisplacedClaims == 0 && rep.OtherErrors == 0 &&
		rep.BadEvents == 0 && rep.UpdateErrors == 0
	return rep, nil
}

// etcdUpdates is the background stream of outside changes through etcd
// until ctx ends: compute node reports (each a compare-and-swap of the
// node's usage key with its I/O operations done, so that the report
// races the commits on the node at etcd), deletions of committed
// instances (through a placer's store), and once each a dead node, a new
// node and an aggregate metadata change.
func etcdUpdates(ctx context.Context, cli *clientv3.Client, slot *atomic.Pointer[etcdPlacer], seed uint64, mu *sync.Mutex, committed *[]string, done *atomic.Int64, total int) (evs, uncertain []verify.Event, refused []string) {
	r := rand.New(rand.NewPCG(seed, 99))
	removed, added, aggregated := false, false, false
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return evs, uncertain, refused
		case <-tick.C:
		}
		st := slot.Load().store
		snap := st.Local().Snapshot()
		progress := float64(done.Load()) / float64(max(total, 1))
		var ev verify.Event
		var err error
		// Not ctx itself: the run's end cancels ctx, and a change canceled
		// once sent may still be applied by etcd after the run reads back
		// the uncertain ones (a deletion applied then showed as a lost
		// claim). A change begun is seen through; the loop stops at the
		// next tick.
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		switch {
		case !removed && progress > 0.25 && snap.Len() > 3:
			removed = true
			ev = verify.Event{Kind: verify.RemoveHost, Host: snap.HostNode(uint32(r.IntN(snap.Len())))}
			_, err = st.RemoveHosts(octx, ev.Host)
		case !added && progress > 0.5:
			added = true
			ev = verify.Event{Kind: verify.AddHost, NewHost: lateNode}
			_, err = st.AddHosts(octx, ev.NewHost)
		case !aggregated && progress > 0.75:
			aggregated = true
			ev = maintenance
			_, err = st.SetAggregateMetadata(octx, ev.Aggregate, ev.Set, nil)
		case r.IntN(3) == 0:
			if u := takeCommitted(r, mu, committed); u != "" {
				ev = verify.Event{Kind: verify.Delete, Instance: u}
				_, err = st.DeleteInstance(octx, u)
			}
		default:
			hn := snap.HostNode(uint32(r.IntN(snap.Len())))
			ev = verify.Event{Kind: verify.Report, Host: hn}
			err = reportIOOpsDone(octx, cli, hn)
		}
		cancel()
		switch {
		case err == nil && ev.Kind != 0:
			evs = append(evs, ev)
		case err != nil && (ev.Kind == verify.Delete || ev.Kind == verify.RemoveHost || ev.Kind == verify.AddHost):
			// The outcome may be unknown (the leader lost mid-call: the
			// change may have applied); the run asks etcd once it is
			// over (updateApplied). A report's outcome is not needed:
			// the verification sets num_io_ops aside (and its compare
			// fails whenever a commit on the node came first).
			uncertain = append(uncertain, ev)
		case err != nil && ev.Kind == verify.SetAggregate:
			// Refused: the verification would hold the run to a change
			// it does not know was made.
			refused = append(refused, fmt.Sprintf("aggregate %s: %v", ev.Aggregate, err))
		}
	}
}

// updateApplied reports whether etcd holds the effect of ev (a deletion,
// a host removal or addition) whose call failed: the instance's key
// gone, the host's key gone or there. It waits up to 30 seconds for an
// answer.
func updateApplied(ctx context.Context, cli *clientv3.Client, ev verify.Event) (bool, error) {
	gctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	key := etcdstore.InstanceKey("", ev.Instance)
	switch ev.Kind {
	case verify.RemoveHost:
		key = etcdstore.HostKey("", ev.Host)
	case verify.AddHost:
		node := ev.NewHost.Node
		if node == "" { // as the engine names a node
			node = ev.NewHost.Host
		}
		key = etcdstore.HostKey("", engine.HostNode{Host: ev.NewHost.Host, Node: node})
	}
	resp, err := cli.Get(gctx, key, clientv3.WithCountOnly())
	if err != nil {
		return false, err
	}
	return (resp.Count > 0) == (ev.Kind == verify.AddHost), nil
}

// reportIOOpsDone is a compute node's report that its I/O operations are
// done: its usage key rewritten with num_io_ops 0, compared on the mod
// revision it was read at (a commit in between makes it a no-op).
func reportIOOpsDone(ctx context.Context, cli *clientv3.Client, hn engine.HostNode) error {
	st, err := etcdstore.ReadUsage(ctx, cli, "", hn)
	if err != nil {
		return err
	}
	u := st.Usage
	u.NumIOOps = 0
	return etcdstore.CompareAndSetUsage(ctx, cli, "", hn, st.ModRevision, u)
}

// injectFaults kills the etcd leader at a third of the run and restarts
// it a sixth of the run later (at a half when the kill was on time), and
// at two thirds crashes the last placer (closes its etcd client, commits
// in flight and all) and puts a fresh one in its place, which catches up
// from etcd. The fresh placer is opened from the start, while the run
// goes on (a re-list of a large cloud takes seconds), so that the crash
// comes at two thirds and not after the last request. It returns what it
// did, and the placers replaced (to close once the run is over).
func injectFaults(ctx context.Context, cl *etcdtest.Cluster, slots []atomic.Pointer[etcdPlacer], newPlacer func() (*etcdPlacer, error),
	done *atomic.Int64, total int) (faults []string, replaced []*etcdPlacer) {
	type opened struct {
		p   *etcdPlacer
		err error
	}
	fresh := make(chan opened, 1)
	if len(slots) >= 2 {
		go func() {
			p, err := newPlacer()
			fresh <- opened{p, err}
		}()
	}
	// Unless the crash took it, the fresh placer is waited for and
	// handed back with the replaced ones, to be closed.
	took := false
	defer func() {
		if len(slots) < 2 || took {
			return
		}
		if o := <-fresh; o.p != nil {
			o.p.sched.Close()
			replaced = append(replaced, o.p)
		}
	}()
	at := func(frac float64) bool {
		for float64(done.Load()) < frac*float64(total) {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(time.Millisecond):
			}
		}
		return true
	}
	if !at(1.0 / 3) {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	lead, err := cl.LeaderIndex(lctx)
	cancel()
	if err != nil {
		return append(faults, "finding the leader failed: "+err.Error()), nil
	}
	// Each fault is reported at the count of requests done when it
	// began: stopping and starting an embedded member takes seconds.
	killed := done.Load()
	if err := cl.KillMember(lead); err != nil {
		return append(faults, "killing the leader failed: "+err.Error()), nil
	}
	faults = append(faults, fmt.Sprintf("killed etcd leader m%d at %d requests", lead, killed))
	if !at(max(0.5, float64(killed)/float64(total)+1.0/6)) {
		cl.RestartMember(lead)
		return
	}
	restarted := done.Load()
	if err := cl.RestartMember(lead); err != nil {
		return append(faults, "restarting it failed: "+err.Error()), nil
	}
	faults = append(faults, fmt.Sprintf("restarted m%d at %d requests", lead, restarted))
	if !at(2.0/3) || len(slots) < 2 {
		return
	}
	// Opened while every placer keeps placing (above), so that the crash
	// below finds commits in flight.
	// Waited for even when the run is over (a short run may end during
	// the leader's outage): the crash is then a crash at the end.
	o := <-fresh
	took = true
	if o.err != nil {
		return append(faults, "starting a fresh placer failed: "+o.err.Error()), replaced
	}
	p := o.p
	crashed := done.Load()
	old := slots[len(slots)-1].Swap(p) // new requests go to p
	// The crash: the old placer's etcd client goes at once, with its
	// commits in flight (sent or not, applied or not: etcd alone knows).
	// Its Scheduler then fails every request it holds, at once.
	old.cli.Close()
	old.sched.Close()
	replaced = append(replaced, old)
	faults = append(faults, fmt.Sprintf("crashed placer %d at %d requests (its etcd client closed mid-commit); a fresh one took its place", len(slots)-1, crashed))
	return faults, replaced
}

// verifyEtcd checks the run from etcd's final state alone: every node's
// usage is its usage in the cloud (or when added) with the flavors of the
// requests told its instances consumed by the reference's arithmetic, not
// the claims the engine wrote (num_io_ops aside: reports reset it),
// within the limits of the cloud (forced placements, told by the
// requests, aside); the requests answered ErrUnavailable (unknown)
// are told what etcd holds of their instances; every instance a caller
// was told of is in etcd on its host, unless deleted or its node removed;
// every instance in etcd was told to exactly one caller; every update
// answered as done shows (BadEvents).
func verifyEtcd(ctx context.Context, cli *clientv3.Client, cloud engine.Cloud, reqs []engine.Request, plans []engine.Plan, unknown []int, events []verify.Event, rep *simReport) error {
	st, err := etcdstore.ReadState(ctx, cli, "")
	if err != nil {
		return err
	}
	problem := func(kind, format string, args ...any) {
		if len(rep.Problems) < 40 {
			rep.Problems = append(rep.Problems, kind+": "+fmt.Sprintf(format, args...))
		}
	}
	// The requests answered ErrUnavailable learn their outcome as a
	// caller would, from their instances' keys: those in etcd are theirs,
	// told now.
	for _, i := range unknown {
		for _, uuid := range reqs[i].InstanceUUIDs {
			if in, ok := st.Instances[uuid]; ok {
				plans[i].Placements = append(plans[i].Placements, engine.Placement{InstanceUUID: uuid, Host: in.Host.Host, Node: in.Host.Node})
				rep.UnknownCommitted++
			}
		}
	}
	hosts, err := verify.NewHosts(cloud)
	if err != nil {
		return err
	}
	deleted, removed := map[string]bool{}, map[engine.HostNode]bool{}
	present := map[engine.HostNode]bool{} // the hosts the updates added or removed: there at the end?
	for _, ev := range events {
		switch ev.Kind {
		case verify.Delete:
			deleted[ev.Instance] = true
		case verify.RemoveHost:
			removed[ev.Host] = true
			present[ev.Host] = false
		case verify.AddHost:
			hn, err := hosts.Add(ev.NewHost)
			if err != nil {
				return err
			}
			present[hn] = true
		}
	}
	// Every update the store answered as done is in etcd's state.
	for uuid := range deleted {
		if in, ok := st.Instances[uuid]; ok {
			rep.BadEvents++
			problem("bad_event", "%s deleted, still in etcd on %v", uuid, in.Host)
		}
	}
	for hn, want := range present {
		if _, ok := st.Hosts[hn]; ok != want {
			rep.BadEvents++
			problem("bad_event", "%v: added or removed, and in etcd %v at the end", hn, ok)
		}
	}
	// What each instance's caller was told, and of what request: its
	// flavor and whether it forced its hosts, for the usage below.
	type origin struct {
		flavor engine.Flavor
		forced bool
	}
	told := map[string]origin{}
	for i := range plans {
		o := origin{reqs[i].Flavor, len(reqs[i].ForceHosts) > 0 || len(reqs[i].ForceNodes) > 0}
		for _, p := range plans[i].Placements {
			hn := engine.HostNode{Host: p.Host, Node: p.Node}
			if _, dup := told[p.InstanceUUID]; dup {
				rep.DoubledClaims++
				problem("doubled_claim", "%s told to two callers", p.InstanceUUID)
			}
			told[p.InstanceUUID] = o
			rep.VerifiedPlacements++
			in, ok := st.Instances[p.InstanceUUID]
			switch {
			case !ok && !deleted[p.InstanceUUID] && !removed[hn]:
				rep.LostClaims++
				problem("lost_claim", "%s placed on %v, not in etcd", p.InstanceUUID, hn)
			case ok && in.Host != hn:
				rep.MisplacedClaims++
				problem("misplaced_claim", "%s placed on %v, in etcd on %v", p.InstanceUUID, hn, in.Host)
			}
		}
	}
	// The usage each host should hold: its usage in the cloud (or when it
	// joined) with the flavors of the requests told its instances
	// consumed by the reference's arithmetic, and forced from those
	// requests too: never the claims and flags the engine wrote, which a
	// wrong claim would match.
	flavors := map[engine.HostNode][]engine.Flavor{}
	forced := map[engine.HostNode]bool{}
	for uuid, in := range st.Instances {
		o, ok := told[uuid]
		if !ok {
			rep.UnclaimedCommits++
			problem("unclaimed_commit", "%s in etcd on %v, told to no caller", uuid, in.Host)
			continue // no flavor to consume: its host shows a usage mismatch too
		}
		flavors[in.Host] = append(flavors[in.Host], o.flavor)
		forced[in.Host] = forced[in.Host] || o.forced
	}
	for hn := range st.Hosts {
		w, known := hosts.Consumed(hn, flavors[hn])
		if !known {
			rep.UsageMismatches++
			problem("usage_mismatch", "%v: in etcd, neither in the cloud nor added", hn)
			continue
		}
		got, ok := st.Usage[hn]
		w.NumIOOps, got.NumIOOps = 0, 0
		if !ok || got != w {
			rep.UsageMismatches++
			problem("usage_mismatch", "%v: %+v in etcd, %+v from the cloud and the flavors of its instances", hn, got, w)
			continue
		}
		// A host over a limit from the start may stay so, no further (it
		// was skipped whole: a filter admitting instances onto a full host
		// went unseen).
		if over, _ := hosts.OverLimitsSinceStart(hn, st.Usage[hn]); len(over) > 0 {
			if forced[hn] {
				rep.ForcedOverLimits++
				continue
			}
			rep.OvercommittedHosts++
			problem("overcommitted", "%v: %v", hn, over)
		}
	}
	rep.VerifiedEvents = len(events)
	return nil
}
