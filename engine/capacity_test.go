package engine_test

import (
	"testing"

	"github.com/placer/placer/engine"
)

// TestHostCapacityEnforced: a host's capacity holds the smallest of the
// enabled filters' limits and says which are enforced, whatever their
// values: a host's ratio of 0 (Nova's RamFilter then takes nothing) is
// the RAM limit though an aggregate's is larger, and an aggregate's
// negative I/O-ops limit stays the limit though the configured one is
// larger; what no filter enforces is not, and Exceeds follows.
func TestHostCapacityEnforced(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Filters = []string{engine.RamFilter, engine.AggregateRamFilter, engine.AggregateIoOpsFilter, engine.IoOpsFilter}
	cfg.MaxIoOpsPerHost = 8
	zero := 0.0
	c := engine.Cloud{Config: cfg,
		Hosts: []engine.Host{{Host: "h", MemoryMB: 4096, FreeRAMMB: 4096, VCPUs: 4, LocalGB: 10, FreeDiskGB: 10,
			RAMAllocationRatio: &zero}},
		Aggregates: []engine.Aggregate{{Name: "a", Hosts: []string{"h"},
			Metadata: map[string]string{"ram_allocation_ratio": "1.5", "max_io_ops_per_host": "-2"}}},
	}
	s, err := engine.NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Capacity(0)
	want := engine.Enforced{RAM: true, IOOps: true}
	if got.Enforced != want || got.RAMRatio != 0 || got.MaxIOOps != -2 {
		t.Fatalf("capacity %+v, want RAM ratio 0 and io-ops limit -2 enforced, nothing else", got)
	}
	if !got.Exceeds(engine.HostUsage{FreeRAMMB: 4095, FreeDiskMB: 10 << 10}) {
		t.Error("1 MB in use under a RAM ratio of 0: not over the limit")
	}
	if !got.Exceeds(engine.HostUsage{FreeRAMMB: 4096, FreeDiskMB: 10 << 10}) {
		t.Error("0 io-ops under a limit of -2: not over the limit")
	}
	got.Enforced.IOOps = false
	if got.Exceeds(engine.HostUsage{FreeRAMMB: 4096, FreeDiskMB: 0, VCPUsUsed: 400, NumInstances: 1000}) {
		t.Error("over limits no filter enforces: Exceeds")
	}
}
