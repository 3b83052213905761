package reference

import (
	"errors"
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/nova"
)

// Filter is one host filter of the catalogue: BaseHostFilter.host_passes
// and run_filter_once_per_request.
type Filter struct {
	// Name is the filter's class name.
	Name string
	// Once is run_filter_once_per_request: the filter runs for the first
	// instance of a request only.
	Once bool
	// Passes is host_passes. An error is an exception Nova would raise.
	Passes func(s *RequestSpec, h *HostState) (bool, error)
}

// filters is the catalogue by name.
var filters = map[string]*Filter{}

func register(name string, once bool, passes func(*RequestSpec, *HostState) (bool, error)) {
	filters[name] = &Filter{Name: name, Once: once, Passes: passes}
}

// ok wraps a filter that never raises.
func ok(f func(*RequestSpec, *HostState) bool) func(*RequestSpec, *HostState) (bool, error) {
	return func(s *RequestSpec, h *HostState) (bool, error) { return f(s, h), nil }
}

func init() {
	register(engine.AllHostsFilter, true, ok(func(*RequestSpec, *HostState) bool { return true }))
	register(engine.ComputeFilter, true, ok(computeFilter))
	register(engine.RamFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return ramFilter(s, h, h.RAMAllocationRatio)
	}))
	register(engine.AggregateRamFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return ramFilter(s, h, aggregateRatio(h, "ram_allocation_ratio", h.RAMAllocationRatio))
	}))
	register(engine.CoreFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return coreFilter(s, h, h.CPUAllocationRatio)
	}))
	register(engine.AggregateCoreFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return coreFilter(s, h, aggregateRatio(h, "cpu_allocation_ratio", h.CPUAllocationRatio))
	}))
	register(engine.DiskFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return diskFilter(s, h, h.DiskAllocationRatio)
	}))
	register(engine.AggregateDiskFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return diskFilter(s, h, aggregateRatio(h, "disk_allocation_ratio", h.DiskAllocationRatio))
	}))
	register(engine.AvailabilityZoneFilter, true, ok(availabilityZoneFilter))
	register(engine.ComputeCapabilitiesFilter, true, func(s *RequestSpec, h *HostState) (bool, error) {
		return raised(nova.CapabilitiesCheck(s.Req.Flavor.ExtraSpecs, s.Req.Flavor.ExtraSpecOrder, h.attrs()))
	})
	register(engine.ImagePropertiesFilter, true, func(s *RequestSpec, h *HostState) (bool, error) {
		return raised(nova.ImagePropertiesCheck(s.Image, s.Cfg.ImagePropertiesDefaultArchitecture,
			h.SupportedInstances, h.HypervisorVersion))
	})
	register(engine.AggregateInstanceExtraSpecsFilter, true, func(s *RequestSpec, h *HostState) (bool, error) {
		return raised(nova.AggregateInstanceExtraSpecsCheck(s.Req.Flavor.ExtraSpecs, s.Req.Flavor.ExtraSpecOrder, h.AggMeta))
	})
	register(engine.AggregateImagePropertiesIsolation, true, ok(func(s *RequestSpec, h *HostState) bool {
		return nova.AggregateImagePropertiesIsolationPass(s.Image, h.AggMeta,
			s.Cfg.AggregateImagePropertiesIsolationNS, s.Cfg.AggregateImagePropertiesIsolationSep)
	}))
	register(engine.AggregateMultiTenancyIsolation, true, ok(multiTenancyFilter))
	register(engine.AggregateTypeAffinityFilter, true, ok(typeAffinityFilter))
	register(engine.IsolatedHostsFilter, true, ok(isolatedHostsFilter))
	register(engine.ServerGroupAffinityFilter, false, ok(groupAffinityFilter))
	register(engine.ServerGroupAntiAffinityFilter, false, ok(groupAntiAffinityFilter))
	register(engine.SameHostFilter, true, ok(func(s *RequestSpec, h *HostState) bool {
		uuids := s.Req.SchedulerHints.SameHost
		return !hintGiven(uuids) || overlap(h, uuids)
	}))
	register(engine.DifferentHostFilter, true, ok(func(s *RequestSpec, h *HostState) bool {
		uuids := s.Req.SchedulerHints.DifferentHost
		return !hintGiven(uuids) || !overlap(h, uuids)
	}))
	register(engine.SimpleCIDRAffinityFilter, true, func(s *RequestSpec, h *HostState) (bool, error) {
		hints := &s.Req.SchedulerHints
		return raised(nova.SimpleCIDRCheck(h.HostIP, hints.BuildNearHostIP, hints.AffinityCIDR()))
	})
	register(engine.IoOpsFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return h.NumIOOps < s.Cfg.MaxIoOpsPerHost
	}))
	register(engine.AggregateIoOpsFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return h.NumIOOps < nova.AggregateIntValue(h.AggRaw["max_io_ops_per_host"], s.Cfg.MaxIoOpsPerHost)
	}))
	register(engine.NumInstancesFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return h.NumInstances < s.Cfg.MaxInstancesPerHost
	}))
	register(engine.AggregateNumInstancesFilter, false, ok(func(s *RequestSpec, h *HostState) bool {
		return h.NumInstances < nova.AggregateIntValue(h.AggRaw["max_instances_per_host"], s.Cfg.MaxInstancesPerHost)
	}))
	register(engine.JsonFilter, false, jsonFilter)
	register(engine.MetricsFilter, false, metricsFilter)
	register(engine.RetryFilter, false, ok(retryFilter))
	register(engine.ExactRamFilter, false, ok(exactRamFilter))
	register(engine.ExactCoreFilter, false, ok(exactCoreFilter))
	register(engine.ExactDiskFilter, false, ok(exactDiskFilter))
}

