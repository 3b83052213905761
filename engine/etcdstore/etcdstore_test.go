package etcdstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/etcdtest"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// tightCloud: n hosts of 4 vCPUs and 8 GiB at allocation ratio 1, so
// that a host takes exactly 4 "small" instances.
func tightCloud(n int) engine.Cloud {
	cfg := engine.DefaultConfig()
	cfg.RAMAllocationRatio, cfg.CPUAllocationRatio, cfg.DiskAllocationRatio = 1, 1, 1
	c := engine.Cloud{Config: cfg}
	for i := range n {
		c.Hosts = append(c.Hosts, engine.Host{
			Host: fmt.Sprintf("h%03d", i), MemoryMB: 8192, FreeRAMMB: 8192,
			VCPUs: 4, LocalGB: 100, FreeDiskGB: 100,
		})
	}
	return c
}

var small = engine.Flavor{Name: "small", MemoryMB: 2048, VCPUs: 1, RootGB: 10}

func req(uuids ...string) engine.Request {
	return engine.Request{InstanceUUIDs: uuids, Flavor: small}
}

// open loads cloud into a fresh prefix of the cluster (when load) and
// opens a Store on it, closed at cleanup.
func open(t *testing.T, cli *clientv3.Client, prefix string, opts Options) *Store {
	t.Helper()
	opts.Prefix = prefix
	s, err := Open(ctxT(t, 30*time.Second), cli, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func load(t *testing.T, cli *clientv3.Client, prefix string, c engine.Cloud) {
	t.Helper()
	if _, err := Load(ctxT(t, 30*time.Second), cli, prefix, c, 0); err != nil {
		t.Fatal(err)
	}
}

func place(t *testing.T, s *Store, r engine.Request) engine.Plan {
	t.Helper()
	p, err := engine.PlaceBatch(context.Background(), s.Local().Snapshot(), r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verify checks etcd's final state alone against the cloud it was loaded
// with: every host's usage is its loaded usage consumed by the claims of
// the instance keys on it (no lost or doubled claim), within the limits
// of the cloud (no overcommit). It returns the instances by uuid.
func verify(t *testing.T, cli *clientv3.Client, prefix string, c engine.Cloud) map[string]instRecord {
	t.Helper()
	k := newKeys(prefix)
	resp, err := cli.Get(ctxT(t, 30*time.Second), k.p, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	usage := map[engine.HostNode]engine.HostUsage{}
	insts := map[string]instRecord{}
	for _, kv := range resp.Kvs {
		kind, names := k.parse(string(kv.Key))
		switch kind {
		case kindUsage:
			var r usageRecord
			json.Unmarshal(kv.Value, &r)
			usage[engine.HostNode{Host: names[0], Node: names[1]}] = r.usage()
		case kindInst:
			var r instRecord
			json.Unmarshal(kv.Value, &r)
			insts[names[0]] = r
		}
	}
	want := map[engine.HostNode]engine.HostUsage{}
	limit := map[engine.HostNode]*engine.Host{}
	for i := range c.Hosts {
		want[nodeOf(&c.Hosts[i])] = hostUsage(&c.Hosts[i])
		limit[nodeOf(&c.Hosts[i])] = &c.Hosts[i]
	}
	for _, in := range insts {
		hn := engine.HostNode{Host: in.Host, Node: in.Node}
		if in.Whole {
			want[hn] = want[hn].ConsumeWhole(in.Claim)
		} else {
			want[hn] = want[hn].Consume(in.Claim)
		}
	}
	for hn, w := range want {
		got := usage[hn]
		if got != w {
			t.Errorf("%v: usage %+v in etcd, %+v from the cloud and the instances", hn, got, w)
		}
		h := limit[hn]
		if got.FreeRAMMB < 0 || got.VCPUsUsed > h.VCPUs || got.FreeDiskMB < 0 {
			t.Errorf("%v overcommitted: %+v", hn, got)
		}
	}
	return insts
}

// sameMirror checks that s's mirror has etcd's usage on every host.
func sameMirror(t *testing.T, s *Store, cli *clientv3.Client, prefix string) {
	t.Helper()
	if err := s.waitApplied(ctxT(t, 30*time.Second), mustRev(t, cli)); err != nil {
		t.Fatal(err)
	}
	k := newKeys(prefix)
	resp, err := cli.Get(ctxT(t, 30*time.Second), k.p+"usage/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	snap := s.Local().Snapshot()
	ids := map[engine.HostNode]uint32{}
	for id := range uint32(snap.Len()) {
		ids[snap.HostNode(id)] = id
	}
	if len(resp.Kvs) != snap.Len() {
		t.Errorf("mirror has %d hosts, etcd %d", snap.Len(), len(resp.Kvs))
	}
	for _, kv := range resp.Kvs {
		_, names := k.parse(string(kv.Key))
		var r usageRecord
		json.Unmarshal(kv.Value, &r)
		hn := engine.HostNode{Host: names[0], Node: names[1]}
		id, ok := ids[hn]
		if !ok {
			t.Errorf("mirror lacks %v", hn)
			continue
		}
		if got := snap.Usage(id); got != r.usage() {
			t.Errorf("mirror %v: %+v, etcd %+v", hn, got, r.usage())
		}
	}
}

func mustRev(t *testing.T, cli *clientv3.Client) int64 {
	resp, err := cli.Get(ctxT(t, 10*time.Second), "rev")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// TestLoadOpen: a loaded cloud opens as the same snapshot.
func TestLoadOpen(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(300) // more puts than one transaction holds
	cloud.Hosts[7].Node = "n/7"
	cloud.Aggregates = []engine.Aggregate{{Name: "a b", Hosts: []string{"h001"}, Metadata: map[string]string{"availability_zone": "z1"}}}
	load(t, cli, "/p/", cloud)
	s := open(t, cli, "/p/", Options{})
	want, err := engine.NewSnapshot(cloud)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Local().Snapshot()
	if got.Len() != want.Len() {
		t.Fatalf("%d hosts, want %d", got.Len(), want.Len())
	}
	for id := range uint32(want.Len()) {
		if got.HostNode(id) != want.HostNode(id) || got.Usage(id) != want.Usage(id) {
			t.Fatalf("host %d: %v %+v, want %v %+v", id, got.HostNode(id), got.Usage(id), want.HostNode(id), want.Usage(id))
		}
	}
	if !reflect.DeepEqual(got.Config(), want.Config()) {
		t.Errorf("config %+v, want %+v", got.Config(), want.Config())
	}
	s.mu.Lock()
	aggs := s.cloudLocked().Aggregates
	s.mu.Unlock()
	if !reflect.DeepEqual(aggs, cloud.Aggregates) {
		t.Errorf("aggregates %+v, want %+v", aggs, cloud.Aggregates)
	}
	// The aggregate's zone reaches the filters: h001 alone is in z1.
	z := "z1"
	r := req("z")
	r.AvailabilityZone = &z
	if p := place(t, s, r); p.Placements[0].Host != "h001" {
		t.Errorf("a request for zone z1 placed on %s, want h001", p.Placements[0].Host)
	}
	if _, err := Open(ctxT(t, 10*time.Second), cli, Options{Prefix: "/empty/"}); err == nil {
		t.Fatal("opened an empty prefix")
	}
}

// TestConcurrentPlacers: several processes' Schedulers (one Store each)
// fill a small cloud past its capacity through one etcd: no host is
// overcommitted, every placed instance is in etcd on its host, nothing
// else is, and every mirror ends with etcd's state.
func TestConcurrentPlacers(t *testing.T) {
	for _, tc := range []struct {
		name       string
		members    int
		killLeader bool
	}{{"members=1", 1, false}, {"members=3/leader-killed", 3, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := etcdtest.New(t, etcdtest.Options{Members: tc.members})
			cloud := tightCloud(10) // 40 small instances fit
			load(t, c.Client(t), "/p/", cloud)
			const placers, perPlacer = 3, 20
			var stores []*Store
			var scheds []*engine.Scheduler
			for range placers {
				st := open(t, c.Client(t), "/p/", Options{})
				sc := engine.NewSchedulerOn(st, engine.SchedulerOptions{Workers: 3, RetryBudget: 20})
				t.Cleanup(func() { sc.Close() })
				stores, scheds = append(stores, st), append(scheds, sc)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			placed := map[string]engine.HostNode{}
			var nvh, failed int
			for p := range placers {
				for i := range perPlacer {
					wg.Add(1)
					go func() {
						defer wg.Done()
						uuid := fmt.Sprintf("i-%d-%d", p, i)
						plan, err := scheds[p].Place(ctxT(t, 60*time.Second), req(uuid))
						mu.Lock()
						defer mu.Unlock()
						switch {
						case err == nil:
							placed[uuid] = engine.HostNode{Host: plan.Placements[0].Host, Node: plan.Placements[0].Node}
						case errors.Is(err, engine.ErrNoValidHost):
							nvh++
						default:
							failed++
							t.Logf("%s: %v", uuid, err)
						}
					}()
					if tc.killLeader && p == 1 && i == perPlacer/2 {
						c.Kill(t, c.Leader(t))
					}
				}
			}
			wg.Wait()
			insts := verify(t, c.Client(t), "/p/", cloud)
			for uuid, hn := range placed {
				if in, ok := insts[uuid]; !ok || in.Host != hn.Host || in.Node != hn.Node {
					t.Errorf("%s placed on %v, etcd has %+v (%v)", uuid, hn, in, ok)
				}
			}
			for uuid := range insts {
				if _, ok := placed[uuid]; !ok {
					t.Errorf("%s in etcd, not placed", uuid)
				}
			}
			if len(placed) != 40 {
				t.Errorf("%d placed, want the cloud's 40 (%d NoValidHost, %d failed)", len(placed), nvh, failed)
			}
			if !tc.killLeader && failed > 0 {
				t.Errorf("%d requests failed", failed)
			}
			var retries int64
			for i, st := range stores {
				sameMirror(t, st, c.Client(t), "/p/")
				retries += scheds[i].Stats().ConflictRetries
			}
			t.Logf("%d placed, %d NoValidHost, %d failed, %d conflict retries", len(placed), nvh, failed, retries)
		})
	}
}

// TestCommitRacesReport: a compute node report between a plan and its
// commit: the commit's compare fails, the plan is checked again on the
// report, accepted when it still fits (on the reported usage) and
// refused when it does not.
func TestCommitRacesReport(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(3)
	load(t, cli, "/p/", cloud)
	m := newMetrics(t)
	a, b := open(t, cli, "/p/", Options{Metrics: m}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)

	plan := place(t, a, req("x"))
	hn := engine.HostNode{Host: plan.Placements[0].Host, Node: plan.Placements[0].Node}
	report := engine.HostUsage{FreeRAMMB: 4096, FreeDiskMB: 50 * 1024, VCPUsUsed: 2, NumInstances: 2}
	// a's mirror does not see the report before a sends: its transaction
	// fails the compare, and a checks the plan again once its watch,
	// resumed after that first send, brings the report.
	a.stopWatch()
	if _, err := b.UpdateHost(ctx, hn, report); err != nil {
		t.Fatal(err)
	}
	resumeAfterFirstSend(a)
	if _, err := a.CommitPlan(ctx, plan); err != nil {
		t.Fatalf("a plan that still fits the report: %v", err)
	}
	got := verifyUsage(t, cli, hn)
	if want := report.Consume(plan.Claim); got != want {
		t.Fatalf("usage %+v, want the report's plus the claim %+v", got, want)
	}
	if n := testutil.ToFloat64(m.conflicts.WithLabelValues("usage")); n != 1 {
		t.Fatalf("%v usage conflicts counted, want the 1 the report caused", n)
	}

	plan = place(t, a, req("y"))
	hn = engine.HostNode{Host: plan.Placements[0].Host, Node: plan.Placements[0].Node}
	if _, err := b.UpdateHost(ctx, hn, engine.HostUsage{VCPUsUsed: 4, NumInstances: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CommitPlan(ctx, plan); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("a plan on a host reported full: %v", err)
	}
	if _, ok := a.Instances()["y"]; ok {
		t.Fatal("refused instance committed")
	}
}

// resumeAfterFirstSend restarts s's watch, stopped by the caller, once
// its next commit's first transaction has been answered: that send is
// made on the mirror as it stood, whatever the goroutines' timing.
func resumeAfterFirstSend(s *Store) {
	sends := 0
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		if sends++; sends == 1 {
			s.start()
		}
		return resp, err
	}
}

func verifyUsage(t *testing.T, cli *clientv3.Client, hn engine.HostNode) engine.HostUsage {
	t.Helper()
	resp, err := cli.Get(ctxT(t, 10*time.Second), newKeys("/p/").usage(hn))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("usage of %v: %v", hn, err)
	}
	var r usageRecord
	json.Unmarshal(resp.Kvs[0].Value, &r)
	return r.usage()
}

// TestDuplicateAcrossStores: one instance committed by two processes is
// committed once; the second commit is a ValidationError.
func TestDuplicateAcrossStores(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(3)
	load(t, cli, "/p/", cloud)
	m := newMetrics(t)
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{Metrics: m})
	ctx := ctxT(t, 30*time.Second)
	pa, pb := place(t, a, req("x")), place(t, b, engine.Request{InstanceUUIDs: []string{"x"}, Flavor: small, IgnoreHosts: []string{"h000", "h001"}})
	// b's mirror does not see a's commit before b sends its own: etcd's
	// compare of the instance key refuses it, and b's watch, resumed
	// after that first send, then brings the instance (a ValidationError
	// on the mirror).
	b.stopWatch()
	if _, err := a.CommitPlan(ctx, pa); err != nil {
		t.Fatal(err)
	}
	resumeAfterFirstSend(b)
	var ve *engine.ValidationError
	if _, err := b.CommitPlan(ctx, pb); !errors.As(err, &ve) {
		t.Fatalf("second commit of x: %v", err)
	}
	if n := testutil.ToFloat64(m.conflicts.WithLabelValues("instance")); n != 1 {
		t.Fatalf("%v instance conflicts counted, want 1", n)
	}
	if insts := verify(t, cli, "/p/", cloud); len(insts) != 1 {
		t.Fatalf("%d instances", len(insts))
	}
}

// TestAffinityAcrossStores: the first members of one affinity group,
// planned by two processes on two hosts, end on one host: the group key's
// compare makes the second commit check the group again.
func TestAffinityAcrossStores(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(4))
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)
	g := &engine.InstanceGroup{UUID: "g", Policy: engine.PolicyAffinity}
	r1, r2 := req("m1"), req("m2")
	r1.InstanceGroup, r2.InstanceGroup = g, g
	r2.IgnoreHosts = []string{"h000", "h001"}
	r1.IgnoreHosts = []string{"h002", "h003"}
	p1, p2 := place(t, a, r1), place(t, b, r2)
	if _, err := a.CommitPlan(ctx, p1); err != nil {
		t.Fatal(err)
	}
	var ce *engine.ConflictError
	if _, err := b.CommitPlan(ctx, p2); !errors.As(err, &ce) || ce.Reasons[0] != engine.ServerGroupAffinityFilter {
		t.Fatalf("second member on another host: %v", err)
	}
}

// TestTxnLimit: a plan or a cloud change whose transaction would pass
// --max-txn-ops is refused before it is sent (a *engine.ValidationError,
// not ErrUnavailable: no retry could send it), and changes nothing.
func TestTxnLimit(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(4))
	s := open(t, cli, "/p/", Options{MaxTxnOps: 5})
	ctx := ctxT(t, 30*time.Second)
	plan := place(t, s, engine.Request{InstanceUUIDs: []string{"a", "b", "c"}, Flavor: engine.Flavor{Name: "big", MemoryMB: 8192, VCPUs: 4, RootGB: 10}})
	var ve *engine.ValidationError
	if _, err := s.CommitPlan(ctx, plan); !errors.As(err, &ve) {
		t.Fatalf("6 operations past a limit of 5: %v", err)
	}
	// A partial commit of the big plan goes in two pieces.
	res, err := s.CommitPlan(ctx, plan, engine.Partial())
	if err != nil || len(res.Accepted) != 3 || s.Stats().Commits != 2 {
		t.Fatalf("partial past the limit: %+v %v, %+v", res, err, s.Stats())
	}
	if _, err := s.CommitPlan(ctx, place(t, s, req("d", "e"))); err != nil {
		t.Fatalf("3 operations: %v", err)
	}
	if insts := s.Instances(); len(insts) != 5 {
		t.Fatalf("%d instances", len(insts))
	}
	// Removing every host takes two operations per host and one per
	// instance they hold (13); adding three, two per host (6).
	all := make([]engine.HostNode, 0, 4)
	for _, h := range tightCloud(4).Hosts {
		all = append(all, engine.HostNode{Host: h.Host, Node: h.Host})
	}
	if _, err := s.RemoveHosts(ctx, all...); !errors.As(err, &ve) || errors.Is(err, engine.ErrUnavailable) ||
		!strings.Contains(err.Error(), "13 operations") {
		t.Fatalf("removing 4 hosts holding 5 instances past a limit of 5: %v", err)
	}
	more := tightCloud(7).Hosts[4:]
	if _, err := s.AddHosts(ctx, more...); !errors.As(err, &ve) || !strings.Contains(err.Error(), "6 operations") {
		t.Fatalf("adding 3 hosts past a limit of 5: %v", err)
	}
	if n := s.Local().Snapshot().Len(); n != 4 || len(s.Instances()) != 5 {
		t.Fatalf("after the refused changes: %d hosts, %d instances", n, len(s.Instances()))
	}
	if _, err := s.RemoveHosts(ctx, all[0]); err != nil { // 2 + its instances (at most 3 here)
		t.Fatalf("removing one host: %v", err)
	}
}

// TestPartialPieceUnknown: a partial commit in pieces whose second
// piece's outcome is unknown (its answer lost, the resend refused) is not
// reported with that piece rejected, as it was: it may be committed (here
// it is). The error says so and names the first piece's placements,
// which the result holds as accepted.
func TestPartialPieceUnknown(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(4)
	load(t, cli, "/p/", cloud)
	s := open(t, cli, "/p/", Options{MaxTxnOps: 5})
	sends := 0
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		switch sends++; sends {
		case 2:
			return nil, errors.New("answer lost")
		case 3:
			return nil, rpctypes.ErrPermissionDenied
		}
		return resp, err
	}
	// Three hosts of two operations each: pieces of two and one.
	plan := place(t, s, engine.Request{InstanceUUIDs: []string{"a", "b", "c"}, Flavor: engine.Flavor{Name: "big", MemoryMB: 8192, VCPUs: 4, RootGB: 10}})
	res, err := s.CommitPlan(ctxT(t, 30*time.Second), plan, engine.Partial())
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "unknown") || sends != 3 ||
		!slices.Equal(res.Accepted, []int{0, 1}) || len(res.Rejected) != 0 || !strings.Contains(err.Error(), "[0 1]") {
		t.Fatalf("a partial commit whose second piece's outcome is unknown: %+v, %v after %d sends", res, err, sends)
	}
	if insts := verify(t, cli, "/p/", cloud); len(insts) != 3 {
		t.Fatalf("%d instances in etcd, want 3 (the piece of unknown outcome was applied)", len(insts))
	}
}

