package synth

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
)

// The edge profile: small adversarial clouds for differential testing.
// Every value stays valid for engine.ValidateCloud and Nova (the point is
// semantics, not validation): resource values at and past their limits,
// identical hosts (ties), several nodes per host, names that differ only in
// case, aggregate metadata that does not parse, every filter and weigher in
// random subsets and orders.

var edgeBases = []string{"alpha", "Bravo", "CHARLIE", "delta", "Echo", "fOxtrot", "golf", "Hotel"}

// Metric names Nova's MonitorMetric knows; the first four are the core
// most edge hosts report and edge configs weigh.
var novaMetrics = []string{
	"cpu.frequency", "cpu.percent", "cpu.user.percent", "cpu.idle.percent",
	"cpu.user.time", "cpu.kernel.time", "cpu.idle.time", "cpu.iowait.time",
	"cpu.kernel.percent", "cpu.iowait.percent",
	"numa.membw.max", "numa.membw.current",
}

var edgeHVSpecs = []engine.HVSpec{
	{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"},
	{Arch: "x86_64", HVType: "qemu", VMMode: "hvm"},
	{Arch: "i686", HVType: "kvm", VMMode: "hvm"},
	{Arch: "aarch64", HVType: "kvm", VMMode: "hvm"},
	{Arch: "X86_64", HVType: "QEMU", VMMode: "HVM"}, // canonicalised by Nova
	{Arch: "amd64", HVType: "xen", VMMode: "xen"},
	{Arch: "i386", HVType: "xapi", VMMode: "pv"},
	{Arch: "x86_64", HVType: "kvm", VMMode: "exe"},
}

var edgeCPUInfos = []string{
	`{"arch": "x86_64", "model": "Skylake", "vendor": "Intel", "topology": {"sockets": 1, "cores": 4, "threads": 2}, "features": ["avx", "aes", "vmx"]}`,
	`{"arch": "x86_64", "vendor": "AMD", "topology": {"cores": 16}, "features": ["svm", "aes"]}`,
	`{"vendor": "Intel"}`,
	`not json at all`,
	`[1, 2, 3]`,
	`"just a string"`,
	`{}`,
}

var edgeStats = []spec{
	{"opt1", "1"}, {"opt2", "2"}, {"gpu", "true"}, {"ssd", "yes"},
	{"num_vm_active", "3"}, {"num_instances", "99"}, {"io_workload", "7"},
	{"free_ram_mb", "123"},
}

// edgeResources is what identical hosts share: everything but names,
// instances and placement in cells and aggregates.
type edgeResources struct {
	memoryMB, freeRAMMB, vcpus, vcpusUsed, localGB, freeDiskGB int64
	dal                                                        *int64
	ramRatio, cpuRatio, diskRatio                              *float64
	numInstances, numIOOps, failedBuilds                       int64
	hvType                                                     *string
	hvVersion                                                  *int64
	specs                                                      []engine.HVSpec
	cpuInfo                                                    *string
	stats                                                      map[string]string
	metrics                                                    map[string]float64
}

func int64p(v int64) *int64       { return &v }
func float64p(v float64) *float64 { return &v }

func optRatio(r rng) *float64 {
	if r.chance(0.7) {
		return nil
	}
	return float64p(pick(r, []float64{0, 0.5, 1, 1.5, 2, 16}))
}

func edgeResourcesOf(r rng) edgeResources {
	var e edgeResources
	if r.chance(0.7) { // a host most requests fit on
		e.memoryMB = pick(r, []int64{4096, 8192, 8192, 16384})
		e.freeRAMMB = e.memoryMB - pick(r, []int64{0, 0, 512, 1024, 2048, 4096})
		e.vcpus = pick(r, []int64{4, 8, 8, 16})
		e.vcpusUsed = int64(r.between(0, int(e.vcpus)))
		e.localGB = pick(r, []int64{40, 80, 80, 160})
		e.freeDiskGB = e.localGB - pick(r, []int64{0, 0, 5, 10, 20})
	} else { // zero, negative, past the total
		e.memoryMB = pick(r, []int64{0, 512, 1024, 2048, 4096, 8192})
		e.freeRAMMB = pick(r, []int64{-2048, -1, 0, 256, e.memoryMB / 2, e.memoryMB, e.memoryMB, e.memoryMB + 1024})
		e.vcpus = pick(r, []int64{0, 1, 2, 4, 4, 8})
		e.vcpusUsed = int64(r.between(0, int(e.vcpus)*3+1))
		e.localGB = pick(r, []int64{0, 1, 5, 10, 40})
		e.freeDiskGB = pick(r, []int64{-5, 0, 1, e.localGB / 2, e.localGB, e.localGB, e.localGB + 10})
	}
	switch r.IntN(6) {
	case 0:
		e.dal = int64p(e.freeDiskGB - int64(r.between(0, 5)))
	case 1:
		e.dal = int64p(e.freeDiskGB + int64(r.between(1, 5)))
	case 2:
		e.dal = int64p(pick(r, []int64{-3, 0}))
	}
	e.ramRatio, e.cpuRatio, e.diskRatio = optRatio(r), optRatio(r), optRatio(r)
	e.numInstances = int64(r.between(0, 6))
	e.numIOOps = int64(pick(r, []int{0, 0, 1, 2, 3, 5, 8, 10}))
	e.failedBuilds = pick(r, []int64{0, 0, 0, 1, 3})
	switch r.IntN(5) {
	case 0:
	case 1:
		e.hvType = strp("kvm")
	case 2:
		e.hvType = strp("Xen")
	default:
		e.hvType = strp("QEMU")
	}
	if !r.chance(0.2) {
		e.hvVersion = int64p(pick(r, []int64{0, 4002000, 6000000, 6002000, 7002000}))
	}
	if !r.chance(0.15) {
		e.specs = sample(r, edgeHVSpecs, r.between(1, 3))
	}
	if !r.chance(0.25) {
		e.cpuInfo = strp(pick(r, edgeCPUInfos))
	}
	if r.chance(0.7) {
		e.stats = map[string]string{}
		for _, s := range sample(r, edgeStats, r.between(1, 4)) {
			e.stats[s.key] = s.value
		}
	}
	if r.chance(0.75) {
		// Mostly the metrics the config weighs (edgeConfig draws from the
		// first four), sometimes a few more or fewer.
		e.metrics = map[string]float64{}
		names := novaMetrics[:4]
		if r.chance(0.3) {
			names = sample(r, novaMetrics, r.between(1, 5))
		}
		for _, name := range names {
			v := pick(r, []float64{0, 1, 2400, 2400.9, 37, -1})
			if strings.HasSuffix(name, "percent") {
				v = pick(r, []float64{0, 0.29, 0.5, 0.57, 1})
			}
			e.metrics[name] = v
		}
	}
	return e
}

func (e *edgeResources) apply(h *engine.Host) {
	h.MemoryMB, h.FreeRAMMB, h.VCPUs, h.VCPUsUsed = e.memoryMB, e.freeRAMMB, e.vcpus, e.vcpusUsed
	h.LocalGB, h.FreeDiskGB, h.DiskAvailableLeast = e.localGB, e.freeDiskGB, e.dal
	h.RAMAllocationRatio, h.CPUAllocationRatio, h.DiskAllocationRatio = e.ramRatio, e.cpuRatio, e.diskRatio
	h.NumInstances, h.NumIOOps, h.FailedBuilds = e.numInstances, e.numIOOps, e.failedBuilds
	h.HypervisorType, h.HypervisorVersion = e.hvType, e.hvVersion
	h.SupportedInstances, h.CPUInfo, h.Stats, h.Metrics = e.specs, e.cpuInfo, e.stats, e.metrics
}

// edgeHostName is one host name of the edge cloud.
type edgeHostName struct {
	name    string
	cell    string
	service engine.Service
	ip      *string
	nodes   int
}

// caseTwist returns s in another case (or unchanged), as users type names.
func caseTwist(r rng, s string) string {
	switch r.IntN(4) {
	case 0:
		return strings.ToUpper(s)
	case 1:
		return strings.ToLower(s)
	case 2:
		if s != "" {
			return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
		}
	}
	return s
}

func edgeCloud(r rng, nHosts int) (engine.Cloud, *meta) {
	n := nHosts
	if n == 0 {
		n = r.between(1, 40)
	}
	k := n
	if r.chance(0.7) {
		k = r.between(max(1, n/3), n)
	}
	nCells := r.between(1, 3)
	names := make([]edgeHostName, 0, k)
	used := map[string]bool{}
	for i := 0; i < k; i++ {
		name := edgeBases[i%len(edgeBases)] + "-" + strconv.Itoa(i)
		if i > 0 && r.chance(0.1) {
			// A twin differing only in case: a distinct host for Nova,
			// but ignore/force_hosts match both.
			if twin := strings.ToUpper(names[r.IntN(len(names))].name); !used[twin] {
				name = twin
			}
		}
		used[name] = true
		hn := edgeHostName{name: name, cell: "cell" + strconv.Itoa(r.between(1, nCells))}
		switch x := r.Float64(); {
		case x < 0.1:
			hn.service.Disabled = true
		case x < 0.2:
			hn.service.Down = true
		case x < 0.25:
			hn.service = engine.Service{Disabled: true, Down: true}
		}
		if !r.chance(0.05) { // no IP: SimpleCIDRAffinityFilter raises in Nova
			ip := pick(r, []string{"10.0.0.", "10.0.1.", "10.1.0.", "192.168.0."}) + strconv.Itoa(r.between(1, 254))
			hn.ip = &ip
		}
		names = append(names, hn)
	}

	templates := make([]edgeResources, r.between(1, 4))
	for i := range templates {
		templates[i] = edgeResourcesOf(r)
	}
	m := &meta{}
	for _, hn := range names {
		m.hostNames = append(m.hostNames, hn.name)
	}
	hosts := make([]engine.Host, n)
	nodeUsed := map[[2]string]bool{}
	for i := range hosts {
		hn := &names[i%k]
		if i >= k {
			hn = &names[r.IntN(k)]
		}
		h := &hosts[i]
		h.Host, h.Cell, h.Service, h.HostIP = hn.name, hn.cell, hn.service, hn.ip
		if r.chance(0.1) {
			h.Cell = "cell" + strconv.Itoa(r.between(1, nCells)) // a host split over cells
		}
		// Node names: the host name (implicitly or not), a suffixed name,
		// or the host name in another case (force_nodes is exact).
		for {
			switch {
			case hn.nodes == 0 && r.chance(0.5):
				h.Node = ""
			case hn.nodes == 0:
				h.Node = hn.name
			case r.chance(0.3):
				h.Node = caseTwist(r, hn.name)
			default:
				h.Node = hn.name + "-n" + strconv.Itoa(hn.nodes+r.IntN(3))
			}
			key := [2]string{h.Host, nodeOf(h)}
			if !nodeUsed[key] {
				nodeUsed[key] = true
				break
			}
			hn.nodes++
		}
		hn.nodes++
		if r.chance(0.6) {
			t := &templates[r.IntN(len(templates))]
			t.apply(h)
		} else {
			e := edgeResourcesOf(r)
			e.apply(h)
		}
		if r.chance(0.1) {
			h.HypervisorHostname = strp("hv-" + nodeOf(h))
		}
		if r.chance(0.2) {
			h.UUID = r.uuid()
		}
	}
	// Existing instances: real uuids, and sometimes the inst-N names a
	// request without uuids gets (they collide on purpose).
	total := 0
	m.instCum = make([]int, n)
	for i := range hosts {
		for j := r.between(0, 3) - 1; j >= 0; j-- {
			u := r.uuid()
			if r.chance(0.15) {
				u = "inst-" + strconv.Itoa(r.IntN(8))
			}
			if !slices.Contains(hosts[i].Instances, u) {
				hosts[i].Instances = append(hosts[i].Instances, u)
			}
		}
		total += len(hosts[i].Instances)
		m.instCum[i] = total
	}
	c := engine.Cloud{Config: edgeConfig(r, m), Hosts: hosts, Aggregates: edgeAggregates(r, m)}
	if len(c.Config.IsolatedImages) > 0 {
		m.specialImage = c.Config.IsolatedImages[0]
	}
	return c, m
}

// edgeMetadata is the aggregate metadata the edge profile draws from:
// values Nova parses, values it does not, comma lists with spaces.
var edgeMetadata = map[string][]string{
	"availability_zone":                    {"az1", "az2", "nova", "az1,az2"},
	"filter_tenant_id":                     {"p1", "p1, p2", "p3"},
	"filter_tenant_id_2":                   {"p2"},
	"instance_type":                        {"m1.tiny", "m1.small, g1.large", "odd"},
	"ram_allocation_ratio":                 {"2.0", "0.5", "abc", " 1.5 ", "1e1", "3"},
	"cpu_allocation_ratio":                 {"8", "0.5", "x", "2.0", "nan"},
	"disk_allocation_ratio":                {"1.5", "2", "none", "0"},
	"max_io_ops_per_host":                  {"2", "0", "x", "3.5", " 4 ", "10"},
	"max_instances_per_host":               {"3", "1", "y", "2.0", "6"},
	"ram_weight_multiplier":                {"2", "-1", "0", "bad", "0.5"},
	"cpu_weight_multiplier":                {"-1.0", "3", "?"},
	"disk_weight_multiplier":               {"0.5", "-2"},
	"io_ops_weight_multiplier":             {"-2.0", "1", "nope"},
	"num_instances_weight_multiplier":      {"1.0", "-1"},
	"soft_affinity_weight_multiplier":      {"2", "0"},
	"soft_anti_affinity_weight_multiplier": {"3", "-1"},
	"build_failure_weight_multiplier":      {"100.0", "0", "x"},
	"metrics_weight_multiplier":            {"2", "-1", "zero"},
	"ssd":                                  {"true", "yes", "false"},
	"os_distro":                            {"ubuntu", "windows", "ubuntu,windows"},
	"hw_architecture":                      {"x86_64", "aarch64"},
	"os_type":                              {"linux"},
	"cpu_class":                            {"fast", "slow"},
	"gpu":                                  {"true"},
}

var edgeMetadataKeys = func() []string {
	var keys []string
	for k := range edgeMetadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}()

func edgeAggregates(r rng, m *meta) []engine.Aggregate {
	aggs := make([]engine.Aggregate, r.between(0, 5))
	for i := range aggs {
		a := &aggs[i]
		a.Name = "agg-" + strconv.Itoa(i)
		share := r.Float64()
		for _, h := range m.hostNames {
			if r.chance(share) {
				a.Hosts = append(a.Hosts, h)
			}
		}
		if r.chance(0.1) {
			a.Hosts = append(a.Hosts, "ghost") // a host that is not in the cloud
		}
		if r.chance(0.1) && len(m.hostNames) > 0 {
			a.Hosts = append(a.Hosts, caseTwist(r, pick(r, m.hostNames))) // exact match only
		}
		a.Metadata = map[string]string{}
		for _, key := range sample(r, edgeMetadataKeys, r.between(0, 4)) {
			a.Metadata[key] = pick(r, edgeMetadata[key])
		}
	}
	return aggs
}

var edgeMultipliers = []float64{0, 1, 1, -1, 2, 0.5, -2.5, 1000}

func edgeConfig(r rng, m *meta) engine.Config {
	cfg := engine.DefaultConfig()
	switch x := r.Float64(); {
	case x < 0.08:
		cfg.Filters = []string{}
	case x < 0.25:
		cfg.Filters = shuffled(r, engine.FilterCatalogue)
	case x < 0.35: // the defaults
	default:
		cfg.Filters = sample(r, engine.FilterCatalogue, r.between(1, len(engine.FilterCatalogue)))
	}
	switch x := r.Float64(); {
	case x < 0.08:
		cfg.Weighers = []string{}
	case x < 0.3:
		cfg.Weighers = shuffled(r, engine.WeigherCatalogue)
	default:
		cfg.Weighers = sample(r, engine.WeigherCatalogue, r.between(1, len(engine.WeigherCatalogue)))
	}
	for _, p := range []*float64{&cfg.RAMWeightMultiplier, &cfg.CPUWeightMultiplier,
		&cfg.DiskWeightMultiplier, &cfg.IoOpsWeightMultiplier,
		&cfg.NumInstancesWeightMultiplier, &cfg.BuildFailureWeightMultiplier,
		&cfg.MetricsWeightMultiplier} {
		if r.chance(0.6) {
			*p = pick(r, edgeMultipliers)
		}
	}
	// Nova's options refuse negative soft (anti-)affinity multipliers (an
	// aggregate's metadata may still hold one).
	for _, p := range []*float64{&cfg.SoftAffinityWeightMultiplier, &cfg.SoftAntiAffinityWeightMultiplier} {
		if r.chance(0.6) {
			*p = pick(r, []float64{0, 1, 2, 0.5, 1000})
		}
	}
	for _, name := range sample(r, novaMetrics[:4], r.between(0, 2)) {
		cfg.MetricsWeightSetting = append(cfg.MetricsWeightSetting,
			engine.MetricWeight{Name: name, Ratio: pick(r, []float64{0, 1, -1, 0.001, 2})})
	}
	if r.chance(0.05) {
		cfg.MetricsWeightSetting = append(cfg.MetricsWeightSetting, engine.MetricWeight{Name: "no.such.metric", Ratio: 1})
	}
	cfg.MetricsRequired = r.chance(0.5)
	cfg.MetricsWeightOfUnavailable = pick(r, []float64{-10000, 0, 3.5})
	cfg.HostSubsetSize = r.between(1, 6)
	cfg.MaxAttempts = r.between(1, 5)
	cfg.ShuffleBestSameWeighedHosts = r.chance(0.5)
	cfg.Seed = int64(r.between(0, 1<<31-1))
	cfg.MaxIoOpsPerHost = pick(r, []int64{0, 2, 4, 8, 8, 8, 50})
	cfg.MaxInstancesPerHost = pick(r, []int64{1, 3, 6, 50, 50, 50}) // Nova: >= 1
	if r.chance(0.2) {
		cfg.DefaultAvailabilityZone = "az1"
	}
	cfg.CPUAllocationRatio = pick(r, []float64{0, 0.5, 1, 4, 16, 16, 16})
	cfg.RAMAllocationRatio = pick(r, []float64{0, 1, 1.5, 1.5, 1.5, 3})
	cfg.DiskAllocationRatio = pick(r, []float64{0.5, 1, 1, 1, 2})
	if r.chance(0.3) {
		for _, h := range sample(r, m.hostNames, r.between(1, 3)) {
			if r.chance(0.2) {
				h = caseTwist(r, h)
			}
			cfg.IsolatedHosts = append(cfg.IsolatedHosts, h)
		}
		cfg.IsolatedImages = []string{"img-isolated"}
		cfg.RestrictIsolatedHostsToIsolatedImages = r.chance(0.5)
	}
	switch x := r.Float64(); {
	case x < 0.2:
		ns := "os"
		cfg.AggregateImagePropertiesIsolationNS = &ns
		cfg.AggregateImagePropertiesIsolationSep = "_"
	case x < 0.3:
		ns := "hw"
		cfg.AggregateImagePropertiesIsolationNS = &ns
		cfg.AggregateImagePropertiesIsolationSep = "_"
	}
	switch x := r.Float64(); {
	case x < 0.2:
		cfg.ImagePropertiesDefaultArchitecture = strp("x86_64")
	case x < 0.25:
		cfg.ImagePropertiesDefaultArchitecture = strp("aarch64")
	}
	return cfg
}
