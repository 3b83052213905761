package engine

import (
	"slices"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// usageDelta is the usage of the hosts a Store changed since their shards
// were last copied, and of those whose usage the shards' int32 columns
// cannot hold (usage.go): the state of host id in a snapshot is its delta
// entry when it has one, else its shard's columns. It lets a commit publish a
// snapshot without copying whole shards (4,096 hosts, five columns) for the
// few hosts a plan touches; past maxDelta entries, the next commit folds
// the delta into copies of the shards it covers (compaction).
//
// A delta is two sorted runs: the base (ids, res), shared by every
// snapshot a run of commits derives, and recent, the newer entries, which
// take the place of the base's for the same host. A commit copies only
// recent with its hosts merged in, until recent passes maxRecent entries
// and is merged into a new base: a commit costs the few recent entries,
// not the whole delta, and a whole copy every maxRecent hosts.
//
// Invariants: ids is sorted and holds distinct ids, res[i] is ids[i]'s
// usage; so for recent (nil, or empty: no entry), whose fresh counts its
// ids the base does not hold. A usageDelta and its runs are never
// modified once its snapshot is published: a commit derives a new one.
type usageDelta struct {
	ids    []uint32
	res    []hostRes
	recent *deltaRun
}

// deltaRun is a delta's recent entries.
type deltaRun struct {
	ids   []uint32
	res   []hostRes
	fresh int
}

// maxDelta is the number of delta entries past which a commit compacts.
// A batch seeds its overlay with the delta, so it bounds that cost too.
const maxDelta = 256

// maxRecent is the number of recent entries past which a commit merges
// them into the delta's base.
const maxRecent = 32

// lookup returns host id's delta entry.
func (d *usageDelta) lookup(id uint32) (hostRes, bool) {
	if d == nil {
		return hostRes{}, false
	}
	if r := d.recent; r != nil {
		if i, ok := slices.BinarySearch(r.ids, id); ok {
			return r.res[i], true
		}
	}
	i, ok := slices.BinarySearch(d.ids, id)
	if !ok {
		return hostRes{}, false
	}
	return d.res[i], true
}

// with returns the delta with the entries of ov's hosts set to ov's usage.
func (d *usageDelta) with(ov *pendingUsage) *usageDelta {
	add := slices.Sorted(slices.Values(ov.ids))
	next := &usageDelta{}
	var recent deltaRun
	if d != nil {
		next.ids, next.res = d.ids, d.res
		if d.recent != nil {
			recent = *d.recent
		}
	}
	merged := &deltaRun{fresh: recent.fresh}
	merged.ids, merged.res = mergeRuns(nil, nil, recent.ids, recent.res, add, func(i int) hostRes { return ov.res[add[i]] },
		func(id uint32) { // an id new to recent
			if _, ok := slices.BinarySearch(next.ids, id); !ok {
				merged.fresh++
			}
		})
	if len(merged.ids) <= maxRecent {
		next.recent = merged
		return next
	}
	next.ids, next.res = mergeRuns(nil, nil, next.ids, next.res, merged.ids, func(i int) hostRes { return merged.res[i] }, nil)
	return next
}

// mergeRuns returns the sorted run of ids and res with add's ids (sorted,
// distinct) set to resOf(i) for add[i], appended to outIDs and outRes
// (nil: fresh slices); newID is called (when not nil) with each of add's
// ids that ids does not hold.
func mergeRuns(outIDs []uint32, outRes []hostRes, ids []uint32, res []hostRes, add []uint32, resOf func(int) hostRes, newID func(uint32)) ([]uint32, []hostRes) {
	outIDs = slices.Grow(outIDs, len(ids)+len(add))
	outRes = slices.Grow(outRes, len(ids)+len(add))
	i := 0
	for k, id := range add { // merge: ids and add are sorted
		for ; i < len(ids) && ids[i] < id; i++ {
			outIDs, outRes = append(outIDs, ids[i]), append(outRes, res[i])
		}
		if i < len(ids) && ids[i] == id {
			i++
		} else if newID != nil {
			newID(id)
		}
		outIDs, outRes = append(outIDs, id), append(outRes, resOf(k))
	}
	return append(outIDs, ids[i:]...), append(outRes, res[i:]...)
}

// len is the number of hosts with an entry.
func (d *usageDelta) len() int {
	if d == nil {
		return 0
	}
	n := len(d.ids)
	if d.recent != nil {
		n += d.recent.fresh
	}
	return n
}

// each calls f with every host's entry, in id order.
func (d *usageDelta) each(f func(id uint32, r hostRes)) {
	if d == nil {
		return
	}
	var rIDs []uint32
	var rRes []hostRes
	if d.recent != nil {
		rIDs, rRes = d.recent.ids, d.recent.res
	}
	j := 0
	for i, id := range d.ids {
		for ; j < len(rIDs) && rIDs[j] < id; j++ {
			f(rIDs[j], rRes[j])
		}
		if j < len(rIDs) && rIDs[j] == id {
			f(id, rRes[j])
			j++
			continue
		}
		f(id, d.res[i])
	}
	for ; j < len(rIDs); j++ {
		f(rIDs[j], rRes[j])
	}
}

// usage returns host id's usage in s: its delta entry, else its columns.
func (s *Snapshot) usage(id uint32) hostRes {
	if r, ok := s.delta.lookup(id); ok {
		return r
	}
	sh, j := s.at(id)
	return sh.usageAt(j)
}

// compact folds the snapshot's usage delta into copies of the shards it
// covers (snap is not published yet), with columns from r, and returns
// the shards it replaced. The hosts whose usage the columns cannot hold
// stay in the delta.
func (snap *Snapshot) compact(r *recycler) (replaced []*shard) {
	copied := map[int]uint64{} // shard -> its blocks changed (bit q: block q)
	was := map[int]*shard{}    // shard -> the one its copy replaces
	born := r.escapes.Load()
	var wide usageDelta
	snap.delta.each(func(id uint32, res hostRes) {
		k, j := int(id>>bitmap.ShardBits), int(id&(bitmap.ShardSize-1))
		if !res.fitsColumns() {
			wide.ids, wide.res = append(wide.ids, id), append(wide.res, res)
			return
		}
		if _, ok := copied[k]; !ok {
			replaced, was[k] = append(replaced, snap.shards[k]), snap.shards[k]
			snap.shards[k] = snap.shards[k].cloneUsage(r)
			snap.shards[k].bornEscapes = born
		}
		snap.shards[k].setUsage(j, res)
		snap.shards[k].changed = append(snap.shards[k].changed, uint16(j))
		copied[k] |= 1 << (j / kernels.Block)
	})
	for k, blocks := range copied {
		slices.Sort(snap.shards[k].changed)
		snap.shards[k].statBlocks(blocks, was[k])
	}
	snap.delta = nil
	if len(wide.ids) > 0 {
		snap.delta = &wide
	}
	return replaced
}

// cloneUsage copies a shard for a usage change: the consumable columns are
// copied (into columns from r, nil: fresh ones), every other column is
// shared; the copy's parent is sh, and no host has changed yet.
func (sh *shard) cloneUsage(r *recycler) *shard {
	c := *sh
	c.id, c.parent, c.changed = newShardID(), sh.id, nil
	c.freeRAM = r.cloneInts(sh.freeRAM)
	c.freeDiskMB = r.cloneInts(sh.freeDiskMB)
	c.vcpusUsed = r.cloneInts(sh.vcpusUsed)
	c.numInstances = r.cloneInts(sh.numInstances)
	c.numIOOps = r.cloneInts(sh.numIOOps)
	return &c
}
