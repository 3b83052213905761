package engine

import (
	"slices"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/kernels"
)

// A Store's rebuild (a host added or removed, an aggregate changed) makes
// a whole new snapshot, host ids dense in the new cloud's order, but its
// hosts are, all but the new ones, the hosts of the snapshot it replaces,
// whose fields a Store never changes. What NewSnapshot parses or interns
// per host (the uuid, the stats with Nova's counters, the metrics, the
// hypervisor model, the canonical supported_instances) is then copied
// from that snapshot's columns by the id the host had there, and
// interned in the same tables, in the same order, as a build from
// scratch: the derived hostInfo equals the one NewSnapshot builds
// (TestDerivedSnapshotsMatchBuilt). So is its aggregate class, and its
// instance list where the host is its name's only node and the Store
// committed no instance on it, and deleted none, since the replaced
// snapshot was built (hostcols.DeriveInstances copies those lists' parsed
// uuids, and takes its uuid order from prev's). The name index's orders
// are prev's, renumbered, with the new hosts merged in
// (hostcols.DeriveNameIndex). The rest is built as NewSnapshot builds
// it: the names, the classes' metadata, the shards.
//
// A rebuild that keeps every host in order (an aggregate's metadata
// changed) goes further (deriveSameHosts): every per-host column and
// table is the replaced snapshot's, shared, and only the instance lists
// and the classes' metadata are made again (a class's hosts never change
// in a rebuild). When, besides, every class resolves the same values for
// the shards (allocation ratios, limits, multipliers: a zone, a tenant
// or an extra spec changed, or an aggregate no host is in), the shards
// are the replaced snapshot's too, its newest ones at install, and so is
// its lineage: the kept rescorings and verdicts stay warm.

// derivation is what a rebuild hands newSnapshot from the snapshot it
// replaces.
//
// Invariants: old[i] >= 0 only when host i of the new cloud is the very
// Host that prev's host old[i] was built from, under the same Config (its
// instance list aside: those are built again, with the instances
// committed since), and in the same aggregates (a rebuild changes no
// aggregate's hosts). stats, sigs, models and classes map prev's stats,
// signature, hypervisor model and aggregate class indexes to the new
// ones, plus one (0: not met yet).
type derivation struct {
	prev *hostInfo
	// prevAggs are the aggregates of the cloud prev was built from (its
	// classes' aggs index them).
	prevAggs                     []Aggregate
	old                          []int32
	stats, sigs, models, classes []int32
	// committed is the committed instances prev's instance lists hold
	// (buildInput.committed of prev's build).
	committed map[HostNode][]string
	// sameHosts is set by the build when the new cloud's hosts are
	// prev's, all and in order (deriveSameHosts), and keepShards when,
	// besides, every class resolves the same values (classVals, the new
	// ones): every shard column is then the replaced snapshot's, and the
	// build leaves the shards to the install (Store.installLocked).
	sameHosts, keepShards bool
	classVals             []classValues
	// keepPrefix, set by a build that leaves the shards to the install
	// in part, is how many leading shards the install takes from the
	// replaced snapshot (its newest ones, with their usage): full shards
	// of prev's hosts at their own ids, whose every class resolves the
	// values it did (prefixShards). The build made the others.
	keepPrefix int
	// usage, when set, is a snapshot built from prev whose usage the
	// build gives the hosts it derives (leased by the rebuild while it
	// builds), in place of their clouds' (a Store's cloud keeps the usage
	// it was given).
	usage *Snapshot
	// inDelta holds the hosts of usage's delta (nil: none), while the
	// shards are built (buildShards).
	inDelta *bitmap.Set
}

// prefixShards is how many leading shards of the new snapshot are, column
// for column, those of the snapshot d.usage (of prev's lineage, whose
// newest shards the install takes): the full shards whose hosts are
// prev's at their own ids (a host added at the end, or one removed after
// them), when every class of prev a kept host is in resolves the same
// values in the new cloud (vals), the configuration being prev's. 0
// without d.usage (a rebuild that leases no snapshot).
func (d *derivation) prefixShards(vals []classValues) int {
	if d.usage == nil {
		return 0
	}
	n := 0
	for n < len(d.old) && d.old[n] == int32(n) {
		n++
	}
	if n < bitmap.ShardSize {
		return 0
	}
	prevVals := d.prevClassValues()
	for x, cid := range d.classes {
		if cid != 0 && !sameClassValue(&prevVals[x], &vals[cid-1]) {
			return 0
		}
	}
	return n / bitmap.ShardSize
}

