package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// NewSnapshot validates a Cloud and builds its columnar state. The Cloud is
// copied: later changes to it do not affect the snapshot.
func NewSnapshot(c Cloud) (*Snapshot, error) { return newSnapshot(c, buildInput{}) }

// buildInput is what a Store's rebuild knows beyond its new cloud.
type buildInput struct {
	// trusted is how many of the cloud's first hosts passed validateHost
	// already (validateCloud).
	trusted int
	// derive derives hosts from the snapshot the build replaces (nil:
	// none).
	derive *derivation
	// committed lists, per host, the instances a Store committed on it,
	// sorted: its instance list is the cloud's and then these.
	committed map[HostNode][]string
	// changed, for a build without derive (an external rebuild), lists
	// the hosts whose records changed (ExternalChange.ChangedHosts, else
	// found by changedHosts).
	changed []HostNode
}

// newSnapshot is NewSnapshot, knowing in (a Store's rebuild).
func newSnapshot(c Cloud, in buildInput) (*Snapshot, error) {
	if err := validateCloud(&c, in.trusted); err != nil {
		return nil, err
	}
	cfg := c.Config.clone()

	n := len(c.Hosts)
	// An id of its own, as a store's (Store.publish gives the store's):
	// Commit refuses a plan of a bare snapshot too.
	s := &Snapshot{version: snapshotVersions.Add(1), store: storeIDs.Add(1), cfg: cfg, n: n, pool: &scratchPool{}}
	s.tracksPlaced = tracksPlaced(&s.cfg)
	for _, name := range cfg.LoadFilters() {
		s.chain = append(s.chain, uint8(slices.Index(KnownFilters, name)))
		if r, ok := resourceRules[name]; ok {
			s.rules = append(s.rules, r)
		}
	}
	for _, name := range cfg.Weighers {
		s.weighers = append(s.weighers, weigherIndex(name))
	}
	info, err := buildHostInfo(&c, in.derive, in.committed)
	if err != nil {
		return nil, err
	}
	s.info = info
	classVals := resolveClasses(info.classes)
	for i := range info.classes {
		cl := &info.classes[i]
		cl.instanceTypes, cl.raw = cl.raw["instance_type"], nil
	}
	switch d := in.derive; {
	case d == nil:
	case d.sameHosts:
		if sameClassValues(d.prevClassValues(), classVals) {
			// Every shard column is the replaced snapshot's: the Store's
			// install takes its newest shards (Store.installLocked).
			d.keepShards, d.classVals = true, classVals
			return s, nil
		}
	default:
		d.keepPrefix, d.classVals = d.prefixShards(classVals), classVals
	}
	s.buildShards(&c, classVals, in.derive)
	return s, nil
}

// buildShards builds s's shards from c, whose host data s.info is (vals
// its classes' values), and their multipliers' summary; a host derived
// by d starts with its usage in d.usage, when set. The first
// d.keepPrefix shards are d.usage's, which the install replaces with
// the newest; they are not written to (published snapshots read them),
// so they are kept only if the multipliers' bases stay d.usage's: their
// multOver lists the hosts off those bases.
func (s *Snapshot) buildShards(c *Cloud, vals []classValues, d *derivation) {
	keep := 0
	if d != nil && d.usage != nil {
		keep = d.keepPrefix
		d.inDelta = nil
		if n := d.usage.delta.len(); n > 0 {
			d.inDelta = bitmap.NewSet(d.usage.n)
			d.usage.delta.each(func(id uint32, _ hostRes) { d.inDelta.Add(id) })
		}
	}
	s.buildShardsFrom(c, vals, d, keep)
	if keep > 0 && !sameBases(&s.mults, &d.usage.mults) {
		d.keepPrefix = 0
		s.buildShardsFrom(c, vals, d, 0)
	}
}

// buildShardsFrom is buildShards with the first keep shards d.usage's.
func (s *Snapshot) buildShardsFrom(c *Cloud, vals []classValues, d *derivation, keep int) {
	var wide usageDelta
	s.shards, s.delta = nil, nil
	if keep > 0 {
		s.shards = append(s.shards, d.usage.shards[:keep]...)
	}
	reclass := d.reclasses(s.n)
	for base := keep * bitmap.ShardSize; base < s.n; base += bitmap.ShardSize {
		if reclass {
			s.shards = append(s.shards, reclassedShard(c, s.info, vals, base, &wide, d))
			continue
		}
		s.shards = append(s.shards, buildShard(c, s.info, vals, base, min(base+bitmap.ShardSize, s.n), &wide, d))
	}
	if len(wide.ids) > 0 {
		s.delta = &wide
	}
	s.mults = summariseFrom(s.shards, keep)
}

