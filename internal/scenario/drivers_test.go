package scenario

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// driverCases are valid scenarios with placer's additions to the format
// (issue 20). They are not in goodCases, which the oracle's parser reads
// too: it refuses these fields.
var driverCases = []goodCase{
	{"defaults", doc(), func(t *testing.T, s *Scenario) {
		c := s.Cloud.Config
		if c.SchedulerDriver != engine.DriverFilterScheduler || c.HostManager != engine.HostManagerDefault ||
			c.UseBaremetalFilters || !slices.Equal(c.BaremetalEnabledFilters, engine.DefaultBaremetalEnabledFilters) {
			t.Errorf("got %q %q %v %v", c.SchedulerDriver, c.HostManager, c.UseBaremetalFilters, c.BaremetalEnabledFilters)
		}
	}},
	{"chance", doc("config", `{"scheduler_driver": "chance_scheduler"}`), func(t *testing.T, s *Scenario) {
		if s.Cloud.Config.SchedulerDriver != engine.DriverChanceScheduler {
			t.Errorf("got %q", s.Cloud.Config.SchedulerDriver)
		}
	}},
	{"filter_scheduler given", doc("config", `{"scheduler_driver": "filter_scheduler", "host_manager": "host_manager"}`),
		func(t *testing.T, s *Scenario) {
			if s.Cloud.Config.SchedulerDriver != engine.DriverFilterScheduler || s.Cloud.Config.HostManager != engine.HostManagerDefault {
				t.Errorf("got %+v", s.Cloud.Config)
			}
		}},
	{"ironic", doc("config", `{"host_manager": "ironic_host_manager", "use_baremetal_filters": true,
		"filters": ["ComputeFilter", "ExactRamFilter", "ExactCoreFilter", "ExactDiskFilter"],
		"baremetal_enabled_filters": ["ExactDiskFilter", "RamFilter"]}`,
		"hosts", "["+host("hypervisor_type", `"ironic"`)+"]"),
		func(t *testing.T, s *Scenario) {
			c := s.Cloud.Config
			if c.HostManager != engine.HostManagerIronic || !c.UseBaremetalFilters ||
				!slices.Equal(c.Filters, []string{"ComputeFilter", "ExactRamFilter", "ExactCoreFilter", "ExactDiskFilter"}) ||
				!slices.Equal(c.BaremetalEnabledFilters, []string{"ExactDiskFilter", "RamFilter"}) ||
				!slices.Equal(c.LoadFilters(), c.BaremetalEnabledFilters) {
				t.Errorf("got %+v", c)
			}
			if h := s.Cloud.Hosts[0]; h.HypervisorType == nil || *h.HypervisorType != engine.HVTypeIronic {
				t.Errorf("hypervisor_type %v", h.HypervisorType)
			}
		}},
	{"no baremetal filters", doc("config", `{"baremetal_enabled_filters": []}`), func(t *testing.T, s *Scenario) {
		if s.Cloud.Config.BaremetalEnabledFilters != nil {
			t.Errorf("got %v", s.Cloud.Config.BaremetalEnabledFilters)
		}
	}},
}

// TestDriverFields decodes the additions and round-trips them.
func TestDriverFields(t *testing.T) {
	for _, tc := range driverCases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustDecode(t, tc.text)
			tc.check(t, s)
			var b bytes.Buffer
			if err := EncodeScenario(&b, s); err != nil {
				t.Fatal(err)
			}
			again := mustDecode(t, b.String())
			if !reflect.DeepEqual(s, again) {
				t.Errorf("round trip differs\nfirst:  %+v\nsecond: %+v\ndoc: %s", s.Cloud.Config, again.Cloud.Config, b.String())
			}
			var b2 bytes.Buffer
			if err := EncodeScenario(&b2, again); err != nil || b2.String() != b.String() {
				t.Errorf("encoding is not stable: %v", err)
			}
		})
	}
}

// oracleConfigKeys are the config fields of the shared format, in the
// order EncodeScenario writes them.
var oracleConfigKeys = []string{
	"filters", "weighers", "ram_weight_multiplier", "cpu_weight_multiplier",
	"disk_weight_multiplier", "io_ops_weight_multiplier",
	"num_instances_weight_multiplier", "soft_affinity_weight_multiplier",
	"soft_anti_affinity_weight_multiplier", "build_failure_weight_multiplier",
	"metrics_weight_multiplier", "metrics_weight_setting", "metrics_required",
	"metrics_weight_of_unavailable", "host_subset_size", "max_attempts",
	"shuffle_best_same_weighed_hosts", "seed", "max_io_ops_per_host",
	"max_instances_per_host", "default_availability_zone",
	"cpu_allocation_ratio", "ram_allocation_ratio", "disk_allocation_ratio",
	"isolated_images", "isolated_hosts",
	"restrict_isolated_hosts_to_isolated_images",
	"aggregate_image_properties_isolation_namespace",
	"aggregate_image_properties_isolation_separator",
	"image_properties_default_architecture",
}

// TestGeneratedScenariosKeepTheSharedFormat: what placer gen writes (every
// profile) and what Decode reads from a scenario without the additions
// encode with exactly the shared format's config fields, so the oracle's
// strict parser keeps accepting them.
func TestGeneratedScenariosKeepTheSharedFormat(t *testing.T) {
	check := func(name string, s *Scenario) {
		var b bytes.Buffer
		if err := EncodeScenario(&b, s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		root, err := parseJSON(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, k := range root.keys {
			if k != "config" {
				continue
			}
			if got := root.items[i].keys; !slices.Equal(got, oracleConfigKeys) {
				t.Errorf("%s: config fields %v", name, got)
			}
		}
	}
	for _, p := range synth.Profiles {
		for seed := uint64(1); seed <= 5; seed++ {
			c, r := synth.Scenario(synth.Options{Profile: p, Seed: seed, Hosts: 20})
			check(p, &Scenario{Cloud: c, Request: r})
		}
	}
	for _, tc := range goodCases {
		check(tc.name, mustDecode(t, tc.text))
	}
}
