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
	t.Parallel()
	violations, scaled := 0, 0
	check := func(err error) {
		if violations++; violations <= 5 {
			t.Error(err)
		}
	}
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
			on := seed%2 == 0
			rk := engine.Ranking{Scaled: &on, Check: check, ScaledRefreshes: &scaled}
			rng := rand.New(rand.NewPCG(seed, 7))
			n, h := warmRun(t, synth.Options{Hosts: hosts, Seed: seed, Profile: profile}, 60, rng.IntN, rk)
			steps[profile] += n
			hits[profile] += h
		}
	}
	// Rich clouds weigh metrics (a ranker that is not kept) and edge
	// requests mostly hold groups or hints: basic ones must be reused.
	if hits[synth.Basic] < steps[synth.Basic]/4 || hits[synth.Edge] == 0 {
		t.Fatalf("requests placed from a kept batch: %v of %v", hits, steps)
	}
	t.Logf("requests placed from a kept batch: %v of %v; %d refreshes with scaled weights", hits, steps, scaled)
}

// FuzzWarm is TestWarmMatchesPlaceBatch's run with the choices (which
// request, worker and change, how many instances) read from the input:
// a small cloud of one of the three profiles, up to 40 requests.
func FuzzWarm(f *testing.F) {
	f.Add(uint64(1), byte(0), []byte{0, 1, 2, 3, 0, 0, 1, 5, 9})
	f.Add(uint64(3), byte(2), []byte{7, 7, 7, 1, 0, 4, 4, 4, 2, 3, 9, 9})
	f.Fuzz(func(t *testing.T, seed uint64, profile byte, choices []byte) {
		opts := synth.Options{Seed: seed, Profile: []string{synth.Basic, synth.Rich, synth.Edge}[profile%3]}
		if opts.Profile != synth.Edge {
			opts.Hosts = 20 + int(seed%200)
		}
		pick := func(n int) int {
			if len(choices) == 0 {
				return 0
			}
			c := int(choices[0])
			choices = choices[1:]
			return c % n
		}
		warmRun(t, opts, min(40, 1+len(choices)/3), pick, engine.Ranking{})
	})
}

// warmRun places steps requests over a Store of the cloud of opts, each
// both with PlaceBatch and with one of three workers' kept batches, fails
// t when the two differ, and applies a change to the store after each. It
// returns the requests placed and those placed from a kept batch. Requests
// repeat a few templates (so that batches are reused), with now and then
// another one of the stream (some with server groups, never reused);
// pick(n) chooses in [0, n); both ways rank as rk says.
func warmRun(t *testing.T, opts synth.Options, steps int, pick func(n int) int, rk engine.Ranking) (n, hits int) {
	t.Helper()
	ctx := context.Background()
	g := synth.New(opts)
	store, err := engine.NewStore(g.Cloud(), engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var templates []engine.Request
	for len(templates) < 3 {
		r := g.Request()
		h := r.SchedulerHints
		if r.InstanceGroup == nil && r.ForceHosts == nil && r.ForceNodes == nil && r.IgnoreHosts == nil &&
			r.RequestedDestination == nil && h.SameHost == nil && h.DifferentHost == nil {
			templates = append(templates, r)
		}
	}
	workers, last := make([]engine.Warm, 3), 0
	for i := range workers {
		workers[i].Ranking = rk
	}
	defer func() {
		for i := range workers {
			workers[i].Drop()
		}
	}()
	var committed []placed
	for step := range steps {
		if pick(3) == 0 {
			last = pick(len(templates))
		}
		r := templates[last]
		if pick(6) == 0 {
			r = g.Request()
		}
		r.InstanceUUIDs = nil
		r.NumInstances = 1 + pick(6)
		for k := range r.NumInstances {
			r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("w-%d-%d", step, k))
		}
		snap := store.Snapshot()
		want, wantErr := engine.PlaceBatchWith(ctx, snap, r, rk)
		got, warm, gotErr := workers[pick(len(workers))].Place(ctx, store, snap, r)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v step %d (warm=%v): the kept batch placed\n%+v %v\nPlaceBatch\n%+v %v", opts, step, warm, got.Placements, gotErr, want.Placements, wantErr)
		}
		n++
		if warm {
			hits++
		}
		change(t, store, snap, pick, wantErr == nil && pick(4) != 0, want, &committed)
	}
	return n, hits
}

// change applies one random change to store: the commit of plan (when
// commit), else a compute node's report, an instance deletion, or rarely a
// rebuild.
func change(t *testing.T, store *engine.Store, snap *engine.Snapshot, pick func(int) int, commit bool, plan engine.Plan, committed *[]placed) {
	t.Helper()
	if commit {
		if _, err := store.Commit(plan); err == nil {
			for _, p := range plan.Placements {
				*committed = append(*committed, placed{p.InstanceUUID, engine.HostNode{Host: p.Host, Node: p.Node}})
			}
		}
	}
	id := uint32(pick(snap.Len()))
	hn := snap.HostNode(id)
	switch k := pick(20); {
	case k < 8:
		_, err := store.UpdateHost(hn, engine.HostUsage{
			FreeRAMMB: int64(pick(64))*4096 - 2000, FreeDiskMB: int64(pick(64)) * 65536,
			VCPUsUsed: int64(pick(80)), NumInstances: int64(pick(40)), NumIOOps: int64(pick(10)),
		})
		if err != nil {
			t.Fatal(err)
		}
	case k < 12 && len(*committed) > 0:
		i := pick(len(*committed))
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
