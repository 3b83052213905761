package engine

import (
	"slices"

	"github.com/placer/placer/engine/internal/hostcols"
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
	prev                         *hostInfo
	old                          []int32
	stats, sigs, models, classes []int32
	// committed is the committed instances prev's instance lists hold
	// (buildInput.committed of prev's build).
	committed map[HostNode][]string
}

// newDerivation returns the derivation of a cloud whose host i had id
// old[i] in prev (-1: a host that joins).
func newDerivation(prev *hostInfo, old []int32, committed map[HostNode][]string) *derivation {
	return &derivation{prev: prev, old: old, committed: committed,
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
