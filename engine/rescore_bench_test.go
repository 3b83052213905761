package engine_test

import (
	"context"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// BenchmarkFullRescoring places one instance of a plain request on the
// 50,000-host basic cloud (the realistic stream's, with its mixed
// multipliers), without the kept full rescorings: every op filters,
// gathers the block statistics and weighs every host (what a cold
// request of the realistic stream pays).
func BenchmarkFullRescoring(b *testing.B) {
	c := synth.Cloud(synth.Options{Hosts: 50000, Seed: 1, Profile: synth.Basic})
	snap, err := engine.NewSnapshot(c)
	if err != nil {
		b.Fatal(err)
	}
	req := engine.Request{InstanceUUIDs: []string{"a"}, Flavor: engine.Flavor{Name: "m1.small", MemoryMB: 2048, VCPUs: 1, RootGB: 20}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.PlaceBatchWith(ctx, snap, req, engine.Ranking{NoScoreCache: true}); err != nil {
			b.Fatal(err)
		}
	}
}
