package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// Snapshot is an immutable, versioned view of a cloud: the columns of host
// state the filters and weighers read, cut into shards, plus the static
// per-host data and the inverted indexes of categorical attributes.
//
// Invariants:
//   - a Snapshot is never modified after NewSnapshot returns; PlaceBatch
//     keeps its consumption in a private overlay, so any number of
//     goroutines may place against one Snapshot at once;
//   - host ids are dense, 0..Len()-1, in the order of Cloud.Hosts;
//   - shard k holds hosts [k*bitmap.ShardSize, (k+1)*bitmap.ShardSize);
//   - every per-aggregate override (allocation ratios, io-ops and instance
//     limits, weigher multipliers) is already resolved into a per-host
//     column, with Nova's rule (minimum over the host's aggregates, else
//     the host's or the configured value).
type Snapshot struct {
	version uint64
	cfg     Config
	// filters and weighers are cfg's, resolved once: the filter chain in
	// order and the weighers' indexes in WeigherCatalogue. Shared, read
	// only, by every batch.
	filters  []*filterImpl
	weighers []int
	n        int
	shards   []*shard
	info     *hostInfo
	// mults summarises each weigher's multipliers over the hosts.
	mults multipliers
	// groupPlaced lists, per server group, the members a Store committed
	// (instance uuid -> host name), so that the planner counts them as the
	// Store's commit-time check does. Copy-on-write: never modified once
	// the snapshot is published.
	groupPlaced map[string]map[string]string
	// delta is the usage of the hosts Store commits changed since their
	// shards were copied and of those the int32 columns cannot hold (nil:
	// none); see usageDelta.
	delta *usageDelta
	pool  scratchPool
}

var snapshotVersions atomic.Uint64

// Version is the snapshot's version: distinct snapshots built in one
// process have distinct versions.
func (s *Snapshot) Version() uint64 { return s.version }

// Len is the number of hosts.
func (s *Snapshot) Len() int { return s.n }

// Config returns the snapshot's scheduler configuration: a copy, its
// slices included, so that a caller changing it changes nothing the
// snapshot (or its resolved filter chain) holds.
func (s *Snapshot) Config() Config { return s.cfg.clone() }

// HostNode returns the host and node names of host id.
func (s *Snapshot) HostNode(id uint32) HostNode {
	return HostNode{Host: s.info.hostOf(id), Node: s.info.nodeOf(id)}
}

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

const numWeighers = 10

// weigher indexes into shard.mult, in WeigherCatalogue order.
const (
	wRAM = iota
	wCPU
	wDisk
	wIoOps
	wNumInstances
	wMetrics
	wSoftAffinity
	wSoftAntiAffinity
	wBuildFailure
	wCrossCell
)

// multiplierKeys are the aggregate metadata keys (and option names) of the
// weighers' multipliers, in WeigherCatalogue order.
var multiplierKeys = [numWeighers]string{
	"ram_weight_multiplier", "cpu_weight_multiplier", "disk_weight_multiplier",
	"io_ops_weight_multiplier", "num_instances_weight_multiplier",
	"metrics_weight_multiplier", "soft_affinity_weight_multiplier",
	"soft_anti_affinity_weight_multiplier", "build_failure_weight_multiplier",
	"cross_cell_move_weight_multiplier",
}

func weigherIndex(name string) int {
	return slices.Index(WeigherCatalogue, name)
}

