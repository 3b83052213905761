package engine_test

import (
	"fmt"
	"testing"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// BenchmarkCapVerdict builds ComputeCapabilitiesFilter's verdict of one
// static spec on the 50,000-host basic cloud, unmemoised: what the first
// request with that spec pays on a snapshot lineage (a new Store, or a
// rebuild after a host joined or left). A spec on cpu_info or the
// hypervisor reads the stats in place of a None attribute, so its
// verdict is keyed by (hypervisor model, stats): 3,332 combinations on
// this cloud. judge=combination judges each; judge=lead judges each
// model once where the attribute is set.
func BenchmarkCapVerdict(b *testing.B) {
	snap, err := engine.NewSnapshot(synth.Cloud(synth.Options{Hosts: 50000, Seed: 1, Profile: synth.Basic}))
	if err != nil {
		b.Fatal(err)
	}
	for _, spec := range []struct{ name, key, req string }{
		{"cpu_features", "capabilities:cpu_info:features", "<in> avx512f"},
		{"hypervisor_version", "capabilities:hypervisor_version", ">= 5002000"},
	} {
		req := engine.Request{Flavor: engine.Flavor{Name: "f", MemoryMB: 1024, VCPUs: 1, RootGB: 1,
			ExtraSpecs: map[string]string{spec.key: spec.req}}}
		var want *bitmap.Set
		for _, judge := range []string{"combination", "lead"} {
			b.Run(fmt.Sprintf("spec=%s/judge=%s/hosts=50000", spec.name, judge), func(b *testing.B) {
				var got *bitmap.Set
				for b.Loop() {
					if got, err = engine.CapVerdicts(snap, req, judge == "lead"); err != nil {
						b.Fatal(err)
					}
				}
				if want != nil && !got.Equal(want) {
					b.Fatalf("%d hosts pass, %d with the other judge", got.Count(), want.Count())
				}
				want = got
			})
		}
	}
}