// exactRamFilter is ExactRamFilter (queens-eol): the flavor's RAM must
// equal free_ram_mb; on a pass limits['memory_mb'] = total_usable_ram_mb
// (no allocation ratio), so that a second instance fails the claim.
func exactRamFilter(s *RequestSpec, h *HostState) bool {
	if s.Req.Flavor.MemoryMB != h.FreeRAMMB {
		return false
	}
	h.Limits.MemoryMB = float64(h.TotalUsableRAMMB)
	h.Limits.Set |= engine.HasMemoryMB
	return true
}

// exactCoreFilter is ExactCoreFilter (queens-eol): a host with no
// vcpus_total fails ("assuming CPU collection broken"); the flavor's vCPUs
// must equal vcpus_total - vcpus_used; on a pass limits['vcpu'] =
// vcpus_total.
func exactCoreFilter(s *RequestSpec, h *HostState) bool {
	if h.VCPUsTotal == 0 {
		return false
	}
	if s.Req.Flavor.VCPUs != h.VCPUsTotal-h.VCPUsUsed {
		return false
	}
	h.Limits.VCPU = float64(h.VCPUsTotal)
	h.Limits.Set |= engine.HasVCPU
	return true
}

// exactDiskFilter is ExactDiskFilter (queens-eol): 1024 * (root_gb +
// ephemeral_gb) + swap MB must equal free_disk_mb; on a pass
// limits['disk_gb'] = total_usable_disk_gb.
func exactDiskFilter(s *RequestSpec, h *HostState) bool {
	f := &s.Req.Flavor
	if 1024*(f.RootGB+f.EphemeralGB)+f.Swap != h.FreeDiskMB {
		return false
	}
	h.Limits.DiskGB = float64(h.TotalUsableDiskGB)
	h.Limits.Set |= engine.HasDiskGB
	return true
}

// computeFilter is ComputeFilter: the service must be enabled and up.
func computeFilter(_ *RequestSpec, h *HostState) bool {
	return !h.Service.Disabled && !h.Service.Down
}