// TestResumeAndRelist: a mirror whose watch stopped catches up when it
// resumes, and re-lists when the revisions it missed were compacted;
// cloud changes (hosts, aggregates, deletions) reach it.
func TestResumeAndRelist(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(4))
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	commit := func(s *Store, uuid string) {
		t.Helper()
		if _, err := s.CommitPlan(ctx, place(t, s, req(uuid))); err != nil {
			t.Fatal(err)
		}
	}
	a.stopWatch()
	commit(b, "x1")
	a.start() // resumes from its revision
	sameMirror(t, a, cli, "/p/")
	if a.Relists() != 0 || a.Local().Instances() != 1 {
		t.Fatalf("resume: %d relists, %d instances", a.Relists(), a.Local().Instances())
	}

	a.stopWatch()
	commit(b, "x2")
	if _, err := b.AddHosts(ctx, engine.Host{Host: "new", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.DeleteInstance(ctx, "x1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompactAt(ctx, 0); err != nil {
		t.Fatal(err)
	}
	a.start()
	sameMirror(t, a, cli, "/p/")
	if a.Relists() != 1 || a.Local().Instances() != 1 || a.Local().Snapshot().Len() != 5 {
		t.Fatalf("relist: %d relists, %d instances, %d hosts", a.Relists(), a.Local().Instances(), a.Local().Snapshot().Len())
	}
	// A live change of the cloud.
	if _, err := b.RemoveHosts(ctx, engine.HostNode{Host: "h000", Node: "h000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetAggregateMetadata(ctx, "agg", map[string]string{"availability_zone": "z"}, nil); err != nil {
		t.Fatal(err)
	}
	sameMirror(t, a, cli, "/p/")
	if a.Local().Snapshot().Len() != 4 {
		t.Fatalf("%d hosts after a removal", a.Local().Snapshot().Len())
	}
	// What another process removed is not found here (a service's 404).
	gone := engine.HostNode{Host: "h000", Node: "h000"}
	if _, err := a.RemoveHosts(ctx, gone); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("removing a removed node: %v, want ErrNotFound", err)
	}
	if _, err := a.UpdateHost(ctx, gone, engine.HostUsage{}); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a removed node's report: %v, want ErrNotFound", err)
	}
	if _, err := a.DeleteInstance(ctx, "x1"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("releasing a released instance: %v, want ErrNotFound", err)
	}
}

