package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestWarmMatchesPlaceBatch checks that a Scheduler worker's kept batch
// (engine/warm.go) places every request exactly as PlaceBatch does on the
// same snapshot, while a Store changes under it: commits of plans (some of
// which the worker never sees), compute-node reports, instance deletions,
// and now and then a rebuild (hosts removed, aggregate metadata). Three
// workers take turns at random, so each skips some versions; requests
// repeat a few templates (so that batches are reused) between others,
// some with server groups (which are never reused).
func TestWarmMatchesPlaceBatch(t *testing.T) {
	ctx := context.Background()
	violations, current, scaled := 0, "", 0
	engine.CheckDenseRanker(func(err error) {
		if violations++; violations <= 5 {
			t.Errorf("%s: %v", current, err)
		}
	}, &scaled)
	defer engine.CheckDenseRanker(nil, nil)
	steps, hits := map[string]int{}, map[string]int{}
	for _, profile := range []string{synth.Basic, synth.Rich, synth.Edge} {
		for seed := uint64(1); seed <= 6; seed++ {
			hosts := 200 + int(seed)*150
			if profile == synth.Basic && seed <= 2 {
				hosts = 4096 + 700*int(seed) // two shards
			}
			if profile == synth.Edge {
				hosts = 0 // the generator's own small counts
			}
			g := synth.New(synth.Options{Hosts: hosts, Seed: seed, Profile: profile})
			store, err := engine.NewStore(g.Cloud(), engine.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Mostly requests a worker can start from its kept batch,
			// sometimes any other.
			var templates []engine.Request
			for len(templates) < 3 {
				r := g.Request()
				h := r.SchedulerHints
				if r.InstanceGroup == nil && r.ForceHosts == nil && r.ForceNodes == nil && r.IgnoreHosts == nil &&
					r.RequestedDestination == nil && h.SameHost == nil && h.DifferentHost == nil {
					templates = append(templates, r)
				}
			}
			rng := rand.New(rand.NewPCG(seed, 7))
			workers, last := make([]engine.Warm, 3), 0
			var committed []placed
			was := engine.SetScaledWeights(seed%2 == 0)
			for step := range 60 {
				current = fmt.Sprintf("%s/seed=%d/step=%d", profile, seed, step)
				if rng.IntN(3) == 0 {
					last = rng.IntN(len(templates))
				}
				r := templates[last]
				if rng.IntN(6) == 0 {
					r = g.Request()
				}
				r.InstanceUUIDs = nil
				r.NumInstances = 1 + rng.IntN(6)
				for k := range r.NumInstances {
					r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("w-%d-%d-%d", seed, step, k))
				}
				snap := store.Snapshot()
				want, wantErr := engine.PlaceBatch(ctx, snap, r)
				got, warm, gotErr := workers[rng.IntN(len(workers))].Place(ctx, store, snap, r)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s (warm=%v): the kept batch placed\n%+v %v\nPlaceBatch\n%+v %v", current, warm, got.Placements, gotErr, want.Placements, wantErr)
				}
				steps[profile]++
				if warm {
					hits[profile]++
				}
				change(t, store, snap, rng, wantErr == nil && rng.IntN(4) != 0, want, &committed)
			}
			engine.SetScaledWeights(was)
			for i := range workers {
				workers[i].Drop()
			}
		}
	}
	// Rich clouds weigh metrics (a ranker that is not kept) and edge
	// requests mostly hold groups or hints: basic ones must be reused.
	if hits[synth.Basic] < steps[synth.Basic]/4 || hits[synth.Edge] == 0 {
		t.Fatalf("requests placed from a kept batch: %v of %v", hits, steps)
	}
	t.Logf("requests placed from a kept batch: %v of %v; %d refreshes with scaled weights", hits, steps, scaled)
}

// change applies one random change to store: the commit of plan (when
// commit), else a compute node's report, an instance deletion, or rarely a
// rebuild.
func change(t *testing.T, store *engine.Store, snap *engine.Snapshot, rng *rand.Rand, commit bool, plan engine.Plan, committed *[]placed) {
	t.Helper()
	if commit {
		if _, err := store.Commit(plan); err == nil {
			for _, p := range plan.Placements {
				*committed = append(*committed, placed{p.InstanceUUID, engine.HostNode{Host: p.Host, Node: p.Node}})
			}
		}
	}
	id := uint32(rng.IntN(snap.Len()))
	hn := snap.HostNode(id)
	switch k := rng.IntN(20); {
	case k < 8:
		_, err := store.UpdateHost(hn, engine.HostUsage{
			FreeRAMMB: int64(rng.IntN(300000)) - 2000, FreeDiskMB: int64(rng.IntN(4000000)),
			VCPUsUsed: int64(rng.IntN(80)), NumInstances: int64(rng.IntN(40)), NumIOOps: int64(rng.IntN(10)),
		})
		if err != nil {
			t.Fatal(err)
		}
	case k < 12 && len(*committed) > 0:
		i := rng.IntN(len(*committed))
		if _, err := store.DeleteInstance((*committed)[i].uuid); err != nil {
			t.Fatal(err)
		}
		*committed = append((*committed)[:i], (*committed)[i+1:]...)
	case k == 12 && snap.Len() > 2:
		if _, err := store.RemoveHosts(hn); err != nil {
			t.Fatal(err)
		}
		kept := (*committed)[:0]
		for _, p := range *committed {
			if p.host.Host != hn.Host { // the store forgets a removed host's instances
				kept = append(kept, p)
			}
		}
		*committed = kept
	}
}

// placed is an instance committed through the store, and its host.
type placed struct {
	uuid string
	host engine.HostNode
}
