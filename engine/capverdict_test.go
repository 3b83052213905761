package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
// model once where the attribute is set. A spec on vcpus_total (a
// shard's dictionary-coded column) and one on a stat (num_vm_active: an
// attribute the host state lacks, read from the stats) have no lead.
func BenchmarkCapVerdict(b *testing.B) {
	snap, err := engine.NewSnapshot(synth.Cloud(synth.Options{Hosts: 50000, Seed: 1, Profile: synth.Basic}))
	if err != nil {
		b.Fatal(err)
	}
	for _, spec := range []struct{ name, key, req string }{
		{"cpu_features", "capabilities:cpu_info:features", "<in> avx512f"},
		{"hypervisor_version", "capabilities:hypervisor_version", ">= 5002000"},
		{"vcpus_total", "capabilities:vcpus_total", ">= 32"},
		{"num_vm_active", "capabilities:num_vm_active", "<= 20"},
	} {
		req := capRequest(map[string]string{spec.key: spec.req})
		var want *bitmap.Set
		judges := []string{"combination", "lead"}
		if !strings.Contains(spec.key, "cpu_info") && !strings.Contains(spec.key, "hypervisor") {
			judges = judges[:1] // no lead column
		}
		for _, judge := range judges {
			b.Run(fmt.Sprintf("spec=%s/judge=%s/hosts=50000", spec.name, judge), func(b *testing.B) {
				var got *bitmap.Set
				for b.Loop() {
					if got, _, err = engine.CapVerdicts(snap, req, judge == "lead"); err != nil {
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

func capRequest(specs map[string]string) engine.Request {
	return engine.Request{Flavor: engine.Flavor{Name: "f", MemoryMB: 1024, VCPUs: 1, RootGB: 1, ExtraSpecs: specs}}
}

// TestCapVerdictJudgesModelsOnce counts the judgements of a capability
// spec on cpu_info over three hypervisor models, one of them with no
// cpu_info, each over many distinct stats: the two models whose cpu_info
// is set are judged once each, the other once per stats its hosts hold
// (fuzz.TestCapabilityStatsInPlaceOfNone checks the outcomes against the
// reference; this, that the lead is used at all).
func TestCapVerdictJudgesModelsOnce(t *testing.T) {
	intel, amd := `{"vendor": "Intel", "features": ["avx512f"]}`, `{"vendor": "AMD", "features": ["aes"]}`
	c := engine.Cloud{Config: engine.DefaultConfig()}
	const stats = 40
	noneStats := map[string]bool{}
	for i := range 600 {
		h := engine.Host{Host: fmt.Sprintf("h%d", i), MemoryMB: 65536, FreeRAMMB: 65536,
			VCPUs: 32, LocalGB: 1000, FreeDiskGB: 1000,
			Stats: map[string]string{"rack": fmt.Sprint(i % stats)}}
		switch i % 3 {
		case 0:
			h.CPUInfo = &intel
		case 1:
			h.CPUInfo = &amd
		default:
			noneStats[h.Stats["rack"]] = true
		}
		c.Hosts = append(c.Hosts, h)
	}
	snap, err := engine.NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []map[string]string{
		{"capabilities:cpu_info:vendor": "s== Intel"},
		{"cpu_info": "<in> Intel"}, // a bare key
	} {
		req := capRequest(spec)
		all, allEvals, err := engine.CapVerdicts(snap, req, false)
		if err != nil {
			t.Fatal(err)
		}
		led, ledEvals, err := engine.CapVerdicts(snap, req, true)
		if err != nil {
			t.Fatal(err)
		}
		if !led.Equal(all) {
			t.Fatalf("%v: %d hosts pass with the lead, %d judging every combination", spec, led.Count(), all.Count())
		}
		if want := 2 + len(noneStats); ledEvals != want {
			t.Errorf("%v: judged %d times with the lead, want %d (2 models, then %d stats of the model without cpu_info)",
				spec, ledEvals, want, len(noneStats))
		}
		if allEvals < 3*len(noneStats) {
			t.Errorf("%v: judged %d times without the lead, want every combination (%d or more)", spec, allEvals, 3*len(noneStats))
		}
	}
}

// TestCapVerdictKeysDoNotCollide: two specs whose key and requirement
// join to one string (a NUL in either) are two verdicts. Joined raw, the
// memo gave the second request the first one's verdict on one snapshot:
// the spec on hypervisor_type passes every host here, the one on an
// attribute that does not exist none (Nova's missing step fails).
func TestCapVerdictKeysDoNotCollide(t *testing.T) {
	c := engine.Cloud{Config: engine.DefaultConfig()}
	for i := range 4 {
		qemu := "QEMU"
		c.Hosts = append(c.Hosts, engine.Host{Host: fmt.Sprintf("h%d", i), MemoryMB: 65536, FreeRAMMB: 65536,
			VCPUs: 32, LocalGB: 1000, FreeDiskGB: 1000, HypervisorType: &qemu})
	}
	passes := capRequest(map[string]string{"capabilities:hypervisor_type": "s!= x\x00y"})
	fails := capRequest(map[string]string{"capabilities:hypervisor_type\x00s!= x": "y"})
	for _, order := range [][]engine.Request{{passes, fails}, {fails, passes}} {
		snap, err := engine.NewSnapshot(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range order {
			r.InstanceUUIDs = []string{"a"}
			_, err := engine.PlaceBatch(context.Background(), snap, r)
			if want := r.Flavor.ExtraSpecs["capabilities:hypervisor_type"] == ""; errors.Is(err, engine.ErrNoValidHost) != want {
				t.Fatalf("%q after another spec on the snapshot: %v (want NoValidHost: %v)", r.Flavor.ExtraSpecs, err, want)
			}
		}
	}
}
