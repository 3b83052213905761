package bench

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// BenchmarkSnapshotMemory reports the resident size of a snapshot of
// 100,000 hosts (the matrix's cloud, with the default or the rich filters
// and weighers), per host, twice:
//
//   - bytes/host-built: once built, its input Cloud gone;
//   - bytes/host-placed: once it has also placed a batch (10 instances of
//     the case's request), which leaves in the snapshot's pool the scratch
//     memory the next batch reuses: what a snapshot in service (a Store's,
//     a Scheduler's) holds. The rich weighers need more scratch (a column
//     per weigher).
//
// Strings the snapshot shares with its input are counted, since it keeps
// them. The scratch is held by a sync.Pool, which keeps it through one
// garbage collection (the measure takes one).
func BenchmarkSnapshotMemory(b *testing.B) {
	const hosts = 100000
	for _, filters := range []string{FiltersDefault, FiltersRich} {
		b.Run(fmt.Sprintf("filters=%s/hosts=%d", filters, hosts), func(b *testing.B) {
			var built, placed float64
			for b.Loop() {
				built, placed = snapshotBytes(b, hosts, filters)
			}
			if built <= 0 || placed <= built {
				b.Fatalf("measured %v bytes built, %v placed: want 0 < built < placed", built, placed)
			}
			b.ReportMetric(built/hosts, "bytes/host-built")
			b.ReportMetric(placed/hosts, "bytes/host-placed")
		})
	}
}

// snapshotBytes builds a snapshot of hosts, measures the heap it holds,
// places a batch on it and measures again.
func snapshotBytes(b *testing.B, hosts int, filters string) (built, placed float64) {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC() // and the scratch in the last snapshot's pool
	runtime.ReadMemStats(&m)
	before := m.HeapAlloc
	snap := build(b, hosts, filters)
	runtime.GC()
	runtime.ReadMemStats(&m)
	built = float64(m.HeapAlloc) - float64(before)
	if plan, err := engine.PlaceBatch(context.Background(), snap, Request(10, filters)); err != nil || len(plan.Placements) != 10 {
		b.Fatalf("placing on the snapshot: %v, %d placements", err, len(plan.Placements))
	}
	runtime.GC() // the batch's garbage; the pool keeps its scratch
	runtime.ReadMemStats(&m)
	placed = float64(m.HeapAlloc) - float64(before)
	runtime.KeepAlive(snap)
	return built, placed
}

// build returns a snapshot of Cloud(hosts, filters) made afresh (not
// Cloud's cached copy), whose input is garbage once it returns.
func build(b *testing.B, hosts int, filters string) *engine.Snapshot {
	c := synth.Cloud(synth.Options{Hosts: hosts, Seed: 1, Profile: synth.Basic})
	c.Config = Config(filters)
	snap, err := engine.NewSnapshot(c)
	if err != nil || snap.Len() != hosts {
		b.Fatalf("snapshot: %v", err)
	}
	return snap
}

// BenchmarkNewSnapshot builds a snapshot of the 50,000-host basic cloud
// (instances, aggregates, stats and all): what a Store's rebuild pays
// for a host added or removed or an aggregate changed (Store.AddHosts).
func BenchmarkNewSnapshot(b *testing.B) {
	const hosts = 50000
	b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
		c := synth.Cloud(synth.Options{Hosts: hosts, Seed: 1, Profile: synth.Basic})
		instances := 0
		for i := range c.Hosts {
			instances += len(c.Hosts[i].Instances)
		}
		b.ReportAllocs()
		for b.Loop() {
			snap, err := engine.NewSnapshot(c)
			if err != nil || snap.Len() != hosts {
				b.Fatalf("snapshot: %v", err)
			}
		}
		b.ReportMetric(float64(instances), "instances")
	})
}