// TestCatchUpPlacedAndReleased: a mirror whose watch resumes after a
// commit and its release (one watch response holds both) does not keep
// the instance: ExternalChange applies deletions before placements, and
// the put had to be dropped from the batch rather than placed after its
// deletion (the mirror then refused the uuid as committed, for good).
func TestCatchUpPlacedAndReleased(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(4))
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	a.stopWatch()
	for _, u := range []string{"x1", "x2"} {
		if _, err := b.CommitPlan(ctx, place(t, b, req(u))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.DeleteInstance(ctx, "x1"); err != nil {
		t.Fatal(err)
	}
	a.start()
	sameMirror(t, a, cli, "/p/")
	if insts := a.Instances(); len(insts) != 1 || a.Local().Instances() != 1 {
		t.Fatalf("after the catch-up: %d instances in the mirror, %d in its local store; want x2 alone", len(insts), a.Local().Instances())
	}
	if _, err := a.CommitPlan(ctx, place(t, a, req("x1"))); err != nil {
		t.Fatalf("x1 again after its release: %v", err)
	}
}

// TestStaleMirrorRefuses: a key the mirror cannot apply (a host record
// that is not JSON) leaves its revisions ahead of its local store; until
// a re-list succeeds, commits and changes are refused (ErrUnavailable,
// nothing sent) rather than made on the older usage.
func TestStaleMirrorRefuses(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	s := open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	bad := newKeys("/p/").host(engine.HostNode{Host: "hx", Node: "hx"})
	if _, err := cli.Put(ctx, bad, "{not json"); err != nil {
		t.Fatal(err)
	}
	plan := place(t, s, req("y1"))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		stale := s.stale
		s.mu.Unlock()
		if stale != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the mirror never saw the bad key")
		}
	}
	_, err := s.CommitPlan(ctx, plan)
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "could not apply") {
		t.Fatalf("a commit on a stale mirror: %v", err)
	}
	if _, err := s.UpdateHost(ctx, engine.HostNode{Host: "h000", Node: "h000"}, engine.HostUsage{FreeRAMMB: 1}); !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("a change on a stale mirror: %v", err)
	}
	if _, err := cli.Delete(ctx, bad); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err = s.CommitPlan(ctx, place(t, s, req("y1"))); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a commit once the key is gone: %v", err)
		}
	}
	sameMirror(t, s, cli, "/p/")
}

