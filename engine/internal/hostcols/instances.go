package hostcols

import (
	"cmp"
	"encoding/binary"
	"iter"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Instances holds the instances the cloud lists on its hosts, by host name
// and by uuid, in flat arrays: a map from uuid to host names cost about
// 560 bytes per host at 100,000 hosts. A canonical uuid is kept as its 16
// bytes (UUIDs), 18.5 bytes per instance with its place in byKey (20
// bits at 860,000 instances), where its string cost 52 plus the input's
// text kept alive.
//
// Invariants:
//   - host name nid's instances are the entries start[nid]:start[nid+1] of
//     uuids, distinct, in the order the cloud first lists them;
//   - byKey holds every entry that is not odd once, ordered by key and,
//     among equal keys, by entry (so by host name in first-listed order);
//     byOdd holds every index into uuids.odd once, ordered by its uuid and
//     then by entry. A canonical and an odd uuid are never equal, so a
//     lookup searches one of the two.
type Instances struct {
	start []int32
	uuids UUIDs
	byKey packedInts
	byOdd []int32
}

// NewInstances builds the index from the per-name instance lists. It keeps
// none of their strings.
func NewInstances(perName [][]string) Instances {
	return DeriveInstances(nil, nil, perName)
}

// DeriveInstances builds the index NewInstances builds, where the list of
// each name nid with same[nid] >= 0 is prev's name same[nid]'s: its
// entries are copied, not parsed (perName[nid] is not read). A snapshot
// derived from another keeps the instance lists of most hosts; when it
// keeps every one, each name's own, the index is prev's, shared (an
// Instances is never modified once built).
func DeriveInstances(prev *Instances, same []int32, perName [][]string) Instances {
	if prev != nil && len(perName) == len(prev.start)-1 && keepsEvery(same, len(perName)) {
		return *prev
	}
	from := func(nid int) int32 {
		if nid < len(same) {
			return same[nid]
		}
		return -1
	}
	x := Instances{start: make([]int32, len(perName)+1)}
	total := 0
	for nid, us := range perName {
		if o := from(nid); o >= 0 {
			total += int(prev.start[o+1] - prev.start[o])
		} else {
			total += len(us)
		}
	}
	x.uuids = NewUUIDs(total)
	i := int32(0)
	for nid, us := range perName {
		if o := from(nid); o >= 0 {
			lo, hi := prev.start[o], prev.start[o+1]
			copy(x.uuids.keys[i:], prev.uuids.keys[lo:hi])
			if len(prev.uuids.odd) > 0 {
				k, _ := slices.BinarySearch(prev.uuids.odd, lo)
				for ; k < len(prev.uuids.odd) && prev.uuids.odd[k] < hi; k++ {
					x.uuids.odd = append(x.uuids.odd, i+prev.uuids.odd[k]-lo)
					x.uuids.oddUUID = append(x.uuids.oddUUID, prev.uuids.oddUUID[k])
				}
			}
			i += hi - lo
		} else {
			for _, u := range us {
				x.uuids.Set(i, u)
				i++
			}
		}
		x.start[nid+1] = i
	}
	odd, oddUUID := x.uuids.odd, x.uuids.oddUUID
	byKey, ok := x.deriveByKey(prev, from)
	if !ok {
		// Sorted as two big-endian words and the entry (the order of the
		// keys' bytes, then of entries), only while building: integer
		// comparisons rather than a byte comparison per step.
		sorted := make([]sortKey, 0, total-len(odd))
		for i := range int32(total) {
			if !x.uuids.isOdd(i) {
				sorted = append(sorted, x.sortKeyOf(i))
			}
		}
		sortKeys(sorted)
		byKey = make([]int32, len(sorted))
		for j, k := range sorted {
			byKey[j] = k.i
		}
	}
	x.byKey = newPackedInts(byKey, int32(total-1))
	x.byOdd = make([]int32, len(odd))
	for k := range x.byOdd {
		x.byOdd[k] = int32(k)
	}
	slices.SortFunc(x.byOdd, func(a, b int32) int {
		return cmp.Or(strings.Compare(oddUUID[a], oddUUID[b]), cmp.Compare(odd[a], odd[b]))
	})
	return x
}

// keepsEvery reports whether same maps each of the first n names to
// itself.
func keepsEvery(same []int32, n int) bool {
	if len(same) < n {
		return false
	}
	for nid, o := range same[:n] {
		if o != int32(nid) {
			return false
		}
	}
	return true
}

// sortKeyOf is entry i's key as two big-endian words and the entry.
func (x *Instances) sortKeyOf(i int32) sortKey {
	k := &x.uuids.keys[i]
	return sortKey{binary.BigEndian.Uint64(k[:8]), binary.BigEndian.Uint64(k[8:]), i}
}

// deriveByKey returns x's byKey order (its uuids and start set) from
// prev's, when the names whose lists x copied from prev (from(nid) >= 0)
// keep prev's order: prev's order with the entries of those lists
// renumbered (still in order among equal keys) and the others dropped,
// and x's other entries, sorted, merged in by binary search. It reports
// false (nothing done) without prev, or when the copied names are not
// in prev's order.
func (x *Instances) deriveByKey(prev *Instances, from func(nid int) int32) ([]int32, bool) {
	if prev == nil {
		return nil, false
	}
	entry := make([]int32, len(prev.uuids.keys)) // prev's entry -> x's, -1: not copied
	for i := range entry {
		entry[i] = -1
	}
	var added []sortKey
	last := int32(-1)
	for nid := range len(x.start) - 1 {
		lo, hi := x.start[nid], x.start[nid+1]
		o := from(nid)
		if o < 0 {
			for i := lo; i < hi; i++ {
				if !x.uuids.isOdd(i) {
					added = append(added, x.sortKeyOf(i))
				}
			}
			continue
		}
		if o <= last {
			return nil, false
		}
		last = o
		for i := prev.start[o]; i < prev.start[o+1]; i++ {
			entry[i] = lo + i - prev.start[o]
		}
	}
	kept := make([]int32, 0, prev.byKey.len())
	for j := range prev.byKey.len() {
		if e := entry[prev.byKey.get(j)]; e >= 0 {
			kept = append(kept, e)
		}
	}
	if len(added) == 0 {
		return kept, true
	}
	sortKeys(added)
	entries := make([]int32, len(added))
	for j, a := range added {
		entries[j] = a.i
	}
	// The merge compares each added entry (a) with kept ones several
	// times running: its key is decoded once.
	at, ka := int32(-1), sortKey{}
	return mergeSorted(kept, entries, func(a, b int32) bool {
		if a != at {
			at, ka = a, x.sortKeyOf(a)
		}
		kb := x.sortKeyOf(b)
		return ka.hi < kb.hi || ka.hi == kb.hi && (ka.lo < kb.lo || ka.lo == kb.lo && ka.i < kb.i)
	}), true
}

// mergeSorted returns the elements of kept and added, each sorted by less
// (a strict order under which no two of them are equal), in one sorted
// slice, finding each of added's places in kept by a galloping search
// from the last one's: O(log gap) comparisons, so that a few added to
// many kept (a rebuild's new hosts) cost no sort of all, and many (the
// lists of every host committed on since the last rebuild, tens of
// thousands late in a `placer simulate` run) no binary search over the
// rest of kept each: 60,000 spread evenly among 50,000 take 170,000
// comparisons where those searches took 876,000 (TestMergeSortedGallops).
func mergeSorted[T any](kept, added []T, less func(a, b T) bool) []T {
	out := make([]T, 0, len(kept)+len(added))
	from := 0
	for _, a := range added {
		// Double the step while a is not below kept[from+step-1]: every
		// element before from+step/2 is then below a.
		step := 1
		for from+step <= len(kept) && !less(a, kept[from+step-1]) {
			step *= 2
		}
		lo, hi := from+step/2, min(from+step, len(kept))
		at := lo + sort.Search(hi-lo, func(j int) bool { return less(a, kept[lo+j]) })
		out = append(append(out, kept[from:at]...), a)
		from = at
	}
	return append(out, kept[from:]...)
}

// Of returns host name nid's instances, in a new slice.
func (x *Instances) Of(nid int32) []string {
	lo, hi := x.start[nid], x.start[nid+1]
	if lo == hi {
		return nil
	}
	out := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, x.uuids.Get(i))
	}
	return out
}

