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

// TestModelSeedsMatchBaseline places the synthetic realistic stream
// (hardware generations of their own hypervisor models; images, extra
// specs and queries that rule some of them out) on a Store of several
// shards, committing each plan so that compactions derive the shards'
// summaries by model from their parents' (modelbounds.go). Every request
// is placed by the dense ranker with its invariants checked after every
// refresh (a seed that is not a bound of its block's candidates fails
// them), with and without the seeds by model, against the baseline
// ranker; after every commit each shard's summaries by model are checked
// against their computation from scratch. The seeds by model must have
// served blocks, been derived from parents, and saved refinements.
func TestModelSeedsMatchBaseline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gen := synth.New(synth.Options{Hosts: 2*4096 + 300, Seed: 7, Profile: synth.Basic})
	st, err := engine.NewStore(gen.Cloud(), engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var modelSeeds, withModels, without, derived, placed int
	violations := 0
	for i, req := range gen.Requests(400) {
		name := fmt.Sprintf("request %d", i)
		snap := st.Snapshot()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{Baseline: true})
		got, gotErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{
			ModelSeeds: &modelSeeds, Refines: &withModels,
			Check: func(err error) {
				if violations++; violations <= 3 {
					t.Errorf("%s: %v", name, err)
				}
			},
		})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: dense ranker\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
		}
		plain, plainErr := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{NoModelSeeds: true, Refines: &without})
		if fmt.Sprint(plainErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(plain, want) {
			t.Fatalf("%s: dense ranker without seeds by model\n got %+v %v\nwant %+v %v", name, plain.Placements, plainErr, want.Placements, wantErr)
		}
		if errors.Is(gotErr, engine.ErrNoValidHost) {
			continue
		}
		if gotErr != nil {
			t.Fatalf("%s: %v", name, gotErr)
		}
		if _, err := st.Commit(got); err != nil {
			t.Fatalf("%s: commit: %v", name, err)
		}
		placed++
		if derived, err = engine.CheckModelBounds(st.Snapshot()); err != nil {
			t.Fatalf("after %s: %v", name, err)
		}
	}
	t.Logf("%d requests placed; %d blocks seeded by model, %d shards' summaries derived; %d refinements, %d without the seeds by model",
		placed, modelSeeds, derived, withModels, without)
	if violations > 0 {
		t.Fatalf("%d invariant violations", violations)
	}
	if placed < 300 || modelSeeds == 0 || derived == 0 {
		t.Fatalf("too little exercised: %d requests placed, %d blocks seeded by model, %d summaries derived", placed, modelSeeds, derived)
	}
	// At 8,600 hosts (17 blocks) the seeds by model refine ~60% of the
	// leaves refined without them; at 50,000, a quarter.
	if 4*withModels > 3*without {
		t.Fatalf("the seeds by model refined %d leaves, more than three quarters of the %d without them", withModels, without)
	}
}