// TestRemoveHostsLeavesGroups: removing a node drops its instances from
// their groups' records too, as releasing them does: a member kept there
// would count on a host of the same name added later, and after a
// re-list the mirror would hold it again.
func TestRemoveHostsLeavesGroups(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(3))
	s := open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)
	r := req("m1", "m2")
	r.InstanceGroup = &engine.InstanceGroup{UUID: "g", Policy: engine.PolicyAntiAffinity}
	plan := place(t, s, r)
	if _, err := s.CommitPlan(ctx, plan); err != nil {
		t.Fatal(err)
	}
	gone := plan.Placements[0]
	if _, err := s.RemoveHosts(ctx, engine.HostNode{Host: gone.Host, Node: gone.Node}); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, newKeys("/p/").group("g"))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("the group's record: %v, %v", resp, err)
	}
	var g groupRecord
	if err := json.Unmarshal(resp.Kvs[0].Value, &g); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{plan.Placements[1].InstanceUUID: plan.Placements[1].Host}; !maps.Equal(g.Members, want) || g.Policy != engine.PolicyAntiAffinity {
		t.Fatalf("the group's record after its member's host was removed: %+v, want members %v", g, want)
	}
	sameMirror(t, s, cli, "/p/")
}

// TestLostAnswer: a commit applied by etcd whose answer is lost is sent
// again; the second answer fails its compares, and its Else branch (a
// resent transaction reads its instances' keys) shows the first applied:
// the commit is reported done, once.
func TestLostAnswer(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(3)
	load(t, cli, "/p/", cloud)
	s := open(t, cli, "/p/", Options{})
	lost := 0
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		if err == nil && resp.Succeeded && lost == 0 {
			lost++
			return nil, errors.New("answer lost")
		}
		return resp, err
	}
	plan := place(t, s, req("a", "b"))
	res, err := s.CommitPlan(ctxT(t, 30*time.Second), plan)
	if err != nil || len(res.Accepted) != 2 || lost != 1 || s.Stats().Resends != 1 {
		t.Fatalf("commit with its answer lost: %+v %v (lost %d, stats %+v)", res, err, lost, s.Stats())
	}
	if insts := verify(t, cli, "/p/", cloud); len(insts) != 2 {
		t.Fatalf("%d instances in etcd, want 2", len(insts))
	}
}

