package fuzz

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/reference"
	"github.com/placer/placer/internal/synth"
)

// staticFilters are the filters whose verdicts the engine memoises per
// snapshot lineage, keyed by what they read of a request.
var staticFilters = []string{
	engine.ComputeCapabilitiesFilter, engine.JsonFilter, engine.ImagePropertiesFilter,
	engine.AggregateInstanceExtraSpecsFilter, engine.AggregateImagePropertiesIsolation,
	engine.IsolatedHostsFilter, engine.MetricsFilter, engine.SimpleCIDRAffinityFilter,
	engine.AvailabilityZoneFilter, engine.AggregateMultiTenancyIsolation,
	engine.AggregateTypeAffinityFilter,
}

// TestStaticFiltersOneSnapshot runs a stream of requests through one
// snapshot per cloud and filter chain, as a Store's lineage sees them, and
// compares every filter pass with the reference's per-host loop. The
// engine memoises the static filters' verdicts on the snapshot, keyed by
// the request's static signature: a key that leaves out something a
// verdict depends on gives a later request an earlier one's verdict,
// which a fresh snapshot per request (TestDifferential, FuzzFilters)
// cannot see.
func TestStaticFiltersOneSnapshot(t *testing.T) {
	ctx := context.Background()
	seeds, requests := 12, 12
	if testing.Short() {
		seeds, requests = 6, 6
	}
	checked, raised := 0, 0
	for seed := range seeds {
		profile := []string{synth.Edge, synth.Rich, synth.Basic}[seed%3]
		hosts := 0 // edge: 1 to 40
		if profile != synth.Edge {
			hosts = 100
		}
		gen := synth.New(synth.Options{Hosts: hosts, Seed: uint64(1000 + seed), Profile: profile})
		cloud := gen.Cloud()
		reqs := withVariants(gen.Requests(requests), uint64(seed))
		chains := make([][]string, 0, len(staticFilters)+1)
		for _, f := range staticFilters {
			chains = append(chains, []string{f})
		}
		chains = append(chains, cloud.Config.Filters)
		for _, chain := range chains {
			c := withFilters(cloud, chain...)
			snap, err := engine.NewSnapshot(c)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, profile, err)
			}
			// Twice through the stream: the second round reads the
			// verdicts the first memoised.
			for round := range 2 {
				for i, req := range reqs {
					refIDs, refCounts, refErr := reference.FilterHosts(ctx, c, req)
					set, counts, err := engine.FilterHosts(ctx, snap, req)
					what := fmt.Sprintf("seed %d (%s), filters %v, round %d, request %d", seed, profile, chain, round, i)
					if d := sameError(err, refErr); d != "" {
						t.Fatalf("%s: %s", what, d)
					}
					checked++
					if err != nil {
						raised++
						continue
					}
					var ids []int
					set.ForEach(func(i uint32) { ids = append(ids, int(i)) })
					if !slices.Equal(ids, refIDs) {
						t.Fatalf("%s: pass set: engine %v, reference %v", what, ids, refIDs)
					}
					if e, r := plandiff.FormatFilters(counts), plandiff.FormatFilters(refCounts); e != r {
						t.Fatalf("%s: counts: engine %s, reference %s", what, e, r)
					}
				}
			}
		}
	}
	t.Logf("%d filter passes compared (%d raised or refused alike)", checked, raised)
}

// Extra specs and JsonFilter queries whose keys and attributes recur with
// other values and operators, so that a memo key missing a part of the
// spec or query meets a request it would wrongly serve.
var (
	variantSpecKeys = []string{
		"capabilities:hypervisor_type", "hypervisor_type", "capabilities:cpu_info:vendor",
		"capabilities:cpu_info:features", "capabilities:cpu_info:topology:cores", "capabilities:cpu_info",
		"capabilities:hypervisor_version", "capabilities:num_instances", "num_instances",
		"capabilities:free_ram_mb", "free_disk_mb", "capabilities:vcpus_total", "capabilities:stats:gpu",
		"capabilities:opt1", "opt2", "capabilities:num_vm_active", "nosuch", "capabilities:cpu_allocation_ratio",
		"capabilities:supported_instances", "capabilities:host_ip", "capabilities:free_ram_mb:x",
		"trust:trusted_host", "aggregate_instance_extra_specs:ssd", "capabilities:total_usable_ram_mb",
	}
	variantSpecValues = []string{
		"QEMU", "kvm", "s== Intel", "s== AMD", "<in> aes", "<in> avx", "<all-in> aes avx", ">= 4", "<= 4",
		"= 2", ">= 6000000", "= 1024", "<= 3", "<or> QEMU <or> kvm", "true", "1", "2", "s!= Intel",
		"== 16.0", "<in> x86_64", "<in> 10.0", "> 512", "s>= 2", ">=", "<in>", "yes", "= 4096",
	}
	variantQueries = []string{
		`[">=", "$free_ram_mb", %d]`,
		`["and", ["<=", "$num_instances", %d], ["=", "$hypervisor_type", "QEMU"]]`,
		`["not", [">", "$vcpus_used", %d]]`,
		`["or", ["<", "$free_disk_mb", %d], ["in", "$cpu_info", "Intel"]]`,
		`["and", [">", "$free_ram_mb", %d], ["<", "$num_io_ops", 3]]`,
		`["=", "$vcpus_total", %d]`,
		`["or", ["=", "$num_instances", %d], ["not", "$free_ram_mb"]]`,
		`["and", [">=", "$free_ram_mb", %d], ["<", "$hypervisor_version", "x"]]`,
		`["and", ["<", "$num_instances", %d], "$stats.gpu"]`,
	}
)