// hostInfo is the static, per-host data that filters read once per
// request (never on the per-instance path) and the indexes built from it.
//
// Invariants: every per-host column covers hosts 0..n-1, in the compact
// form its type describes (an idxCol's width holds its largest index;
// hostNames and nameIndex elide what is the identity); an index column's
// values index its table (cell: cells and cellUUID, hvModel: hvModels,
// stats: statsTab, hvSig: hvSigHost, hvSigRep and sigSupported, class:
// classes). Never modified once built, but for the memoised masks.
type hostInfo struct {
	// uuid holds every host's uuid, made up (nova.MadeUpUUID) where the
	// cloud gives none; empty when it gives none at all (hostUUID makes
	// them up when asked: 16 bytes per host less).
	uuid uuidCol
	cell idxCol // index into cells
	// blockCells[q] has bit c set when block q (kernels.Block hosts)
	// holds a host of cell c; nil with more than 64 cells.
	blockCells []uint64
	cells      []string
	cellUUID   []string  // per cell, as the oracle makes them up
	diskGBUsed intCol    // local_gb - free_disk_gb (see diskMBUsed)
	names      hostNames // host and node names, host name ids

	nameIdx nameIndex // ids by (lowercased) host name, node, (host, node)

	// instances lists the instance uuids of each host name and the host
	// names of each instance uuid.
	instances instIndex

	serviceUp *bitmap.Set // enabled and up (ComputeFilter)

	// Per host: what ComputeCapabilities, JsonFilter, ImageProperties,
	// MetricsFilter and SimpleCIDR read (see hvattrs.go for the
	// accessors).
	hvModel     idxCol // index into hvModels
	hvModels    []hvModel
	hvHostnames textCol // where it is not the node name
	hostIPs     ipCol
	stats       idxCol              // index into statsTab
	statsTab    []map[string]string // distinct stats, with Nova's counters
	metrics     metricCols          // as the scheduler sees them

	// hvSig groups hosts by (supported_instances, hypervisor_version), what
	// ImagePropertiesFilter reads; hvSigHost is its inverted index.
	hvSig        idxCol
	hvSigHost    []*roaring.Bitmap // signature -> its hosts
	hvSigRep     []uint32          // signature -> one of its hosts
	sigSupported [][][3]string     // signature -> supported_instances (canonical)

	// Aggregate classes: hosts with the same set of aggregates share one.
	class   idxCol // index into classes
	classes []aggClass

	// masks memoises the host masks of the request-independent class
	// predicates (memoMask): key -> *bitmap.Set, never modified once
	// stored; at most maxMasks of them.
	masks  sync.Map
	nMasks atomic.Int32
}

// aggClass is one distinct set of aggregates.
type aggClass struct {
	aggs []int                  // indexes into Cloud.Aggregates
	meta nova.AggregateMetadata // comma-split values per key
	// raw holds the raw values per key (aggregate_values_from_key) while
	// the shards resolve the per-aggregate overrides from it; NewSnapshot
	// then drops it, keeping only instanceTypes (raw["instance_type"],
	// what AggregateTypeAffinityFilter reads).
	raw           map[string][]string
	instanceTypes []string
	hosts         *roaring.Bitmap // the inverted index entry: class -> its hosts
}

// NewSnapshot validates a Cloud and builds its columnar state. The Cloud is
// copied: later changes to it do not affect the snapshot.
func NewSnapshot(c Cloud) (*Snapshot, error) {
	if err := ValidateCloud(&c); err != nil {
		return nil, err
	}
	if err := checkImplemented(&c.Config); err != nil {
		return nil, err
	}
	cfg := c.Config.clone()

	n := len(c.Hosts)
	s := &Snapshot{version: snapshotVersions.Add(1), cfg: cfg, n: n}
	for _, name := range cfg.Filters {
		s.filters = append(s.filters, filterByName[name])
	}
	for _, name := range cfg.Weighers {
		s.weighers = append(s.weighers, weigherIndex(name))
	}
	info, err := buildHostInfo(&c)
	if err != nil {
		return nil, err
	}
	s.info = info
	var wide usageDelta
	for base := 0; base < n || (n == 0 && base == 0); base += bitmap.ShardSize {
		if n == 0 {
			break
		}
		s.shards = append(s.shards, buildShard(&c, info, base, min(base+bitmap.ShardSize, n), &wide))
	}
	if len(wide.ids) > 0 {
		s.delta = &wide
	}
	for i := range info.classes {
		cl := &info.classes[i]
		cl.instanceTypes, cl.raw = cl.raw["instance_type"], nil
	}
	s.mults = summarise(s.shards)
	return s, nil
}

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

