package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestDeltaSnapshotPlacesAsRebuilt checks that a snapshot a Store derived
// by commits (shards shared, usage in its delta) places exactly as a
// snapshot built from scratch with the same usage, with every ranker.
func TestDeltaSnapshotPlacesAsRebuilt(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 6; seed++ {
		cloud, _ := synth.Scenario(synth.Options{Hosts: 9000, Instances: 1, Seed: seed, Profile: "basic"})
		cloud.Config.ShuffleBestSameWeighedHosts = seed%2 == 0
		cloud.Config.HostSubsetSize = 1 + int(seed%3)
		store, err := engine.NewStore(cloud, engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		request := func(i, n int) engine.Request {
			r := engine.Request{NumInstances: n, Flavor: engine.Flavor{Name: "m1", MemoryMB: 2048 * int64(1+i%3), VCPUs: 1 + int64(i%4), RootGB: 20}}
			for k := range n {
				r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("d-%d-%d-%d", seed, i, k))
			}
			return r
		}
		var placed []uint32
		for i := range 12 { // 120 hosts changed at most: below compaction
			plan, err := engine.PlaceBatch(context.Background(), store.Snapshot(), request(i, 10))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range plan.Placements {
				placed = append(placed, p.HostID) // ids are stable across commits
			}
			if _, err := store.Commit(plan); err != nil {
				t.Fatal(err)
			}
		}
		derived := store.Snapshot()
		rebuiltCloud := cloud
		rebuiltCloud.Hosts = append([]engine.Host(nil), cloud.Hosts...)
		for id := range rebuiltCloud.Hosts {
			h := &rebuiltCloud.Hosts[id]
			u := derived.Usage(uint32(id))
			if u.FreeDiskMB%1024 != 0 {
				t.Fatalf("host %d: free disk %d MB is not whole GB", id, u.FreeDiskMB)
			}
			h.FreeRAMMB, h.VCPUsUsed, h.NumInstances, h.NumIOOps = u.FreeRAMMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps
			h.FreeDiskGB, h.DiskAvailableLeast = u.FreeDiskMB/1024, nil
		}
		rebuilt, err := engine.NewSnapshot(rebuiltCloud)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			req := request(100+i, 1+i*7)
			want, wantErr := engine.PlaceBatch(context.Background(), rebuilt, req)
			for _, mode := range []string{"dense", "baseline"} {
				got, gotErr := engine.PlaceBatchWith(context.Background(), derived, req,
					engine.Ranking{Baseline: mode == "baseline"})
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got.Placements, want.Placements) {
					t.Fatalf("seed %d request %d (%s): derived snapshot places\n%+v %v\nrebuilt places\n%+v %v",
						seed, i, mode, got.Placements, gotErr, want.Placements, wantErr)
				}
			}
		}
		// An integer capability on hosts the commits changed, at their
		// free RAM and one above: the column pass must judge them on
		// their usage in the delta, not on the shard's column.
		for _, id := range placed[:4] {
			free := derived.Usage(id).FreeRAMMB
			for _, thr := range []int64{free, free + 1} {
				req := request(200, 1)
				req.Flavor.ExtraSpecs = map[string]string{"capabilities:free_ram_mb": fmt.Sprintf(">= %d", thr)}
				want, wantErr := engine.PlaceBatch(context.Background(), rebuilt, req)
				got, gotErr := engine.PlaceBatch(context.Background(), derived, req)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got.Placements, want.Placements) {
					t.Fatalf("seed %d free_ram_mb >= %d: derived snapshot places %+v %v, rebuilt %+v %v",
						seed, thr, got.Placements, gotErr, want.Placements, wantErr)
				}
			}
		}
	}
}

// TestSharedSnapshotPlacesAsFresh checks that the masks a snapshot
// memoises for one request (zones, tenants, flavors, images) never leak
// into another's: a stream of varied requests placed on one snapshot gives
// what each gives on a snapshot of its own.
func TestSharedSnapshotPlacesAsFresh(t *testing.T) {
	for _, profile := range synth.Profiles {
		g := synth.New(synth.Options{Hosts: 1500, Seed: 3, Profile: profile})
		cloud := g.Cloud()
		shared, err := engine.NewSnapshot(cloud)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			req := g.Request()
			fresh, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := engine.PlaceBatch(context.Background(), fresh, req)
			got, gotErr := engine.PlaceBatch(context.Background(), shared, req)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got.Placements, want.Placements) {
				t.Fatalf("%s request %d: on the shared snapshot %v, %v; on its own %v, %v", profile, i, got.Placements, gotErr, want.Placements, wantErr)
			}
		}
	}
}