// usageOf is prev's host o's usage in d.usage: its shard's columns', but
// for the hosts of its delta (a binary search or two per host was 7% of
// a rebuild for a host added or removed).
func (d *derivation) usageOf(o uint32) hostRes {
	if d.inDelta != nil && d.inDelta.Has(o) {
		return d.usage.usage(o)
	}
	sh, j := d.usage.at(o)
	return sh.usageAt(j)
}

// newDerivation returns the derivation of a cloud whose host i had id
// old[i] in prev (-1: a host that joins).
func newDerivation(prev *hostInfo, old []int32, prevAggs []Aggregate, committed map[HostNode][]string) *derivation {
	return &derivation{prev: prev, prevAggs: prevAggs, old: old, committed: committed,
		stats: make([]int32, len(prev.statsTab)), sigs: make([]int32, len(prev.sigSupported)),
		models: make([]int32, len(prev.hvModels)), classes: make([]int32, len(prev.classes))}
}

// keepAll is the old ids of a cloud that keeps prev's n hosts, in order.
func keepAll(n int) []int32 {
	old := make([]int32, n)
	for i := range old {
		old[i] = int32(i)
	}
	return old
}

// sameInstances returns the name id in prev whose instance list is
// host o's (prev's host o, now hn, committed its committed instances), or
// -1 unless that name has host o alone and its committed instances are
// those prev's lists hold.
func (d *derivation) sameInstances(o int32, hn HostNode, committed map[HostNode][]string) int32 {
	if o < 0 {
		return -1
	}
	var one [1]uint32
	oid := d.prev.names.NameOf(uint32(o))
	if len(d.prev.names.NodesOf(oid, &one)) != 1 || !slices.Equal(committed[hn], d.committed[hn]) {
		return -1
	}
	return oid
}

// keepsAll reports whether the new cloud's first hosts are those of old
// (a snapshot built from d.prev), all and in order: hosts were only
// added, or none changed.
func (d *derivation) keepsAll(old *Snapshot) bool {
	return d != nil && d.prev == old.info && d.keepsFirst(old.n)
}

// keepsFirst reports whether the new cloud's first n hosts are prev's
// first n, in order.
func (d *derivation) keepsFirst(n int) bool {
	if len(d.old) < n {
		return false
	}
	for i, o := range d.old[:n] {
		if o != int32(i) {
			return false
		}
	}
	return true
}

// oldID is host i's id in prev, or -1 when it is parsed (a new host, or
// no derivation).
func (d *derivation) oldID(i int) int32 {
	if d == nil || i >= len(d.old) {
		return -1
	}
	return d.old[i]
}

// remapped returns the new index of prev's table entry x (remap, one of
// d's maps), interning it on first use.
func remapped(remap []int32, x uint64, intern func() int32) int32 {
	if remap[x] == 0 {
		remap[x] = intern() + 1
	}
	return remap[x] - 1
}

// statsOf interns the stats of prev's host o.
func (d *derivation) statsOf(in *statsInterner, o int32) int32 {
	x := d.prev.stats.At(uint32(o))
	return remapped(d.stats, x, func() int32 { return in.share(d.prev.statsTab[x]) })
}

// modelOf interns the hypervisor model of prev's host o.
func (d *derivation) modelOf(models *hostcols.HVModels, o int32) int32 {
	x := d.prev.hvModel.At(uint32(o))
	m := &d.prev.hvModels[x]
	return remapped(d.models, x, func() int32 { return models.Of(m.Type, m.Version, m.CPUInfo) })
}

// sigOf interns the hypervisor signature of prev's host o, now host id
// of info (version its hypervisor version, part of the signature).
func (d *derivation) sigOf(in *sigInterner, info *hostInfo, id uint32, o int32, version *int64) int32 {
	x := d.prev.hvSig.At(uint32(o))
	return remapped(d.sigs, x, func() int32 { return in.of(info, id, d.prev.sigSupported[x], version, true) })
}

