package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/synth"
)

// TestStoreStateMatchesReference holds a Store's later state to the
// reference: after commits and releases (past the usage delta's
// compaction, over two shards), a request placed on the Store's newest
// snapshot decides as the reference decides on the cloud that state
// describes: the hosts' usage as the snapshot has it, the instances the
// Store committed on their hosts' lists, and, for a request of a group
// the Store has committed members of, those members and their hosts in
// its group (as Nova's database would give them). Rebuilds come with an
// aggregate change, and with dead nodes removed (their instances
// forgotten) and added back. Some requests rejoin an earlier request's
// group, as a caller's second batch does, and some
// name instances the Store committed in their same_host and
// different_host hints. Every other differential test places one request
// on a fresh snapshot: this one reads the Store's delta, ledger and group
// record, and its kept rescorings and verdicts across requests.
func TestStoreStateMatchesReference(t *testing.T) {
	t.Parallel()
	seeds, requests := uint64(3), 300
	if testing.Short() {
		seeds, requests = 1, 200
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		// The rich profile enables the whole filter catalogue, the
		// same_host and different_host filters among them.
		profile := []string{synth.Rich, synth.Basic}[(seed-1)%2]
		gen := synth.New(synth.Options{Hosts: 4200, Seed: seed, Profile: profile}) // two shards
		cloud := gen.Cloud()
		store, err := engine.NewStore(cloud, engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w := storeWorld{World: plandiff.NewWorld(cloud)}
		r := rand.New(rand.NewPCG(seed, 11))
		checked, decided := 0, map[string]int{}
		for i, req := range gen.Requests(requests) {
			req = w.rewrite(r, req)
			snap := store.Snapshot()
			plan, err := engine.PlaceBatch(context.Background(), snap, req)
			hinted := profile == synth.Rich && len(req.SchedulerHints.SameHost)+len(req.SchedulerHints.DifferentHost) > 0
			if i%12 == 11 || hinted {
				materialised, merr := w.Materialise(snap)
				if merr != nil {
					t.Fatalf("seed %d request %d: %v", seed, i, merr)
				}
				want := plandiff.RunReference(materialised, w.WithCommittedMembers(req))
				got := plandiff.Outcome{Plan: plan, Err: err}
				if d := plandiff.Compare(got, want); len(d) > 0 {
					t.Fatalf("seed %d (%s) request %d after %d commits, %d releases and %d rebuilds: the Store's snapshot and the reference differ:\n%v",
						seed, profile, i, w.commits, w.releases, w.rebuilds, d)
				}
				checked++
				decided[plandiff.Kind(got)]++
			}
			if err == nil {
				if _, err := store.Commit(plan); err != nil {
					t.Fatalf("seed %d request %d: %v", seed, i, err)
				}
				w.committed(req, plan)
			}
			if len(w.Order) > 0 && r.IntN(3) == 0 {
				u := w.Order[r.IntN(len(w.Order))]
				if _, err := store.DeleteInstance(u); err != nil {
					t.Fatal(err)
				}
				w.released(u)
			}
			if i%50 == 49 {
				// A rebuild (an aggregate of no host changes): the lists
				// take the live instances in, and later releases must
				// take them out again.
				if _, err := store.SetAggregateMetadata("storediff", map[string]string{"round": fmt.Sprint(i)}, nil); err != nil {
					t.Fatal(err)
				}
				w.rebuilds++
			}
			if i%70 == 69 {
				// A dead node removed (its instances forgotten), and one
				// removed before added back (its record's usage again).
				id := r.IntN(len(w.Cloud.Hosts))
				h := w.Cloud.Hosts[id]
				node := h.Node
				if node == "" {
					node = h.Host
				}
				if _, err := store.RemoveHosts(engine.HostNode{Host: h.Host, Node: node}); err != nil {
					t.Fatal(err)
				}
				w.removeHost(id, engine.HostNode{Host: h.Host, Node: node})
			}
			if i%90 == 89 && len(w.removed) > 0 {
				h := w.removed[0]
				w.removed = w.removed[1:]
				if _, err := store.AddHosts(h); err != nil {
					t.Fatal(err)
				}
				w.AddHost(h)
				w.rebuilds++
			}
		}
		// The comparisons reached what they are for: placements after a
		// compaction (more hosts changed than the delta holds), and both
		// outcomes.
		if checked == 0 || decided["ok"] == 0 || w.commits < 300 {
			t.Fatalf("seed %d: %d requests checked (%v), %d instances committed", seed, checked, decided, w.commits)
		}
	}
}

// storeWorld is what the test knows of a Store's changes, with its
// counts and what it may send again.
type storeWorld struct {
	*plandiff.World
	lastGroup         *engine.InstanceGroup
	removed           []engine.Host // nodes removed, to add back
	commits, releases int
	rebuilds          int
}

func (w *storeWorld) committed(req engine.Request, plan engine.Plan) {
	w.Committed(req, plan)
	w.commits += len(plan.Placements)
}

// removeHost drops node id (hn) of the cloud and forgets the instances
// committed on it, as the Store does.
func (w *storeWorld) removeHost(id int, hn engine.HostNode) {
	before := len(w.Gone)
	h, err := w.RemoveHost(id, hn)
	if err != nil {
		panic(err) // the test's own bookkeeping
	}
	w.removed = append(w.removed, h)
	w.releases += len(w.Gone) - before
	w.rebuilds++
}

func (w *storeWorld) released(uuid string) {
	w.Released(uuid)
	w.releases++
}

// rewrite makes some requests rejoin the last group (as it was first
// sent: the Store adds the members it committed) and some name committed
// instances in their host hints.
func (w *storeWorld) rewrite(r *rand.Rand, req engine.Request) engine.Request {
	if g := req.InstanceGroup; g != nil {
		if w.lastGroup != nil && r.IntN(2) == 0 {
			last := *w.lastGroup
			last.Members, last.Hosts = slices.Clone(last.Members), slices.Clone(last.Hosts)
			req.InstanceGroup = &last
		} else {
			w.lastGroup = g
		}
	}
	h := &req.SchedulerHints
	if len(h.SameHost)+len(h.DifferentHost) == 0 && r.IntN(6) == 0 {
		// A caller keeping its new instance off (or on) one it made.
		h.DifferentHost = []string{"nowhere"}
		if r.IntN(3) == 0 {
			h.DifferentHost, h.SameHost = nil, []string{"nowhere"}
		}
	}
	for _, hint := range []*[]string{&h.SameHost, &h.DifferentHost} {
		if len(*hint) > 0 && len(w.Order) > 0 && r.IntN(2) == 0 {
			*hint = append(slices.Clone(*hint), w.Order[r.IntN(len(w.Order))])
		}
		if len(*hint) > 0 && len(w.Gone) > 0 && r.IntN(3) == 0 {
			*hint = append(slices.Clone(*hint), w.Gone[r.IntN(len(w.Gone))])
		}
	}
	return req
}
