package engine

import (
	"slices"

	"github.com/placer/placer/bitmap"
)

// usageDelta is the usage of the hosts a Store changed since their shards
// were last copied: the state of host id in a snapshot is its delta entry
// when it has one, else its shard's columns. It lets a commit publish a
// snapshot without copying whole shards (4,096 hosts, ten columns) for the
// few hosts a plan touches; past maxDelta entries, the next commit folds
// the delta into copies of the shards it covers (compaction).
//
// Invariants: ids is sorted and holds distinct ids; res[i] is ids[i]'s
// usage; set holds exactly ids. A usageDelta is never modified once its
// snapshot is published: a commit derives a new one.
type usageDelta struct {
	ids []uint32
	res []hostRes
	set *bitmap.Set
}

// maxDelta is the number of delta entries past which a commit compacts.
// A batch seeds its overlay with the delta, so it bounds that cost too.
const maxDelta = 256

// lookup returns host id's delta entry.
func (d *usageDelta) lookup(id uint32) (hostRes, bool) {
	if d == nil || !d.set.Has(id) {
		return hostRes{}, false
	}
	i, _ := slices.BinarySearch(d.ids, id)
	return d.res[i], true
}

// with returns the delta with the entries of ov's hosts set to ov's usage.
func (d *usageDelta) with(n int, ov *overlay) *usageDelta {
	next := &usageDelta{}
	if d != nil {
		next.ids, next.res, next.set = slices.Clone(d.ids), slices.Clone(d.res), d.set.Clone()
	} else {
		next.set = bitmap.NewSet(n)
	}
	for _, id := range ov.ids {
		r := ov.res[id]
		i, found := slices.BinarySearch(next.ids, id)
		if found {
			next.res[i] = r
			continue
		}
		next.ids = slices.Insert(next.ids, i, id)
		next.res = slices.Insert(next.res, i, r)
		next.set.Add(id)
	}
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
	return hostRes{sh.freeRAM[j], sh.freeDiskMB[j], sh.vcpusUsed[j], sh.numInstances[j], sh.numIOOps[j]}
}

// genPage is the number of hosts one page of Store generations covers: a
// commit copies the pages of the hosts it changes.
const genPage = 256
