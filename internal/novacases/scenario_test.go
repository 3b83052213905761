package novacases_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/placer/placer/engine"
)

// scenarioDoc writes a cloud and a request as a scenario document
// (SCENARIO.md), for the oracle.
func scenarioDoc(c engine.Cloud, r engine.Request) map[string]any {
	return map[string]any{
		"format":     1,
		"config":     configDoc(&c.Config),
		"aggregates": aggregatesDoc(c.Aggregates),
		"hosts":      hostsDoc(c.Hosts),
		"request":    requestDoc(&r),
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func configDoc(c *engine.Config) map[string]any {
	ws := [][]any{}
	for _, m := range c.MetricsWeightSetting {
		ws = append(ws, []any{m.Name, m.Ratio})
	}
	return map[string]any{
		"filters":                                        orEmpty(c.Filters),
		"weighers":                                       orEmpty(c.Weighers),
		"ram_weight_multiplier":                          c.RAMWeightMultiplier,
		"cpu_weight_multiplier":                          c.CPUWeightMultiplier,
		"disk_weight_multiplier":                         c.DiskWeightMultiplier,
		"io_ops_weight_multiplier":                       c.IoOpsWeightMultiplier,
		"num_instances_weight_multiplier":                c.NumInstancesWeightMultiplier,
		"soft_affinity_weight_multiplier":                c.SoftAffinityWeightMultiplier,
		"soft_anti_affinity_weight_multiplier":           c.SoftAntiAffinityWeightMultiplier,
		"build_failure_weight_multiplier":                c.BuildFailureWeightMultiplier,
		"metrics_weight_multiplier":                      c.MetricsWeightMultiplier,
		"metrics_weight_setting":                         ws,
		"metrics_required":                               c.MetricsRequired,
		"metrics_weight_of_unavailable":                  c.MetricsWeightOfUnavailable,
		"host_subset_size":                               c.HostSubsetSize,
		"max_attempts":                                   c.MaxAttempts,
		"shuffle_best_same_weighed_hosts":                c.ShuffleBestSameWeighedHosts,
		"seed":                                           c.Seed,
		"max_io_ops_per_host":                            c.MaxIoOpsPerHost,
		"max_instances_per_host":                         c.MaxInstancesPerHost,
		"default_availability_zone":                      c.DefaultAvailabilityZone,
		"cpu_allocation_ratio":                           c.CPUAllocationRatio,
		"ram_allocation_ratio":                           c.RAMAllocationRatio,
		"disk_allocation_ratio":                          c.DiskAllocationRatio,
		"isolated_images":                                orEmpty(c.IsolatedImages),
		"isolated_hosts":                                 orEmpty(c.IsolatedHosts),
		"restrict_isolated_hosts_to_isolated_images":     c.RestrictIsolatedHostsToIsolatedImages,
		"aggregate_image_properties_isolation_namespace": c.AggregateImagePropertiesIsolationNS,
		"aggregate_image_properties_isolation_separator": c.AggregateImagePropertiesIsolationSep,
		"image_properties_default_architecture":          c.ImagePropertiesDefaultArchitecture,
	}
}

func aggregatesDoc(aggs []engine.Aggregate) []any {
	out := []any{}
	for _, a := range aggs {
		md := a.Metadata
		if md == nil {
			md = map[string]string{}
		}
		out = append(out, map[string]any{"name": a.Name, "hosts": orEmpty(a.Hosts), "metadata": md})
	}
	return out
}

func hostsDoc(hosts []engine.Host) []any {
	out := []any{}
	for _, h := range hosts {
		d := map[string]any{
			"host": h.Host, "memory_mb": h.MemoryMB, "free_ram_mb": h.FreeRAMMB,
			"vcpus": h.VCPUs, "vcpus_used": h.VCPUsUsed, "local_gb": h.LocalGB,
			"free_disk_gb": h.FreeDiskGB, "num_instances": h.NumInstances,
			"num_io_ops": h.NumIOOps, "failed_builds": h.FailedBuilds,
			"service":   map[string]any{"disabled": h.Service.Disabled, "up": !h.Service.Down},
			"instances": orEmpty(h.Instances),
		}
		set := func(k string, v any, ok bool) {
			if ok {
				d[k] = v
			}
		}
		set("node", h.Node, h.Node != "")
		set("uuid", h.UUID, h.UUID != "")
		set("cell", h.Cell, h.Cell != "")
		set("disk_available_least", h.DiskAvailableLeast, h.DiskAvailableLeast != nil)
		set("ram_allocation_ratio", h.RAMAllocationRatio, h.RAMAllocationRatio != nil)
		set("cpu_allocation_ratio", h.CPUAllocationRatio, h.CPUAllocationRatio != nil)
		set("disk_allocation_ratio", h.DiskAllocationRatio, h.DiskAllocationRatio != nil)
		set("hypervisor_type", h.HypervisorType, h.HypervisorType != nil)
		set("hypervisor_version", h.HypervisorVersion, h.HypervisorVersion != nil)
		set("hypervisor_hostname", h.HypervisorHostname, h.HypervisorHostname != nil)
		set("cpu_info", h.CPUInfo, h.CPUInfo != nil)
		set("host_ip", h.HostIP, h.HostIP != nil)
		set("stats", h.Stats, h.Stats != nil)
		set("metrics", h.Metrics, h.Metrics != nil)
		if len(h.SupportedInstances) > 0 {
			var si [][]string
			for _, s := range h.SupportedInstances {
				si = append(si, []string{s.Arch, s.HVType, s.VMMode})
			}
			d["supported_instances"] = si
		}
		out = append(out, d)
	}
	return out
}

func requestDoc(r *engine.Request) map[string]any {
	f := r.Flavor
	// The extra specs in the flavor's order, which Nova walks them in.
	var specs strings.Builder
	specs.WriteByte('{')
	for i, k := range f.SpecKeys() {
		if i > 0 {
			specs.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(f.ExtraSpecs[k])
		specs.Write(kb)
		specs.WriteByte(':')
		specs.Write(vb)
	}
	specs.WriteByte('}')
	n := r.NumInstances
	if n == 0 {
		n = max(1, len(r.InstanceUUIDs))
	}
	props := r.Image.Properties
	if props == nil {
		props = map[string]any{}
	}
	d := map[string]any{
		"num_instances": n,
		"flavor": map[string]any{"name": f.Name, "memory_mb": f.MemoryMB, "vcpus": f.VCPUs,
			"root_gb": f.RootGB, "ephemeral_gb": f.EphemeralGB, "swap": f.Swap, "extra_specs": json.RawMessage(specs.String())},
		"image":             map[string]any{"id": r.Image.ID, "properties": props},
		"project_id":        r.ProjectID,
		"user_id":           r.UserID,
		"availability_zone": r.AvailabilityZone,
		"ignore_hosts":      orEmpty(r.IgnoreHosts),
		"force_hosts":       orEmpty(r.ForceHosts),
		"force_nodes":       orEmpty(r.ForceNodes),
	}
	if r.InstanceUUIDs != nil {
		d["instance_uuids"] = r.InstanceUUIDs
	}
	if g := r.InstanceGroup; g != nil {
		rules := map[string]any{}
		if g.MaxServerPerHost > 0 {
			rules["max_server_per_host"] = g.MaxServerPerHost
		}
		gd := map[string]any{"policy": g.Policy, "rules": rules, "hosts": orEmpty(g.Hosts), "members": orEmpty(g.Members)}
		if g.UUID != "" {
			gd["uuid"] = g.UUID
		}
		d["instance_group"] = gd
	}
	if dst := r.RequestedDestination; dst != nil {
		var node any
		if dst.Node != "" {
			node = dst.Node
		}
		d["requested_destination"] = map[string]any{"host": dst.Host, "node": node}
	}
	hints := map[string]any{}
	h := r.SchedulerHints
	if len(h.SameHost) > 0 {
		hints["same_host"] = h.SameHost
	}
	if len(h.DifferentHost) > 0 {
		hints["different_host"] = h.DifferentHost
	}
	for k, v := range map[string]string{"query": h.Query, "build_near_host_ip": h.BuildNearHostIP, "cidr": h.CIDR} {
		if v != "" {
			hints[k] = v
		}
	}
	if h.CIDR == "" && h.EmptyCIDR {
		hints["cidr"] = ""
	}
	d["scheduler_hints"] = hints
	if rt := r.Retry; rt != nil {
		var hs [][]string
		for _, hn := range rt.Hosts {
			hs = append(hs, []string{hn.Host, hn.Node})
		}
		if hs == nil {
			hs = [][]string{}
		}
		d["retry"] = map[string]any{"num_attempts": rt.NumAttempts, "hosts": hs}
	}
	return d
}

// resultDoc writes a PlaceBatch outcome as a result document.
func resultDoc(plan engine.Plan, err error) (map[string]any, error) {
	placements := []any{}
	add := func(ps []engine.Placement) {
		for _, p := range ps {
			lim := map[string]float64{}
			if p.Limits.Set&engine.HasMemoryMB != 0 {
				lim["memory_mb"] = p.Limits.MemoryMB
			}
			if p.Limits.Set&engine.HasVCPU != 0 {
				lim["vcpu"] = p.Limits.VCPU
			}
			if p.Limits.Set&engine.HasDiskGB != 0 {
				lim["disk_gb"] = p.Limits.DiskGB
			}
			alts := []any{}
			for _, a := range p.Alternates {
				alts = append(alts, map[string]any{"host": a.Host, "node": a.Node})
			}
			placements = append(placements, map[string]any{
				"instance_uuid": p.InstanceUUID, "host": p.Host, "node": p.Node, "cell": p.Cell,
				"weight": p.Weight, "candidates": p.Candidates, "limits": lim, "alternates": alts,
			})
		}
	}
	var errDoc any
	switch e := err.(type) {
	case nil:
		add(plan.Placements)
	case *engine.NoValidHostError:
		add(e.Tentative)
		fs := []any{}
		for _, f := range e.Filters {
			fs = append(fs, map[string]any{"name": f.Name, "start": f.Start, "end": f.End})
		}
		errDoc = map[string]any{"kind": "NoValidHost", "instance_index": e.InstanceIndex, "message": e.Error(), "filters": fs}
	case *engine.MetricNotFoundError:
		add(e.Tentative)
		errDoc = map[string]any{"kind": "ComputeHostMetricNotFound", "instance_index": e.InstanceIndex, "message": e.Error(), "filters": []any{}}
	case *engine.NovaError:
		add(e.Tentative)
		errDoc = map[string]any{"kind": e.Kind, "instance_index": e.InstanceIndex, "message": e.Error(), "filters": []any{}}
	default:
		return nil, fmt.Errorf("no result document for %v", err)
	}
	return map[string]any{"format": 1, "placements": placements, "error": errDoc}, nil
}
