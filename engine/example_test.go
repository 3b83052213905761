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