// TestRefusedSend: a commit etcd refuses as such (a permission it lacks)
// fails at once, saying nothing was committed, rather than being resent
// until CommitTimeout and reported with an unknown outcome; a refusal of
// a resend leaves the earlier send's outcome unknown.
func TestRefusedSend(t *testing.T) {
	for _, tc := range []struct {
		err     error
		refused bool
	}{
		{rpctypes.ErrPermissionDenied, true},
		{rpctypes.ErrUserEmpty, true},
		{fmt.Errorf("wrapped: %w", rpctypes.ErrAuthFailed), true},
		{rpctypes.ErrTimeout, false},
		{rpctypes.ErrNoLeader, false},
		{context.DeadlineExceeded, false},
		{errors.New("connection reset"), false},
	} {
		if got := refused(tc.err); got != tc.refused {
			t.Errorf("refused(%v) = %v, want %v", tc.err, got, tc.refused)
		}
	}
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(3)
	load(t, cli, "/p/", cloud)
	s := open(t, cli, "/p/", Options{CommitTimeout: 20 * time.Second})
	sends := 0
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		sends++
		return nil, rpctypes.ErrPermissionDenied
	}
	start := time.Now()
	_, err := s.CommitPlan(ctxT(t, 30*time.Second), place(t, s, req("a")))
	if !errors.Is(err, rpctypes.ErrPermissionDenied) || errors.Is(err, engine.ErrUnavailable) || sends != 1 ||
		!strings.Contains(err.Error(), "nothing committed") || time.Since(start) > 10*time.Second {
		t.Fatalf("a refused first send: %v after %d sends, %v", err, sends, time.Since(start))
	}
	// The first send's answer lost, the resend refused: unknown.
	sends = 0
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		if sends++; sends == 1 {
			return nil, errors.New("answer lost")
		}
		return nil, rpctypes.ErrPermissionDenied
	}
	_, err = s.CommitPlan(ctxT(t, 30*time.Second), place(t, s, req("b")))
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "unknown") || sends != 2 {
		t.Fatalf("a refused resend: %v after %d sends", err, sends)
	}
}

// TestClosedRefuses: after Close, commits and changes fail at once with
// ErrClosed (matching engine.ErrClosed), rather than wait their timeout
// for a mirror that no longer follows etcd; the mirror stays readable.
func TestClosedRefuses(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	s := open(t, cli, "/p/", Options{})
	plan := place(t, s, req("a"))
	s.Close()
	ctx := ctxT(t, 30*time.Second)
	start := time.Now()
	if _, err := s.CommitPlan(ctx, plan); !errors.Is(err, ErrClosed) || !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("a commit after Close: %v", err)
	}
	if _, err := s.UpdateHost(ctx, engine.HostNode{Host: "h000", Node: "h000"}, engine.HostUsage{FreeRAMMB: 1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("a change after Close: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the refusals took %v", took)
	}
	if s.Local().Snapshot().Len() != 2 {
		t.Error("the mirror is not readable after Close")
	}
	if resp, err := cli.Get(ctx, InstanceKey("/p/", "a")); err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("the refused commit reached etcd: %v, %v", resp, err)
	}
}

// TestCrashMidCommit: a commit whose client is closed after etcd applied
// it and before the answer came back (the placer process going down)
// ends at once, not after Options.CommitTimeout, with an error matching
// engine.ErrUnavailable that says the outcome is unknown; the instances'
// keys tell it (here: applied, once).
func TestCrashMidCommit(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	admin := c.Client(t)
	cloud := tightCloud(3)
	load(t, admin, "/p/", cloud)
	cli, err := c.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	s := open(t, cli, "/p/", Options{CommitTimeout: time.Minute})
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		if err == nil && resp.Succeeded {
			cli.Close() // the crash: the answer never reaches the caller
			return nil, errors.New("answer lost with the process")
		}
		return resp, err
	}
	plan := place(t, s, req("a", "b"))
	start := time.Now()
	_, err = s.CommitPlan(context.Background(), plan)
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "outcome unknown") || time.Since(start) > 10*time.Second {
		t.Fatalf("commit on a client closed mid-send: %v after %v, want ErrUnavailable (outcome unknown) at once", err, time.Since(start))
	}
	if insts := verify(t, admin, "/p/", cloud); len(insts) != 2 {
		t.Fatalf("%d instances in etcd, want the 2 the lost answer applied", len(insts))
	}
}

// TestIronicAcrossStores: an instance on an ironic node (ironic host
// manager) takes the node whole through etcd: its record says so and
// holds what it took, a second store sees the node full and cannot place
// there, and deleting the instance from the second store frees the node
// whole, its counters unchanged.
func TestIronicAcrossStores(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(2)
	cloud.Config.HostManager = engine.HostManagerIronic
	cloud.Config.Weighers = []string{engine.RAMWeigher}
	ironic := engine.HVTypeIronic
	cloud.Hosts[0].HypervisorType = &ironic // h000: a bare-metal node
	cloud.Hosts[1].FreeRAMMB = 4096         // h001: an ordinary host, less free
	load(t, cli, "/p/", cloud)
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	plan := place(t, a, req("bm-1"))
	if plan.Placements[0].Host != "h000" {
		t.Fatalf("bm-1 on %s, want the ironic node h000", plan.Placements[0].Host)
	}
	if _, err := a.CommitPlan(ctxT(t, 30*time.Second), plan); err != nil {
		t.Fatal(err)
	}
	insts := verify(t, cli, "/p/", cloud) // usage = the records' claims, whole or not
	if r := insts["bm-1"]; !r.Whole || r.Claim.MemoryMB != 8192 || r.Claim.DiskMB != 100*1024 {
		t.Fatalf("bm-1's record %+v, want whole, taking the node's 8192 MB and 100 GB", r)
	}
	if err := b.Sync(ctxT(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	hn := engine.HostNode{Host: "h000", Node: "h000"}
	full := engine.HostUsage{VCPUsUsed: 4}
	if u := usageOn(t, b, hn); u != full {
		t.Errorf("the second store sees h000 at %+v, want consumed whole %+v", u, full)
	}
	if p := place(t, b, req("vm-1")); p.Placements[0].Host != "h001" {
		t.Errorf("vm-1 on %s, want h001 (h000 is taken whole)", p.Placements[0].Host)
	}
	if _, err := b.DeleteInstance(ctxT(t, 30*time.Second), "bm-1"); err != nil {
		t.Fatal(err)
	}
	verify(t, cli, "/p/", cloud)
	if err := a.Sync(ctxT(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if u, free := usageOn(t, a, hn), (engine.HostUsage{FreeRAMMB: 8192, FreeDiskMB: 100 * 1024}); u != free {
		t.Errorf("h000 after bm-1's deletion: %+v, want %+v", u, free)
	}
}

// usageOn is hn's usage in s's mirror.
func usageOn(t *testing.T, s *Store, hn engine.HostNode) engine.HostUsage {
	t.Helper()
	snap := s.Local().Snapshot()
	for id := range uint32(snap.Len()) {
		if snap.HostNode(id) == hn {
			return snap.Usage(id)
		}
	}
	t.Fatalf("no %v in the mirror", hn)
	return engine.HostUsage{}
}

// TestLateStore: a store opened after others committed starts from
// etcd's state, places on it, and its commits reach the others: a plan
// made on the first store before them no longer fits.
func TestLateStore(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2)) // room for 8
	a := open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)
	for i := range 6 {
		if _, err := a.CommitPlan(ctx, place(t, a, req(fmt.Sprint("a", i)))); err != nil {
			t.Fatal(err)
		}
	}
	late := open(t, cli, "/p/", Options{})
	if late.Local().Instances() != 6 {
		t.Fatalf("late store: %d instances, want 6", late.Local().Instances())
	}
	sameMirror(t, late, cli, "/p/")
	if _, err := engine.PlaceBatch(context.Background(), late.Local().Snapshot(), req("x", "y", "z")); !errors.Is(err, engine.ErrNoValidHost) {
		t.Fatalf("3 more on a cloud with room for 2: %v", err)
	}
	stale := place(t, a, req("p"))
	if _, err := late.CommitPlan(ctx, place(t, late, req("x", "y"))); err != nil {
		t.Fatalf("the late store's 2 on a cloud with room for 2: %v", err)
	}
	if _, err := a.CommitPlan(ctx, stale); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("a plan made before the late store filled the cloud: %v, want a conflict", err)
	}
}