// deriveSameHosts returns the host data of c when its hosts are d.prev's,
// all and in order (a rebuild for an aggregate's metadata, or one that
// only brings the committed instances into the lists), else nil. Nothing
// per host is then parsed or interned again: every column and table is
// d.prev's (never modified once built), but for the instance lists,
// derived as buildHostInfo derives them, and the metadata of the
// aggregate classes an aggregate that changed is in, made again from c's
// aggregates. The classes themselves, which
// hosts share one, stay d.prev's: a rebuild changes no aggregate's hosts
// (see derivation). The result equals a build's (TestDerivedSnapshotsMatchBuilt).
func deriveSameHosts(c *Cloud, d *derivation, committed map[HostNode][]string) *hostInfo {
	n := len(c.Hosts)
	if d == nil || len(d.old) != n || d.prev.class.Len() != n || !d.keepsFirst(n) {
		return nil
	}
	p := d.prev
	info := &hostInfo{
		uuid: p.uuid, cell: p.cell, blockCells: p.blockCells, cells: p.cells, cellUUID: p.cellUUID,
		diskGBUsed: p.diskGBUsed, names: p.names, nameIdx: p.nameIdx,
		serviceUp: p.serviceUp, serviceDisabled: p.serviceDisabled, ironic: p.ironic,
		hvModel: p.hvModel, hvModels: p.hvModels, hvHostnames: p.hvHostnames, hostIPs: p.hostIPs,
		stats: p.stats, statsTab: p.statsTab, metrics: p.metrics,
		hvSig: p.hvSig, hvSigHost: p.hvSigHost, hvSigRep: p.hvSigRep, sigSupported: p.sigSupported,
		class: p.class,
	}
	// The instance lists, as buildHostInfo collects them (prev's host
	// name ids are in order of first appearance).
	var lists instanceLists
	for i := range c.Hosts {
		nid := p.names.NameOf(uint32(i))
		if int(nid) > len(lists.of) {
			return nil // not in order of appearance: cannot happen
		}
		lists.add(c, d, committed, i, nid, int32(i), nodeName(&c.Hosts[i]))
	}
	info.instances = hostcols.DeriveInstances(&p.instances, lists.sameAs, lists.of)
	// Only the classes the change touches parse their aggregates'
	// metadata again; the others keep prev's (buildAggClasses does the
	// same for the classes of kept hosts).
	info.classes = make([]aggClass, len(p.classes))
	same := d.sameAggregates(c.Aggregates)
	for x := range p.classes {
		pc, kept := &p.classes[x], &p.classes[x]
		if !allOf(same, pc.aggs) {
			kept = nil
		}
		info.classes[x] = keptAggClass(c, kept, pc.aggs, pc.hosts)
	}
	d.sameHosts = true
	return info
}

// prevClassValues is the values prev's classes resolve for the shards,
// from the aggregates prev was built from (a hostInfo keeps only what
// the filters read of its classes: 240 bytes a class kept would have
// cost 1.7 bytes a host at 100,000).
func (d *derivation) prevClassValues() []classValues {
	out := make([]classValues, len(d.prev.classes))
	for x := range out {
		out[x] = resolveClass(aggregateValues(d.prevAggs, d.prev.classes[x].aggs))
	}
	return out
}

// reclasses reports whether a build of n hosts makes its shards as
// reclassedShard does: a rebuild that keeps every host in order (d's
// sameHosts) from a leased snapshot of them (d.usage), whose classes
// resolve other values for the shards (else the install keeps every
// shard).
func (d *derivation) reclasses(n int) bool {
	return d != nil && d.sameHosts && d.usage != nil && d.usage.n == n
}

// reclassedShard is buildShard for the shard of d.usage at base, when
// d.reclasses: the same hosts at the same ids, under the same
// configuration, only their classes' values changed (an aggregate's
// metadata). The columns read from the hosts and the configuration
// alone (capacities, the hosts' own ratios, the weighers' raw limits)
// are that shard's, shared (never written once published); the usage is
// its own copy, with d.usage's delta for its hosts applied (the install
// carries over what changed since); the columns the classes resolve
// (the aggregates' ratios and limits, the multipliers) are made again
// from vals. Rebuilding the whole shard was half of an aggregate change.
func reclassedShard(c *Cloud, info *hostInfo, vals []classValues, base int, wide *usageDelta, d *derivation) *shard {
	old := d.usage.shards[base/bitmap.ShardSize]
	sh := old.cloneUsage(nil)
	// Not derived from old for what is kept per shard: the ratio rules'
	// twins and a kept rescoring read the columns made again here (the
	// multipliers' multOver the build's summary sets, summariseFrom).
	sh.parent, sh.changed, sh.twins, sh.bornEscapes = 0, nil, &twinMasks{}, 0
	m := sh.hostCount()
	var moved uint64 // blocks whose usage the delta set
	if d.inDelta != nil {
		for j := range m {
			if id := uint32(base + j); d.inDelta.Has(id) {
				if r := d.usage.usage(id); !sh.setUsage(j, r) {
					wide.ids, wide.res = append(wide.ids, id), append(wide.res, r)
				}
				moved |= 1 << (j / kernels.Block)
			}
		}
	}
	var own [3][]float64 // the hosts' own ratios, old's
	for r, col := range [3]*kernels.Coded[float64]{&old.ramRatio, &old.cpuRatio, &old.diskRatio} {
		own[r] = make([]float64, m)
		for j := range m {
			own[r][j] = col.At(j)
		}
	}
	sh.setClassColumns(&c.Config, info, vals, base, &own)
	if moved != 0 {
		sh.statBlocks(moved, nil)
	}
	return sh
}
