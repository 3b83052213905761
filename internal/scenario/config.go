package scenario

import (
	"slices"
	"strings"

	"github.com/placer/placer/engine"
)

// configFields is the oracle's CONFIG record, in its order, then placer's
// own additions; absent fields keep engine.DefaultConfig()'s values, which
// are the scenario format's defaults (docs/formats.md).
var configFields = []field[engine.Config]{
	{"filters", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.Filters = d.names(p, v, engine.KnownFilters, "filter")
	}},
	{"weighers", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.Weighers = d.names(p, v, engine.WeigherCatalogue, "weigher")
	}},
	numberField("ram_weight_multiplier", func(c *engine.Config) *float64 { return &c.RAMWeightMultiplier }),
	numberField("cpu_weight_multiplier", func(c *engine.Config) *float64 { return &c.CPUWeightMultiplier }),
	numberField("disk_weight_multiplier", func(c *engine.Config) *float64 { return &c.DiskWeightMultiplier }),
	numberField("io_ops_weight_multiplier", func(c *engine.Config) *float64 { return &c.IoOpsWeightMultiplier }),
	numberField("num_instances_weight_multiplier", func(c *engine.Config) *float64 { return &c.NumInstancesWeightMultiplier }),
	numberField("soft_affinity_weight_multiplier", func(c *engine.Config) *float64 { return &c.SoftAffinityWeightMultiplier }),
	numberField("soft_anti_affinity_weight_multiplier", func(c *engine.Config) *float64 { return &c.SoftAntiAffinityWeightMultiplier }),
	numberField("build_failure_weight_multiplier", func(c *engine.Config) *float64 { return &c.BuildFailureWeightMultiplier }),
	numberField("metrics_weight_multiplier", func(c *engine.Config) *float64 { return &c.MetricsWeightMultiplier }),
	{"metrics_weight_setting", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.MetricsWeightSetting = d.weightSetting(p, v)
	}},
	{"metrics_required", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.MetricsRequired = d.boolean(p, v)
	}},
	numberField("metrics_weight_of_unavailable", func(c *engine.Config) *float64 { return &c.MetricsWeightOfUnavailable }),
	{"host_subset_size", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.HostSubsetSize = d.positiveInt(p, v)
	}},
	{"max_attempts", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.MaxAttempts = d.positiveInt(p, v)
	}},
	{"shuffle_best_same_weighed_hosts", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.ShuffleBestSameWeighedHosts = d.boolean(p, v)
	}},
	{"seed", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.Seed = d.integer(p, v, 0, false)
	}},
	{"max_io_ops_per_host", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.MaxIoOpsPerHost = d.nonnegInteger(p, v)
	}},
	{"max_instances_per_host", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.MaxInstancesPerHost = d.nonnegInteger(p, v)
	}},
	{"default_availability_zone", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.DefaultAvailabilityZone = d.nonemptyString(p, v)
	}},
	nonnegField("cpu_allocation_ratio", func(c *engine.Config) *float64 { return &c.CPUAllocationRatio }),
	nonnegField("ram_allocation_ratio", func(c *engine.Config) *float64 { return &c.RAMAllocationRatio }),
	nonnegField("disk_allocation_ratio", func(c *engine.Config) *float64 { return &c.DiskAllocationRatio }),
	{"isolated_images", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.IsolatedImages = d.stringList(p, v, false)
	}},
	{"isolated_hosts", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.IsolatedHosts = d.stringList(p, v, false)
	}},
	{"restrict_isolated_hosts_to_isolated_images", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.RestrictIsolatedHostsToIsolatedImages = d.boolean(p, v)
	}},
	{"aggregate_image_properties_isolation_namespace", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.AggregateImagePropertiesIsolationNS = d.nullableString(p, v, false)
	}},
	{"aggregate_image_properties_isolation_separator", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.AggregateImagePropertiesIsolationSep = d.string(p, v)
	}},
	{"image_properties_default_architecture", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.ImagePropertiesDefaultArchitecture = d.nullableString(p, v, false)
	}},
	// The fields below are placer's additions to the shared format (issue
	// 20): Nova's drivers of older releases, which the oracle does not
	// run. EncodeScenario writes them only when they are not the default,
	// so a scenario without them reads and writes as before.
	{"scheduler_driver", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.SchedulerDriver = d.oneOf(p, v, schedulerDrivers)
	}},
	{"host_manager", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.HostManager = d.oneOf(p, v, hostManagers)
	}},
	{"use_baremetal_filters", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.UseBaremetalFilters = d.boolean(p, v)
	}},
	{"baremetal_enabled_filters", false, func(d *decoder, p string, v *node, c *engine.Config) {
		c.BaremetalEnabledFilters = d.names(p, v, engine.KnownFilters, "filter")
	}},
}

// schedulerDrivers and hostManagers are the values scheduler_driver and
// host_manager take, Nova's entry point names.
var (
	schedulerDrivers = []string{engine.DriverFilterScheduler, engine.DriverChanceScheduler}
	hostManagers     = []string{engine.HostManagerDefault, engine.HostManagerIronic}
)

// oneOf reads a string that must be one of choices.
func (d *decoder) oneOf(p string, v *node, choices []string) string {
	s := d.string(p, v)
	if d.err == nil && !slices.Contains(choices, s) {
		d.fail(p, "want one of %s, got %s", strings.Join(choices, ", "), pyQuote(s))
	}
	return s
}

func numberField(name string, at func(*engine.Config) *float64) field[engine.Config] {
	return field[engine.Config]{name, false, func(d *decoder, p string, v *node, c *engine.Config) {
		*at(c) = d.number(p, v)
	}}
}

func nonnegField(name string, at func(*engine.Config) *float64) field[engine.Config] {
	return field[engine.Config]{name, false, func(d *decoder, p string, v *node, c *engine.Config) {
		*at(c) = d.nonnegNumber(p, v)
	}}
}

// names reads a filter or weigher list: strings first, then each must be
// in the catalogue and appear once (the oracle's _names_from).
func (d *decoder) names(p string, v *node, catalogue []string, what string) []string {
	names := d.stringList(p, v, false)
	for i, name := range names {
		if d.err != nil {
			break
		}
		if !slices.Contains(catalogue, name) {
			d.fail(indexPath(p, i), "unknown %s %s", what, pyQuote(name))
		} else if slices.Contains(names[:i], name) {
			d.fail(indexPath(p, i), "duplicate %s %s", what, pyQuote(name))
		}
	}
	return names
}

// weightSetting reads metrics_weight_setting: a list of [name, ratio].
func (d *decoder) weightSetting(p string, v *node) []engine.MetricWeight {
	var out []engine.MetricWeight
	d.list(p, v, func(pp string, pair *node) {
		if pair.kind != kList || len(pair.items) != 2 {
			d.fail(pp, "want [name, ratio], got %s", show(pair))
			return
		}
		name := d.nonemptyString(pp+"[0]", pair.items[0])
		if d.err == nil && strings.ContainsAny(name, "=,") {
			d.fail(pp+"[0]", `a metric name cannot hold "=" or ","`)
		}
		ratio := d.number(pp+"[1]", pair.items[1])
		out = append(out, engine.MetricWeight{Name: name, Ratio: ratio})
	})
	if d.err != nil {
		return nil
	}
	return out
}
