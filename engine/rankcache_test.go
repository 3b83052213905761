package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestScoreCacheMatchesBaseline checks that the dense ranker's full
// rescorings kept across batches (rankcache.go) change no decision and no
// weight: batches placed again on one snapshot (every shard copied from
// the first batch's rescoring) and a Store's stream of committed requests
// (snapshots sharing some shards and not others after compactions, whose
// shards are derived from their parents' kept weights) place
// as the baseline ranker does, with the dense ranker's invariants checked
// after every refresh (each candidate's weight against its own
// computation).
func TestScoreCacheMatchesBaseline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var copied, weighed, derived, mixed, cases int
	violations := 0
	place := func(name string, snap *engine.Snapshot, req engine.Request) (engine.Plan, error) {
		t.Helper()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Baseline: true})
		c0, w0 := copied, weighed
		exact := false // the kept rescorings serve exact weights only
		got, gotErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{
			Scaled: &exact, CopiedShards: &copied, WeighedShards: &weighed, DerivedShards: &derived,
			Check: func(err error) {
				if violations++; violations <= 5 {
					t.Errorf("%s: %v", name, err)
				}
			},
		})
		if copied > c0 && weighed > w0 {
			mixed++
		}
		cases++
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: dense ranker with kept rescorings differs from baseline\n got %+v %v\nwant %+v %v",
				name, got.Placements, gotErr, want.Placements, wantErr)
		}
		return got, gotErr
	}
	// One snapshot, the same request twice (and a third time).
	for _, profile := range synth.Profiles {
		for seed := uint64(1); seed <= 8; seed++ {
			opts := synth.Options{Hosts: 300 + int(seed%3)*4096, Instances: 1 + int(seed%4)*10, Seed: seed, Profile: profile}
			if profile == synth.Edge {
				opts.Hosts = 30 + int(seed)
			}
			cloud, req := synth.Scenario(opts)
			snap, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatalf("%s/%d: %v", profile, seed, err)
			}
			for round := range 3 {
				place(fmt.Sprintf("%s/seed=%d/round=%d", profile, seed, round), snap, req)
			}
		}
	}
	copiedSame := copied
	// A Store's stream: commits add to the snapshot's delta and, past it,
	// compact the shards they touch.
	for _, profile := range []string{synth.Basic, synth.Rich} {
		for seed := uint64(1); seed <= 1; seed++ {
			gen := synth.New(synth.Options{Hosts: 2*4096 + 500, Seed: seed, Profile: profile})
			st, err := engine.NewStore(gen.Cloud(), engine.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			reqs := gen.Requests(50)
			// The first request again and again (fresh uuids): its bounds
			// stay put while commits fill the delta and compact shards.
			for i := range 40 {
				req := reqs[0]
				req.InstanceUUIDs = nil
				for j := range 10 {
					req.InstanceUUIDs = append(req.InstanceUUIDs, fmt.Sprintf("again-%d-%d", i, j))
				}
				req.NumInstances = len(req.InstanceUUIDs)
				reqs = append(reqs, req)
			}
			for i, req := range reqs {
				plan, err := place(fmt.Sprintf("stream %s/seed=%d/request=%d", profile, seed, i), st.Snapshot(), req)
				if err == nil {
					if _, err := st.Commit(plan); err != nil {
						t.Fatalf("stream %s/seed=%d/request=%d: commit: %v", profile, seed, i, err)
					}
				}
			}
		}
	}
	// Identical hosts, one request again and again: after the first
	// commits the bounds no longer move, so batches after a compaction
	// find the rescoring of batches before it, whose shards the
	// compaction replaced.
	cloud := engine.Cloud{Config: engine.DefaultConfig()}
	for i := range 2*4096 + 300 {
		cloud.Hosts = append(cloud.Hosts, engine.Host{
			Host: fmt.Sprintf("same%05d", i), MemoryMB: 65536, FreeRAMMB: 65536,
			VCPUs: 32, LocalGB: 1000, FreeDiskGB: 1000,
		})
	}
	st, err := engine.NewStore(cloud, engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	copiedBefore := copied
	for i := range 45 {
		req := engine.Request{Flavor: engine.Flavor{Name: "small", MemoryMB: 2048, VCPUs: 1, RootGB: 10}}
		for j := range 10 {
			req.InstanceUUIDs = append(req.InstanceUUIDs, fmt.Sprintf("same-%d-%d", i, j))
		}
		plan, err := place(fmt.Sprintf("identical hosts/request=%d", i), st.Snapshot(), req)
		if err != nil {
			t.Fatalf("identical hosts/request=%d: %v", i, err)
		}
		if _, err := st.Commit(plan); err != nil {
			t.Fatalf("identical hosts/request=%d: commit: %v", i, err)
		}
	}
	if copied == copiedBefore {
		t.Fatal("no rescoring on identical hosts copied a kept one")
	}
	t.Logf("%d batches; shards copied %d (%d on repeated snapshots), weighed %d, derived from their parent's %d; %d rescorings did both",
		cases, copied, copiedSame, weighed, derived, mixed)
	if copiedSame == 0 || copied == copiedSame || weighed == 0 || mixed == 0 || derived == 0 {
		t.Fatalf("the kept rescorings were not exercised: copied %d (%d on repeated snapshots), weighed %d, derived %d, mixed %d",
			copied, copiedSame, weighed, derived, mixed)
	}
}

// TestScoreCacheConcurrent places a varied stream of requests on one
// snapshot from several goroutines at once, each request several times,
// against the baseline ranker's plans, with the dense ranker's
// invariants checked after every refresh (each weight against its own
// computation): more distinct bounds than the cache keeps, so that
// entries are evicted while other batches still copy from them and their
// buffers are reused by later rescorings. A buffer written while a batch
// reads it shows as a failed check or a different plan when the timing
// lets it through; under -race (CI runs this test so) as a race whenever
// the two accesses meet. TestScoreBufLifecycle checks the counting
// itself, deterministically.
func TestScoreCacheConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gen := synth.New(synth.Options{Hosts: 3*4096 + 100, Seed: 7, Profile: synth.Rich})
	snap, err := engine.NewSnapshot(gen.Cloud())
	if err != nil {
		t.Fatal(err)
	}
	reqs := gen.Requests(40)
	type want struct {
		plan engine.Plan
		err  string
	}
	wants := make([]want, len(reqs))
	for i, req := range reqs {
		p, err := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Baseline: true})
		wants[i] = want{p, fmt.Sprint(err)}
	}
	const workers, rounds = 4, 3
	copied := make([]int, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exact := false
			for r := range rounds {
				for j := range reqs {
					i := (j*(g+1) + r) % len(reqs)
					got, err := engine.PlaceBatchWith(ctx, snap, reqs[i], engine.Ranking{Scaled: &exact, CopiedShards: &copied[g],
						Check: func(err error) { t.Errorf("worker %d, request %d: %v", g, i, err) }})
					if fmt.Sprint(err) != wants[i].err || !reflect.DeepEqual(got, wants[i].plan) {
						t.Errorf("worker %d, request %d: %+v %v, want the baseline's %+v %v", g, i, got.Placements, err, wants[i].plan.Placements, wants[i].err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, c := range copied {
		total += c
	}
	if total == 0 {
		t.Fatal("no shard was copied from a kept rescoring: the cache was not exercised")
	}
	if engine.ScoreBufsReused(snap) == 0 {
		t.Fatal("no kept rescoring reused an evicted one's buffers")
	}
	t.Logf("%d shards copied, %d buffers reused", total, engine.ScoreBufsReused(snap))
}

// TestScoreCacheSoftGroups: what a full rescoring writes does not depend
// on a soft group's bounds but through the term its weigher adds to the
// hosts holding no member (the members' hosts are weighed one by one
// afterwards), so requests of a soft-affinity group find the kept
// rescoring of a request without a group, and soft-anti-affinity groups
// of different sizes find each other's; every plan is the baseline's.
func TestScoreCacheSoftGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cloud := synth.Cloud(synth.Options{Hosts: 2*4096 + 300, Seed: 3, Profile: synth.Basic})
	// Members of groups on a few hosts: one on host 10, two on host 20,
	// three on host 30.
	var members []string
	for _, h := range []int{10, 20, 20, 30, 30, 30} {
		u := fmt.Sprintf("00000000-0000-0000-0000-%012d", len(members))
		cloud.Hosts[h].Instances = append(cloud.Hosts[h].Instances, u)
		members = append(members, u)
	}
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		t.Fatal(err)
	}
	request := func(group *engine.InstanceGroup, n int) engine.Request {
		r := engine.Request{InstanceGroup: group, Flavor: engine.Flavor{Name: "small", MemoryMB: 2048, VCPUs: 1, RootGB: 10}}
		for i := range n {
			r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("new-%d", i))
		}
		return r
	}
	group := func(policy string, members ...string) *engine.InstanceGroup {
		g := &engine.InstanceGroup{UUID: "g-" + policy, Policy: policy, Members: members}
		for _, m := range members {
			for _, h := range cloud.Hosts {
				if slices.Contains(h.Instances, m) {
					g.Hosts = append(g.Hosts, h.Host)
				}
			}
		}
		return g
	}
	sparse := 0
	place := func(name string, req engine.Request) (copied, weighed int) {
		t.Helper()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Baseline: true})
		exact := false
		got, err := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Scaled: &exact, CopiedShards: &copied, WeighedShards: &weighed, SparseRefreshes: &sparse,
			Check: func(err error) { t.Errorf("%s: %v", name, err) }})
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v %v, want the baseline's %+v %v", name, got.Placements, err, want.Placements, wantErr)
		}
		return copied, weighed
	}
	// A plain request's rescoring is kept from its second miss on.
	place("plain, first", request(nil, 1))
	place("plain, second", request(nil, 1))
	if c, w := place("plain, third", request(nil, 1)); c == 0 || w != 0 {
		t.Fatalf("plain request again: %d shards copied, %d weighed; the kept rescoring was not found", c, w)
	}
	soft := group(engine.PolicySoftAffinity, members...)
	if c, w := place("soft-affinity", request(soft, 1)); c == 0 || w != 0 {
		t.Errorf("soft-affinity group: %d shards copied, %d weighed; the plain request's rescoring serves it", c, w)
	}
	// Soft anti-affinity adds its multiplier to every host without a
	// member, whatever the members' counts: two groups share.
	place("soft-anti-affinity 1, first", request(group(engine.PolicySoftAntiAffinity, members[:1]...), 1))
	place("soft-anti-affinity 1, second", request(group(engine.PolicySoftAntiAffinity, members[:1]...), 1))
	if c, w := place("soft-anti-affinity 3", request(group(engine.PolicySoftAntiAffinity, members...), 1)); c == 0 || w != 0 {
		t.Errorf("soft-anti-affinity group of other counts: %d shards copied, %d weighed", c, w)
	}
	// Batches whose group's bounds move from instance to instance: when
	// only the group's did, only its hosts are weighed again.
	sparse = 0
	place("soft-affinity x 8", request(soft, 8))
	if sparse == 0 {
		t.Error("soft-affinity x 8: no refresh weighed only the group's hosts")
	}
	place("soft-anti-affinity x 8", request(group(engine.PolicySoftAntiAffinity, members...), 8))
	place("soft-anti-affinity, empty, x 8", request(group(engine.PolicySoftAntiAffinity), 8))
	place("soft-affinity, empty, x 8", request(group(engine.PolicySoftAffinity), 8))
	t.Logf("%d refreshes weighed only the group's hosts", sparse)
}