// aggregateRatio is the Aggregate*Filter ratio: the minimum of the
// aggregates' values under key, else the host's own ratio (also when a
// value does not parse).
func aggregateRatio(h *HostState, key string, hostRatio float64) float64 {
	return nova.AggregateNumValue(h.AggRaw[key], hostRatio)
}

// ramFilter is RamFilter/AggregateRamFilter (Stein): no overcommit of an
// instance against itself, then total*ratio - used >= requested; on pass
// limits['memory_mb'] = total*ratio.
func ramFilter(s *RequestSpec, h *HostState, ratio float64) bool {
	requested := s.Req.Flavor.MemoryMB
	total := h.TotalUsableRAMMB
	if !(total >= requested) {
		return false
	}
	limit := float64(float64(total) * ratio)
	used := total - h.FreeRAMMB
	usable := limit - float64(used)
	if !(usable >= float64(requested)) {
		return false
	}
	h.Limits.MemoryMB = limit
	h.Limits.Set |= engine.HasMemoryMB
	return true
}

// coreFilter is CoreFilter/AggregateCoreFilter (Stein): a host reporting
// no vCPUs passes; the vcpu limit is recorded before the checks whenever
// vcpus_total*ratio > 0.
func coreFilter(s *RequestSpec, h *HostState, ratio float64) bool {
	if h.VCPUsTotal == 0 {
		return true
	}
	vcpus := s.Req.Flavor.VCPUs
	total := float64(float64(h.VCPUsTotal) * ratio)
	if total > 0 {
		h.Limits.VCPU = total
		h.Limits.Set |= engine.HasVCPU
		if vcpus > h.VCPUsTotal {
			return false
		}
	}
	free := total - float64(h.VCPUsUsed)
	return !(free < float64(vcpus))
}

// diskFilter is DiskFilter/AggregateDiskFilter (Stein): the request
// counts swap; on pass limits['disk_gb'] = total_mb*ratio/1024.
func diskFilter(s *RequestSpec, h *HostState, ratio float64) bool {
	f := &s.Req.Flavor
	requested := 1024*(f.RootGB+f.EphemeralGB) + f.Swap
	totalMB := h.TotalUsableDiskGB * 1024
	if totalMB < requested {
		return false
	}
	limit := float64(float64(totalMB) * ratio)
	used := totalMB - h.FreeDiskMB
	usable := limit - float64(used)
	if !(usable >= float64(requested)) {
		return false
	}
	h.Limits.DiskGB = limit / 1024
	h.Limits.Set |= engine.HasDiskGB
	return true
}

// availabilityZoneFilter is AvailabilityZoneFilter: the requested AZ must
// be among the host's aggregates' availability_zone values, or be the
// default AZ when the host has none.
func availabilityZoneFilter(s *RequestSpec, h *HostState) bool {
	az := s.Req.AvailabilityZone
	if az == nil || *az == "" {
		return true
	}
	if zones, found := h.AggMeta["availability_zone"]; found {
		return containsStr(zones, *az)
	}
	return *az == s.Cfg.DefaultAvailabilityZone
}

// multiTenancyFilter is AggregateMultiTenancyIsolation (Nova 26: the key
// filter_tenant_id exactly): a host in an aggregate with filter_tenant_id
// takes only those projects.
func multiTenancyFilter(s *RequestSpec, h *HostState) bool {
	tenants, found := h.AggMeta["filter_tenant_id"]
	if !found || len(tenants) == 0 {
		return true
	}
	p := s.Req.ProjectID
	return p != nil && containsStr(tenants, *p)
}

// typeAffinityFilter is AggregateTypeAffinityFilter: the flavor name must
// be in some aggregate's instance_type list, unless no aggregate sets one.
func typeAffinityFilter(s *RequestSpec, h *HostState) bool {
	types, found := h.AggMeta["instance_type"]
	if !found {
		return true
	}
	return containsStr(types, s.Req.Flavor.Name)
}

