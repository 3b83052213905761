package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestFitCacheMatchesPasses places Store streams of every profile (commits
// filling the usage delta and compacting the shards they touch, a host
// added and one removed, an aggregate changed) with the resource filters'
// kept verdicts and without, on the same snapshots: the plans and errors
// must be the same, and the kept verdicts must have served passes, both
// on snapshots the verdicts were judged on and on later ones.
func TestFitCacheMatchesPasses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var kept, judged, cases int
	// place places req on snap with the kept verdicts and without, and
	// fails unless the plans and errors are the same.
	place := func(name string, snap *engine.Snapshot, req engine.Request) (engine.Plan, error) {
		t.Helper()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{NoFitCache: true})
		got, gotErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{FitKept: &kept, FitJudged: &judged})
		cases++
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: with kept verdicts\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
		}
		return got, gotErr
	}
	for pi, profile := range synth.Profiles {
		hosts := 2*4096 + 300
		if profile == synth.Edge {
			hosts = 200
		}
		gen := synth.New(synth.Options{Hosts: hosts, Seed: 7, Profile: profile})
		st, err := engine.NewStore(gen.Cloud(), engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, req := range gen.Requests(120) {
			name := fmt.Sprintf("%s/request=%d", profile, i)
			req = ownUUIDs(req, i, pi) // so that every plan can be committed
			got, gotErr := place(name, st.Snapshot(), req)
			if gotErr == nil {
				// A plan that no longer fits (the edge profile's groups)
				// is left out, as a Scheduler would place it again.
				if _, err := st.Commit(got); err != nil && !errors.Is(err, engine.ErrConflict) {
					t.Fatalf("%s: commit: %v", name, err)
				}
			}
			switch i {
			case 40:
				c := gen.Cloud()
				h := c.Hosts[0]
				h.Host, h.Node, h.UUID = "added-host", "", ""
				if _, err := st.AddHosts(h); err != nil {
					t.Fatalf("%s: add: %v", name, err)
				}
			case 60:
				c := gen.Cloud()
				h := &c.Hosts[1]
				node := h.Node
				if node == "" {
					node = h.Host
				}
				if _, err := st.RemoveHosts(engine.HostNode{Host: h.Host, Node: node}); err != nil {
					t.Fatalf("%s: remove: %v", name, err)
				}
			case 80:
				c := gen.Cloud()
				if len(c.Aggregates) > 0 {
					if _, err := st.SetAggregateMetadata(c.Aggregates[0].Name, map[string]string{"ram_allocation_ratio": "0.5", "cpu_allocation_ratio": "1.0"}, nil); err != nil {
						t.Fatalf("%s: aggregate: %v", name, err)
					}
				}
			}
		}
	}
	// Hosts that fill: every placement turns its host's RAM verdict for
	// the next request, and compactions (every 26 requests or so) fold
	// those hosts into new shards, which the kept verdicts must not
	// outlive.
	cloud := engine.Cloud{Config: engine.DefaultConfig()}
	for i := range 2*4096 + 300 {
		cloud.Hosts = append(cloud.Hosts, engine.Host{
			Host: fmt.Sprintf("fill%05d", i), MemoryMB: 6144, FreeRAMMB: 6144,
			VCPUs: 32, LocalGB: 1000, FreeDiskGB: 1000,
		})
	}
	cloud.Config.RAMAllocationRatio = 1
	st, err := engine.NewStore(cloud, engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		req := engine.Request{Flavor: engine.Flavor{Name: "half", MemoryMB: 4096, VCPUs: 1, RootGB: 10}}
		for j := range 10 {
			req.InstanceUUIDs = append(req.InstanceUUIDs, fmt.Sprintf("%08x-0000-4000-8000-ffff%08x", i, j))
		}
		name := fmt.Sprintf("filling/request=%d", i)
		got, gotErr := place(name, st.Snapshot(), req)
		if gotErr != nil {
			t.Fatalf("%s: %v", name, gotErr)
		}
		if _, err := st.Commit(got); err != nil {
			t.Fatalf("%s: commit: %v", name, err)
		}
	}
	t.Logf("%d requests; %d shard passes used kept verdicts, %d judged their hosts", cases, kept, judged)
	if kept == 0 || judged == 0 {
		t.Fatalf("the kept verdicts were not exercised: kept %d, judged %d", kept, judged)
	}
}
