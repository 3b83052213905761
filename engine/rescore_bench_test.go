package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

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

// BenchmarkStreamPaired runs the realistic request stream (50,000 hosts,
// the basic profile, as placer simulate draws it) through two Stores of
// one cloud op by op, one placing with a Ranking option and one without,
// the order swapped every op, and reports each side's ns per request and
// their ratio (off/on: above 1, the option's absence costs). Both make
// the same decisions, so both Stores go through the same states; run it
// with GOGC=off and GOMAXPROCS=1 for a steady ratio (docs/performance.md,
// Measuring).
func BenchmarkStreamPaired(b *testing.B) {
	for _, tc := range []struct {
		name string
		off  engine.Ranking
	}{
		{"NoSparseWeigh", engine.Ranking{NoSparseWeigh: true}},
		{"NoScoreCache", engine.Ranking{NoScoreCache: true}},
		{"NoFitCache", engine.Ranking{NoFitCache: true}},
		{"NoModelSeeds", engine.Ranking{NoModelSeeds: true}},
	} {
		b.Run("toggle="+tc.name, func(b *testing.B) { benchStreamPaired(b, tc.off) })
	}
}

func benchStreamPaired(b *testing.B, off engine.Ranking) {
	gen := synth.New(synth.Options{Hosts: 50000, Seed: 1, Profile: synth.Basic})
	var st [2]*engine.Store // on, off
	for v := range st {
		s, err := engine.NewStore(gen.Cloud(), engine.StoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		st[v] = s
	}
	rank := [2]engine.Ranking{{}, off}
	reqs := gen.Requests(10000)
	ctx := context.Background()
	var took [2]time.Duration
	i := 0
	for b.Loop() {
		req := ownUUIDs(reqs[i%len(reqs)], i, 0)
		i++
		for k := range 2 {
			v := (k + i) % 2
			snap := st[v].Snapshot()
			start := time.Now()
			plan, err := engine.PlaceBatchWith(ctx, snap, req, rank[v])
			took[v] += time.Since(start)
			switch {
			case err == nil:
				if _, err := st[v].Commit(plan); err != nil && !errors.Is(err, engine.ErrConflict) {
					b.Fatal(err)
				}
			case !errors.Is(err, engine.ErrNoValidHost):
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(i), "ns/on")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(i), "ns/off")
	b.ReportMetric(float64(took[1])/float64(took[0]), "off/on")
}