// Has reports whether u is among host name nid's instances.
func (x *Instances) Has(nid int32, u string) bool {
	lo, hi := x.start[nid], x.start[nid+1]
	if k, ok := parseUUID(u); ok {
		for i := lo; i < hi; i++ {
			if x.uuids.keys[i] == k && !x.uuids.isOdd(i) {
				return true
			}
		}
		return false
	}
	// The odd entries of nid: those of odd within [lo, hi).
	odd := x.uuids.odd
	a, _ := slices.BinarySearch(odd, lo)
	for k := a; k < len(odd) && odd[k] < hi; k++ {
		if x.uuids.oddUUID[k] == u {
			return true
		}
	}
	return false
}

// NamesOf yields the host names (ids) listing instance u, in first-listed
// order.
func (x *Instances) NamesOf(u string) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		// u's entries, ascending: among equal keys byKey (and byOdd) is
		// in entry order.
		if k, ok := parseUUID(u); ok {
			keys := x.uuids.keys
			for j := x.firstByKey(&k); j < x.byKey.len(); j++ {
				p := x.byKey.get(j)
				if keys[p] != k || !yield(x.nameOfEntry(p)) {
					return
				}
			}
			return
		}
		odd, oddUUID := x.uuids.odd, x.uuids.oddUUID
		lo := sort.Search(len(x.byOdd), func(j int) bool { return oddUUID[x.byOdd[j]] >= u })
		for _, k := range x.byOdd[lo:] {
			if oddUUID[k] != u || !yield(x.nameOfEntry(odd[k])) {
				return
			}
		}
	}
}

