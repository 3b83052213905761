package hostcols

import (
	"math"
	"slices"
	"strings"
)

// Names holds every host's host name and node name, in one string:
// a string header per host and name cost 16 bytes, where the names of the
// hosts of a cloud are most often their nodes' (one node per compute
// service), each listed once, and often of one length (compute-0001).
//
// Invariants:
//   - name ids are dense, 0..count-1, numbering the distinct host names in
//     order of their first host;
//   - where every host name has one length, width is it, ends and
//     wideEnds are nil, and name nid is text[nid*width:(nid+1)*width];
//     otherwise name nid is text[ends[nid]:ends[nid+1]] (wideEnds in place
//     of ends when text is longer than the builder's maxNarrowEnd: exactly one of them
//     is not nil, of count+1 entries, ends[0] = 0);
//   - nameID is nil when every host has a host name of its own (host id's
//     name id is id); else nameID[id] is host id's name id, and nodes lists
//     each name's node ids (else nodes is empty: name nid's one node is
//     nid);
//   - a host's node name is its host name but for the hosts odd lists;
//   - text holds each host name once, in name id order, then odd's names:
//     the snapshot's own copy (none of the input's strings kept). Never
//     modified once built.
type Names struct {
	text     string
	width    int
	ends     []uint32
	wideEnds []uint64
	count    int
	nameID   []int32
	nodes    nameNodes
	odd      oddNodes
}

// oddNodes lists the hosts whose node name is not their host name.
//
// Invariants: ids is ascending; names[k] is host ids[k]'s node name, and
// differs from its host name.
type oddNodes struct {
	ids   []uint32
	names []string
}

// NameOf is host id's name id.
func (n *Names) NameOf(id uint32) int32 {
	if n.nameID == nil {
		return int32(id)
	}
	return n.nameID[id]
}

// Name is host name nid.
func (n *Names) Name(nid int32) string {
	switch {
	case n.ends != nil:
		return n.text[n.ends[nid]:n.ends[nid+1]]
	case n.wideEnds != nil:
		return n.text[n.wideEnds[nid]:n.wideEnds[nid+1]]
	}
	at := int(nid) * n.width
	return n.text[at : at+n.width]
}

// NodesOf returns host name nid's node ids, ascending (not to be
// modified): in one[:] where the name has one node, nid, in the common
// cloud (so the caller's array, not an allocation, holds it).
func (n *Names) NodesOf(nid int32, one *[1]uint32) []uint32 {
	if n.nameID == nil {
		one[0] = uint32(nid)
		return one[:]
	}
	return n.nodes.of(nid)
}

// HostOf is host id's host name.
func (n *Names) HostOf(id uint32) string { return n.Name(n.NameOf(id)) }

// NodeOf is host id's node name.
func (n *Names) NodeOf(id uint32) string {
	if odd := &n.odd; len(odd.ids) > 0 {
		if k, ok := slices.BinarySearch(odd.ids, id); ok {
			return odd.names[k]
		}
	}
	return n.HostOf(id)
}

// Count is the number of distinct host names.
func (n *Names) Count() int { return n.count }

// IDBytes is the bytes per host of the name ids (0: elided, every host
// has a host name of its own).
func (n *Names) IDBytes() int {
	if n.nameID != nil {
		return 4
	}
	return 0
}

// EndBytes is the bytes per name of the names' ends (0: elided, the
// names have one length).
func (n *Names) EndBytes() int {
	switch {
	case n.ends != nil:
		return 4
	case n.wideEnds != nil:
		return 8
	}
	return 0
}

// NamesBuilder builds a Names over n hosts.
type NamesBuilder struct {
	n     int
	ids   map[string]int32 // the names seen, but prev's (of a derived builder)
	names []string         // by name id: the input's, while building
	// A derived builder's prev's names and name index, and per name of
	// prev its name id here, plus one (0: not seen yet).
	prev      *Names
	prevIndex *NameIndex
	remap     []int32
	nameID    []int32 // nil while every host so far has a name of its own
	oddIDs    []uint32
	oddNode   []string // the input's
	// maxNarrowEnd is the longest text whose ends are kept as uint32
	// (lowered by the tests of the wide form).
	maxNarrowEnd uint64
}

// NewNamesBuilder returns a builder of the names of n hosts.
func NewNamesBuilder(n int) *NamesBuilder {
	return &NamesBuilder{n: n, ids: map[string]int32{}, maxNarrowEnd: math.MaxUint32}
}

