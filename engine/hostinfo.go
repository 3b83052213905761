package engine

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
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
// classes). Never modified once built, but for memo and modelGroups.
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
	// serviceDisabled are the hosts whose service is disabled (nil: none),
	// as HostState.service says ($service.disabled in a JsonFilter query).
	serviceDisabled *bitmap.Set
	ironic          *bitmap.Set // IronicNodeStates (ironic.go); nil: none

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

	// memo holds the static filters' masks, verdicts and indexes
	// (masks.go), shared by the snapshots a Store derives by commits.
	memo memoTable

	// modelGroups groups the hosts by hypervisor model for the lazy
	// bounds' seeds (modelbounds.go), built on first use.
	modelsOnce  sync.Once
	modelGroups *modelGroups
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
	// limitFrom names, per Aggregate* rule's metadata key (aggKey), the
	// aggregates whose value is the ratio or limit the rule applies (the
	// minimum); a key is absent when the rule falls back to its default
	// (no aggregate has it, or a value does not parse). Explain reports
	// them.
	limitFrom map[string][]string
}

// isIronic reports whether host id is an IronicNodeState.
func (info *hostInfo) isIronic(id uint32) bool {
	return info.ironic != nil && info.ironic.Has(id)
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

// byHost returns the ids whose host name is host (exactly), by node name.
func (info *hostInfo) byHost(host string) hostcols.IDRun {
	return info.nameIdx.ByHost(host, &info.names)
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

// statsOf is host id's stats (shared with every host holding the same).
func (info *hostInfo) statsOf(id uint32) map[string]string { return info.statsTab[info.stats.At(id)] }

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
// exact within the bounds a cloud's numbers keep to (limits.go).
func (info *hostInfo) diskMBUsed(id uint32) int64 { return info.diskGBUsed.At(id) * 1024 }
