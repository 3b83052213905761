package engine

import "slices"

// Filter names of the catalogue (docs/formats.md). Nova's semantics for each
// are in docs/nova-semantics.md.
const (
	AllHostsFilter                    = "AllHostsFilter"
	ComputeFilter                     = "ComputeFilter"
	RamFilter                         = "RamFilter"
	AggregateRamFilter                = "AggregateRamFilter"
	CoreFilter                        = "CoreFilter"
	AggregateCoreFilter               = "AggregateCoreFilter"
	DiskFilter                        = "DiskFilter"
	AggregateDiskFilter               = "AggregateDiskFilter"
	AvailabilityZoneFilter            = "AvailabilityZoneFilter"
	ComputeCapabilitiesFilter         = "ComputeCapabilitiesFilter"
	ImagePropertiesFilter             = "ImagePropertiesFilter"
	AggregateInstanceExtraSpecsFilter = "AggregateInstanceExtraSpecsFilter"
	AggregateImagePropertiesIsolation = "AggregateImagePropertiesIsolation"
	AggregateMultiTenancyIsolation    = "AggregateMultiTenancyIsolation"
	AggregateTypeAffinityFilter       = "AggregateTypeAffinityFilter"
	IsolatedHostsFilter               = "IsolatedHostsFilter"
	ServerGroupAffinityFilter         = "ServerGroupAffinityFilter"
	ServerGroupAntiAffinityFilter     = "ServerGroupAntiAffinityFilter"
	SameHostFilter                    = "SameHostFilter"
	DifferentHostFilter               = "DifferentHostFilter"
	SimpleCIDRAffinityFilter          = "SimpleCIDRAffinityFilter"
	IoOpsFilter                       = "IoOpsFilter"
	AggregateIoOpsFilter              = "AggregateIoOpsFilter"
	NumInstancesFilter                = "NumInstancesFilter"
	AggregateNumInstancesFilter       = "AggregateNumInstancesFilter"
	JsonFilter                        = "JsonFilter"
	MetricsFilter                     = "MetricsFilter"
	RetryFilter                       = "RetryFilter"
)

// The baremetal filters of Nova's IronicHostManager era, from the last
// release that shipped them (17.0.0 Queens; removed in 18.0.0 Rocky): pass
// only a host whose free resource equals the request exactly. They are
// not in FilterCatalogue, which the generators draw from; KnownFilters has
// both. docs/nova-semantics.md#the-exact-filters.
const (
	ExactRamFilter  = "ExactRamFilter"
	ExactCoreFilter = "ExactCoreFilter"
	ExactDiskFilter = "ExactDiskFilter"
)

// Scheduler drivers: Nova's [scheduler] driver option, by its entry point
// names. Config.SchedulerDriver "" means DriverFilterScheduler.
const (
	// DriverFilterScheduler is the FilterScheduler (Nova's default).
	DriverFilterScheduler = "filter_scheduler"
	// DriverChanceScheduler is the ChanceScheduler of 18.0.0 Rocky, the
	// last release that had it: a random node among those whose service is
	// enabled and up and whose host is not ignored; no filter, no weigher,
	// no consumption. docs/nova-semantics.md#the-chance-scheduler.
	DriverChanceScheduler = "chance_scheduler"
)

// Host managers: Nova's [scheduler] host_manager option. Config.HostManager
// "" means HostManagerDefault.
const (
	// HostManagerDefault is the HostManager (Nova's default).
	HostManagerDefault = "host_manager"
	// HostManagerIronic is the IronicHostManager of 17.0.0 Queens: nodes
	// whose hypervisor_type is HVTypeIronic get an IronicNodeState, which
	// a placement consumes whole, and use_baremetal_filters switches to
	// baremetal_enabled_filters.
	HostManagerIronic = "ironic_host_manager"
)

// HVTypeIronic is the hypervisor_type that makes a node an IronicNodeState
// under HostManagerIronic (Nova's HVType.IRONIC, compared exactly: "Ironic"
// or "baremetal" are not it).
const HVTypeIronic = "ironic"

// Weigher names of the catalogue (docs/formats.md), docs/nova-semantics.md.
const (
	RAMWeigher                         = "RAMWeigher"
	CPUWeigher                         = "CPUWeigher"
	DiskWeigher                        = "DiskWeigher"
	IoOpsWeigher                       = "IoOpsWeigher"
	NumInstancesWeigher                = "NumInstancesWeigher"
	MetricsWeigher                     = "MetricsWeigher"
	ServerGroupSoftAffinityWeigher     = "ServerGroupSoftAffinityWeigher"
	ServerGroupSoftAntiAffinityWeigher = "ServerGroupSoftAntiAffinityWeigher"
	BuildFailureWeigher                = "BuildFailureWeigher"
	CrossCellWeigher                   = "CrossCellWeigher"
)