// TestWatchAcrossMemberRestart: a store whose client reaches one member
// only keeps placing after that member is stopped and restarted, and
// catches up with the commits made meanwhile through the others.
func TestWatchAcrossMemberRestart(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{Members: 3})
	load(t, c.Client(t), "/p/", tightCloud(4))
	lone := open(t, c.Client(t, 2), "/p/", Options{})
	other := open(t, c.Client(t, 0, 1), "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	c.Stop(t, 2)
	for i := range 3 {
		if _, err := other.CommitPlan(ctx, place(t, other, req(fmt.Sprint("o", i)))); err != nil {
			t.Fatal(err)
		}
	}
	c.Restart(t, 2)
	sameMirror(t, lone, c.Client(t, 2), "/p/")
	if lone.Local().Instances() != 3 {
		t.Fatalf("after the restart: %d instances, want 3", lone.Local().Instances())
	}
	if _, err := lone.CommitPlan(ctx, place(t, lone, req("l"))); err != nil {
		t.Fatal(err)
	}
	sameMirror(t, other, c.Client(t, 0), "/p/")
}

func newMetrics(t *testing.T) *Metrics {
	t.Helper()
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestContentionGivesUp: a commit whose transaction fails its compares
// more than Options.Rebases times is a ConflictError (ReasonContention),
// each failure counted by cause; the last one does not hold the caller
// for a stalled watch (only the metrics' cause waits, at most a second).
func TestContentionGivesUp(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(3))
	m := newMetrics(t)
	a, b := open(t, cli, "/p/", Options{Rebases: 1, Metrics: m, CommitTimeout: time.Minute}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)
	plan := place(t, a, req("x"))
	hn := engine.HostNode{Host: plan.Placements[0].Host, Node: plan.Placements[0].Node}
	report := func(free int64) {
		t.Helper()
		if _, err := b.UpdateHost(ctx, hn, engine.HostUsage{FreeRAMMB: free, FreeDiskMB: 50 * 1024}); err != nil {
			t.Fatal(err)
		}
	}
	// a's watch is stopped whenever another process reports the host, so
	// that each of a's two sends fails its compare: the first on the
	// report before it; the second, sent once a's mirror has caught up
	// with the first failure, on a report made right after.
	a.stopWatch()
	report(4000)
	sends := 0
	a.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		if sends++; sends == 1 && err == nil {
			a.start()
			for a.Revision() < resp.Header.Revision {
				time.Sleep(time.Millisecond)
			}
			a.stopWatch()
			report(3000)
		}
		return resp, err
	}
	start := time.Now()
	_, err := a.CommitPlan(ctx, plan)
	var ce *engine.ConflictError
	if !errors.As(err, &ce) || len(ce.Reasons) != 1 || ce.Reasons[0] != ReasonContention {
		t.Fatalf("commit failing its compares twice with Rebases 1: %v, want a ConflictError (%s)", err, ReasonContention)
	}
	if d := time.Since(start); sends != 2 || d > 10*time.Second {
		t.Fatalf("gave up after %d sends and %v; want 2 sends, and no wait for the stalled watch", sends, d)
	}
	// The first failure's cause is read from the mirror it caught up
	// with; the second's, after its second of waiting, from a mirror that
	// shows none, which counts as "usage" too.
	if n := testutil.ToFloat64(m.conflicts.WithLabelValues("usage")); n != 2 {
		t.Fatalf("%v usage conflicts counted, want 2", n)
	}
}

// TestRefusedChangesWriteNothing: a cloud change every mirror's rebuild
// would refuse is a *engine.ValidationError naming the field, before
// anything is written (written, it would stop every mirror on the
// prefix), and the store goes on taking changes.
func TestRefusedChangesWriteNothing(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(4))
	s := open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	ok := engine.Host{Host: "new", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}
	bad := ok
	bad.Host, bad.MemoryMB = "bad", -1
	rev := mustRev(t, cli)
	for _, tc := range []struct {
		name, field string
		change      func() error
	}{
		{"negative memory", "hosts[1].memory_mb", func() error { _, err := s.AddHosts(ctx, ok, bad); return err }},
		{"twice in one call", "hosts[1]", func() error { _, err := s.AddHosts(ctx, ok, ok); return err }},
		{"already there", "hosts[0]", func() error { _, err := s.AddHosts(ctx, engine.Host{Host: "h001", MemoryMB: 1}); return err }},
		{"no aggregate name", "aggregate.name", func() error { _, err := s.SetAggregateMetadata(ctx, "", nil, nil); return err }},
		{"NaN multiplier", "aggregate.metadata.cpu_weight_multiplier", func() error {
			_, err := s.SetAggregateMetadata(ctx, "agg", map[string]string{"cpu_weight_multiplier": "nan"}, nil)
			return err
		}},
		{"negative report", "usage.num_io_ops", func() error {
			_, err := s.UpdateHost(ctx, engine.HostNode{Host: "h001", Node: "h001"}, engine.HostUsage{NumIOOps: -1})
			return err
		}},
	} {
		var ve *engine.ValidationError
		if err := tc.change(); !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("%s: %v, want a ValidationError on %s", tc.name, err, tc.field)
		}
		if r := mustRev(t, cli); r != rev {
			t.Fatalf("%s: etcd's revision moved %d -> %d", tc.name, rev, r)
		}
	}
	if _, err := s.AddHosts(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if n := s.Local().Snapshot().Len(); n != 5 {
		t.Fatalf("the mirror has %d hosts after adding one to 4", n)
	}
}

