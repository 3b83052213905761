package synth

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
)

// The realistic cloud of the basic and rich profiles: a port of the model
// of nova-oracle's gen.py (not byte-identical: another RNG).

// generation is one hardware generation.
type generation struct {
	name     string
	gib      int64 // RAM
	vcpus    int64
	tb       int64 // disk
	version  int64 // QEMU, Nova's integer form
	vendor   string
	model    string
	features []string
}

var generations = []generation{
	{"gen1", 64, 16, 1, 4002000, "Intel", "Haswell-noTSX",
		[]string{"sse4.2", "avx", "avx2", "aes", "vmx"}},
	{"gen2", 128, 32, 2, 5002000, "Intel", "Skylake-Server",
		[]string{"sse4.2", "avx", "avx2", "aes", "vmx", "avx512f", "avx512bw"}},
	{"gen3", 192, 64, 4, 6002000, "Intel", "Cascadelake-Server",
		[]string{"sse4.2", "avx", "avx2", "aes", "vmx", "avx512f", "avx512bw", "avx512vnni"}},
	{"gen4", 256, 128, 8, 7002000, "AMD", "EPYC-Milan",
		[]string{"sse4.2", "avx", "avx2", "aes", "svm", "sev"}},
}

var generationShare = []float64{0.2, 0.35, 0.3, 0.15}

const gen4 = 3

// flavor is one entry of the flavor catalogue.
type flavor struct {
	name                  string
	memoryMB, vcpus       int64
	rootGB, ephGB, swapMB int64
}

var flavors = []flavor{
	{"m1.tiny", 512, 1, 1, 0, 0},
	{"m1.small", 2048, 1, 20, 0, 0},
	{"m1.medium", 4096, 2, 40, 0, 0},
	{"m1.large", 8192, 4, 80, 0, 0},
	{"m1.xlarge", 16384, 8, 160, 0, 0},
	{"c1.2xlarge", 16384, 16, 100, 0, 0},
	{"r1.large", 65536, 8, 100, 0, 2048},
	{"d1.large", 8192, 4, 80, 500, 0},
	{"g1.large", 32768, 8, 200, 0, 0},
	{"g1.xlarge", 65536, 16, 400, 100, 4096},
}

var (
	existingMix = []float64{0.05, 0.25, 0.3, 0.2, 0.1, 0.04, 0.02, 0.02, 0.01, 0.01}
	requestMix  = []float64{0.05, 0.15, 0.2, 0.2, 0.12, 0.08, 0.06, 0.06, 0.05, 0.03}
	levelShare  = []float64{0.15, 0.35, 0.35, 0.15} // empty, light, medium, heavy
)

const rackSize = 40