// firstByKey is the first place in byKey whose key is at least k: a
// binary search comparing keys as two big-endian words (a lookup of a
// listed instance took 1.1 µs with sort.Search and byte comparisons at
// 100,000 hosts).
func (x *Instances) firstByKey(k *uuidKey) int {
	hi, lo := binary.BigEndian.Uint64(k[:8]), binary.BigEndian.Uint64(k[8:])
	keys := x.uuids.keys
	a, b := 0, x.byKey.len()
	for a < b {
		m := int(uint(a+b) >> 1)
		e := &keys[x.byKey.get(m)]
		if eh := binary.BigEndian.Uint64(e[:8]); eh < hi || eh == hi && binary.BigEndian.Uint64(e[8:]) < lo {
			a = m + 1
		} else {
			b = m
		}
	}
	return a
}

// nameOfEntry is the host name whose range of entries holds entry p: the
// last name n with start[n] <= p (names without instances have empty
// ranges and are never it).
func (x *Instances) nameOfEntry(p int32) int32 {
	a, b := 0, len(x.start)-1 // the first n with start[n+1] > p
	for a < b {
		m := int(uint(a+b) >> 1)
		if x.start[m+1] > p {
			b = m
		} else {
			a = m + 1
		}
	}
	return int32(a)
}

// nameNodes lists the node ids of each host name, in one flat array: a
// slice per name cost about 32 bytes per host.
//
// Invariants: name nid's nodes are ids[start[nid]:start[nid+1]], ascending;
// ids holds every host id once.
type nameNodes struct {
	start []int32
	ids   []uint32
}

// newNameNodes builds the lists from each host's name id.
func newNameNodes(nameID []int32, names int) nameNodes {
	x := nameNodes{start: make([]int32, names+1), ids: make([]uint32, len(nameID))}
	for _, nid := range nameID {
		x.start[nid+1]++
	}
	for nid := range names {
		x.start[nid+1] += x.start[nid]
	}
	next := slices.Clone(x.start[:names])
	for id, nid := range nameID {
		x.ids[next[nid]] = uint32(id)
		next[nid]++
	}
	return x
}

// of returns name nid's node ids, ascending (not to be modified).
func (x *nameNodes) of(nid int32) []uint32 {
	lo, hi := x.start[nid], x.start[nid+1]
	return x.ids[lo:hi:hi]
}

// NameIndex finds host ids by lowercased host name, by node name and by
// (host, node), through the ids sorted by each key: 4 bytes per host and
// key, where maps of id slices cost about 200 bytes per host; none where
// the hosts are listed in the key's order (hosts named compute-0001,
// compute-0002, ...).
//
// Invariants: n is the number of hosts; each order holds every id once,
// sorted by its key and, among equal keys, by id, or is nil where that
// order is the identity (0, 1, ..., n-1); orders that are equal may share
// one slice (never modified once built).
type NameIndex struct {
	n                           int
	byLower, byNode, byHostNode []uint32
}