// NewDerivedNamesBuilder returns a builder of the names of n hosts, many
// of them hosts of prev (names and index prev's Names and NameIndex),
// added with AddFrom: their name ids are found by prev's, not by their
// text, and only the names prev lacks go into a map.
func NewDerivedNamesBuilder(n int, prev *Names, index *NameIndex) *NamesBuilder {
	b := NewNamesBuilder(n)
	b.prev, b.prevIndex, b.remap = prev, index, make([]int32, prev.Count())
	return b
}

// Add gives host id (the next one) its host and node names, and returns its
// name id.
func (b *NamesBuilder) Add(id uint32, host, node string) int32 {
	if pid, inPrev := b.prevNameOf(host); inPrev {
		return b.set(id, b.remapped(pid, host), host, node)
	}
	nid, ok := b.ids[host]
	if !ok {
		nid = b.newName(host)
		b.ids[host] = nid
	}
	return b.set(id, nid, host, node)
}

// AddFrom is Add for a host that is prev's host j (of a derived
// builder): its name id is that of j's name, which it shares.
func (b *NamesBuilder) AddFrom(id uint32, host, node string, j uint32) int32 {
	return b.set(id, b.remapped(b.prev.NameOf(j), host), host, node)
}

// prevNameOf returns the name id of host in prev (of a derived builder).
func (b *NamesBuilder) prevNameOf(host string) (int32, bool) {
	if b.prev == nil {
		return 0, false
	}
	ids := b.prevIndex.ByHost(host, b.prev)
	if ids.Len() == 0 {
		return 0, false
	}
	return b.prev.NameOf(ids.At(0)), true
}

// remapped returns the name id of prev's name pid (host), numbering it
// on first use.
func (b *NamesBuilder) remapped(pid int32, host string) int32 {
	if b.remap[pid] == 0 {
		b.remap[pid] = b.newName(host) + 1
	}
	return b.remap[pid] - 1
}

// newName numbers host, a name not seen yet.
func (b *NamesBuilder) newName(host string) int32 {
	b.names = append(b.names, host)
	return int32(len(b.names) - 1)
}

// set gives host id the name id nid (of host) and node name node.
func (b *NamesBuilder) set(id uint32, nid int32, host, node string) int32 {
	if b.nameID == nil && nid != int32(id) {
		// The first host sharing a name: the ids so far were theirs.
		b.nameID = make([]int32, b.n)
		for i := range id {
			b.nameID[i] = int32(i)
		}
	}
	if b.nameID != nil {
		b.nameID[id] = nid
	}
	if node != host {
		b.oddIDs = append(b.oddIDs, id)
		b.oddNode = append(b.oddNode, node)
	}
	return nid
}

// Done returns the names, in the snapshot's own copy of their texts, in
// one string for all: each host name once, each node name that is not its
// host name once per node. The input's strings are then not kept, nor a
// rounded-up allocation per name.
func (b *NamesBuilder) Done() Names {
	size := 0
	for _, s := range b.names {
		size += len(s)
	}
	for _, s := range b.oddNode {
		size += len(s)
	}
	var sb strings.Builder
	sb.Grow(size)
	for _, s := range b.names {
		sb.WriteString(s)
	}
	for _, s := range b.oddNode {
		sb.WriteString(s)
	}
	x := Names{text: sb.String(), count: len(b.names), nameID: b.nameID}
	if len(b.names) > 0 {
		x.width = len(b.names[0])
	}
	for _, s := range b.names {
		if len(s) != x.width {
			x.width = 0
			if uint64(size) > b.maxNarrowEnd {
				x.wideEnds = make([]uint64, len(b.names)+1)
			} else {
				x.ends = make([]uint32, len(b.names)+1)
			}
			break
		}
	}
	at := 0
	for nid, s := range b.names {
		at += len(s)
		switch {
		case x.ends != nil:
			x.ends[nid+1] = uint32(at)
		case x.wideEnds != nil:
			x.wideEnds[nid+1] = uint64(at)
		}
	}
	x.odd = oddNodes{ids: slices.Clone(b.oddIDs), names: make([]string, len(b.oddNode))}
	for k, s := range b.oddNode {
		x.odd.names[k] = x.text[at : at+len(s)]
		at += len(s)
	}
	if x.nameID != nil {
		x.nodes = newNameNodes(x.nameID, x.count)
	}
	return x
}