func buildHostInfo(c *Cloud, d *derivation, committed map[HostNode][]string) (*hostInfo, error) {
	n := len(c.Hosts)
	if info := deriveSameHosts(c, d, committed); info != nil {
		return info, nil
	}
	info := &hostInfo{
		serviceUp: bitmap.NewSet(n),
		diskGBUsed: hostcols.NewInts(n, func(i int) int64 {
			if isIronic(&c.Config, &c.Hosts[i]) { // disk_mb_used is never set
				return 0
			}
			return c.Hosts[i].LocalGB - c.Hosts[i].FreeDiskGB
		}),
	}
	cells, hvModel, stats, hvSig := hostcols.NewIdxBuilder(n), hostcols.NewIdxBuilder(n), hostcols.NewIdxBuilder(n), hostcols.NewIdxBuilder(n)
	cellIDs := map[string]int32{}
	sigs := sigInterner{ids: map[string]int32{}}
	var models hostcols.HVModels
	hvHostnames, hostIPs := hostcols.NewTextsBuilder(n), hostcols.NewIPsBuilder(n)
	var supported [][3]string
	names := hostcols.NewNamesBuilder(n)
	if d != nil {
		names = hostcols.NewDerivedNamesBuilder(n, &d.prev.names, &d.prev.nameIdx)
	}
	host, node := make([]string, n), make([]string, n) // while building
	var lists instanceLists
	statsIn := statsInterner{byKey: map[string]int32{}}
	for i := range c.Hosts {
		if c.Hosts[i].UUID != "" {
			info.uuid = hostcols.NewUUIDs(n)
			break
		}
	}
	for i := range c.Hosts {
		h := &c.Hosts[i]
		id := uint32(i)
		o := d.oldID(i) // >= 0: copied from d.prev's host o, not parsed
		host[i], node[i] = h.Host, nodeName(h)
		ironic := isIronic(&c.Config, h)
		if ironic {
			if info.ironic == nil {
				info.ironic = bitmap.NewSet(n)
			}
			info.ironic.Add(id)
		}
		switch {
		case !info.uuid.Kept():
		case o >= 0 && d.prev.uuid.Kept():
			info.uuid.SetFrom(int32(i), &d.prev.uuid, o)
		case h.UUID == "":
			info.uuid.Set(int32(i), nova.MadeUpUUID("host", h.Host, node[i]))
		default:
			info.uuid.Set(int32(i), h.UUID)
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
		cells.Set(id, uint64(cid))
		var nid int32
		if o >= 0 {
			nid = names.AddFrom(id, h.Host, node[i], uint32(o))
		} else {
			nid = names.Add(id, h.Host, node[i])
		}
		lists.add(c, d, committed, i, nid, o, node[i])
		if !h.Service.Disabled && !h.Service.Down {
			info.serviceUp.Add(id)
		}
		if h.Service.Disabled {
			if info.serviceDisabled == nil {
				info.serviceDisabled = bitmap.NewSet(n)
			}
			info.serviceDisabled.Add(id)
		}
		if o >= 0 {
			hvModel.Set(id, uint64(d.modelOf(&models, o)))
		} else {
			hvModel.Set(id, uint64(models.Of(h.HypervisorType, h.HypervisorVersion, h.CPUInfo)))
		}
		switch {
		case ironic: // an IronicNodeState's host_ip is None
		case o >= 0:
			hostIPs.SetFrom(id, &d.prev.hostIPs, uint32(o))
		default:
			hostIPs.Set(id, h.HostIP)
		}
		if p := h.HypervisorHostname; p != nil && *p != node[i] {
			hvHostnames.Set(id, p)
		}
		var sig int32
		if o >= 0 {
			sig = d.sigOf(&sigs, info, id, o, h.HypervisorVersion)
		} else {
			supported = nil
			for _, spec := range h.SupportedInstances {
				cs, err := nova.CanonicalHVSpec([3]string{spec.Arch, spec.HVType, spec.VMMode})
				if err != nil {
					return nil, invalid(fmt.Sprintf("hosts[%d].supported_instances", i), "Nova refuses it: %v", err)
				}
				supported = append(supported, cs)
			}
			sig = sigs.of(info, id, supported, h.HypervisorVersion, false)
		}
		hvSig.Set(id, uint64(sig))
		info.hvSigHost[sig].Add(uint32(i))
		if o >= 0 {
			stats.Set(id, uint64(d.statsOf(&statsIn, o)))
			if !ironic {
				info.metrics.AddFrom(n, id, &d.prev.metrics, uint32(o))
			}
			continue
		}
		stats.Set(id, uint64(statsIn.of(h)))
		m, err := nova.SchedulerMetrics(h.Metrics)
		if err != nil {
			return nil, invalid(fmt.Sprintf("hosts[%d].metrics", i), "%v", err)
		}
		if !ironic { // an IronicNodeState's metrics are None
			info.metrics.Add(n, id, m)
		}
	}
	info.cell, info.hvModel, info.stats, info.hvSig = cells.Done(), hvModel.Done(), stats.Done(), hvSig.Done()
	info.statsTab = statsIn.maps
	info.metrics.Narrow()
	info.hvModels = models.Models()
	info.hvHostnames, info.hostIPs = hvHostnames.Done(), hostIPs.Done()
	info.names = names.Done()
	if d != nil {
		info.instances = hostcols.DeriveInstances(&d.prev.instances, lists.sameAs, lists.of)
	} else {
		info.instances = hostcols.NewInstances(lists.of)
	}
	if d != nil {
		old := make([]int32, n)
		for i := range old {
			old[i] = d.oldID(i)
		}
		info.nameIdx = hostcols.DeriveNameIndex(&d.prev.nameIdx, old, host, node)
	} else {
		info.nameIdx = hostcols.NewNameIndex(host, node)
	}
	if len(info.cells) <= 64 {
		info.blockCells = make([]uint64, (n+kernels.Block-1)/kernels.Block)
		for id := range uint32(n) {
			info.blockCells[id/kernels.Block] |= 1 << info.cell.At(id)
		}
	}
	buildAggClasses(c, info, d)
	return info, nil
}

// instanceLists collects the instance lists of a build's host names, host
// by host in id order (host name ids in order of first appearance).
type instanceLists struct {
	of [][]string // per host name, its instances (collected)
	// Per host name: its first host, and the name in d.prev whose
	// instance list it keeps (-1: collected in of).
	firstOf []int
	sameAs  []int32
}

// add takes host i of c (node its node name, o its id in d.prev, -1:
// none), whose host name id is nid: the first host of a name may keep
// its list from d.prev (derivation.sameInstances); a name's second node
// collects the list of all of them.
func (l *instanceLists) add(c *Cloud, d *derivation, committed map[HostNode][]string, i int, nid, o int32, node string) {
	switch {
	case int(nid) == len(l.of):
		l.of = append(l.of, nil)
		l.firstOf = append(l.firstOf, i)
		l.sameAs = append(l.sameAs, d.sameInstances(o, HostNode{c.Hosts[i].Host, node}, committed))
	case l.sameAs[nid] >= 0:
		// A second node of the name: its list is its nodes' (the first
		// one's collected now).
		l.sameAs[nid] = -1
		f := l.firstOf[nid]
		l.of[nid] = instancesOn(nil, c, f, nodeName(&c.Hosts[f]), committed)
	}
	if l.sameAs[nid] < 0 {
		l.of[nid] = instancesOn(l.of[nid], c, i, node, committed)
	}
}

// instancesOn appends to list the instances on host i (node its node
// name) that it lacks: the cloud's, then those committed on it. An ironic
// node's list is its own, empty.
func instancesOn(list []string, c *Cloud, i int, node string, committed map[HostNode][]string) []string {
	h := &c.Hosts[i]
	if isIronic(&c.Config, h) {
		return list
	}
	var extra []string
	if len(committed) > 0 {
		extra = committed[HostNode{h.Host, node}]
	}
	if list == nil {
		list = make([]string, 0, len(h.Instances)+len(extra))
	}
	for _, us := range [2][]string{h.Instances, extra} {
		for _, u := range us {
			if !slices.Contains(list, u) {
				list = append(list, u)
			}
		}
	}
	return list
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

// buildShard builds the shard of hosts [lo, hi), vals its classes'
// values, and appends to wide the hosts whose usage its columns cannot
// hold.
func buildShard(c *Cloud, info *hostInfo, vals []classValues, lo, hi int, wide *usageDelta, d *derivation) *shard {
	m := hi - lo
	sh := &shard{id: newShardID(),
		freeRAM: make([]int32, m), freeDiskMB: make([]int32, m), vcpusUsed: make([]int32, m),
		numInstances: make([]int32, m), numIOOps: make([]int32, m), twins: &twinMasks{},
	}
	totalRAM, totalDiskGB, vcpusTotal, failedBuilds := make([]int64, m), make([]int64, m), make([]int64, m), make([]int64, m)
	// The hosts' own ratios, in full while they are filled, then coded.
	var own [3][]float64
	for r := range own {
		own[r] = make([]float64, m)
	}
	ramRatio, cpuRatio, diskRatio := own[0], own[1], own[2]
	cfg := &c.Config
	for j := 0; j < m; j++ {
		h := &c.Hosts[lo+j]
		var r hostRes
		if o := d.oldID(lo + j); o >= 0 && d.usage != nil {
			r = d.usageOf(uint32(o)) // the install carries over what changed since
		} else {
			r = usageOf(cfg, h)
		}
		if !sh.setUsage(j, r) {
			wide.ids, wide.res = append(wide.ids, uint32(lo+j)), append(wide.res, r)
		}
		totalRAM[j], totalDiskGB[j], vcpusTotal[j] = h.MemoryMB, h.LocalGB, h.VCPUs
		failedBuilds[j] = h.FailedBuilds
		ramRatio[j] = ratioOr(h.RAMAllocationRatio, cfg.RAMAllocationRatio)
		cpuRatio[j] = ratioOr(h.CPUAllocationRatio, cfg.CPUAllocationRatio)
		diskRatio[j] = ratioOr(h.DiskAllocationRatio, cfg.DiskAllocationRatio)
	}
	sh.setClassColumns(cfg, info, vals, lo, &own)
	sh.totalRAM, sh.totalDiskGB = kernels.NewCoded(totalRAM), kernels.NewCoded(totalDiskGB)
	sh.vcpusTotal, sh.failedBuilds = kernels.NewCoded(vcpusTotal), kernels.NewCoded(failedBuilds)
	sh.ramRatio, sh.cpuRatio, sh.diskRatio = kernels.NewCoded(ramRatio), kernels.NewCoded(cpuRatio), kernels.NewCoded(diskRatio)
	cpuLimit, failed := ramRatio, diskRatio // reused: coded above
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
	sh.statBlocks(allBlocks, nil)
	return sh
}

// setClassColumns sets the columns of sh that its hosts' aggregate
// classes resolve (vals; its hosts' ids start at base): the aggregates'
// allocation ratios, else the hosts' own (own: RAM, CPU, disk), the I/O
// and instance limits and the weighers' multipliers, else cfg's.
func (sh *shard) setClassColumns(cfg *Config, info *hostInfo, vals []classValues, base int, own *[3][]float64) {
	m := sh.hostCount()
	aggRAM, aggCPU, aggDisk := make([]float64, m), make([]float64, m), make([]float64, m)
	ownRAM, ownCPU, ownDisk := own[0][:m], own[1][:m], own[2][:m]
	maxIOOps, maxInstances := make([]int64, m), make([]int64, m)
	var mult [numWeighers][]float64
	for w := range mult {
		mult[w] = make([]float64, m)
	}
	cfgMult := configMultipliers(cfg)
	for j := range m {
		cv := &vals[info.class.At(uint32(base+j))]
		aggRAM[j] = cv.ratio[0].or(ownRAM[j])
		aggCPU[j] = cv.ratio[1].or(ownCPU[j])
		aggDisk[j] = cv.ratio[2].or(ownDisk[j])
		maxIOOps[j] = cv.maxIOOps.or(cfg.MaxIoOpsPerHost)
		maxInstances[j] = cv.maxInstances.or(cfg.MaxInstancesPerHost)
		for w := range mult {
			mult[w][j] = cv.mult[w].or(cfgMult[w])
		}
		mult[wBuildFailure][j] = -1 * mult[wBuildFailure][j]
	}
	sh.aggRAMRatio, sh.aggCPURatio = kernels.NewCoded(aggRAM), kernels.NewCoded(aggCPU)
	sh.aggDiskRatio = kernels.NewCoded(aggDisk)
	sh.maxIOOps, sh.maxInstances = kernels.NewCoded(maxIOOps), kernels.NewCoded(maxInstances)
	for w := range mult {
		sh.mult[w] = kernels.NewCoded(mult[w])
	}
}

// configMultipliers is every weigher's multiplier in cfg (WeigherCatalogue
// order), what a host no aggregate overrides it for takes.
func configMultipliers(cfg *Config) [numWeighers]float64 {
	return [numWeighers]float64{
		cfg.RAMWeightMultiplier, cfg.CPUWeightMultiplier, cfg.DiskWeightMultiplier,
		cfg.IoOpsWeightMultiplier, cfg.NumInstancesWeightMultiplier, cfg.MetricsWeightMultiplier,
		cfg.SoftAffinityWeightMultiplier, cfg.SoftAntiAffinityWeightMultiplier,
		cfg.BuildFailureWeightMultiplier, 1000000.0,
	}
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