// TestCommitHonoursCallerWhileBusy: a commit waiting behind this
// process's commit on the same host gives up when its caller's context
// is done, with that context's error and nothing of it sent, rather than
// after CommitTimeout.
func TestCommitHonoursCallerWhileBusy(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(1))
	s := open(t, cli, "/p/", Options{CommitTimeout: time.Minute})
	first, second := place(t, s, req("a")), place(t, s, req("b"))
	answered, release := make(chan struct{}), make(chan struct{})
	var hold sync.Once
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		hold.Do(func() { // the first commit's answer: hold it
			close(answered)
			<-release
		})
		return resp, err
	}
	done := make(chan error, 1)
	go func() { _, err := s.CommitPlan(context.Background(), first); done <- err }()
	<-answered // "a" is sent and answered, and holds its host until the mirror has it
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.CommitPlan(ctx, second)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 30*time.Second {
		t.Errorf("a commit waiting behind another: %v after %v, want the caller's deadline", err, time.Since(start))
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if insts := s.Instances(); len(insts) != 1 || insts["a"] == (engine.HostNode{}) {
		t.Fatalf("instances %v, want a alone", insts)
	}
	resp, err := cli.Get(ctxT(t, 10*time.Second), newKeys("/p/").inst("b"))
	if err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("instance b in etcd: %v %v", resp, err)
	}
}

// TestAddHostsAgainstOtherProcesses: a host another process added, which
// this mirror has not seen yet, is checked too: the transaction fails
// its compare and the addition is checked again on the caught-up mirror,
// so two processes cannot write between them a cloud every mirror
// refuses (here two hosts of one uuid).
func TestAddHostsAgainstOtherProcesses(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	host := func(name string) engine.Host {
		return engine.Host{Host: name, UUID: "same", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}
	}
	b.stopWatch() // b's mirror stops at the loaded cloud
	if _, err := a.AddHosts(ctx, host("x")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := b.AddHosts(ctx, host("y")); done <- err }()
	time.Sleep(300 * time.Millisecond) // b's first transaction: sent on its stale mirror
	if resp, err := cli.Get(ctx, newKeys("/p/").host(engine.HostNode{Host: "y", Node: "y"})); err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("y written on a mirror that has not seen x: %v %v", resp, err)
	}
	b.start()
	var ve *engine.ValidationError
	if err := <-done; !errors.As(err, &ve) || ve.Field != "hosts[0].uuid" {
		t.Fatalf("y with x's uuid: %v, want a ValidationError on hosts[0].uuid", err)
	}
	late := open(t, cli, "/p/", Options{}) // the cloud in etcd still opens
	if n := late.Local().Snapshot().Len(); n != 3 {
		t.Fatalf("%d hosts, want 3", n)
	}
}

// TestEarlyProgressSkipsNothing: a progress notification whose revision
// is past events the watch has not delivered yet (what etcd before the
// fix of etcd-io/etcd#15220 answered a requested notification with)
// makes the mirror drop none of them: it resumes from the last event
// applied. The notification raised that watermark, so the resumed watch
// started past another process's report and never applied it.
func TestEarlyProgressSkipsNothing(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)
	hn := engine.HostNode{Host: "h000", Node: "h000"}
	a.stopWatch()
	if _, err := b.UpdateHost(ctx, hn, engine.HostUsage{FreeRAMMB: 1000, FreeDiskMB: 100 << 10}); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, "/p/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	a.progressed(resp.Header.Revision + 5) // early: the report is still to come
	a.start()
	// Sync would return at once (the notification says the revision is
	// reached): wait for the report itself.
	id := uint32(0)
	for a.Local().Snapshot().HostNode(id) != hn {
		id++
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := a.Local().Snapshot().Usage(id).FreeRAMMB
		if got == 1000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a's mirror 10 s after an early progress notification: free RAM %d, want the report's 1000", got)
		}
	}
}

// TestCloseEndsCommitWait: a commit written to etcd whose mirror stalls
// returns when the Store is closed, not at the end of CommitTimeout.
func TestCloseEndsCommitWait(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	s := open(t, cli, "/p/", Options{CommitTimeout: time.Minute})
	plan := place(t, s, req("x"))
	s.stopWatch() // the mirror stalls: the commit waits for it
	sent := make(chan struct{})
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		close(sent)
		return resp, err
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := s.CommitPlan(ctxT(t, time.Minute), plan)
		done <- err
	}()
	<-sent
	s.Close()
	select {
	case err := <-done:
		if err != nil { // written: the commit stands
			t.Errorf("the commit: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("a commit waiting for a stalled mirror still waits %v after Close", time.Since(start))
	}
}

// TestCommitTimeoutFromFirstSend: a commit that waited behind this
// process's commit on its host gets its whole CommitTimeout once sent.
// Its deadline ran from its start, so a first send answered by an error
// after the wait left it no time to resend: an outcome unknown.
func TestCommitTimeoutFromFirstSend(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(1))
	const timeout = 6 * time.Second // margins of 1.8 s before the send and 3.6 s after, on a loaded machine
	s := open(t, cli, "/p/", Options{CommitTimeout: timeout})
	first, second := place(t, s, req("a")), place(t, s, req("b")) // both on h000
	var mu sync.Mutex
	sends := 0
	firstSent := make(chan struct{})
	s.afterSend = func(resp *clientv3.TxnResponse, err error) (*clientv3.TxnResponse, error) {
		mu.Lock()
		sends++
		n := sends
		mu.Unlock()
		switch n {
		case 1: // the first commit holds the host 0.7 of the timeout
			close(firstSent)
			time.Sleep(timeout * 7 / 10)
		case 2: // the second's first send: answered late, by an error
			time.Sleep(timeout * 4 / 10)
			return nil, rpctypes.ErrTimeout
		}
		return resp, err
	}
	ctx := ctxT(t, time.Minute)
	errc := make(chan error, 1)
	go func() {
		_, err := s.CommitPlan(ctx, first)
		errc <- err
	}()
	<-firstSent
	if _, err := s.CommitPlan(ctx, second); err != nil {
		t.Fatalf("the commit that waited its turn: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Instances()["b"]; !ok {
		t.Fatal("b not committed")
	}
}

// TestStaleMirrorRelists: a mirror that could not apply etcd's state (a
// host its engine refuses) follows etcd again by a re-list alone, once
// the host is gone. A watch replaying the addition and the removal in
// one response applied them over the maps and left the mirror stale:
// commits were refused for good.
func TestStaleMirrorRelists(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	s := open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 60*time.Second)
	hn := engine.HostNode{Host: "hx", Node: "hx"}
	bad := newKeys("/p/").host(hn)
	refused := hostRecord{Order: 9, Host: engine.Host{Host: "hx", MemoryMB: -5, VCPUs: 1, LocalGB: 1}}
	for round := range 3 {
		if _, err := cli.Put(ctx, bad, mustJSON(refused)); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			s.mu.Lock()
			stale := s.stale
			s.mu.Unlock()
			if stale != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the mirror never refused the host")
			}
		}
		s.stopWatch() // its catch-up will hold the addition and the removal
		if _, err := cli.Delete(ctx, bad); err != nil {
			t.Fatal(err)
		}
		s.start()
		var err error
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err = s.CommitPlan(ctx, place(t, s, req(fmt.Sprintf("y%d", round)))); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: a commit once the host is gone: %v", round, err)
			}
		}
	}
	sameMirror(t, s, cli, "/p/")
}