// FilterCatalogue lists every filter the engine knows, in the order of docs/formats.md.
var FilterCatalogue = []string{
	AllHostsFilter, ComputeFilter, RamFilter, AggregateRamFilter,
	CoreFilter, AggregateCoreFilter, DiskFilter, AggregateDiskFilter,
	AvailabilityZoneFilter, ComputeCapabilitiesFilter, ImagePropertiesFilter,
	AggregateInstanceExtraSpecsFilter, AggregateImagePropertiesIsolation,
	AggregateMultiTenancyIsolation, AggregateTypeAffinityFilter,
	IsolatedHostsFilter, ServerGroupAffinityFilter,
	ServerGroupAntiAffinityFilter, SameHostFilter, DifferentHostFilter,
	SimpleCIDRAffinityFilter, IoOpsFilter, AggregateIoOpsFilter,
	NumInstancesFilter, AggregateNumInstancesFilter, JsonFilter,
	MetricsFilter, RetryFilter,
}

// BaremetalFilters are the filters a configuration may name beyond
// FilterCatalogue.
var BaremetalFilters = []string{ExactRamFilter, ExactCoreFilter, ExactDiskFilter}

// KnownFilters is every filter name a configuration may enable:
// FilterCatalogue, then BaremetalFilters.
var KnownFilters = append(append([]string(nil), FilterCatalogue...), BaremetalFilters...)

// DefaultBaremetalEnabledFilters is the default of Nova's
// [filter_scheduler] baremetal_enabled_filters (17.0.0 Queens).
var DefaultBaremetalEnabledFilters = []string{
	RetryFilter, AvailabilityZoneFilter, ComputeFilter,
	ComputeCapabilitiesFilter, ImagePropertiesFilter, ExactRamFilter,
	ExactDiskFilter, ExactCoreFilter,
}

// WeigherCatalogue lists every weigher the engine knows, in docs/formats.md's
// order; it is also the default weigher list.
var WeigherCatalogue = []string{
	RAMWeigher, CPUWeigher, DiskWeigher, IoOpsWeigher, NumInstancesWeigher,
	MetricsWeigher, ServerGroupSoftAffinityWeigher,
	ServerGroupSoftAntiAffinityWeigher, BuildFailureWeigher, CrossCellWeigher,
}

// DefaultFilters is Nova's default enabled_filters list (docs/formats.md).
var DefaultFilters = []string{
	ComputeFilter, AvailabilityZoneFilter, RamFilter, CoreFilter, DiskFilter,
	ComputeCapabilitiesFilter, ImagePropertiesFilter,
	ServerGroupAntiAffinityFilter, ServerGroupAffinityFilter,
}

// OncePerRequest reports whether Nova runs the named filter for the first
// instance of a request only (run_filter_once_per_request).
func OncePerRequest(filter string) bool {
	switch filter {
	case ComputeFilter, ComputeCapabilitiesFilter, ImagePropertiesFilter,
		AvailabilityZoneFilter, SameHostFilter, DifferentHostFilter,
		SimpleCIDRAffinityFilter, AggregateInstanceExtraSpecsFilter,
		AggregateMultiTenancyIsolation, IsolatedHostsFilter, AllHostsFilter,
		AggregateImagePropertiesIsolation, AggregateTypeAffinityFilter:
		return true
	}
	return false
}

// MetricWeight is one entry of metrics_weight_setting: a metric name and
// the ratio its value is multiplied by.
type MetricWeight struct {
	Name  string
	Ratio float64
}