// cpuInfoJSON is a host's cpu_info as Nova stores it (a JSON text).
func cpuInfoJSON(arch, model, vendor string, sockets, cores, threads int64, features []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"arch": %q, "model": %q, "vendor": %q, "topology": {"sockets": %d, "cores": %d, "threads": %d}, "features": [`,
		arch, model, vendor, sockets, cores, threads)
	for i, f := range features {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(f))
	}
	b.WriteString("]}")
	return b.String()
}

// hostBuilder holds what is shared while generating many hosts: per
// generation constants and scratch space, so a host costs few allocations.
type hostBuilder struct {
	r       rng
	cpuInfo [4]string // per generation
	armInfo string
	itoa    []string
	// stats[k] is the stats map of a host running k instances; hosts
	// with the same count share it (a Cloud is read-only).
	stats   []map[string]string
	scratch []byte
	// Batches the per-host pointer targets and slices are cut from.
	strs   []string
	ints   []int64
	floats []float64
	specs  []engine.HVSpec
}

func newHostBuilder(r rng, n int) *hostBuilder {
	b := &hostBuilder{r: r}
	for i, g := range generations {
		b.cpuInfo[i] = cpuInfoJSON("x86_64", g.model, g.vendor, 2, g.vcpus/4, 2, g.features)
	}
	b.armInfo = cpuInfoJSON("aarch64", "Neoverse-N1", "ARM", 1, generations[gen4].vcpus, 1,
		[]string{"fp", "asimd", "aes", "sha2"})
	for i := 0; i <= 60; i++ {
		b.itoa = append(b.itoa, strconv.Itoa(i))
		k := b.itoa[i]
		b.stats = append(b.stats, map[string]string{"num_vm_active": k, "num_task_None": k, "num_os_type_linux": k})
	}
	b.strs = make([]string, 0, 3*n)
	b.ints = make([]int64, 0, 2*n)
	b.floats = make([]float64, 0, n/2)
	b.specs = make([]engine.HVSpec, 0, 3*n)
	return b
}

func (b *hostBuilder) str(s string) *string {
	b.strs = append(b.strs, s)
	return &b.strs[len(b.strs)-1]
}

func (b *hostBuilder) int64p(v int64) *int64 {
	b.ints = append(b.ints, v)
	return &b.ints[len(b.ints)-1]
}

func (b *hostBuilder) float(v float64) *float64 {
	if len(b.floats) == cap(b.floats) {
		b.floats = make([]float64, 0, 1024)
	}
	b.floats = append(b.floats, v)
	return &b.floats[len(b.floats)-1]
}

func (b *hostBuilder) hvSpecs(specs ...engine.HVSpec) []engine.HVSpec {
	start := len(b.specs)
	b.specs = append(b.specs, specs...)
	return b.specs[start:len(b.specs):len(b.specs)]
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// realisticCloud is gen.py's _Cloud, _aggregates and (rich) _rich_config.
func realisticCloud(r rng, n int, rich bool) (engine.Cloud, *meta) {
	width := max(4, len(strconv.Itoa(n)))
	nCells := 1
	if n >= 50 {
		nCells = 2
	}
	racks := max(1, (n+rackSize-1)/rackSize)
	cell1Racks := racks
	if nCells == 2 {
		cell1Racks = racks - racks*3/10
	}
	m := &meta{instCum: make([]int, n), gen: make([]uint8, n)}
	hosts := make([]engine.Host, n)
	b := newHostBuilder(r, n)
	total := 0
	for i := range hosts {
		rack := i / rackSize
		cell := "cell1"
		if rack >= cell1Racks {
			cell = "cell2"
		}
		name := hostName(i, width)
		m.gen[i] = b.host(&hosts[i], name, rack, i%rackSize, cell)
		total += len(hosts[i].Instances)
		m.instCum[i] = total
	}
	c := engine.Cloud{Config: engine.DefaultConfig(), Hosts: hosts}
	c.Aggregates = realisticAggregates(r, hosts, m.gen)
	if rich {
		richConfig(r, &c)
		if len(c.Config.IsolatedImages) > 0 {
			m.specialImage = c.Config.IsolatedImages[0]
		}
	}
	c.Config.Seed = int64(r.between(0, 1<<31-1))
	return c, m
}

// hostName is gen.py's 'compute-%0*d' % (width, i), in one allocation.
func hostName(i, width int) string {
	var buf [32]byte
	b := append(buf[:0], "compute-"...)
	digits := 1
	for x := i; x >= 10; x /= 10 {
		digits++
	}
	for pad := width - digits; pad > 0; pad-- {
		b = append(b, '0')
	}
	return string(strconv.AppendInt(b, int64(i), 10))
}

// host fills h as gen.py's _Cloud._host does and returns its generation.
func (b *hostBuilder) host(h *engine.Host, name string, rack, slot int, cell string) uint8 {
	r := b.r
	gi := pickIndexW(r, generationShare)
	g := &generations[gi]
	arm := gi == gen4 && r.chance(0.08)
	memoryMB := g.gib * 1024
	localGB := g.tb * 1000

	var target float64
	switch pickIndexW(r, levelShare) {
	case 1:
		target = r.uniform(0.05, 0.3)
	case 2:
		target = r.uniform(0.3, 0.7)
	case 3:
		target = r.uniform(0.7, 1.25)
	}
	var usedMB, usedVCPUs, usedGB int64
	count := 0
	for float64(usedMB) < target*float64(memoryMB) && count < 60 {
		f := &flavors[pickIndexW(r, existingMix)]
		usedMB += f.memoryMB
		usedVCPUs += f.vcpus
		usedGB += f.rootGB + f.ephGB
		count++
	}
	freeDiskGB := localGB - usedGB
	*h = engine.Host{
		Host: name, Cell: cell,
		MemoryMB: memoryMB, FreeRAMMB: memoryMB - usedMB,
		VCPUs: g.vcpus, VCPUsUsed: usedVCPUs,
		LocalGB: localGB, FreeDiskGB: freeDiskGB,
	}
	if r.chance(0.3) { // qcow2 thin provisioning
		h.DiskAvailableLeast = b.int64p(freeDiskGB - int64(r.between(0, 300)))
	}
	if r.chance(0.1) {
		h.CPUAllocationRatio = b.float(pick(r, []float64{4, 8, 16}))
		h.RAMAllocationRatio = b.float(pick(r, []float64{1, 1.2, 1.5}))
		h.DiskAllocationRatio = b.float(pick(r, []float64{1, 1.5}))
	}
	h.NumInstances = int64(count)
	if r.chance(0.85) {
		h.NumIOOps = int64(r.between(0, 3))
	} else {
		h.NumIOOps = int64(r.between(4, 11))
	}
	if r.chance(0.08) {
		h.FailedBuilds = int64(r.between(1, 3))
	}
	if x := r.Float64(); x < 0.03 {
		h.Service.Disabled = true
	} else if x < 0.05 {
		h.Service.Down = true
	}
	h.HypervisorType = b.str("QEMU")
	h.HypervisorVersion = b.int64p(g.version)
	switch {
	case arm:
		h.SupportedInstances = b.hvSpecs(engine.HVSpec{Arch: "aarch64", HVType: "kvm", VMMode: "hvm"})
		h.CPUInfo = b.str(b.armInfo)
	case gi == 0:
		h.SupportedInstances = b.hvSpecs(
			engine.HVSpec{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"},
			engine.HVSpec{Arch: "i686", HVType: "kvm", VMMode: "hvm"},
			engine.HVSpec{Arch: "x86_64", HVType: "qemu", VMMode: "hvm"})
		h.CPUInfo = b.str(b.cpuInfo[gi])
	default:
		h.SupportedInstances = b.hvSpecs(
			engine.HVSpec{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"},
			engine.HVSpec{Arch: "i686", HVType: "kvm", VMMode: "hvm"})
		h.CPUInfo = b.str(b.cpuInfo[gi])
	}
	h.Stats = b.stats[count]
	if r.chance(0.9) {
		busy := min(0.99, max(0.01, target*r.uniform(0.5, 1.0)))
		h.Metrics = map[string]float64{
			"cpu.frequency":    float64(r.between(2000, 3600)),
			"cpu.percent":      round2(busy),
			"cpu.user.percent": round2(busy * 0.8),
			"cpu.idle.percent": round2(1 - busy),
		}
	}
	h.HostIP = b.str("10." + b.num(1+rack/250) + "." + b.num(rack%250) + "." + b.num(10+slot))
	h.Instances = r.uuids(count, &b.scratch)
	return uint8(gi)
}

func (b *hostBuilder) num(i int) string {
	if i < len(b.itoa) {
		return b.itoa[i]
	}
	return strconv.Itoa(i)
}

// realisticAggregates is gen.py's _aggregates.
func realisticAggregates(r rng, hosts []engine.Host, gen []uint8) []engine.Aggregate {
	var aggs []engine.Aggregate
	azs := [3][]string{}
	for i := range hosts {
		if r.chance(0.03) {
			continue // a few hosts stay in the default AZ
		}
		rack := i / rackSize
		azs[rack%3] = append(azs[rack%3], hosts[i].Host)
	}
	for i, members := range azs {
		name := "az" + strconv.Itoa(i+1)
		aggs = append(aggs, engine.Aggregate{Name: name, Hosts: members,
			Metadata: map[string]string{"availability_zone": name}})
	}
	subset := func(share float64, pred func(i int) bool) []string {
		var out []string
		for i := range hosts {
			if (pred == nil || pred(i)) && r.chance(share) {
				out = append(out, hosts[i].Host)
			}
		}
		return out
	}
	newer := func(i int) bool { return gen[i] >= 2 }
	isGen4 := func(i int) bool { return gen[i] == gen4 }
	add := func(name string, members []string, md ...string) {
		a := engine.Aggregate{Name: name, Hosts: members, Metadata: map[string]string{}}
		for j := 0; j+1 < len(md); j += 2 {
			a.Metadata[md[j]] = md[j+1]
		}
		aggs = append(aggs, a)
	}
	add("ssd", subset(0.6, newer), "ssd", "true", "cpu_class", "fast")
	add("tenant-dedicated", subset(0.04, nil), "filter_tenant_id", "proj-a, proj-b")
	add("overcommit", subset(0.1, nil), "ram_allocation_ratio", "2.0",
		"cpu_allocation_ratio", "8.0", "ram_weight_multiplier", "2.0")
	add("gpu", subset(0.25, isGen4), "instance_type", "g1.large, g1.xlarge", "gpu", "true")
	add("io-limited", subset(0.08, nil), "max_io_ops_per_host", "4",
		"max_instances_per_host", "20", "io_ops_weight_multiplier", "-2.0")
	add("stacking", subset(0.1, nil), "cpu_weight_multiplier", "-1.0",
		"num_instances_weight_multiplier", "1.0")
	add("windows", subset(0.05, nil), "os_distro", "windows")
	add("thin-disk", subset(0.1, nil), "disk_allocation_ratio", "1.5",
		"disk_weight_multiplier", "0.5")
	add("flaky-tolerant", subset(0.05, nil), "build_failure_weight_multiplier", "100.0",
		"soft_anti_affinity_weight_multiplier", "2.0")
	return aggs
}

// richConfig is gen.py's _rich_config (the seed is drawn by the caller).
func richConfig(r rng, c *engine.Cloud) {
	cfg := &c.Config
	cfg.Filters = shuffled(r, engine.FilterCatalogue)
	cfg.Weighers = shuffled(r, engine.WeigherCatalogue)
	cfg.RAMWeightMultiplier = pick(r, []float64{1, 2, -1, 0.5})
	cfg.CPUWeightMultiplier = pick(r, []float64{1, 0, -1})
	cfg.DiskWeightMultiplier = pick(r, []float64{1, 0.5, 0})
	cfg.IoOpsWeightMultiplier = pick(r, []float64{-1, -2, 0})
	cfg.NumInstancesWeightMultiplier = pick(r, []float64{0, -1, 1})
	cfg.SoftAffinityWeightMultiplier = pick(r, []float64{1, 2})
	cfg.SoftAntiAffinityWeightMultiplier = pick(r, []float64{1, 3})
	cfg.BuildFailureWeightMultiplier = pick(r, []float64{1e6, 10, 0})
	cfg.MetricsWeightMultiplier = pick(r, []float64{1, 0.5})
	switch r.IntN(3) {
	case 0:
		cfg.MetricsWeightSetting = nil
	case 1:
		cfg.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: -1}}
	case 2:
		cfg.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: -1},
			{Name: "cpu.frequency", Ratio: 0.001}}
	}
	cfg.MetricsRequired = r.chance(0.5)
	cfg.HostSubsetSize = r.between(1, 3)
	cfg.MaxAttempts = r.between(1, 4)
	cfg.ShuffleBestSameWeighedHosts = r.chance(0.25)
	cfg.MaxIoOpsPerHost = pick(r, []int64{8, 6, 10})
	cfg.MaxInstancesPerHost = pick(r, []int64{50, 30})
	cfg.CPUAllocationRatio = pick(r, []float64{16, 4})
	cfg.RAMAllocationRatio = pick(r, []float64{1.5, 1})
	cfg.DiskAllocationRatio = 1
	if r.chance(0.3) {
		for _, i := range r.sampleIdx(len(c.Hosts), max(1, len(c.Hosts)/50)) {
			cfg.IsolatedHosts = append(cfg.IsolatedHosts, c.Hosts[i].Host)
		}
		cfg.IsolatedImages = []string{r.uuid()}
		cfg.RestrictIsolatedHostsToIsolatedImages = r.chance(0.7)
	}
	if r.chance(0.2) {
		// Only aggregate keys starting with "os_" are compared with the
		// image's properties.
		ns := "os"
		cfg.AggregateImagePropertiesIsolationNS = &ns
		cfg.AggregateImagePropertiesIsolationSep = "_"
	}
	if r.chance(0.2) {
		arch := "x86_64"
		cfg.ImagePropertiesDefaultArchitecture = &arch
	}
}
