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
// Invariants: ids is sorted and holds distinct ids; res[i] is ids[i]'s
// usage. A usageDelta is never modified once its snapshot is published: a
// commit derives a new one.
type usageDelta struct {
	ids []uint32
	res []hostRes
}

// maxDelta is the number of delta entries past which a commit compacts.
// A batch seeds its overlay with the delta, so it bounds that cost too.
const maxDelta = 256

// lookup returns host id's delta entry.
func (d *usageDelta) lookup(id uint32) (hostRes, bool) {
	if d == nil {
		return hostRes{}, false
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
	var ids []uint32
	var res []hostRes
	if d != nil {
		ids, res = d.ids, d.res
	}
	next.ids = make([]uint32, 0, len(ids)+len(add))
	next.res = make([]hostRes, 0, len(ids)+len(add))
	i := 0
	for _, id := range add { // merge: ids and add are sorted
		for ; i < len(ids) && ids[i] < id; i++ {
			next.ids, next.res = append(next.ids, ids[i]), append(next.res, res[i])
		}
		if i < len(ids) && ids[i] == id {
			i++
		}
		next.ids, next.res = append(next.ids, id), append(next.res, ov.res[id])
	}
	next.ids, next.res = append(next.ids, ids[i:]...), append(next.res, res[i:]...)
	return next
}

func (d *usageDelta) len() int {
	if d == nil {
		return 0
	}
	return len(d.ids)
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
	born := r.escapes.Load()
	var wide usageDelta
	for i, id := range snap.delta.ids {
		k, j := int(id>>bitmap.ShardBits), int(id&(bitmap.ShardSize-1))
		res := snap.delta.res[i]
		if !res.fitsColumns() {
			wide.ids, wide.res = append(wide.ids, id), append(wide.res, res)
			continue
		}
		if _, ok := copied[k]; !ok {
			replaced = append(replaced, snap.shards[k])
			snap.shards[k] = snap.shards[k].cloneUsage(r)
			snap.shards[k].bornEscapes = born
		}
		snap.shards[k].setUsage(j, res)
		copied[k] |= 1 << (j / kernels.Block)
	}
	for k, blocks := range copied {
		snap.shards[k].statBlocks(blocks)
	}
	snap.delta = nil
	if len(wide.ids) > 0 {
		snap.delta = &wide
	}
	return replaced
}

// cloneUsage copies a shard for a usage change: the consumable columns are
// copied (into columns from r, nil: fresh ones), every other column is
// shared.
func (sh *shard) cloneUsage(r *recycler) *shard {
	c := *sh
	c.id = newShardID()
	c.freeRAM = r.cloneInts(sh.freeRAM)
	c.freeDiskMB = r.cloneInts(sh.freeDiskMB)
	c.vcpusUsed = r.cloneInts(sh.vcpusUsed)
	c.numInstances = r.cloneInts(sh.numInstances)
	c.numIOOps = r.cloneInts(sh.numIOOps)
	return &c
}