// NewNameIndex builds the index of hosts 0..len(host)-1 with the given
// host and node names.
func NewNameIndex(host, node []string) NameIndex {
	n := len(host)
	lower := make([]string, n) // only while sorting
	for i, h := range host {
		lower[i] = strings.ToLower(h)
	}
	keys := nameKeys(func(id uint32) string { return lower[id] }, host, node)
	sorted := func(byKey func(a, b uint32) int) []uint32 {
		inOrder := true
		for i := 1; i < n && inOrder; i++ {
			inOrder = byKey(uint32(i-1), uint32(i)) <= 0
		}
		if inOrder {
			return nil // the identity
		}
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(i)
		}
		// Ties broken by id: the stable order, without a stable sort's
		// O(n log² n) (a third of a 50,000-host snapshot's build).
		slices.SortFunc(ids, func(a, b uint32) int { return cmp.Or(byKey(a, b), cmp.Compare(a, b)) })
		return ids
	}
	x := NameIndex{n: n, byLower: sorted(keys[0]), byNode: sorted(keys[1]), byHostNode: sorted(keys[2])}
	x.share()
	return x
}

// nameKeys are the comparisons of the three orders, byLower's, byNode's
// and byHostNode's, of hosts with the given names (lower: an id's
// lowercased host name).
func nameKeys(lower func(uint32) string, host, node []string) [3]func(a, b uint32) int {
	return [3]func(a, b uint32) int{
		func(a, b uint32) int { return strings.Compare(lower(a), lower(b)) },
		func(a, b uint32) int { return strings.Compare(node[a], node[b]) },
		func(a, b uint32) int {
			if c := strings.Compare(host[a], host[b]); c != 0 {
				return c
			}
			return strings.Compare(node[a], node[b])
		},
	}
}

// share makes equal orders one slice: where nodes are named as their
// hosts and names are lowercase (the common cloud), the three orders are
// one (read-only).
func (x *NameIndex) share() {
	if x.byNode != nil && slices.Equal(x.byNode, x.byLower) {
		x.byNode = x.byLower
	}
	switch {
	case x.byHostNode == nil:
	case slices.Equal(x.byHostNode, x.byLower):
		x.byHostNode = x.byLower
	case slices.Equal(x.byHostNode, x.byNode):
		x.byHostNode = x.byNode
	}
}

// DeriveNameIndex builds the index NewNameIndex(host, node) builds, from
// prev, the index of a host list the new one keeps in order: new host i
// is prev's host old[i] (-1: a host prev does not hold), the ids old
// holds increasing. Each order is prev's with its ids renumbered and
// those of the hosts left out dropped (still sorted: renumbering keeps
// the order among equal keys), and the new hosts, sorted, merged in by
// binary search: no sort of the whole list, and a lowercased name only
// where a search probes. When old is not increasing it is NewNameIndex.
func DeriveNameIndex(prev *NameIndex, old []int32, host, node []string) NameIndex {
	n := len(host)
	newOf := make([]int32, prev.n) // prev id -> new id, -1: left out
	for i := range newOf {
		newOf[i] = -1
	}
	var added []uint32
	last := int32(-1)
	for i, o := range old {
		switch {
		case o < 0:
			added = append(added, uint32(i))
		case o <= last || int(o) >= prev.n:
			return NewNameIndex(host, node)
		default:
			newOf[o], last = int32(i), o
		}
	}
	lower := func(id uint32) string { return strings.ToLower(host[id]) }
	keys := nameKeys(lower, host, node)
	derive := func(order []uint32, byKey func(a, b uint32) int) []uint32 {
		byID := func(a, b uint32) int { return cmp.Or(byKey(a, b), cmp.Compare(a, b)) }
		kept := make([]uint32, 0, n)
		for k := range prev.n {
			p := uint32(k)
			if order != nil {
				p = order[k]
			}
			if id := newOf[p]; id >= 0 {
				kept = append(kept, uint32(id))
			}
		}
		ids := kept
		if len(added) > 0 {
			slices.SortFunc(added, byID)
			ids = mergeSorted(kept, added, func(a, b uint32) bool { return byID(a, b) < 0 })
		}
		for i, id := range ids {
			if id != uint32(i) {
				return ids
			}
		}
		return nil // the identity
	}
	x := NameIndex{n: n, byLower: derive(prev.byLower, keys[0]), byNode: derive(prev.byNode, keys[1]), byHostNode: derive(prev.byHostNode, keys[2])}
	x.share()
	return x
}

// IDRun is the ids an index lookup found, in id order: order[lo:hi], or
// lo, ..., hi-1 where order is nil (the identity). A value, so that a
// lookup allocates nothing.
type IDRun struct {
	order  []uint32
	lo, hi int
}

// Len is the number of ids.
func (r IDRun) Len() int { return r.hi - r.lo }

// At is the k-th id.
func (r IDRun) At(k int) uint32 {
	if r.order == nil {
		return uint32(r.lo + k)
	}
	return r.order[r.lo+k]
}

