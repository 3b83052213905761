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
		w := storeWorld{cloud: cloud, live: map[string]livePlacement{}}
		r := rand.New(rand.NewPCG(seed, 11))
		checked, decided := 0, map[string]int{}
		for i, req := range gen.Requests(requests) {
			req = w.rewrite(r, req)
			snap := store.Snapshot()
			plan, err := engine.PlaceBatch(context.Background(), snap, req)
			hinted := profile == synth.Rich && len(req.SchedulerHints.SameHost)+len(req.SchedulerHints.DifferentHost) > 0
			if i%12 == 11 || hinted {
				want := plandiff.RunReference(w.materialise(t, snap), w.withCommittedMembers(req))
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
			if len(w.order) > 0 && r.IntN(3) == 0 {
				u := w.order[r.IntN(len(w.order))]
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
				id := r.IntN(len(w.cloud.Hosts))
				h := w.cloud.Hosts[id]
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
				w.cloud.Hosts = append(slices.Clone(w.cloud.Hosts), h)
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

// livePlacement is an instance the Store committed and has not released.
type livePlacement struct {
	node  engine.HostNode
	group string
}

// storeWorld is what a test knows of a Store's commits.
type storeWorld struct {
	cloud             engine.Cloud
	live              map[string]livePlacement
	order             []string // live uuids, in commit order
	gone              []string // released uuids
	lastGroup         *engine.InstanceGroup
	removed           []engine.Host // nodes removed, to add back
	commits, releases int
	rebuilds          int
}

func (w *storeWorld) committed(req engine.Request, plan engine.Plan) {
	group := ""
	if req.InstanceGroup != nil {
		group = req.InstanceGroup.UUID
	}
	for _, p := range plan.Placements {
		w.live[p.InstanceUUID] = livePlacement{engine.HostNode{Host: p.Host, Node: p.Node}, group}
		w.order = append(w.order, p.InstanceUUID)
		w.commits++
	}
}

// removeHost drops node id (hn) of the cloud and forgets the instances
// committed on it, as the Store does.
func (w *storeWorld) removeHost(id int, hn engine.HostNode) {
	w.removed = append(w.removed, w.cloud.Hosts[id])
	w.cloud.Hosts = slices.Delete(slices.Clone(w.cloud.Hosts), id, id+1)
	for _, u := range slices.Clone(w.order) {
		if w.live[u].node == hn {
			w.released(u)
		}
	}
	w.rebuilds++
}

func (w *storeWorld) released(uuid string) {
	delete(w.live, uuid)
	w.order = slices.DeleteFunc(w.order, func(u string) bool { return u == uuid })
	w.gone = append(w.gone, uuid)
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
		if len(*hint) > 0 && len(w.order) > 0 && r.IntN(2) == 0 {
			*hint = append(slices.Clone(*hint), w.order[r.IntN(len(w.order))])
		}
		if len(*hint) > 0 && len(w.gone) > 0 && r.IntN(3) == 0 {
			*hint = append(slices.Clone(*hint), w.gone[r.IntN(len(w.gone))])
		}
	}
	return req
}

// materialise is the cloud snap's state describes: w's cloud with each
// node's usage as snap has it and the live instances on its list.
func (w *storeWorld) materialise(t *testing.T, snap *engine.Snapshot) engine.Cloud {
	t.Helper()
	c := w.cloud
	c.Hosts = slices.Clone(w.cloud.Hosts)
	on := map[engine.HostNode][]string{}
	for _, u := range w.order {
		on[w.live[u].node] = append(on[w.live[u].node], u)
	}
	for id := range c.Hosts {
		h := &c.Hosts[id]
		if hn := snap.HostNode(uint32(id)); hn.Host != h.Host {
			t.Fatalf("host %d is %v in the snapshot, %s in the cloud", id, hn, h.Host)
		}
		u := snap.Usage(uint32(id))
		if u.FreeDiskMB%1024 != 0 {
			t.Fatalf("host %d: free disk %d MB is not whole GB", id, u.FreeDiskMB)
		}
		h.FreeRAMMB, h.VCPUsUsed, h.NumInstances, h.NumIOOps = u.FreeRAMMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps
		h.FreeDiskGB, h.DiskAvailableLeast = u.FreeDiskMB/1024, nil
		if extra := on[snap.HostNode(uint32(id))]; len(extra) > 0 {
			h.Instances = append(slices.Clone(h.Instances), extra...)
		}
	}
	return c
}

// withCommittedMembers is req with its group's members the Store
// committed, and their hosts, in the group, as Nova reads the group from
// its database.
func (w *storeWorld) withCommittedMembers(req engine.Request) engine.Request {
	g := req.InstanceGroup
	if g == nil {
		return req
	}
	full := *g
	full.Members, full.Hosts = slices.Clone(g.Members), slices.Clone(g.Hosts)
	for _, u := range w.order {
		p := w.live[u]
		if p.group != g.UUID {
			continue
		}
		if !slices.Contains(full.Members, u) {
			full.Members = append(full.Members, u)
		}
		if !slices.Contains(full.Hosts, p.node.Host) {
			full.Hosts = append(full.Hosts, p.node.Host)
		}
	}
	req.InstanceGroup = &full
	return req
}