// TestScoreCacheDerivedShards checks the shards a full rescoring derives
// from a kept rescoring of their parent (rankcache.go: the parent's
// weights copied, the hosts the compaction changed weighed again by
// weighHosts): three request recipes take turns on a Store while their
// commits compact the shards under the kept rescorings, each plan against
// the baseline ranker's and every weight against its own computation
// after every refresh; once with every host's multipliers the base ones,
// once with an aggregate overriding RAM, CPU and disk multipliers on one
// host in five (weighHosts' per-host branch).
func TestScoreCacheDerivedShards(t *testing.T) {
	t.Parallel()
	for _, perHost := range []bool{false, true} {
		t.Run(fmt.Sprintf("perHostMultipliers=%v", perHost), func(t *testing.T) { derivedShards(t, perHost) })
	}
}

func derivedShards(t *testing.T, perHost bool) {
	ctx := context.Background()
	cloud := engine.Cloud{Config: engine.DefaultConfig()}
	var overridden []string
	for i := range 2*4096 + 700 {
		gen, k := int64(1+i%3), int64(i) // three hardware generations, mixed across blocks
		name := fmt.Sprintf("gen%d-%05d", gen, i)
		cloud.Hosts = append(cloud.Hosts, engine.Host{
			Host: name, MemoryMB: 32768 * gen, FreeRAMMB: 32768*gen - 1024*(k%7),
			VCPUs: 16 * gen, VCPUsUsed: k % 5, LocalGB: 500 * gen, FreeDiskGB: 500*gen - 10*(k%11),
		})
		if i%5 == 0 {
			overridden = append(overridden, name)
		}
	}
	if perHost {
		cloud.Aggregates = []engine.Aggregate{{Name: "multipliers", Hosts: overridden, Metadata: map[string]string{
			"ram_weight_multiplier": "2.5", "cpu_weight_multiplier": "-0.75", "disk_weight_multiplier": "0.3"}}}
	}
	st, err := engine.NewStore(cloud, engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flavors := []engine.Flavor{
		{Name: "small", MemoryMB: 2048, VCPUs: 1, RootGB: 10},
		{Name: "medium", MemoryMB: 8192, VCPUs: 4, RootGB: 40},
		{Name: "large", MemoryMB: 40000, VCPUs: 20, RootGB: 600},
	}
	var copied, weighed, derived int
	for i := range 120 {
		req := engine.Request{Flavor: flavors[i%len(flavors)]}
		for j := range 8 {
			req.InstanceUUIDs = append(req.InstanceUUIDs, fmt.Sprintf("derived-%d-%d", i, j))
		}
		name := fmt.Sprintf("request %d (%s)", i, req.Flavor.Name)
		snap := st.Snapshot()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Baseline: true})
		exact := false
		got, gotErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{
			Scaled: &exact, CopiedShards: &copied, WeighedShards: &weighed, DerivedShards: &derived,
			Check: func(err error) { t.Errorf("%s: %v", name, err) },
		})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: dense ranker differs from baseline\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
		}
		if gotErr != nil {
			continue
		}
		if _, err := st.Commit(got); err != nil {
			t.Fatalf("%s: commit: %v", name, err)
		}
	}
	t.Logf("shards copied %d, weighed %d, derived from their parent's %d", copied, weighed, derived)
	if derived < 3 { // one per shard at a compaction, at least
		t.Fatalf("only %d shards were derived from their parent's kept weights (copied %d, weighed %d)", derived, copied, weighed)
	}
}
