package verify_test

import (
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/verify"
)

// TestOverLimitsSinceStart: a node over its RAM limit at the start may
// stay so, no further; one within it may not pass it.
func TestOverLimitsSinceStart(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Filters = []string{engine.RamFilter}
	cfg.RAMAllocationRatio = 1
	c := engine.Cloud{Config: cfg, Hosts: []engine.Host{
		{Host: "full", MemoryMB: 1000, FreeRAMMB: -200, VCPUs: 4, LocalGB: 10, FreeDiskGB: 10}, // 1,200 MB used of 1,000
		{Host: "room", MemoryMB: 1000, FreeRAMMB: 500, VCPUs: 4, LocalGB: 10, FreeDiskGB: 10},
	}}
	hosts, err := verify.NewHosts(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host string
		free int64
		over bool
	}{
		{"full", -200, false}, // as it started
		{"full", -100, false}, // less over
		{"full", -300, true},  // further over: something was placed there
		{"room", 0, false},    // at the limit
		{"room", -1, true},
	} {
		u := engine.HostUsage{FreeRAMMB: tc.free, FreeDiskMB: 10 * 1024}
		over, known := hosts.OverLimitsSinceStart(engine.HostNode{Host: tc.host, Node: tc.host}, u)
		if !known || (len(over) > 0) != tc.over || tc.over && !strings.HasPrefix(over[0], engine.RamFilter+":") {
			t.Errorf("%s at free_ram_mb %d: over %q, known %v; want over %v", tc.host, tc.free, over, known, tc.over)
		}
	}
	if _, known := hosts.OverLimitsSinceStart(engine.HostNode{Host: "nope", Node: "nope"}, engine.HostUsage{}); known {
		t.Error("an unknown node is known")
	}
}
