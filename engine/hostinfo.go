package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// hostInfo is the static, per-host data that filters read once per
// request (never on the per-instance path) and the indexes built from it.
//
// Invariants: every per-host column covers hosts 0..n-1, in the compact
// form its hostcols type describes (an Idx's width holds its largest
// index; Names and NameIndex elide what is the identity); an index column's
// values index its table (cell: cells and cellUUID, hvModel: hvModels,
// stats: statsTab, hvSig: hvSigHost, hvSigRep and sigSupported, class:
// classes). Never modified once built, but for the memoised masks.
type hostInfo struct {
	// uuid holds every host's uuid, made up (nova.MadeUpUUID) where the
	// cloud gives none; empty when it gives none at all (hostUUID makes
	// them up when asked: 16 bytes per host less).
	uuid hostcols.UUIDs
	cell hostcols.Idx // index into cells
	// blockCells[q] has bit c set when block q (kernels.Block hosts)
	// holds a host of cell c; nil with more than 64 cells.
	blockCells []uint64
	cells      []string
	cellUUID   []string       // per cell, as the oracle makes them up
	diskGBUsed hostcols.Ints  // local_gb - free_disk_gb (see diskMBUsed)
	names      hostcols.Names // host and node names, host name ids

	nameIdx hostcols.NameIndex // ids by (lowercased) host name, node, (host, node)

	// instances lists the instance uuids of each host name and the host
	// names of each instance uuid.
	instances hostcols.Instances

	serviceUp *bitmap.Set // enabled and up (ComputeFilter)

	// Per host: what ComputeCapabilities, JsonFilter, ImageProperties,
	// MetricsFilter and SimpleCIDR read (see the accessors below).
	hvModel     hostcols.Idx // index into hvModels
	hvModels    []hostcols.HVModel
	hvHostnames hostcols.Texts // where it is not the node name
	hostIPs     hostcols.IPs
	stats       hostcols.Idx        // index into statsTab
	statsTab    []map[string]string // distinct stats, with Nova's counters
	metrics     hostcols.Metrics    // as the scheduler sees them

	// hvSig groups hosts by (supported_instances, hypervisor_version), what
	// ImagePropertiesFilter reads; hvSigHost is its inverted index.
	hvSig        hostcols.Idx
	hvSigHost    []*roaring.Bitmap // signature -> its hosts
	hvSigRep     []uint32          // signature -> one of its hosts
	sigSupported [][][3]string     // signature -> supported_instances (canonical)

	// Aggregate classes: hosts with the same set of aggregates share one.
	class   hostcols.Idx // index into classes
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

// nameOf is host id's host name id (hosts whose nodes share a host name
// share it).
func (info *hostInfo) nameOf(id uint32) int32 { return info.names.NameOf(id) }

// nodesOf returns host name nid's node ids, ascending (see
// hostcols.Names.NodesOf).
func (info *hostInfo) nodesOf(nid int32, one *[1]uint32) []uint32 {
	return info.names.NodesOf(nid, one)
}

// hostOf is host id's host name.
func (info *hostInfo) hostOf(id uint32) string { return info.names.Name(info.names.NameOf(id)) }

// nodeOf is host id's node name.
func (info *hostInfo) nodeOf(id uint32) string { return info.names.NodeOf(id) }

// hostUUID is host id's uuid: the cloud's, else made up from its names as
// the oracle makes it up.
func (info *hostInfo) hostUUID(id uint32) string {
	if !info.uuid.Kept() {
		return nova.MadeUpUUID("host", info.hostOf(id), info.nodeOf(id))
	}
	return info.uuid.Get(int32(id))
}

// byHostLower returns the ids whose lowercased host name is lower, in id
// order.
func (info *hostInfo) byHostLower(lower string) hostcols.IDRun {
	return info.nameIdx.ByHostLower(lower, &info.names)
}

// byNode returns the ids of node name node, in id order.
func (info *hostInfo) byNode(node string) hostcols.IDRun {
	return info.nameIdx.ByNode(node, &info.names)
}

// byHostNode returns the id of (host, node) (the last, were there two).
func (info *hostInfo) byHostNode(hn HostNode) (uint32, bool) {
	return info.nameIdx.ByHostNode(hn.Host, hn.Node, &info.names)
}

// hvType is host id's hypervisor_type.
func (info *hostInfo) hvType(id uint32) *string { return info.hvModels[info.hvModel.At(id)].Type }

// hvVersion is host id's hypervisor_version.
func (info *hostInfo) hvVersion(id uint32) *int64 { return info.hvModels[info.hvModel.At(id)].Version }

// cpuInfo is host id's cpu_info text.
func (info *hostInfo) cpuInfo(id uint32) *string { return info.hvModels[info.hvModel.At(id)].CPUInfo }

// hvHostname is host id's hypervisor_hostname: node, which points at the
// host's node name (the caller's copy: the snapshot keeps no string per
// node), where the host reports none (as the oracle makes it up) or
// reports the node name.
func (info *hostInfo) hvHostname(id uint32, node *string) *string {
	if p := info.hvHostnames.Get(id); p != nil {
		return p
	}
	return node
}

// hostIP is host id's host_ip (see hostcols.IPs: a new string for an IPv4
// address).
func (info *hostInfo) hostIP(id uint32) *string { return info.hostIPs.Get(id) }

// supported is host id's supported_instances (canonical).
func (info *hostInfo) supported(id uint32) [][3]string { return info.sigSupported[info.hvSig.At(id)] }

// diskMBUsed is host id's disk_mb_used: (local_gb - free_disk_gb) * 1024,
// in int64's wrapping arithmetic, as the column held it in full.
func (info *hostInfo) diskMBUsed(id uint32) int64 { return info.diskGBUsed.At(id) * 1024 }

func buildHostInfo(c *Cloud) (*hostInfo, error) {
	n := len(c.Hosts)
	info := &hostInfo{
		serviceUp:  bitmap.NewSet(n),
		diskGBUsed: hostcols.NewInts(n, func(i int) int64 { return c.Hosts[i].LocalGB - c.Hosts[i].FreeDiskGB }),
	}
	cells, hvModel, stats, hvSig := hostcols.NewIdxBuilder(n), hostcols.NewIdxBuilder(n), hostcols.NewIdxBuilder(n), hostcols.NewIdxBuilder(n)
	cellIDs := map[string]int32{}
	sigIDs := map[string]int32{}
	var models hostcols.HVModels
	hvHostnames, hostIPs := hostcols.NewTextsBuilder(n), hostcols.NewIPsBuilder(n)
	var supported [][3]string
	names := hostcols.NewNamesBuilder(n)
	host, node := make([]string, n), make([]string, n) // while building
	var instancesOf [][]string                         // per host name, while building
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
		host[i], node[i] = h.Host, nodeName(h)
		switch {
		case !info.uuid.Kept():
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
		nid := names.Add(id, h.Host, node[i])
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
		hvModel.Set(id, uint64(models.Of(h.HypervisorType, h.HypervisorVersion, h.CPUInfo)))
		hostIPs.Set(id, h.HostIP)
		if p := h.HypervisorHostname; p != nil && *p != node[i] {
			hvHostnames.Set(id, p)
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
		hvSig.Set(id, uint64(sig))
		if int(sig) == len(info.hvSigHost) {
			// One signature, one list: its hosts share it.
			info.hvSigHost = append(info.hvSigHost, roaring.New())
			info.hvSigRep = append(info.hvSigRep, uint32(i))
			info.sigSupported = append(info.sigSupported, cloneSpecs(supported))
		}
		info.hvSigHost[sig].Add(uint32(i))
		stats.Set(id, uint64(statsIn.of(h)))
		m, err := nova.SchedulerMetrics(h.Metrics)
		if err != nil {
			return nil, invalid(fmt.Sprintf("hosts[%d].metrics", i), "%v", err)
		}
		info.metrics.Add(n, id, m)
	}
	info.cell, info.hvModel, info.stats, info.hvSig = cells.Done(), hvModel.Done(), stats.Done(), hvSig.Done()
	info.statsTab = statsIn.maps
	info.metrics.Narrow()
	info.hvModels = models.Models()
	info.hvHostnames, info.hostIPs = hvHostnames.Done(), hostIPs.Done()
	info.names = names.Done()
	info.instances = hostcols.NewInstances(instancesOf)
	info.nameIdx = hostcols.NewNameIndex(host, node)
	if len(info.cells) <= 64 {
		info.blockCells = make([]uint64, (n+kernels.Block-1)/kernels.Block)
		for id := range uint32(n) {
			info.blockCells[id/kernels.Block] |= 1 << info.cell.At(id)
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
	aggsOfName := make([][]int, info.names.Count())
	nameIDs := make(map[string]int32, info.names.Count())
	for nid := range int32(info.names.Count()) {
		nameIDs[info.names.Name(nid)] = nid
	}
	for a, agg := range c.Aggregates {
		for _, h := range agg.Hosts {
			if nid, ok := nameIDs[h]; ok && !slices.Contains(aggsOfName[nid], a) {
				aggsOfName[nid] = append(aggsOfName[nid], a)
			}
		}
	}
	byKey := map[string]int32{}
	class := hostcols.NewIdxBuilder(n)
	for i := 0; i < n; i++ {
		aggs := aggsOfName[info.names.NameOf(uint32(i))]
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
		class.Set(uint32(i), uint64(cid))
		info.classes[cid].hosts.Add(uint32(i))
	}
	info.class = class.Done()
	for i := range info.classes {
		info.classes[i].hosts.RunOptimize()
	}
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

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
