package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestWarmAcrossHostCountChanges: a worker's kept batch after the host set
// grew or shrank past a 64-host word. The worker's scratch sets were sized
// by the first snapshot it warmed on, so the second alike request after
// AddHosts indexed past them and the worker panicked (found by placer
// soak, which adds hosts under load).
func TestWarmAcrossHostCountChanges(t *testing.T) {
	ctx := context.Background()
	g := synth.New(synth.Options{Hosts: 60, Seed: 1, Profile: synth.Basic})
	store, err := engine.NewStore(g.Cloud(), engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var tmpl engine.Request
	for {
		tmpl = g.Request()
		h := tmpl.SchedulerHints
		if tmpl.InstanceGroup == nil && tmpl.ForceHosts == nil && tmpl.ForceNodes == nil && tmpl.IgnoreHosts == nil &&
			tmpl.RequestedDestination == nil && h.SameHost == nil && h.DifferentHost == nil {
			break
		}
	}
	var w engine.Warm
	defer w.Drop()
	step, warmed := 0, 0
	place := func() {
		t.Helper()
		r := tmpl
		r.NumInstances, r.InstanceUUIDs = 1, []string{fmt.Sprintf("resize-%d", step)}
		step++
		snap := store.Snapshot()
		want, wantErr := engine.PlaceBatch(ctx, snap, r)
		got, warm, gotErr := w.Place(ctx, store, snap, r)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d (warm=%v, %d hosts): the kept batch placed\n%+v %v\nPlaceBatch\n%+v %v",
				step, warm, snap.Len(), got.Placements, gotErr, want.Placements, wantErr)
		}
		if warm {
			warmed++
		}
	}
	var added []engine.HostNode
	for round := range 3 {
		place()
		place()
		var hosts []engine.Host
		for i := range 70 { // 60 -> 130 -> ...: more words
			name := fmt.Sprintf("grown-%d-%d", round, i)
			hosts = append(hosts, engine.Host{Host: name, MemoryMB: 65536, FreeRAMMB: 65536, VCPUs: 16, LocalGB: 500, FreeDiskGB: 500})
			added = append(added, engine.HostNode{Host: name, Node: name})
		}
		if _, err := store.AddHosts(hosts...); err != nil {
			t.Fatal(err)
		}
		place()
		place()
		place()
	}
	if _, err := store.RemoveHosts(added...); err != nil { // and back to fewer words
		t.Fatal(err)
	}
	place()
	place()
	place()
	if warmed == 0 {
		t.Fatal("no request was placed from the kept batch")
	}
}
