package engine_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/synth"
)

// TestCodedColumnsFallBack places on clouds whose shards hold more
// distinct allocation ratios, limits and multipliers than a coded column
// keeps (and on the same clouds with few), checking that the engine keeps
// those columns in full where it must and still agrees with the reference
// decision for decision.
func TestCodedColumnsFallBack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		distinct int // per column and shard
		wantFull bool
	}{
		{"few values", 5, false},
		{"sixteen values", 16, false},
		{"many values", 40, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cloud := synth.Cloud(synth.Options{Hosts: 4200, Seed: 3})
			cloud.Config.Filters = append([]string(nil), engine.FilterCatalogue...)
			cloud.Config.Weighers = append([]string(nil), engine.WeigherCatalogue...)
			cloud.Config.MetricsRequired = false
			cloud.Aggregates = nil
			for i := range cloud.Hosts {
				h := &cloud.Hosts[i]
				k := i % tc.distinct
				cpu, ram, disk := 2+float64(k)/8, 1+float64(k)/16, 1+float64(k)/32
				h.CPUAllocationRatio, h.RAMAllocationRatio, h.DiskAllocationRatio = &cpu, &ram, &disk
			}
			// One aggregate per value: every per-aggregate column takes
			// tc.distinct values (and the config's, on no host).
			for k := range tc.distinct {
				agg := engine.Aggregate{Name: fmt.Sprint("agg-", k), Metadata: map[string]string{}}
				for _, key := range []string{"ram_allocation_ratio", "cpu_allocation_ratio", "disk_allocation_ratio"} {
					agg.Metadata[key] = strconv.FormatFloat(1.5+float64(k)/4, 'g', -1, 64)
				}
				agg.Metadata["max_io_ops_per_host"] = strconv.Itoa(20 + k)
				agg.Metadata["max_instances_per_host"] = strconv.Itoa(40 + k)
				for _, key := range []string{"ram_weight_multiplier", "cpu_weight_multiplier", "disk_weight_multiplier",
					"io_ops_weight_multiplier", "num_instances_weight_multiplier", "build_failure_weight_multiplier"} {
					agg.Metadata[key] = strconv.FormatFloat(float64(k)/4-2, 'g', -1, 64)
				}
				for i := k; i < len(cloud.Hosts); i += tc.distinct {
					agg.Hosts = append(agg.Hosts, cloud.Hosts[i].Host)
				}
				cloud.Aggregates = append(cloud.Aggregates, agg)
			}
			snap, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatal(err)
			}
			coded, full := engine.CodedColumns(snap)
			if (full > 0) != tc.wantFull || coded == 0 {
				t.Fatalf("%d columns coded, %d in full; want some in full: %v", coded, full, tc.wantFull)
			}
			for seed := range uint64(3) {
				req := synth.New(synth.Options{Hosts: 4200, Seed: 3 + seed, Instances: 6}).Request()
				req.InstanceGroup = nil
				eng, ref := plandiff.RunEngine(cloud, req), plandiff.RunReference(cloud, req)
				if diffs := plandiff.Compare(eng, ref); len(diffs) > 0 {
					t.Fatalf("request %d (%s): engine and reference differ:\n%v", seed, plandiff.Kind(ref), diffs)
				}
				if plandiff.Kind(ref) != "ok" {
					t.Logf("request %d: %s", seed, plandiff.Kind(ref))
				}
			}
		})
	}
}