// All yields the ids.
func (r IDRun) All() iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		for k := range r.Len() {
			if !yield(r.At(k)) {
				return
			}
		}
	}
}

// equalRange returns the ids of order (nil: the identity over n ids) whose
// key (by cmp against the sought one: <0 below, 0 equal, >0 above) is the
// sought one.
func equalRange(order []uint32, n int, cmp func(id uint32) int) IDRun {
	at := func(i int) uint32 {
		if order == nil {
			return uint32(i)
		}
		return order[i]
	}
	lo := sort.Search(n, func(i int) bool { return cmp(at(i)) >= 0 })
	hi := lo + sort.Search(n-lo, func(i int) bool { return cmp(at(lo+i)) > 0 })
	return IDRun{order: order, lo: lo, hi: hi}
}

// ByHostLower returns the ids whose lowercased host name is lower, in id
// order; names are the hosts' names.
func (x *NameIndex) ByHostLower(lower string, names *Names) IDRun {
	return equalRange(x.byLower, x.n, func(id uint32) int { return compareLower(names.HostOf(id), lower) })
}

// ByHost returns the ids whose host name is host, in the byHostNode
// order (by node name): a host's nodes are a run of that order.
func (x *NameIndex) ByHost(host string, names *Names) IDRun {
	return equalRange(x.byHostNode, x.n, func(id uint32) int { return strings.Compare(names.HostOf(id), host) })
}

// compareLower is strings.Compare(strings.ToLower(s), lower) without
// building the lowercased string where s is ASCII (host names are):
// a lookup compares some thirty names.
func compareLower(s, lower string) int {
	for i := range len(s) {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.Compare(strings.ToLower(s), lower)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if i == len(lower) {
			return 1
		}
		if d := lower[i]; c != d {
			if c < d {
				return -1
			}
			return 1
		}
	}
	if len(s) < len(lower) {
		return -1
	}
	return 0
}

// ByNode returns the ids of node name node, in id order.
func (x *NameIndex) ByNode(node string, names *Names) IDRun {
	return equalRange(x.byNode, x.n, func(id uint32) int { return strings.Compare(names.NodeOf(id), node) })
}

// ByHostNode returns the id of (host, node) (the last, were there two).
func (x *NameIndex) ByHostNode(host, node string, names *Names) (uint32, bool) {
	ids := equalRange(x.byHostNode, x.n, func(id uint32) int {
		if c := strings.Compare(names.HostOf(id), host); c != 0 {
			return c
		}
		return strings.Compare(names.NodeOf(id), node)
	})
	if ids.Len() == 0 {
		return 0, false
	}
	return ids.At(ids.Len() - 1), true
}

// OrderBytes is the bytes per host of the index's orders: 0 where every
// order is the identity, else 4.
func (x *NameIndex) OrderBytes() int {
	if x.byLower != nil || x.byNode != nil || x.byHostNode != nil {
		return 4
	}
	return 0
}

// sortKey is an entry of the uuid index while it is built: its key as two
// big-endian words, and the entry.
type sortKey struct {
	hi, lo uint64
	i      int32
}

// sortKeys sorts ks by hi, lo and i, ks being in ascending i: one stable
// pass of a radix sort over hi's top 16 bits (uuids are random: at
// hundreds of thousands, a few keys a bucket), then each bucket by hi and
// lo, stably (an insertion sort where it holds a few, as it does for
// random keys; a comparison sort where it holds more).
func sortKeys(ks []sortKey) {
	cmpKeys := func(a, b sortKey) int {
		return cmp.Or(cmp.Compare(a.hi, b.hi), cmp.Compare(a.lo, b.lo), cmp.Compare(a.i, b.i))
	}
	if len(ks) < 256 {
		slices.SortFunc(ks, cmpKeys)
		return
	}
	src := slices.Clone(ks)
	start := make([]int32, 1<<16+1)
	for _, k := range src {
		start[k.hi>>48+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	at := slices.Clone(start[:1<<16])
	for _, k := range src {
		d := k.hi >> 48
		ks[at[d]] = k
		at[d]++
	}
	for d := range 1 << 16 {
		b := ks[start[d]:start[d+1]]
		if len(b) > 16 {
			slices.SortFunc(b, cmpKeys)
			continue
		}
		for i := 1; i < len(b); i++ { // stable: ties keep ascending i
			k := b[i]
			j := i
			for ; j > 0 && (b[j-1].hi > k.hi || b[j-1].hi == k.hi && b[j-1].lo > k.lo); j-- {
				b[j] = b[j-1]
			}
			b[j] = k
		}
	}
}
