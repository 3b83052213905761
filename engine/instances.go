package engine

import (
	"cmp"
	"iter"
	"slices"
	"sort"
	"strings"
)

// instIndex holds the instances the cloud lists on its hosts, by host name
// and by uuid, in flat arrays: a map from uuid to host names cost about
// 560 bytes per host at 100,000 hosts, the arrays 8 bytes per instance
// beyond the uuids themselves.
//
// Invariants: host name nid's instances are uuids[start[nid]:start[nid+1]],
// distinct, in the order the cloud first lists them; byUUID holds every
// index into uuids once, ordered by uuid, and among equal uuids by index
// (so by host name in first-listed order).
type instIndex struct {
	uuids  []string
	start  []int32
	byUUID []int32
}

// newInstIndex builds the index from the per-name instance lists.
func newInstIndex(perName [][]string) instIndex {
	x := instIndex{start: make([]int32, len(perName)+1)}
	total := 0
	for _, us := range perName {
		total += len(us)
	}
	x.uuids = make([]string, 0, total)
	for nid, us := range perName {
		x.uuids = append(x.uuids, us...)
		x.start[nid+1] = int32(len(x.uuids))
	}
	// Sorted on each uuid's first eight bytes as an integer, then on the
	// whole uuid and the index: uuids are random, so the prefix nearly
	// always decides, without chasing each string for every comparison.
	type entry struct {
		prefix uint64
		i      int32
	}
	es := make([]entry, total)
	for i, u := range x.uuids {
		es[i] = entry{prefix8(u), int32(i)}
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		return cmp.Or(strings.Compare(x.uuids[a.i], x.uuids[b.i]), cmp.Compare(a.i, b.i))
	})
	x.byUUID = make([]int32, total)
	for k, e := range es {
		x.byUUID[k] = e.i
	}
	return x
}

// prefix8 is s's first eight bytes as a big-endian integer (zero-padded):
// ordering by it agrees with ordering by the strings where the prefixes
// differ.
func prefix8(s string) uint64 {
	var p uint64
	for k := range 8 {
		p <<= 8
		if k < len(s) {
			p |= uint64(s[k])
		}
	}
	return p
}

// of returns host name nid's instances (not to be modified).
func (x *instIndex) of(nid int32) []string {
	return x.uuids[x.start[nid]:x.start[nid+1]:x.start[nid+1]]
}

// namesOf yields the host names (ids) listing instance u, in first-listed
// order.
func (x *instIndex) namesOf(u string) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		lo := sort.Search(len(x.byUUID), func(i int) bool { return x.uuids[x.byUUID[i]] >= u })
		for _, p := range x.byUUID[lo:] {
			if x.uuids[p] != u {
				return
			}
			// The name whose range holds p: the last start <= p.
			nid := sort.Search(len(x.start)-1, func(n int) bool { return x.start[n+1] > p })
			if !yield(int32(nid)) {
				return
			}
		}
	}
}

// nameIndex finds host ids by lowercased host name, by node name and by
// (host, node), through the ids sorted by each key: 4 bytes per host and
// key, where maps of id slices cost about 200 bytes per host.
//
// Invariants: each order holds every id once, sorted by its key and, among
// equal keys, by id.
type nameIndex struct {
	byLower, byNode, byHostNode []uint32
}

func newNameIndex(host, node []string) nameIndex {
	n := len(host)
	lower := make([]string, n) // only while sorting
	for i, h := range host {
		lower[i] = strings.ToLower(h)
	}
	sorted := func(byKey func(a, b uint32) int) []uint32 {
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(i)
		}
		// Ties broken by id: the stable order, without a stable sort's
		// O(n log² n) (a third of a 50,000-host snapshot's build).
		slices.SortFunc(ids, func(a, b uint32) int { return cmp.Or(byKey(a, b), cmp.Compare(a, b)) })
		return ids
	}
	return nameIndex{
		byLower: sorted(func(a, b uint32) int { return strings.Compare(lower[a], lower[b]) }),
		byNode:  sorted(func(a, b uint32) int { return strings.Compare(node[a], node[b]) }),
		byHostNode: sorted(func(a, b uint32) int {
			if c := strings.Compare(host[a], host[b]); c != 0 {
				return c
			}
			return strings.Compare(node[a], node[b])
		}),
	}
}

// equalRange returns the ids of order whose key (by cmp against the
// sought one: <0 below, 0 equal, >0 above) is the sought one.
func equalRange(order []uint32, cmp func(id uint32) int) []uint32 {
	lo := sort.Search(len(order), func(i int) bool { return cmp(order[i]) >= 0 })
	hi := lo + sort.Search(len(order)-lo, func(i int) bool { return cmp(order[lo+i]) > 0 })
	return order[lo:hi:hi]
}

// byHostLower returns the ids whose lowercased host name is lower, in id
// order.
func (info *hostInfo) byHostLower(lower string) []uint32 {
	return equalRange(info.nameIdx.byLower, func(id uint32) int { return strings.Compare(strings.ToLower(info.host[id]), lower) })
}

// byNode returns the ids of node name node, in id order.
func (info *hostInfo) byNode(node string) []uint32 {
	return equalRange(info.nameIdx.byNode, func(id uint32) int { return strings.Compare(info.node[id], node) })
}

// byHostNode returns the id of (host, node) (the last, were there two).
func (info *hostInfo) byHostNode(hn HostNode) (uint32, bool) {
	ids := equalRange(info.nameIdx.byHostNode, func(id uint32) int {
		if c := strings.Compare(info.host[id], hn.Host); c != 0 {
			return c
		}
		return strings.Compare(info.node[id], hn.Node)
	})
	if len(ids) == 0 {
		return 0, false
	}
	return ids[len(ids)-1], true
}
