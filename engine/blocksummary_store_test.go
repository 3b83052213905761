package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestCompactedSummariesMatchBaseline commits a stream of ten-instance
// requests to a Store of varied hosts, so that compactions fold the usage
// delta into new shards block by block, and places every request with the
// dense ranker, its invariants checked after every refresh (its block
// statistics come from the shards' block summaries), against the baseline
// ranker: a compaction that left a changed block's summary stale fails it;
// and after every commit, every block summary is checked against its
// column (CheckSummaries), as compactions update them.
func TestCompactedSummariesMatchBaseline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gen := synth.New(synth.Options{Hosts: 2*4096 + 300, Seed: 3, Profile: synth.Basic})
	st, err := engine.NewStore(gen.Cloud(), engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	violations := 0
	for i := range 200 {
		req := engine.Request{Flavor: engine.Flavor{Name: "m1.medium", MemoryMB: 4096, VCPUs: 2, RootGB: 40}}
		for j := range 10 {
			req.InstanceUUIDs = append(req.InstanceUUIDs, fmt.Sprintf("%08x-0000-4000-8000-0000%08x", i, j))
		}
		name := fmt.Sprintf("request=%d", i)
		snap := st.Snapshot()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Baseline: true})
		got, gotErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Check: func(err error) {
			if violations++; violations <= 3 {
				t.Errorf("%s: %v", name, err)
			}
		}})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: dense ranker\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
		}
		if gotErr != nil {
			t.Fatalf("%s: %v", name, gotErr)
		}
		if _, err := st.Commit(got); err != nil {
			t.Fatalf("%s: commit: %v", name, err)
		}
		if err := engine.CheckSummaries(st.Snapshot()); err != nil {
			t.Fatalf("after %s: %v", name, err)
		}
	}
	if violations > 0 {
		t.Fatalf("%d invariant violations", violations)
	}
}