func buildHostInfo(c *Cloud) (*hostInfo, error) {
	n := len(c.Hosts)
	info := &hostInfo{
		serviceUp:  bitmap.NewSet(n),
		diskGBUsed: newIntCol(n, func(i int) int64 { return c.Hosts[i].LocalGB - c.Hosts[i].FreeDiskGB }),
	}
	cells, hvModel, stats, hvSig := newIdxColBuilder(n), newIdxColBuilder(n), newIdxColBuilder(n), newIdxColBuilder(n)
	cellIDs := map[string]int32{}
	sigIDs := map[string]int32{}
	var models hvModels
	hvHostnames, hostIPs := newTextColBuilder(n), newIPColBuilder(n)
	var supported [][3]string
	names := newHostNamesBuilder(n)
	host, node := make([]string, n), make([]string, n) // while building
	var instancesOf [][]string                         // per host name, while building
	statsIn := statsInterner{byKey: map[string]int32{}}
	for i := range c.Hosts {
		if c.Hosts[i].UUID != "" {
			info.uuid = newUUIDCol(n)
			break
		}
	}
	for i := range c.Hosts {
		h := &c.Hosts[i]
		id := uint32(i)
		host[i], node[i] = h.Host, nodeName(h)
		switch {
		case info.uuid.keys == nil:
		case h.UUID == "":
			info.uuid.set(int32(i), nova.MadeUpUUID("host", h.Host, node[i]))
		default:
			info.uuid.set(int32(i), h.UUID)
		}
		cell := h.Cell
		if cell == "" {
			cell = "cell1"
		}
		cid, ok := cellIDs[cell]
		if !ok {
			cid = int32(len(info.cells))
			cellIDs[cell] = cid
			info.cells = append(info.cells, cell)
			info.cellUUID = append(info.cellUUID, nova.MadeUpUUID("cell", cell))
		}
		cells.set(id, uint64(cid))
		nid := names.add(id, h.Host, node[i])
		if int(nid) == len(instancesOf) {
			instancesOf = append(instancesOf, nil)
		}
		for _, u := range h.Instances {
			if !slices.Contains(instancesOf[nid], u) {
				instancesOf[nid] = append(instancesOf[nid], u)
			}
		}
		if !h.Service.Disabled && !h.Service.Down {
			info.serviceUp.Add(id)
		}
		hvModel.set(id, uint64(models.of(h.HypervisorType, h.HypervisorVersion, h.CPUInfo)))
		hostIPs.set(id, h.HostIP)
		if p := h.HypervisorHostname; p != nil && *p != node[i] {
			hvHostnames.set(id, p)
		}
		supported = nil
		for _, spec := range h.SupportedInstances {
			cs, err := nova.CanonicalHVSpec([3]string{spec.Arch, spec.HVType, spec.VMMode})
			if err != nil {
				return nil, invalid(fmt.Sprintf("hosts[%d].supported_instances", i), "Nova refuses it: %v", err)
			}
			supported = append(supported, cs)
		}
		sigKey := fmt.Sprint(supported, "|", h.HypervisorVersion != nil, "|", derefInt(h.HypervisorVersion))
		sig, ok := sigIDs[sigKey]
		if !ok {
			sig = int32(len(sigIDs))
			sigIDs[sigKey] = sig
		}
		hvSig.set(id, uint64(sig))
		if int(sig) == len(info.hvSigHost) {
			// One signature, one list: its hosts share it.
			info.hvSigHost = append(info.hvSigHost, roaring.New())
			info.hvSigRep = append(info.hvSigRep, uint32(i))
			info.sigSupported = append(info.sigSupported, cloneSpecs(supported))
		}
		info.hvSigHost[sig].Add(uint32(i))
		stats.set(id, uint64(statsIn.of(h)))
		m, err := nova.SchedulerMetrics(h.Metrics)
		if err != nil {
			return nil, invalid(fmt.Sprintf("hosts[%d].metrics", i), "%v", err)
		}
		info.metrics.add(n, id, m)
	}
	info.cell, info.hvModel, info.stats, info.hvSig = cells.done(), hvModel.done(), stats.done(), hvSig.done()
	info.statsTab = statsIn.maps
	info.metrics.narrow()
	info.hvModels = models.models
	info.hvHostnames, info.hostIPs = hvHostnames.done(), hostIPs.done()
	info.names = names.done()
	info.instances = newInstIndex(instancesOf)
	info.nameIdx = newNameIndex(host, node)
	if len(info.cells) <= 64 {
		info.blockCells = make([]uint64, (n+kernels.Block-1)/kernels.Block)
		for id := range uint32(n) {
			info.blockCells[id/kernels.Block] |= 1 << info.cell.at(id)
		}
	}
	buildAggClasses(c, info)
	return info, nil
}