// withVariants returns reqs followed by a copy of each with extra specs,
// and one with a JsonFilter query, drawn from the variant pools.
func withVariants(reqs []engine.Request, seed uint64) []engine.Request {
	r := rand.New(rand.NewPCG(seed, 7))
	out := slices.Clone(reqs)
	for _, req := range reqs {
		v := req
		v.Flavor.ExtraSpecs = map[string]string{}
		for range 1 + r.IntN(3) {
			k := variantSpecKeys[r.IntN(len(variantSpecKeys))]
			v.Flavor.ExtraSpecs[k] = variantSpecValues[r.IntN(len(variantSpecValues))]
		}
		out = append(out, v)
		q := req
		consts := []int{0, 1, 2, 3, 4, 512, 1024, 2048, 4096, 16384, -1}
		q.SchedulerHints.Query = fmt.Sprintf(variantQueries[r.IntN(len(variantQueries))], consts[r.IntN(len(consts))])
		out = append(out, q)
	}
	return out
}

// TestCapabilityStatsInPlaceOfNone checks ComputeCapabilitiesFilter where
// a spec's attribute is None on some hosts of a hypervisor model and set
// on others: the walk reads the stats only in place of a None attribute,
// so the engine judges a spec once per model where the attribute is set
// and once per (model, stats) where it is None. Every host here carries
// stats under the attributes' own names, which only the None hosts may
// read; the engine's pass set must be the reference's host by host.
func TestCapabilityStatsInPlaceOfNone(t *testing.T) {
	ctx := context.Background()
	intel := `{"vendor": "Intel", "arch": "x86_64", "features": ["aes", "avx512f"], "topology": {"cores": 16}}`
	amd := `{"vendor": "AMD", "arch": "x86_64", "features": ["aes"], "topology": {"cores": 8}}`
	qemu, kvm := "QEMU", "kvm"
	v6, v5 := int64(6002000), int64(5002000)
	statsPool := []map[string]string{
		nil,
		{"cpu_info": intel, "hypervisor_version": "6002000", "hypervisor_type": "QEMU"},
		{"cpu_info": amd, "hypervisor_version": "5002000", "hypervisor_type": "kvm"},
		{"cpu_info": "not json", "hypervisor_version": "x"},
		{"cpu_info": `{"features": "avx512f"}`, "hypervisor_version": "5002000"},
	}
	cloud := withFilters(engine.Cloud{Config: engine.DefaultConfig()}, engine.ComputeCapabilitiesFilter)
	r := rand.New(rand.NewPCG(5, 11))
	for i := range 400 {
		h := engine.Host{Host: fmt.Sprintf("h%d", i), MemoryMB: 65536, FreeRAMMB: 65536,
			VCPUs: 32, LocalGB: 1000, FreeDiskGB: 1000}
		switch r.IntN(3) { // three models, one of them all None
		case 0:
			h.HypervisorType, h.HypervisorVersion, h.CPUInfo = &qemu, &v6, &intel
		case 1:
			h.HypervisorType, h.HypervisorVersion, h.CPUInfo = &kvm, &v5, &amd
		}
		if st := statsPool[r.IntN(len(statsPool))]; st != nil {
			h.Stats = maps.Clone(st)
			h.Stats["num"] = fmt.Sprint(i % 7) // many distinct stats per model
		}
		cloud.Hosts = append(cloud.Hosts, h)
	}
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		t.Fatal(err)
	}
	specs := []map[string]string{
		{"capabilities:cpu_info:features": "<in> avx512f"},
		{"capabilities:cpu_info:vendor": "s== Intel"},
		{"capabilities:cpu_info:topology:cores": ">= 16"},
		{"capabilities:hypervisor_version": ">= 6000000"},
		{"capabilities:hypervisor_type": "<or> QEMU <or> kvm"},
		{"hypervisor_type": "QEMU"}, // a bare key: its scope reads the stats too
		{"capabilities:cpu_info:features": "<in> avx512f", "capabilities:hypervisor_version": "<= 5002000"},
	}
	checked := 0
	for _, spec := range specs {
		req := engine.Request{NumInstances: 1, Flavor: engine.Flavor{Name: "f", MemoryMB: 1024, VCPUs: 1, RootGB: 1, ExtraSpecs: spec}}
		refIDs, _, refErr := reference.FilterHosts(ctx, cloud, req)
		for round := range 2 { // the second reads the memoised verdicts
			set, _, err := engine.FilterHosts(ctx, snap, req)
			if d := sameError(err, refErr); d != "" {
				t.Fatalf("%v, round %d: %s", spec, round, d)
			}
			if err != nil {
				continue
			}
			var ids []int
			set.ForEach(func(i uint32) { ids = append(ids, int(i)) })
			if !slices.Equal(ids, refIDs) {
				t.Fatalf("%v, round %d: pass set: engine %v, reference %v", spec, round, ids, refIDs)
			}
			checked++
		}
		if refErr == nil && (len(refIDs) == 0 || len(refIDs) == len(cloud.Hosts)) {
			t.Errorf("%v: the reference passes %d of %d hosts; the case tells nothing", spec, len(refIDs), len(cloud.Hosts))
		}
	}
	if checked == 0 {
		t.Fatal("every spec raised: nothing compared")
	}
}
