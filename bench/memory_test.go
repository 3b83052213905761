package bench

import (
	"runtime"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// BenchmarkSnapshotMemory reports the resident size of a snapshot of
// 100,000 hosts, per host: the heap it holds once its input Cloud is gone
// (strings it shares with the input are counted, since it keeps them).
func BenchmarkSnapshotMemory(b *testing.B) {
	const hosts = 100000
	b.Run("hosts=100000", func(b *testing.B) {
		var perHost float64
		for b.Loop() {
			perHost = snapshotBytes(b, hosts) / hosts
		}
		if perHost <= 0 {
			b.Fatalf("measured %v bytes/host", perHost)
		}
		b.ReportMetric(perHost, "bytes/host")
	})
}

func snapshotBytes(b *testing.B, hosts int) float64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	before := m.HeapAlloc
	snap := build(b, hosts)
	runtime.GC()
	runtime.ReadMemStats(&m)
	after := m.HeapAlloc
	runtime.KeepAlive(snap)
	return float64(after) - float64(before)
}

// build returns a snapshot whose input cloud is garbage once it returns.
func build(b *testing.B, hosts int) *engine.Snapshot {
	snap, err := engine.NewSnapshot(synth.Cloud(synth.Options{Hosts: hosts, Seed: 1}))
	if err != nil || snap.Len() != hosts {
		b.Fatalf("snapshot: %v", err)
	}
	return snap
}
