package fuzz

// Structured inputs: gofuzz fill functions that turn the fuzzer's bytes
// into small clouds and requests whose values sit where the filters and
// weighers decide.

import (
	"math"
	"strconv"
	"strings"

	gofuzz "github.com/google/gofuzz"

	"github.com/placer/placer/engine"
)

// scene is one generated cloud and request.
type scene struct {
	Cloud engine.Cloud
	Req   engine.Request
}

// extraSpec is one flavor extra spec: a key a filter reads and a
// requirement with one of extra_specs_ops' operators.
type extraSpec struct{ Key, Value string }

// jsonQuery is a JsonFilter query text, of every command.
type jsonQuery string

// hostPool are the host names: differing in case only, an empty one
// (invalid, rarely), duplicates by construction (several nodes per host).
var hostPool = []string{"h0", "h1", "H1", "h2", "h3"}

// uuidPool are instance uuids: inst-0 and inst-1 are the request's default
// uuids, so hosts can already hold the instance being placed.
var uuidPool = []string{"u1", "u2", "u3", "inst-0", "inst-1"}

var metricNames = []string{"cpu.frequency", "cpu.percent", "cpu.user.percent", "cpu.idle.percent"}

var hvSpecs = []engine.HVSpec{
	{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"},
	{Arch: "x86_64", HVType: "qemu", VMMode: "hvm"},
	{Arch: "aarch64", HVType: "kvm", VMMode: "hvm"},
	{Arch: "X86_64", HVType: "QEMU", VMMode: "HVM"},
	{Arch: "i686", HVType: "xen", VMMode: "xen"},
}

var cpuInfos = []string{
	`{"arch": "x86_64", "vendor": "Intel", "topology": {"cores": 4}, "features": ["avx", "aes"]}`,
	`{"vendor": "AMD", "features": ["svm"]}`,
	`not json`, `[1, 2]`, `{}`,
}

// ratios are allocation ratios around 1 and Nova's defaults.
var ratios = []float64{0, 0.5, 0.999999, 1, 1.0000001, 1.5, 2, 16}

// multipliers are weigher multipliers, negative and zero included.
var multipliers = []float64{-2, -1, -0.5, 0, 0.5, 1, 2, 1e6}

// aggregate metadata keys the filters and weighers read, and values that
// parse, parse oddly or do not parse.
var aggKeys = []string{
	"availability_zone", "filter_tenant_id", "instance_type",
	"ram_allocation_ratio", "cpu_allocation_ratio", "disk_allocation_ratio",
	"max_io_ops_per_host", "max_instances_per_host",
	"ram_weight_multiplier", "cpu_weight_multiplier", "disk_weight_multiplier",
	"io_ops_weight_multiplier", "num_instances_weight_multiplier",
	"build_failure_weight_multiplier", "metrics_weight_multiplier",
	"soft_affinity_weight_multiplier", "soft_anti_affinity_weight_multiplier",
	"ssd", "os_distro", "hw_architecture", "cpu_class",
}
var aggValues = []string{"1", "0", "2", "0.5", "1.5", "-1", "abc", "1,2", " 2 ", "az1", "az2", "nova",
	"p1", "p1,p2", "m1", "m1,m2", "true", "ubuntu", "x86_64", "fast", "", "1e3", "inf", "nan"}

// specKeys are the extra-spec keys ComputeCapabilitiesFilter and
// AggregateInstanceExtraSpecsFilter read (scoped, unscoped, nested).
var specKeys = []string{
	"capabilities:hypervisor_type", "capabilities:cpu_info:vendor", "capabilities:cpu_info:features",
	"capabilities:cpu_info:topology:cores", "capabilities:cpu_info", "capabilities:hypervisor_version",
	"capabilities:num_instances", "capabilities:free_ram_mb", "capabilities:host_ip",
	"capabilities:supported_instances", "capabilities:vcpus_total", "capabilities:stats:opt1",
	"capabilities:opt1", "capabilities:nosuch", "free_ram_mb", "vcpus_used", "opt1", "nosuch",
	"aggregate_instance_extra_specs:ssd", "aggregate_instance_extra_specs:os_distro",
	"aggregate_instance_extra_specs:cpu_class", "ssd", "os_distro", "trust:trusted_host", "hw:cpu_policy",
}

// specOps are every operator of extra_specs_ops, "<or>", and no operator.
var specOps = []string{"=", "<in>", "<all-in>", "==", "!=", ">=", "<=",
	"s==", "s!=", "s<", "s<=", "s>", "s>=", "<or>", ""}

// specWords are operands: numbers, names found in hosts and aggregates,
// words float() refuses.
var specWords = []string{"0", "1", "2", "4", "512", "1024", "1.5", "-1", "inf", "nan", "1e3", "1_0",
	"QEMU", "kvm", "Intel", "aes", "avx", "x86_64", "10.0", "true", "ubuntu", "fast", "abc", "<or>", ""}

func pick[T any](c gofuzz.Continue, xs []T) T { return xs[c.Intn(len(xs))] }

func chance(c gofuzz.Continue, p float64) bool { return c.Float64() < p }

func between(c gofuzz.Continue, lo, hi int) int { return lo + c.Intn(hi-lo+1) }

func ptr[T any](v T) *T { return &v }

// near is a value near base: base, base±1, or a small multiple.
func near(c gofuzz.Continue, base int64) int64 {
	switch c.Intn(6) {
	case 0:
		return base - 1
	case 1:
		return base + 1
	case 2:
		return base / 2
	case 3:
		return base * 2
	}
	return base
}

// makeValid turns the values of s that validation refuses into nearby
// valid ones, deterministically: negative soft (anti-)affinity
// multipliers become their absolute value; a "bogus" host_ip none;
// negative vCPUs used 0; a second host with the same host and node name
// gets a node of its own ("h1-d3" for hosts[3]), an empty host name "h4";
// the hosts of one name share the first one's service; an aggregate
// without a name or with another's gets one of its own ("agg-v2" for
// aggregates[2]); an infinite or NaN weigher multiplier of an aggregate
// becomes "2", an infinite allocation ratio "1e3".
func makeValid(s *scene) {
	cfg := &s.Cloud.Config
	cfg.SoftAffinityWeightMultiplier = math.Abs(cfg.SoftAffinityWeightMultiplier)
	cfg.SoftAntiAffinityWeightMultiplier = math.Abs(cfg.SoftAntiAffinityWeightMultiplier)
	names := map[string]bool{}
	for i := range s.Cloud.Aggregates {
		a := &s.Cloud.Aggregates[i]
		if a.Name == "" || names[a.Name] {
			a.Name = "agg-v" + strconv.Itoa(i)
		}
		names[a.Name] = true
		for k, v := range a.Metadata {
			bad := strings.ToLower(strings.TrimSpace(v))
			switch {
			case strings.HasSuffix(k, "_weight_multiplier") && (bad == "inf" || bad == "nan"):
				a.Metadata[k] = "2"
			case strings.HasSuffix(k, "_allocation_ratio") && bad == "inf":
				a.Metadata[k] = "1e3"
			}
		}
	}
	seen := map[[2]string]bool{}
	service := map[string]engine.Service{}
	for i := range s.Cloud.Hosts {
		h := &s.Cloud.Hosts[i]
		if h.Host == "" {
			h.Host = "h4"
		}
		if h.HostIP != nil && *h.HostIP == "bogus" {
			h.HostIP = nil
		}
		h.VCPUsUsed = max(h.VCPUsUsed, 0)
		if svc, ok := service[h.Host]; ok {
			h.Service = svc
		}
		service[h.Host] = h.Service
		node := h.Node
		if node == "" {
			node = h.Host
		}
		if seen[[2]string{h.Host, node}] {
			h.Node = h.Host + "-d" + strconv.Itoa(i)
			node = h.Node
		}
		seen[[2]string{h.Host, node}] = true
	}
}

// fillFuncs are the gofuzz fill functions.
var fillFuncs = []any{
	func(s *scene, c gofuzz.Continue) {
		n := between(c, 1, 8)
		s.Cloud.Hosts = make([]engine.Host, n)
		for i := range s.Cloud.Hosts {
			c.Fuzz(&s.Cloud.Hosts[i])
		}
		// One compute service per host name, mostly (else a validation
		// error, which both sides must report the same).
		if chance(c, 0.95) {
			svc := map[string]engine.Service{}
			for i := range s.Cloud.Hosts {
				h := &s.Cloud.Hosts[i]
				if v, ok := svc[h.Host]; ok {
					h.Service = v
				}
				svc[h.Host] = h.Service
			}
		}
		s.Cloud.Aggregates = make([]engine.Aggregate, between(c, 0, 3))
		for i := range s.Cloud.Aggregates {
			c.Fuzz(&s.Cloud.Aggregates[i])
			if chance(c, 0.95) {
				s.Cloud.Aggregates[i].Name = "agg" + strconv.Itoa(i)
			}
		}
		c.Fuzz(&s.Cloud.Config)
		c.Fuzz(&s.Req)
		// Most scenes are valid: the values above are drawn freely and
		// would make four scenes in five invalid (a negative soft
		// affinity multiplier, a "bogus" host_ip, a duplicate host and
		// node, negative vCPUs used), which both sides only refuse alike.
		// One in ten keeps what was drawn, for the validation paths.
		// (Drawn last, so that an input's scene differs from what it was
		// before this step only in the fields made valid.)
		if !chance(c, 0.1) {
			makeValid(s)
		}
		olderDrivers(s, c) // drawn after the rest, so that it moves no other draw
	},
	func(h *engine.Host, c gofuzz.Continue) {
		*h = engine.Host{Host: pick(c, hostPool)}
		if chance(c, 0.01) {
			h.Host = ""
		}
		switch c.Intn(4) {
		case 0:
			h.Node = h.Host
		case 1:
			h.Node = h.Host + "-n" + strconv.Itoa(c.Intn(3))
		}
		h.Cell = pick(c, []string{"", "", "cell1", "cell2"})
		h.MemoryMB = pick(c, []int64{0, 512, 1024, 2048, 4096, 8192})
		h.FreeRAMMB = near(c, h.MemoryMB) - pick(c, []int64{0, 0, 512, 1024, 4096, 16384})
		h.VCPUs = pick(c, []int64{0, 1, 2, 4, 16})
		h.VCPUsUsed = near(c, h.VCPUs) * int64(c.Intn(3))
		h.LocalGB = pick(c, []int64{0, 1, 5, 10, 100})
		h.FreeDiskGB = near(c, h.LocalGB) - int64(c.Intn(3))*5
		if chance(c, 0.2) {
			h.DiskAvailableLeast = ptr(h.FreeDiskGB - int64(c.Intn(4)))
		}
		if chance(c, 0.4) {
			h.RAMAllocationRatio = ptr(pick(c, ratios))
		}
		if chance(c, 0.4) {
			h.CPUAllocationRatio = ptr(pick(c, ratios))
		}
		if chance(c, 0.4) {
			h.DiskAllocationRatio = ptr(pick(c, ratios))
		}
		h.NumInstances = pick(c, []int64{0, 1, 2, 7, 8, 9, 49, 50, 51})
		h.NumIOOps = pick(c, []int64{0, 1, 7, 8, 9})
		h.FailedBuilds = pick(c, []int64{0, 0, 1, 3})
		if chance(c, 0.05) { // past the engine's int32 usage columns
			switch c.Intn(4) {
			case 0:
				h.MemoryMB, h.FreeRAMMB = h.MemoryMB+1<<32, h.FreeRAMMB+1<<32
			case 1:
				h.FreeRAMMB -= 1 << 32
			case 2:
				h.LocalGB, h.FreeDiskGB = h.LocalGB+1<<22, h.FreeDiskGB+1<<22
			case 3:
				h.NumIOOps += 1 << 32
			}
		}
		h.Service = engine.Service{Disabled: chance(c, 0.1), Down: chance(c, 0.1)}
		if chance(c, 0.7) {
			h.HypervisorType = ptr(pick(c, []string{"QEMU", "kvm", "xen", ""}))
		}
		if chance(c, 0.7) {
			h.HypervisorVersion = ptr(pick(c, []int64{0, 4002000, 6000000, 6002000, 7002000}))
		}
		if chance(c, 0.3) {
			h.HypervisorHostname = ptr("hv-" + h.Host)
		}
		for i := c.Intn(3); i > 0; i-- {
			h.SupportedInstances = append(h.SupportedInstances, pick(c, hvSpecs))
		}
		if chance(c, 0.5) {
			h.CPUInfo = ptr(pick(c, cpuInfos))
		}
		if chance(c, 0.5) {
			h.Stats = map[string]string{}
			for i := between(c, 1, 3); i > 0; i-- {
				h.Stats[pick(c, []string{"opt1", "opt2", "gpu", "num_instances", "free_ram_mb"})] = pick(c, specWords)
			}
		}
		if chance(c, 0.7) {
			h.Metrics = map[string]float64{}
			for i := between(c, 0, len(metricNames)); i > 0; i-- {
				h.Metrics[pick(c, metricNames)] = pick(c, []float64{0, 0.5, 1, 0.999, 99.5, 1000, -3})
			}
		}
		if chance(c, 0.6) {
			h.HostIP = ptr(pick(c, []string{"10.0.0.1", "10.0.0.200", "10.0.1.5", "192.168.0.77", "::1", "fe80::1", "bogus"}))
		}
		for i := c.Intn(3); i > 0; i-- {
			h.Instances = append(h.Instances, pick(c, uuidPool))
		}
	},
	func(a *engine.Aggregate, c gofuzz.Continue) {
		*a = engine.Aggregate{Name: pick(c, []string{"agg0", "agg1", ""})}
		for i := c.Intn(4); i > 0; i-- {
			a.Hosts = append(a.Hosts, pick(c, hostPool))
		}
		if n := c.Intn(4); n > 0 {
			a.Metadata = map[string]string{}
			for ; n > 0; n-- {
				a.Metadata[pick(c, aggKeys)] = pick(c, aggValues)
			}
		}
	},
	func(cfg *engine.Config, c gofuzz.Continue) {
		*cfg = engine.DefaultConfig()
		cfg.Filters = nil
		for _, f := range engine.FilterCatalogue {
			if chance(c, 0.3) {
				cfg.Filters = append(cfg.Filters, f)
			}
		}
		c.Rand.Shuffle(len(cfg.Filters), func(i, j int) { cfg.Filters[i], cfg.Filters[j] = cfg.Filters[j], cfg.Filters[i] })
		cfg.Weighers = nil
		for _, w := range engine.WeigherCatalogue {
			if chance(c, 0.5) {
				cfg.Weighers = append(cfg.Weighers, w)
			}
		}
		for _, m := range []*float64{&cfg.RAMWeightMultiplier, &cfg.CPUWeightMultiplier, &cfg.DiskWeightMultiplier,
			&cfg.IoOpsWeightMultiplier, &cfg.NumInstancesWeightMultiplier, &cfg.SoftAffinityWeightMultiplier,
			&cfg.SoftAntiAffinityWeightMultiplier, &cfg.BuildFailureWeightMultiplier, &cfg.MetricsWeightMultiplier} {
			if chance(c, 0.5) {
				*m = pick(c, multipliers)
			}
		}
		for i := c.Intn(3); i > 0; i-- {
			cfg.MetricsWeightSetting = append(cfg.MetricsWeightSetting,
				engine.MetricWeight{Name: pick(c, metricNames), Ratio: pick(c, multipliers)})
		}
		cfg.MetricsRequired = chance(c, 0.5)
		cfg.MetricsWeightOfUnavailable = pick(c, []float64{-10000, 0, 1, -1})
		cfg.HostSubsetSize = between(c, 1, 4)
		cfg.MaxAttempts = between(c, 1, 4)
		cfg.ShuffleBestSameWeighedHosts = chance(c, 0.3)
		cfg.Seed = int64(c.Intn(1000))
		cfg.MaxIoOpsPerHost = pick(c, []int64{0, 1, 8, 9})
		cfg.MaxInstancesPerHost = pick(c, []int64{1, 2, 8, 50})
		cfg.DefaultAvailabilityZone = pick(c, []string{"nova", "az1"})
		cfg.CPUAllocationRatio = pick(c, ratios)
		cfg.RAMAllocationRatio = pick(c, ratios)
		cfg.DiskAllocationRatio = pick(c, ratios)
		if chance(c, 0.3) {
			cfg.IsolatedImages = []string{"img-iso"}
			cfg.IsolatedHosts = []string{pick(c, hostPool)}
		}
		cfg.RestrictIsolatedHostsToIsolatedImages = chance(c, 0.5)
		if chance(c, 0.2) {
			cfg.AggregateImagePropertiesIsolationNS = ptr(pick(c, []string{"", "hw", "os"}))
		}
		cfg.AggregateImagePropertiesIsolationSep = pick(c, []string{".", "_"})
		if chance(c, 0.2) {
			cfg.ImagePropertiesDefaultArchitecture = ptr(pick(c, []string{"x86_64", "aarch64"}))
		}
	},
	func(f *engine.Flavor, c gofuzz.Continue) {
		*f = engine.Flavor{
			Name:        pick(c, []string{"m1", "m2", "odd"}),
			MemoryMB:    pick(c, []int64{0, 256, 512, 1024, 2048, 4096, 8192}),
			VCPUs:       pick(c, []int64{0, 1, 2, 4, 16, 17}),
			RootGB:      pick(c, []int64{0, 1, 5, 10}),
			EphemeralGB: pick(c, []int64{0, 0, 1, 5}),
			Swap:        pick(c, []int64{0, 0, 512, 1024}),
		}
		if n := c.Intn(4); n > 0 {
			f.ExtraSpecs = map[string]string{}
			for ; n > 0; n-- {
				var s extraSpec
				c.Fuzz(&s)
				f.ExtraSpecs[s.Key] = s.Value
			}
		}
	},
	func(s *extraSpec, c gofuzz.Continue) {
		s.Key = pick(c, specKeys)
		op := pick(c, specOps)
		words := []string{}
		if op != "" {
			words = append(words, op)
		}
		for i := c.Intn(4); i > 0; i-- {
			words = append(words, pick(c, specWords))
			if op == "<or>" && i > 1 {
				words = append(words, "<or>")
			}
		}
		s.Value = strings.Join(words, pick(c, []string{" ", " ", "  ", "\t"}))
	},
	func(q *jsonQuery, c gofuzz.Continue) {
		var b strings.Builder
		queryText(c, &b, c.Intn(3))
		*q = jsonQuery(b.String())
	},
	func(r *engine.Request, c gofuzz.Continue) {
		*r = engine.Request{NumInstances: between(c, 1, 4)}
		if chance(c, 0.3) {
			r.InstanceUUIDs = make([]string, r.NumInstances)
			for i := range r.InstanceUUIDs {
				r.InstanceUUIDs[i] = "x" + strconv.Itoa(i)
			}
			r.InstanceUUIDs[c.Intn(r.NumInstances)] = pick(c, uuidPool)
		}
		c.Fuzz(&r.Flavor)
		if chance(c, 0.5) {
			props := map[string]any{}
			for i := c.Intn(4); i > 0; i-- {
				switch c.Intn(6) {
				case 0:
					props["hw_architecture"] = pick(c, []string{"x86_64", "aarch64", "AMD64", "i686"})
				case 1:
					props["img_hv_type"] = pick(c, []string{"kvm", "qemu", "QEMU", "xen"})
				case 2:
					props["hw_vm_mode"] = pick(c, []string{"hvm", "xen", "HVM"})
				case 3:
					props["img_hv_requested_version"] = pick(c, []string{">=6.0", "<7.0", ">=4.0,<6.2", "==6.2.0"})
				case 4:
					props["os_distro"] = pick(c, []string{"ubuntu", "windows"})
				default:
					props["hw_cpu_policy"] = "dedicated"
				}
			}
			r.Image.Properties = props
		}
		if chance(c, 0.5) {
			r.Image.ID = ptr(pick(c, []string{"img-iso", "img-1"}))
		}
		if chance(c, 0.6) {
			r.ProjectID = ptr(pick(c, []string{"p1", "p2"}))
		}
		if chance(c, 0.3) {
			r.AvailabilityZone = ptr(pick(c, []string{"az1", "az2", "nova", "AZ1", ""}))
		}
		if chance(c, 0.4) {
			g := &engine.InstanceGroup{UUID: "g1", Policy: pick(c, []string{
				engine.PolicyAffinity, engine.PolicyAntiAffinity, engine.PolicySoftAffinity, engine.PolicySoftAntiAffinity})}
			g.MaxServerPerHost = c.Intn(3)
			for i := c.Intn(3); i > 0; i-- {
				g.Hosts = append(g.Hosts, pick(c, hostPool))
			}
			for i := c.Intn(3); i > 0; i-- {
				g.Members = append(g.Members, pick(c, uuidPool))
			}
			r.InstanceGroup = g
		}
		h := &r.SchedulerHints
		if chance(c, 0.15) {
			h.SameHost = []string{pick(c, uuidPool)}
		}
		if chance(c, 0.15) {
			h.DifferentHost = []string{pick(c, uuidPool), pick(c, append(uuidPool, ""))}
		}
		if chance(c, 0.3) {
			var q jsonQuery
			c.Fuzz(&q)
			h.Query = string(q)
		}
		if chance(c, 0.2) {
			h.BuildNearHostIP = pick(c, []string{"10.0.0.1", "10.0.1.9", "::1", "nope"})
			h.CIDR = pick(c, []string{"", "/24", "/16", "/32", "/0", "/33"})
		}
		if chance(c, 0.1) {
			r.IgnoreHosts = []string{pick(c, hostPool)}
		}
		if chance(c, 0.07) {
			r.ForceHosts = []string{pick(c, hostPool)}
		}
		if chance(c, 0.05) {
			r.ForceNodes = []string{pick(c, hostPool) + pick(c, []string{"", "-n0"})}
		}
		if chance(c, 0.07) {
			r.RequestedDestination = &engine.Destination{Host: pick(c, hostPool), Node: pick(c, []string{"", "h1", "h1-n0"})}
		}
		if chance(c, 0.1) {
			r.Retry = &engine.Retry{NumAttempts: 2, Hosts: []engine.HostNode{{Host: pick(c, hostPool), Node: pick(c, hostPool)}}}
		}
	},
}

// JsonFilter query pieces: host attributes (numeric, string, missing),
// literals of every JSON type.
var (
	numVars     = []string{"$free_ram_mb", "$free_disk_mb", "$vcpus_used", "$vcpus_total", "$num_instances", "$num_io_ops", "$ram_allocation_ratio", "$hypervisor_version"}
	strVars     = []string{"$hypervisor_type", "$host", "$nodename", "$stats.opt1", "$host_ip", "$cpu_info"}
	missingVars = []string{"$nosuch", "$stats.nosuch", "", "$host.x", "$service.x", "$metrics"}
	literals    = []string{"0", "1", "2", "512", "1024", "1.5", "-1", "true", "false", "null", `"QEMU"`, `"kvm"`, `"h1"`, `"1"`, "[]", "[1, 2]", "{}", "1e400", "NaN"}
	queryCmds   = []string{"=", "<", ">", "in", "<=", ">=", "not", "or", "and"}
)

// queryText writes a JsonFilter query of every command, now and then one
// Nova cannot evaluate (an unknown command, a bare object).
func queryText(c gofuzz.Continue, b *strings.Builder, depth int) {
	if chance(c, 0.03) {
		b.WriteString(pick(c, []string{`["nosuch", 1]`, `{}`, `[1, 2]`, `"="`, `[]`, `[[1]]`}))
		return
	}
	cmd := pick(c, queryCmds)
	b.WriteString("[" + strconv.Quote(cmd))
	for i := c.Intn(4); i > 0; i-- {
		b.WriteString(", ")
		switch x := c.Intn(10); {
		case depth > 0 && x < 3:
			queryText(c, b, depth-1)
		case x < 5:
			b.WriteString(strconv.Quote(pick(c, numVars)))
		case x < 6:
			b.WriteString(strconv.Quote(pick(c, strVars)))
		case x < 7:
			b.WriteString(strconv.Quote(pick(c, missingVars)))
		default:
			b.WriteString(pick(c, literals))
		}
	}
	b.WriteString("]")
}

// olderDrivers makes about one scene in ten one of the drivers of older
// releases: the ironic host manager (each node ironic with probability
// one half, free or in use whole as the ironic driver reports it; the
// baremetal filters now and then) or the chance scheduler.
func olderDrivers(s *scene, c gofuzz.Continue) {
	cfg := &s.Cloud.Config
	switch x := c.Intn(20); {
	case x == 0:
		cfg.SchedulerDriver = engine.DriverChanceScheduler
	case x <= 2:
		cfg.HostManager = engine.HostManagerIronic
		cfg.UseBaremetalFilters = chance(c, 0.3)
		ironic := engine.HVTypeIronic
		for i := range s.Cloud.Hosts {
			if !chance(c, 0.5) {
				continue
			}
			h := &s.Cloud.Hosts[i]
			h.HypervisorType = &ironic
			if chance(c, 0.5) {
				h.FreeRAMMB, h.FreeDiskGB, h.VCPUsUsed = 0, 0, h.VCPUs
			} else {
				h.FreeRAMMB, h.FreeDiskGB, h.VCPUsUsed = h.MemoryMB, h.LocalGB, 0
			}
		}
	}
}

// newFuzzer is gofuzz over the fuzzer's bytes with the fill functions.
func newFuzzer(data []byte) *gofuzz.Fuzzer {
	return gofuzz.NewFromGoFuzz(data).NilChance(0).Funcs(fillFuncs...)
}

// sceneOf turns the fuzzer's bytes into a scene.
func sceneOf(data []byte) scene {
	var s scene
	newFuzzer(data).Fuzz(&s)
	return s
}