// TestAppliedEarlierByNonce: a resend's failure shows an earlier send of
// the same transaction applied only when the instance records are that
// transaction's (its nonce), not when another process committed the same
// uuids on the same host (both would have reported success).
func TestAppliedEarlierByNonce(t *testing.T) {
	hn := engine.HostNode{Host: "h000", Node: "h000"}
	tx := &txn{insts: []string{"x"}, host: []engine.HostNode{hn}, nonce: "mine", resent: true}
	answer := func(nonce string) *clientv3.TxnResponse {
		rec := mustJSON(instRecord{Host: hn.Host, Node: hn.Node, Txn: nonce})
		return &clientv3.TxnResponse{Responses: []*etcdserverpb.ResponseOp{{Response: &etcdserverpb.ResponseOp_ResponseRange{
			ResponseRange: &etcdserverpb.RangeResponse{Kvs: []*mvccpb.KeyValue{{Key: []byte("x"), Value: []byte(rec)}}}}}}}
	}
	s := &Store{}
	if !s.appliedEarlier(answer("mine"), tx) {
		t.Error("the transaction's own records: not applied earlier")
	}
	if s.appliedEarlier(answer("theirs"), tx) {
		t.Error("another commit's records of the same uuids and host: applied earlier")
	}
}

// TestErrorClasses: etcd's and gRPC's refusals of a request for its size
// are "too large" (no resend would pass), the space quota's alarm its own
// class (nothing written; unavailable until an operator disarms it); a
// timeout is none (its outcome unknown).
// gRPC's own limit was neither: resent until the timeout, then reported
// as an unknown outcome, though nothing was ever sent.
func TestErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		err                        error
		tooLarge, refused, noSpace bool
	}{
		{rpctypes.ErrRequestTooLarge, true, true, false}, // InvalidArgument: refused too (the callers ask tooLarge first)
		{rpctypes.ErrTooManyOps, true, true, false},
		{status.Error(codes.ResourceExhausted, "grpc: trying to send message larger than max (3145728 vs. 2097152)"), true, false, false},
		{status.Error(codes.ResourceExhausted, "grpc: received message larger than max (3145728 vs. 1572864)"), true, false, false},
		{rpctypes.ErrNoSpace, false, false, true},
		{rpctypes.ErrPermissionDenied, false, true, false},
		{rpctypes.ErrTimeout, false, false, false},
	} {
		if got := tooLarge(tc.err); got != tc.tooLarge {
			t.Errorf("tooLarge(%v) = %v", tc.err, got)
		}
		if got := refused(tc.err); got != tc.refused {
			t.Errorf("refused(%v) = %v", tc.err, got)
		}
		if got := noSpace(tc.err); got != tc.noSpace {
			t.Errorf("noSpace(%v) = %v", tc.err, got)
		}
	}
}

// TestLoadRefusesHugeRecords: a cloud one of whose records no request
// could carry is refused before the prefix is touched, naming it.
func TestLoadRefusesHugeRecords(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	load(t, cli, "/p/", tightCloud(2))
	huge := tightCloud(2)
	for i := range 60000 {
		huge.Hosts[1].Instances = append(huge.Hosts[1].Instances, fmt.Sprintf("instance-%08d", i))
	}
	huge.Hosts[1].NumInstances = int64(len(huge.Hosts[1].Instances))
	_, err := Load(ctxT(t, 30*time.Second), cli, "/p/", huge, 0)
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "hosts[1]" {
		t.Fatalf("loading a host of 60,000 instances: %v, want a ValidationError on hosts[1]", err)
	}
	s := open(t, cli, "/p/", Options{}) // the cloud before is still there
	if n := s.Local().Snapshot().Len(); n != 2 {
		t.Fatalf("after the refused load: %d hosts", n)
	}
}

// TestReaddedHostAcrossStores: a node another process removed and added
// again (here disabled) is another host for the plans made before on
// this process's mirror: their commits are refused (HostRemoved), not
// checked on resources alone.
func TestReaddedHostAcrossStores(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := c.Client(t)
	cloud := tightCloud(1)
	load(t, cli, "/p/", cloud)
	a, b := open(t, cli, "/p/", Options{}), open(t, cli, "/p/", Options{})
	ctx := ctxT(t, 30*time.Second)
	plan := place(t, a, req("x"))
	hn := engine.HostNode{Host: "h000", Node: "h000"}
	if _, err := b.RemoveHosts(ctx, hn); err != nil {
		t.Fatal(err)
	}
	h := cloud.Hosts[0]
	h.Service.Disabled = true
	if _, err := b.AddHosts(ctx, h); err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := a.CommitPlan(ctx, plan)
	var ce *engine.ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Reasons, []string{"HostRemoved"}) {
		t.Fatalf("a plan made before the node was removed and added again: %v, want a HostRemoved conflict", err)
	}
}