// statsInterner gives hosts with equal stats one map (read-only, shared),
// by index: at 100,000 synthetic hosts there are ~1,600 distinct ones, and
// a map per host cost ~320 bytes.
type statsInterner struct {
	byKey map[string]int32 // -> index into maps
	maps  []map[string]string
	keys  []string
	buf   []byte
}

// of returns the index of the stats of h as HostState.stats holds them:
// the reported ones and the counters Nova adds.
func (in *statsInterner) of(h *Host) int32 {
	st := make(map[string]string, len(h.Stats)+3)
	for k, v := range h.Stats {
		st[k] = v
	}
	st["num_instances"] = strconv.FormatInt(h.NumInstances, 10)
	st["io_workload"] = strconv.FormatInt(h.NumIOOps, 10)
	st["failed_builds"] = strconv.FormatInt(h.FailedBuilds, 10)
	in.keys = in.keys[:0]
	for k := range st {
		in.keys = append(in.keys, k)
	}
	slices.Sort(in.keys)
	in.buf = in.buf[:0]
	for _, k := range in.keys {
		in.buf = strconv.AppendQuote(in.buf, k)
		in.buf = append(in.buf, ':')
		in.buf = strconv.AppendQuote(in.buf, st[k])
		in.buf = append(in.buf, ',')
	}
	if k, ok := in.byKey[string(in.buf)]; ok {
		return k
	}
	k := int32(len(in.maps))
	in.byKey[string(in.buf)] = k
	in.maps = append(in.maps, st)
	return k
}

// buildAggClasses groups hosts by their set of aggregates (membership is by
// host name, as in Nova).
func buildAggClasses(c *Cloud, info *hostInfo) {
	n := len(c.Hosts)
	aggsOfName := make([][]int, info.names.count)
	nameIDs := make(map[string]int32, info.names.count)
	for nid := range int32(info.names.count) {
		nameIDs[info.names.name(nid)] = nid
	}
	for a, agg := range c.Aggregates {
		for _, h := range agg.Hosts {
			if nid, ok := nameIDs[h]; ok && !slices.Contains(aggsOfName[nid], a) {
				aggsOfName[nid] = append(aggsOfName[nid], a)
			}
		}
	}
	byKey := map[string]int32{}
	class := newIdxColBuilder(n)
	for i := 0; i < n; i++ {
		aggs := aggsOfName[info.names.nameOf(uint32(i))]
		slices.Sort(aggs)
		key := fmt.Sprint(aggs)
		cid, ok := byKey[key]
		if !ok {
			cid = int32(len(info.classes))
			byKey[key] = cid
			metas := make([]map[string]string, len(aggs))
			raw := map[string][]string{}
			for j, a := range aggs {
				metas[j] = c.Aggregates[a].Metadata
				for k, v := range c.Aggregates[a].Metadata {
					if !slices.Contains(raw[k], v) {
						raw[k] = append(raw[k], v)
					}
				}
			}
			info.classes = append(info.classes, aggClass{
				aggs: aggs, meta: nova.MetadataByHost(metas), raw: raw, hosts: roaring.New(),
			})
		}
		class.set(uint32(i), uint64(cid))
		info.classes[cid].hosts.Add(uint32(i))
	}
	info.class = class.done()
	for i := range info.classes {
		info.classes[i].hosts.RunOptimize()
	}
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
		cl := &info.classes[info.class.at(uint32(lo+j))]
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

// cloneSpecs copies canonical supported_instances, so that the snapshot
// keeps none of its input's strings.
func cloneSpecs(specs [][3]string) [][3]string {
	if specs == nil {
		return nil
	}
	out := make([][3]string, len(specs))
	for i, s := range specs {
		for j := range s {
			out[i][j] = strings.Clone(s[j])
		}
	}
	return out
}

func ratioOr(v *float64, def float64) float64 {
	if v != nil {
		return *v
	}
	return def
}

// at returns the shard and offset of host id.
func (s *Snapshot) at(id uint32) (*shard, int) {
	return s.shards[id>>bitmap.ShardBits], int(id & (bitmap.ShardSize - 1))
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
