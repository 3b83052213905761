package synth

import (
	"maps"
	"math"
	"strconv"

	"github.com/placer/placer/engine"
)

// BadInput returns an edge scenario with exactly one invalid field, and the
// path engine.ValidateCloud or engine.PrepareRequest must name for it
// (hosts[3].memory_mb, config.filters[2], request.flavor.vcpus...). The
// corruption and its place are drawn from seed; everything else is as
// valid as in the edge profile. For validation tests and fuzzers: engine
// and reference must both refuse it, with that field, consuming nothing.
func BadInput(seed uint64) (engine.Cloud, engine.Request, string) {
	g := New(Options{Seed: seed, Profile: Edge})
	c, req := g.Cloud(), g.Request()
	// The generator shares slices and maps between hosts: copy what is
	// edited.
	c.Hosts = append([]engine.Host(nil), c.Hosts...)
	c.Aggregates = append([]engine.Aggregate(nil), c.Aggregates...)
	c.Config.Filters = append([]string(nil), c.Config.Filters...)
	r := newRNG(seed, 0xbad)
	i := r.IntN(len(c.Hosts))
	h := &c.Hosts[i]
	hp := "hosts[" + strconv.Itoa(i) + "]"
	fixes := []func() string{
		func() string {
			c.Config.Filters = append(c.Config.Filters, "NopeFilter")
			return "config.filters[" + strconv.Itoa(len(c.Config.Filters)-1) + "]"
		},
		func() string {
			c.Config.Weighers = []string{engine.RAMWeigher, engine.CPUWeigher, engine.RAMWeigher}
			return "config.weighers[2]"
		},
		func() string { c.Config.RAMWeightMultiplier = math.NaN(); return "config.ram_weight_multiplier" },
		func() string {
			c.Config.MetricsWeightOfUnavailable = math.Inf(-1)
			return "config.metrics_weight_of_unavailable"
		},
		func() string { c.Config.CPUAllocationRatio = -1; return "config.cpu_allocation_ratio" },
		func() string {
			c.Config.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: 1}, {Name: "", Ratio: 1}}
			return "config.metrics_weight_setting[1][0]"
		},
		func() string {
			c.Config.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: math.NaN()}}
			return "config.metrics_weight_setting[0][1]"
		},
		func() string { c.Config.HostSubsetSize = 0; return "config.host_subset_size" },
		func() string { c.Config.MaxAttempts = -2; return "config.max_attempts" },
		func() string { c.Config.MaxIoOpsPerHost = -1; return "config.max_io_ops_per_host" },
		// Values Nova's options refuse (min=1, min=0.0, choices).
		func() string {
			c.Config.ImagePropertiesDefaultArchitecture = strp(pick(r, []string{"AMD64", "X86_64", "i386", "armv99", ""}))
			return "config.image_properties_default_architecture"
		},
		func() string { c.Config.MaxInstancesPerHost = 0; return "config.max_instances_per_host" },
		func() string {
			c.Config.SoftAntiAffinityWeightMultiplier = -1
			return "config.soft_anti_affinity_weight_multiplier"
		},
		func() string { c.Config.DefaultAvailabilityZone = ""; return "config.default_availability_zone" },
		func() string {
			c.Aggregates = append(c.Aggregates, engine.Aggregate{Name: ""})
			return "aggregates[" + strconv.Itoa(len(c.Aggregates)-1) + "].name"
		},
		func() string {
			c.Aggregates = append(c.Aggregates, engine.Aggregate{Name: "dup"}, engine.Aggregate{Name: "dup"})
			return "aggregates[" + strconv.Itoa(len(c.Aggregates)-1) + "].name"
		},
		func() string { h.Host = ""; return hp + ".host" },
		func() string {
			c.Hosts = append(c.Hosts, c.Hosts[i])
			return "hosts[" + strconv.Itoa(len(c.Hosts)-1) + "]"
		},
		func() string {
			c.Hosts[0].UUID = "dup-uuid"
			d := c.Hosts[0]
			d.Node = "another-node"
			c.Hosts = append(c.Hosts, d)
			return "hosts[" + strconv.Itoa(len(c.Hosts)-1) + "].uuid"
		},
		func() string {
			d := *h
			d.Node, d.UUID = "another-node", ""
			d.Service = engine.Service{Disabled: !h.Service.Disabled, Down: h.Service.Down}
			c.Hosts = append(c.Hosts, d)
			return "hosts[" + strconv.Itoa(len(c.Hosts)-1) + "].service"
		},
		func() string { h.MemoryMB = -1; return hp + ".memory_mb" },
		func() string { h.VCPUsUsed = -4; return hp + ".vcpus_used" },
		func() string { h.NumIOOps = -1; return hp + ".num_io_ops" },
		func() string { h.DiskAllocationRatio = float64p(math.Inf(1)); return hp + ".disk_allocation_ratio" },
		func() string { h.HypervisorVersion = int64p(-6); return hp + ".hypervisor_version" },
		func() string {
			h.SupportedInstances = []engine.HVSpec{{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"}, {Arch: "armv99", HVType: "kvm", VMMode: "hvm"}}
			return hp + ".supported_instances[1]"
		},
		func() string {
			h.Metrics = map[string]float64{"cpu.percent": math.NaN()}
			return hp + `.metrics["cpu.percent"]`
		},
		func() string {
			m := maps.Clone(h.Metrics)
			if m == nil {
				m = map[string]float64{}
			}
			m["cpu.bogus"] = 1
			h.Metrics = m
			return hp + ".metrics"
		},
		func() string { req.NumInstances = -1; return "request.num_instances" },
		func() string {
			req.NumInstances = 2
			req.InstanceUUIDs = []string{"a", "b", "c"}
			return "request.instance_uuids"
		},
		func() string {
			req.NumInstances = 3
			req.InstanceUUIDs = []string{"a", "", "c"}
			return "request.instance_uuids[1]"
		},
		func() string {
			req.NumInstances = 2
			req.InstanceUUIDs = []string{"same", "same"}
			return "request.instance_uuids[1]"
		},
		func() string { req.Flavor.VCPUs = -1; return "request.flavor.vcpus" },
		func() string { req.Flavor.Swap = -512; return "request.flavor.swap" },
		func() string {
			req.Image.Properties = map[string]any{"hw_architecture": "armv99"}
			return "request.image.properties"
		},
		func() string {
			req.InstanceGroup = &engine.InstanceGroup{UUID: "g", Policy: "friends"}
			return "request.instance_group.policy"
		},
		func() string {
			req.InstanceGroup = &engine.InstanceGroup{UUID: "g", Policy: engine.PolicyAntiAffinity, MaxServerPerHost: -1}
			return "request.instance_group.rules.max_server_per_host"
		},
		func() string {
			req.RequestedDestination = &engine.Destination{Node: "n"}
			return "request.requested_destination.host"
		},
	}
	field := fixes[r.IntN(len(fixes))]()
	return c, req, field
}
