package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTwinPassMatchesPass: on a set that passed a ratio rule's twin, the
// rule's pass over the hosts twinNeed names clears exactly the bits its
// full pass clears, for ratios of every kind (aggregate values below and
// above the host's, NaN, infinite, zero, unparsable) and random usage and
// claims.
func TestTwinPassMatchesPass(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	aggValues := []string{"0.5", "1.0", "1.5", "2.0", "8", "16", "32", "nan", "0", "-1", "x"}
	hostRatios := []float64{0.5, 1, 1.5, 4, 16}
	checked := 0
	for round := range 20 {
		c := Cloud{Config: DefaultConfig()}
		n := 300 + r.IntN(5000)
		for i := range n {
			h := Host{Host: fmt.Sprintf("h%05d", i), MemoryMB: int64(r.IntN(4) * 8192), VCPUs: int64(r.IntN(3) * 8),
				LocalGB: int64(r.IntN(3) * 100)}
			h.FreeRAMMB = h.MemoryMB - int64(r.IntN(16384)) + 4096
			h.FreeDiskGB = h.LocalGB - int64(r.IntN(150)) + 20
			h.VCPUsUsed = int64(r.IntN(40))
			if r.IntN(2) == 0 {
				x, y, z := hostRatios[r.IntN(len(hostRatios))], hostRatios[r.IntN(len(hostRatios))], hostRatios[r.IntN(len(hostRatios))]
				h.RAMAllocationRatio, h.CPUAllocationRatio, h.DiskAllocationRatio = &x, &y, &z
			}
			c.Hosts = append(c.Hosts, h)
		}
		for a := range 6 {
			agg := Aggregate{Name: fmt.Sprint("a", a), Metadata: map[string]string{}}
			for _, key := range []string{"ram_allocation_ratio", "cpu_allocation_ratio", "disk_allocation_ratio"} {
				if r.IntN(2) == 0 {
					agg.Metadata[key] = aggValues[r.IntN(len(aggValues))]
				}
			}
			for i := range n {
				if r.IntN(5) == 0 {
					agg.Hosts = append(agg.Hosts, c.Hosts[i].Host)
				}
			}
			c.Aggregates = append(c.Aggregates, agg)
		}
		s, err := NewSnapshot(c)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for range 5 {
			claim := Claim{MemoryMB: int64(r.IntN(12000)), VCPUs: int64(r.IntN(12)), DiskRequestMB: int64(r.IntN(120 * 1024))}
			for _, name := range []string{RamFilter, AggregateRamFilter, CoreFilter, AggregateCoreFilter, DiskFilter, AggregateDiskFilter} {
				rule, twin := resourceRules[name], resourceRules[resourceRules[name].twin]
				for k, sh := range s.shards {
					words := make([]uint64, (sh.hostCount()+63)/64)
					for j := range sh.hostCount() {
						words[j>>6] |= 1 << (j & 63)
					}
					twin.pass(sh, &claim, &s.cfg, words)
					full, after := slices.Clone(words), slices.Clone(words)
					rule.pass(sh, &claim, &s.cfg, full)
					rule.passAfterTwin(sh, &claim, &s.cfg, after)
					if !slices.Equal(full, after) {
						t.Fatalf("round %d, %s after %s, shard %d, claim %+v: the twin pass keeps other hosts than the full pass", round, name, twin.name, k, claim)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d shard passes compared", checked)
}
