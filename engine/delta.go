package engine

import (
	"slices"
	"sync/atomic"
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
func (d *usageDelta) with(ov *overlay) *usageDelta {
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

// genTable holds the generation of every host of a Store: the version of
// the last publication that changed its usage. Successive usage states
// share one table (a rebuild starts a new one); commits write it under the
// Store's mutex before they publish, so that Generation never reports a
// change older than Snapshot shows. Only the newest state's values are
// ever read: a commit checks a plan against the newest state.
type genTable []atomic.Uint64

func newGens(n int, v uint64) *genTable {
	g := make(genTable, n)
	for i := range g {
		g[i].Store(v)
	}
	return &g
}

func (g *genTable) of(id uint32) uint64     { return (*g)[id].Load() }
func (g *genTable) set(id uint32, v uint64) { (*g)[id].Store(v) }
