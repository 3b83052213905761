package reference

import (
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/nova"
)

// HostStates returns the HostState of every node of c, in c.Hosts order,
// built as PlaceBatch builds them (HostState.update from the compute node,
// aggregates resolved per host name). c is validated first. The states
// are the caller's: nothing else holds them.
//
// It is what internal/verify recomputes a run from: a second account of
// every host's resources and limits that shares no code with the engine.
func HostStates(c engine.Cloud) ([]*HostState, error) {
	if err := engine.ValidateCloud(&c); err != nil {
		return nil, err
	}
	return buildHostStates(&c)
}

// resourceFilters are the filters of the catalogue that read and limit a
// host's resources: what consume_from_request changes.
var resourceFilters = map[string]bool{
	engine.RamFilter: true, engine.AggregateRamFilter: true,
	engine.CoreFilter: true, engine.AggregateCoreFilter: true,
	engine.DiskFilter: true, engine.AggregateDiskFilter: true,
	engine.IoOpsFilter: true, engine.AggregateIoOpsFilter: true,
	engine.NumInstancesFilter: true, engine.AggregateNumInstancesFilter: true,
}

// IsResourceFilter reports whether filter name is one of the resource
// filters CheckResources runs: RamFilter, CoreFilter, DiskFilter,
// IoOpsFilter, NumInstancesFilter and their Aggregate* forms.
func IsResourceFilter(name string) bool { return resourceFilters[name] }

// CheckResources runs, in cfg.Filters order, the enabled resource filters
// (see IsResourceFilter) for one instance of flavor on h as it is now, with
// the very host_passes the reference's filter chain calls, and returns the
// name of the first that refuses it ("" when every one passes). As in
// Nova, a passing filter sets h.Limits.
func CheckResources(cfg *engine.Config, h *HostState, flavor engine.Flavor) string {
	spec := &RequestSpec{Cfg: cfg, Req: &engine.Request{Flavor: flavor, NumInstances: 1}}
	for _, name := range cfg.Filters {
		if !resourceFilters[name] {
			continue
		}
		if pass, err := filters[name].Passes(spec, h); err != nil || !pass {
			return name
		}
	}
	return ""
}

// Consume is HostState.consume_from_request for one instance of flavor:
// free_ram_mb, free_disk_mb (root and ephemeral disk, not swap) and
// vcpus_used, one more instance and one more I/O operation.
func (h *HostState) Consume(flavor engine.Flavor) { h.consumeFromRequest(&flavor) }

// FilterLimit is what resource filter name holds h to: the allocation
// ratio of RamFilter, CoreFilter and DiskFilter (the host's, else the
// configuration's) and of their Aggregate* forms (the smallest of the
// host's aggregates' values, else the host's), or the count limit of
// IoOpsFilter and NumInstancesFilter (the configuration's) and of their
// Aggregate* forms. 0 for another filter.
func (h *HostState) FilterLimit(cfg *engine.Config, name string) float64 {
	switch name {
	case engine.RamFilter:
		return h.RAMAllocationRatio
	case engine.AggregateRamFilter:
		return aggregateRatio(h, "ram_allocation_ratio", h.RAMAllocationRatio)
	case engine.CoreFilter:
		return h.CPUAllocationRatio
	case engine.AggregateCoreFilter:
		return aggregateRatio(h, "cpu_allocation_ratio", h.CPUAllocationRatio)
	case engine.DiskFilter:
		return h.DiskAllocationRatio
	case engine.AggregateDiskFilter:
		return aggregateRatio(h, "disk_allocation_ratio", h.DiskAllocationRatio)
	case engine.IoOpsFilter:
		return float64(cfg.MaxIoOpsPerHost)
	case engine.AggregateIoOpsFilter:
		return float64(nova.AggregateIntValue(h.AggRaw["max_io_ops_per_host"], cfg.MaxIoOpsPerHost))
	case engine.NumInstancesFilter:
		return float64(cfg.MaxInstancesPerHost)
	case engine.AggregateNumInstancesFilter:
		return float64(nova.AggregateIntValue(h.AggRaw["max_instances_per_host"], cfg.MaxInstancesPerHost))
	}
	return 0
}