// isolatedHostsFilter is IsolatedHostsFilter.
func isolatedHostsFilter(s *RequestSpec, h *HostState) bool {
	cfg := s.Cfg
	restrict := cfg.RestrictIsolatedHostsToIsolatedImages
	hostIsolated := containsStr(cfg.IsolatedHosts, h.Host)
	if len(cfg.IsolatedImages) == 0 {
		return !restrict || !hostIsolated
	}
	imageIsolated := s.Req.Image.ID != nil && containsStr(cfg.IsolatedImages, *s.Req.Image.ID)
	if restrict {
		return imageIsolated == hostIsolated
	}
	return !imageIsolated || hostIsolated
}

// groupAffinityFilter is ServerGroupAffinityFilter: with policy affinity
// and a non-empty group.hosts, the host must be one of them.
func groupAffinityFilter(s *RequestSpec, h *HostState) bool {
	g := s.Group
	if g == nil || g.Policy != engine.PolicyAffinity {
		return true
	}
	if len(g.Hosts) > 0 {
		return containsStr(g.Hosts, h.Host)
	}
	return true
}

// groupAntiAffinityFilter is ServerGroupAntiAffinityFilter: with policy
// anti-affinity, a host already running the instance passes; otherwise
// fewer than max_server_per_host group members may run there.
func groupAntiAffinityFilter(s *RequestSpec, h *HostState) bool {
	g := s.Group
	if g == nil || g.Policy != engine.PolicyAntiAffinity {
		return true
	}
	if h.Instances.Has(s.InstanceUUID) {
		return true
	}
	return s.membersOn(h) < g.MaxServerPerHost
}

// hintGiven is the truth of spec_obj.get_scheduler_hint(name) for a list
// hint: a one-element list comes back as its string, and "" is false.
func hintGiven(uuids []string) bool {
	return len(uuids) > 1 || len(uuids) == 1 && uuids[0] != ""
}

// overlap is utils.instance_uuids_overlap.
func overlap(h *HostState, uuids []string) bool {
	for _, u := range uuids {
		if h.Instances.Has(u) {
			return true
		}
	}
	return false
}

// jsonFilter is JsonFilter: no query passes every host; an evaluation
// error is the exception Nova raises.
func jsonFilter(s *RequestSpec, h *HostState) (bool, error) {
	if s.Query == nil {
		return true, nil
	}
	return raised(s.Query.Eval(h.attrs()))
}

// raised turns an exception a Nova helper reports into the error Nova's
// scheduler would propagate: an *engine.NovaError named after the Python
// exception class.
func raised(pass bool, err error) (bool, error) {
	if err == nil {
		return pass, nil
	}
	var pe *nova.ErrPython
	if errors.As(err, &pe) {
		return false, &engine.NovaError{Kind: pe.Exception, Msg: pe.Msg}
	}
	return false, &engine.NovaError{Kind: "JsonFilterError", Msg: err.Error()}
}

// metricsFilter is MetricsFilter: every weighed metric must be reported.
// It iterates host_state.metrics, which raises TypeError when that is
// None (an IronicNodeState's), whatever the setting.
func metricsFilter(s *RequestSpec, h *HostState) (bool, error) {
	if h.NoMetrics {
		return false, &engine.NovaError{Kind: "TypeError", Msg: "'NoneType' object is not iterable"}
	}
	for _, m := range s.Cfg.MetricsWeightSetting {
		if _, found := h.Metrics[m.Name]; !found {
			return false, nil
		}
	}
	return true, nil
}

// retryFilter is RetryFilter: nodes already tried are out.
func retryFilter(s *RequestSpec, h *HostState) bool {
	r := s.Req.Retry
	if r == nil {
		return true
	}
	for _, hn := range r.Hosts {
		if hn.Host == h.Host && hn.Node == h.Nodename {
			return false
		}
	}
	return true
}
