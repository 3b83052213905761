package engine_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/placer/placer/engine"
)

func Example_placeBatch() {
	cloud := engine.Cloud{Config: engine.DefaultConfig()}
	for i, freeRAM := range []int64{8192, 32768, 16384} {
		cloud.Hosts = append(cloud.Hosts, engine.Host{
			Host: fmt.Sprintf("compute-%d", i), MemoryMB: 32768, FreeRAMMB: freeRAM,
			VCPUs: 16, LocalGB: 1000, FreeDiskGB: 1000,
		})
	}
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		panic(err)
	}
	plan, err := engine.PlaceBatch(context.Background(), snap, engine.Request{
		NumInstances: 2,
		Flavor:       engine.Flavor{Name: "m1.large", MemoryMB: 8192, VCPUs: 4, RootGB: 80},
	})
	if errors.Is(err, engine.ErrNoValidHost) {
		fmt.Println("no valid host:", err)
		return
	}
	for _, p := range plan.Placements {
		fmt.Printf("%s -> %s (weight %.3f, %d candidates)\n", p.InstanceUUID, p.Host, p.Weight, p.Candidates)
	}
	// Output:
	// inst-0 -> compute-1 (weight 3.000, 3 candidates)
	// inst-1 -> compute-2 (weight 2.667, 3 candidates)
}

// A Store publishes snapshots and commits plans made on them: a plan whose
// hosts changed meanwhile is re-checked, and refused when it no longer
// fits.
func Example_store() {
	cloud := engine.Cloud{Config: engine.DefaultConfig()}
	cloud.Config.RAMAllocationRatio = 1 // no overcommit: one 16 GB instance fills a host
	for i := range 2 {
		cloud.Hosts = append(cloud.Hosts, engine.Host{
			Host: fmt.Sprintf("compute-%d", i), MemoryMB: 16384, FreeRAMMB: 16384,
			VCPUs: 8, LocalGB: 500, FreeDiskGB: 500,
		})
	}
	store, err := engine.NewStore(cloud, engine.StoreOptions{})
	if err != nil {
		panic(err)
	}
	big := engine.Flavor{Name: "big", MemoryMB: 16384, VCPUs: 4, RootGB: 40}
	ctx := context.Background()
	snap := store.Snapshot()
	// Two schedulers plan on the same snapshot and pick the same host.
	a, _ := engine.PlaceBatch(ctx, snap, engine.Request{InstanceUUIDs: []string{"a"}, Flavor: big})
	b, _ := engine.PlaceBatch(ctx, snap, engine.Request{InstanceUUIDs: []string{"b"}, Flavor: big})
	fmt.Println("both chose", a.Placements[0].Host, b.Placements[0].Host)
	if _, err := store.Commit(a); err != nil {
		panic(err)
	}
	_, err = store.Commit(b)
	fmt.Println("b:", errors.Is(err, engine.ErrConflict))
	// b places again on the newest snapshot.
	b, _ = engine.PlaceBatch(ctx, store.Snapshot(), engine.Request{InstanceUUIDs: []string{"b"}, Flavor: big})
	res, err := store.Commit(b)
	fmt.Println("b again:", b.Placements[0].Host, err, store.Instances(), res.Version > snap.Version())
	// Output:
	// both chose compute-0 compute-0
	// b: true
	// b again: compute-1 <nil> 2 true
}

// A Scheduler runs that loop for its callers: its workers place on the
// newest snapshot, commit, and place again after a conflict.
func Example_scheduler() {
	cloud := engine.Cloud{Config: engine.DefaultConfig()}
	for i := range 4 {
		cloud.Hosts = append(cloud.Hosts, engine.Host{
			Host: fmt.Sprintf("compute-%d", i), MemoryMB: 65536, FreeRAMMB: 65536,
			VCPUs: 32, LocalGB: 2000, FreeDiskGB: 2000,
		})
	}
	store, err := engine.NewStore(cloud, engine.StoreOptions{})
	if err != nil {
		panic(err)
	}
	sched := engine.NewScheduler(store, engine.SchedulerOptions{Workers: 2})
	defer sched.Close()
	plan, err := sched.Place(context.Background(), engine.Request{
		NumInstances:  3,
		Flavor:        engine.Flavor{Name: "m1.medium", MemoryMB: 4096, VCPUs: 2, RootGB: 40},
		InstanceGroup: &engine.InstanceGroup{UUID: "web", Policy: engine.PolicyAntiAffinity},
	})
	if err != nil {
		panic(err)
	}
	hosts := map[string]bool{}
	for _, p := range plan.Placements {
		hosts[p.Host] = true
	}
	fmt.Println(len(plan.Placements), "instances on", len(hosts), "hosts; committed:", store.Instances())
	// Output:
	// 3 instances on 3 hosts; committed: 3
}
