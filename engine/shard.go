package engine

import (
	"math"

	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// shard holds the columns of up to bitmap.ShardSize hosts. The first group
// of columns is what a placement consumes (int32: see usage.go); the rest
// never changes between commits of usage.
type shard struct {
	freeRAM      []int32 // free_ram_mb
	freeDiskMB   []int32 // free_disk_mb
	vcpusUsed    []int32
	numInstances []int32
	numIOOps     []int32

	// The static columns (capacities, and those resolved from a host's
	// own fields, its aggregates and the configuration) take few distinct
	// values in a cloud: they are coded (half a byte per host) where a
	// shard's column has at most kernels.CodedValues of them, else kept
	// in full.
	totalRAM                               kernels.Coded[int64] // total_usable_ram_mb
	totalDiskGB                            kernels.Coded[int64] // total_usable_disk_gb
	vcpusTotal                             kernels.Coded[int64]
	failedBuilds                           kernels.Coded[int64]
	ramRatio, cpuRatio, diskRatio          kernels.Coded[float64] // the host's own (else config)
	aggRAMRatio, aggCPURatio, aggDiskRatio kernels.Coded[float64] // aggregate minimum, else the host's
	maxIOOps, maxInstances                 kernels.Coded[int64]   // aggregate minimum, else config

	// mult[w] is weigher w's multiplier per host (WeigherCatalogue order),
	// BuildFailureWeigher's already negated.
	mult [numWeighers]kernels.Coded[float64]

	// multOver[w] lists, in increasing order, the shard's hosts whose
	// multiplier is not Snapshot.mults.base[w] (an aggregate overrides it):
	// the dense ranker's scaled weights add their difference sparsely.
	multOver [numWeighers][]uint16

	// cpuLimit is vcpusTotal * cpuRatio (CPUWeigher's limit) and failed
	// failedBuilds: with the usage columns, what the dense ranker's
	// kernels read as the column weighers' raw values (rawCol). Each is
	// an int32 column where every value is an integer that fits (the
	// kernels then read it as fast as a usage column), else coded floats
	// (cpuLimitF, failedF; the int32 column nil).
	cpuLimit, failed   []int32
	cpuLimitF, failedF kernels.Coded[float64]

	// blk summarises the raw values (rawCol) per block of kernels.Block
	// hosts.
	blk *blockStats

	// bornEscapes is the Store's escape count just before the snapshot
	// that first held these usage columns was published (recycler).
	bornEscapes uint64
}

// hostCount is the number of hosts of the shard.
func (sh *shard) hostCount() int { return len(sh.freeRAM) }

// multipliers summarises each weigher's per-host multipliers: base[w] is
// the most common (bit for bit; each shard's multOver[w] lists the hosts
// whose multiplier differs from it, overs[w] counts them) and maxAbs[w] the
// largest |multiplier| of any host.
type multipliers struct {
	base, maxAbs [numWeighers]float64
	overs        [numWeighers]int
}

// zero reports whether weigher w's multiplier is 0 on every host.
func (m *multipliers) zero(w int) bool { return m.maxAbs[w] == 0 }

// uniform reports whether weigher w's multiplier is base[w] on every host
// (no aggregate overrides it).
func (m *multipliers) uniform(w int) bool { return m.overs[w] == 0 }

// summarise returns the shards' multipliers' summary and sets every
// shard's multOver.
func summarise(shards []*shard) (m multipliers) {
	for w := range numWeighers {
		count := map[uint64]int{}
		for _, sh := range shards {
			for j := range sh.mult[w].Len() {
				x := sh.mult[w].At(j)
				count[math.Float64bits(x)]++
				m.maxAbs[w] = max(m.maxAbs[w], math.Abs(x))
			}
		}
		base, most := uint64(0), -1
		for b, c := range count {
			if c > most || (c == most && b < base) {
				base, most = b, c
			}
		}
		m.base[w] = math.Float64frombits(base)
		for _, sh := range shards {
			sh.multOver[w] = nil
			for j := range sh.mult[w].Len() {
				if math.Float64bits(sh.mult[w].At(j)) != base {
					sh.multOver[w] = append(sh.multOver[w], uint16(j))
					m.overs[w]++
				}
			}
		}
	}
	return m
}

// buildShard builds the shard of hosts [lo, hi) and appends to wide the
// hosts whose usage its columns cannot hold.
func buildShard(c *Cloud, info *hostInfo, lo, hi int, wide *usageDelta) *shard {
	m := hi - lo
	sh := &shard{
		freeRAM: make([]int32, m), freeDiskMB: make([]int32, m), vcpusUsed: make([]int32, m),
		numInstances: make([]int32, m), numIOOps: make([]int32, m),
	}
	totalRAM, totalDiskGB, vcpusTotal, failedBuilds := make([]int64, m), make([]int64, m), make([]int64, m), make([]int64, m)
	// The resolved columns, in full while they are filled, then coded.
	var ratios [6][]float64
	for r := range ratios {
		ratios[r] = make([]float64, m)
	}
	ramRatio, cpuRatio, diskRatio := ratios[0], ratios[1], ratios[2]
	aggRAMRatio, aggCPURatio, aggDiskRatio := ratios[3], ratios[4], ratios[5]
	maxIOOps, maxInstances := make([]int64, m), make([]int64, m)
	var mult [numWeighers][]float64
	for w := range mult {
		mult[w] = make([]float64, m)
	}
	cfg := &c.Config
	cfgMult := [numWeighers]float64{
		cfg.RAMWeightMultiplier, cfg.CPUWeightMultiplier, cfg.DiskWeightMultiplier,
		cfg.IoOpsWeightMultiplier, cfg.NumInstancesWeightMultiplier, cfg.MetricsWeightMultiplier,
		cfg.SoftAffinityWeightMultiplier, cfg.SoftAntiAffinityWeightMultiplier,
		cfg.BuildFailureWeightMultiplier, 1000000.0,
	}
	for j := 0; j < m; j++ {
		h := &c.Hosts[lo+j]
		cl := &info.classes[info.class.At(uint32(lo+j))]
		freeGB := h.FreeDiskGB
		if h.DiskAvailableLeast != nil {
			freeGB = min(freeGB, *h.DiskAvailableLeast)
		}
		if r := (hostRes{h.FreeRAMMB, freeGB * 1024, h.VCPUsUsed, h.NumInstances, h.NumIOOps}); !sh.setUsage(j, r) {
			wide.ids, wide.res = append(wide.ids, uint32(lo+j)), append(wide.res, r)
		}
		totalRAM[j], totalDiskGB[j], vcpusTotal[j] = h.MemoryMB, h.LocalGB, h.VCPUs
		failedBuilds[j] = h.FailedBuilds
		ramRatio[j] = ratioOr(h.RAMAllocationRatio, cfg.RAMAllocationRatio)
		cpuRatio[j] = ratioOr(h.CPUAllocationRatio, cfg.CPUAllocationRatio)
		diskRatio[j] = ratioOr(h.DiskAllocationRatio, cfg.DiskAllocationRatio)
		aggRAMRatio[j] = nova.AggregateNumValue(cl.raw["ram_allocation_ratio"], ramRatio[j])
		aggCPURatio[j] = nova.AggregateNumValue(cl.raw["cpu_allocation_ratio"], cpuRatio[j])
		aggDiskRatio[j] = nova.AggregateNumValue(cl.raw["disk_allocation_ratio"], diskRatio[j])
		maxIOOps[j] = nova.AggregateIntValue(cl.raw["max_io_ops_per_host"], cfg.MaxIoOpsPerHost)
		maxInstances[j] = nova.AggregateIntValue(cl.raw["max_instances_per_host"], cfg.MaxInstancesPerHost)
		for w := range mult {
			mult[w][j] = nova.AggregateNumValue(cl.raw[multiplierKeys[w]], cfgMult[w])
		}
		mult[wBuildFailure][j] = -1 * mult[wBuildFailure][j]
	}
	sh.totalRAM, sh.totalDiskGB = kernels.NewCoded(totalRAM), kernels.NewCoded(totalDiskGB)
	sh.vcpusTotal, sh.failedBuilds = kernels.NewCoded(vcpusTotal), kernels.NewCoded(failedBuilds)
	sh.ramRatio, sh.cpuRatio, sh.diskRatio = kernels.NewCoded(ramRatio), kernels.NewCoded(cpuRatio), kernels.NewCoded(diskRatio)
	sh.aggRAMRatio, sh.aggCPURatio = kernels.NewCoded(aggRAMRatio), kernels.NewCoded(aggCPURatio)
	sh.aggDiskRatio = kernels.NewCoded(aggDiskRatio)
	sh.maxIOOps, sh.maxInstances = kernels.NewCoded(maxIOOps), kernels.NewCoded(maxInstances)
	for w := range mult {
		sh.mult[w] = kernels.NewCoded(mult[w])
	}
	cpuLimit, failed := ratios[0], ratios[3] // reused: coded above
	for j := range m {
		cpuLimit[j] = float64(vcpusTotal[j]) * cpuRatio[j]
		failed[j] = float64(failedBuilds[j])
	}
	if sh.cpuLimit = int32sOf(cpuLimit); sh.cpuLimit == nil {
		sh.cpuLimitF = kernels.NewCoded(cpuLimit)
	}
	if sh.failed = int32sOf(failed); sh.failed == nil {
		sh.failedF = kernels.NewCoded(failed)
	}
	sh.statBlocks()
	return sh
}

// int32sOf returns xs as int32s when every one is an integer that an
// int32 holds, else nil.
func int32sOf(xs []float64) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		if !(x == math.Trunc(x) && x >= math.MinInt32 && x <= math.MaxInt32) {
			return nil
		}
		out[i] = int32(x)
	}
	return out
}

// ratioOr is *v, else def.
func ratioOr(v *float64, def float64) float64 {
	if v != nil {
		return *v
	}
	return def
}
