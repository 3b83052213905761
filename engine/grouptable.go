package engine

import (
	"hash/maphash"
	"iter"
)

// groupTable is a snapshot's server-group members committed through a
// Store (Snapshot.groupPlaced): group uuid -> member uuid -> where it
// was placed (placedAt).
//
// Invariants: a table reachable from a published snapshot is never
// modified; a table being built for a derived snapshot owns (may modify)
// exactly the buckets whose bit is set in owned, and the member map of
// group own when hasOwn (the last one it put there itself), and shares
// every other bucket and member map with the table it was derived from.
//
// The groups are split into groupBuckets maps by the group's hash, so
// that a commit adding a member copies one bucket, not every group: on a
// long stream of requests with groups, copying the whole table on every
// commit took a tenth of the Scheduler's time.
type groupTable struct {
	buckets [groupBuckets]map[string]map[string]string
	owned   uint64
	n       int // groups
	own     string
	hasOwn  bool
}

const groupBuckets = 64

var groupSeed = maphash.MakeSeed()

func groupBucket(group string) int { return int(maphash.String(groupSeed, group) % groupBuckets) }

// newGroupTable is the table of groups (nil when empty); it takes the
// maps over.
func newGroupTable(groups map[string]map[string]string) *groupTable {
	if len(groups) == 0 {
		return nil
	}
	t := &groupTable{n: len(groups)}
	for g, m := range groups {
		k := groupBucket(g)
		if t.buckets[k] == nil {
			t.buckets[k] = map[string]map[string]string{}
		}
		t.buckets[k][g] = m
	}
	return t
}

// members is group's members (nil: none).
func (t *groupTable) members(group string) map[string]string {
	if t == nil {
		return nil
	}
	return t.buckets[groupBucket(group)][group]
}

// len is the number of groups with a member.
func (t *groupTable) len() int {
	if t == nil {
		return 0
	}
	return t.n
}

// all yields every group and its members, in no order.
func (t *groupTable) all() iter.Seq2[string, map[string]string] {
	return func(yield func(string, map[string]string) bool) {
		if t == nil {
			return
		}
		for _, b := range t.buckets {
			for g, m := range b {
				if !yield(g, m) {
					return
				}
			}
		}
	}
}

// setGroupPlaced returns cur with group's member uuid at placed (placed
// "" removes it), copying what it changes: the table once per derived
// snapshot (while cur is still parent, the table it derives from), the
// bucket of group once, and the group's member map once for a run of
// changes to one group (a plan's instances: copying it for each was
// quadratic in the group's size).
func setGroupPlaced(cur, parent *groupTable, group, uuid, placed string) *groupTable {
	if cur == nil || cur == parent {
		next := &groupTable{}
		if cur != nil {
			next.buckets, next.n = cur.buckets, cur.n
		}
		cur = next
	}
	k := groupBucket(group)
	if cur.owned&(1<<k) == 0 {
		b := make(map[string]map[string]string, len(cur.buckets[k])+1)
		for g, m := range cur.buckets[k] {
			b[g] = m
		}
		cur.buckets[k] = b
		cur.owned |= 1 << k
	}
	b := cur.buckets[k]
	old, had := b[group]
	m := old
	if !had || !cur.hasOwn || cur.own != group {
		m = make(map[string]string, len(old)+1)
		for u, h := range old {
			m[u] = h
		}
		cur.own, cur.hasOwn = group, true
	}
	if placed == "" {
		delete(m, uuid)
	} else {
		m[uuid] = placed
	}
	switch {
	case len(m) == 0 && had:
		delete(b, group)
		cur.n--
	case len(m) > 0:
		if !had {
			cur.n++
		}
		b[group] = m
	}
	return cur
}