// Config is the scheduler configuration: the "config" object of a scenario
// file, with Nova's option names. The zero Config is not useful; start from
// DefaultConfig, which holds Nova's defaults.
type Config struct {
	// Filters are the enabled filters, in the order they run. The order
	// changes only the NoValidHost explanation, never a placement.
	Filters []string
	// Weighers are the weighers to run, in order.
	Weighers []string

	RAMWeightMultiplier              float64
	CPUWeightMultiplier              float64
	DiskWeightMultiplier             float64
	IoOpsWeightMultiplier            float64
	NumInstancesWeightMultiplier     float64
	SoftAffinityWeightMultiplier     float64
	SoftAntiAffinityWeightMultiplier float64
	// BuildFailureWeightMultiplier is applied negated, as Nova does: a
	// host with more failed builds weighs less.
	BuildFailureWeightMultiplier float64
	MetricsWeightMultiplier      float64
	MetricsWeightSetting         []MetricWeight
	// MetricsRequired makes a candidate without a weighed metric an error
	// (ErrMetricNotFound) instead of weighing it MetricsWeightOfUnavailable.
	MetricsRequired            bool
	MetricsWeightOfUnavailable float64

	// HostSubsetSize is how many of the best hosts the random choice is
	// made among (at least 1).
	HostSubsetSize int
	// MaxAttempts bounds the alternates: each placement carries up to
	// MaxAttempts-1 of them.
	MaxAttempts int
	// ShuffleBestSameWeighedHosts shuffles the hosts tied at the top
	// weight before the subset is taken.
	ShuffleBestSameWeighedHosts bool
	// Seed seeds every random choice: same snapshot, request and seed give
	// the same result.
	Seed int64

	MaxIoOpsPerHost         int64
	MaxInstancesPerHost     int64
	DefaultAvailabilityZone string

	// CPUAllocationRatio, RAMAllocationRatio and DiskAllocationRatio are
	// used for hosts that give none.
	CPUAllocationRatio  float64
	RAMAllocationRatio  float64
	DiskAllocationRatio float64

	IsolatedImages                        []string
	IsolatedHosts                         []string
	RestrictIsolatedHostsToIsolatedImages bool
	AggregateImagePropertiesIsolationNS   *string
	AggregateImagePropertiesIsolationSep  string
	ImagePropertiesDefaultArchitecture    *string

	// SchedulerDriver is Nova's [scheduler] driver: DriverFilterScheduler
	// (also "") or DriverChanceScheduler.
	SchedulerDriver string
	// HostManager is Nova's [scheduler] host_manager: HostManagerDefault
	// (also "") or HostManagerIronic.
	HostManager string
	// UseBaremetalFilters makes HostManagerIronic run
	// BaremetalEnabledFilters instead of Filters (Nova's
	// [filter_scheduler] use_baremetal_filters); the default host manager
	// ignores it. See LoadFilters.
	UseBaremetalFilters bool
	// BaremetalEnabledFilters is [filter_scheduler]
	// baremetal_enabled_filters: DefaultBaremetalEnabledFilters unless set.
	BaremetalEnabledFilters []string
}

// LoadFilters is the filter list a request runs: HostManager._load_filters,
// and IronicHostManager's override (Queens) that returns
// BaremetalEnabledFilters when UseBaremetalFilters is set.
func (c *Config) LoadFilters() []string {
	if c.HostManager == HostManagerIronic && c.UseBaremetalFilters {
		return c.BaremetalEnabledFilters
	}
	return c.Filters
}

// DefaultConfig returns Nova's defaults, as docs/formats.md lists them.
func DefaultConfig() Config {
	return Config{
		Filters:                               append([]string(nil), DefaultFilters...),
		Weighers:                              append([]string(nil), WeigherCatalogue...),
		RAMWeightMultiplier:                   1.0,
		CPUWeightMultiplier:                   1.0,
		DiskWeightMultiplier:                  1.0,
		IoOpsWeightMultiplier:                 -1.0,
		NumInstancesWeightMultiplier:          0.0,
		SoftAffinityWeightMultiplier:          1.0,
		SoftAntiAffinityWeightMultiplier:      1.0,
		BuildFailureWeightMultiplier:          1000000.0,
		MetricsWeightMultiplier:               1.0,
		MetricsRequired:                       true,
		MetricsWeightOfUnavailable:            -10000.0,
		HostSubsetSize:                        1,
		MaxAttempts:                           3,
		MaxIoOpsPerHost:                       8,
		MaxInstancesPerHost:                   50,
		DefaultAvailabilityZone:               "nova",
		CPUAllocationRatio:                    16.0,
		RAMAllocationRatio:                    1.5,
		DiskAllocationRatio:                   1.0,
		RestrictIsolatedHostsToIsolatedImages: true,
		AggregateImagePropertiesIsolationSep:  ".",
		SchedulerDriver:                       DriverFilterScheduler,
		HostManager:                           HostManagerDefault,
		BaremetalEnabledFilters:               append([]string(nil), DefaultBaremetalEnabledFilters...),
	}
}

// clone is c with its slices copied.
func (c Config) clone() Config {
	c.Filters = slices.Clone(c.Filters)
	c.Weighers = slices.Clone(c.Weighers)
	c.MetricsWeightSetting = slices.Clone(c.MetricsWeightSetting)
	c.IsolatedHosts = slices.Clone(c.IsolatedHosts)
	c.IsolatedImages = slices.Clone(c.IsolatedImages)
	c.BaremetalEnabledFilters = slices.Clone(c.BaremetalEnabledFilters)
	return c
}
