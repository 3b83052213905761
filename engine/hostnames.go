package engine

import (
	"slices"
	"strings"

	"github.com/placer/placer/internal/nova"
)

// A host's host name is names[nameID[id]] (its nodes share it); its node
// name is the host name but for the hosts oddNodes lists. A host and a
// node string per host cost 32 bytes of headers per host where nearly
// every node is named as its host (one node per compute service).

// oddNodes lists the hosts whose node name is not their host name.
//
// Invariants: ids is ascending; names[k] is host ids[k]'s node name, and
// differs from its host name.
type oddNodes struct {
	ids   []uint32
	names []string
}

// hostOf is host id's host name.
func (info *hostInfo) hostOf(id uint32) string { return info.names[info.nameID[id]] }

// nodeOf is host id's node name.
func (info *hostInfo) nodeOf(id uint32) string { return *info.nodePtr(id) }

// nodePtr points at host id's node name, held by the snapshot (not to be
// modified).
func (info *hostInfo) nodePtr(id uint32) *string {
	if odd := &info.oddNodes; len(odd.ids) > 0 {
		if k, ok := slices.BinarySearch(odd.ids, id); ok {
			return &odd.names[k]
		}
	}
	return &info.names[info.nameID[id]]
}

// hostUUID is host id's uuid: the cloud's, else made up from its names as
// the oracle makes it up.
func (info *hostInfo) hostUUID(id uint32) string {
	if info.uuid.keys == nil {
		return nova.MadeUpUUID("host", info.hostOf(id), info.nodeOf(id))
	}
	return info.uuid.get(int32(id))
}

// ownNames points names at the snapshot's own copy of their texts, and
// fills oddNodes from node (host id's node name, host its host name), in
// one string for all: each host name once (its nodes share it), each node
// name that is not its host name once per node. The input's strings are
// then not kept, nor a rounded-up allocation per name.
func (info *hostInfo) ownNames(host, node []string) {
	size := 0
	for _, s := range info.names {
		size += len(s)
	}
	odd := 0
	for i, nd := range node {
		if nd != host[i] {
			size += len(nd)
			odd++
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, s := range info.names {
		b.WriteString(s)
	}
	for i, nd := range node {
		if nd != host[i] {
			b.WriteString(nd)
		}
	}
	all, at := b.String(), 0
	next := func(n int) string {
		s := all[at : at+n]
		at += n
		return s
	}
	for nid, s := range info.names {
		info.names[nid] = next(len(s))
	}
	info.oddNodes = oddNodes{ids: make([]uint32, 0, odd), names: make([]string, 0, odd)}
	for i, nd := range node {
		if nd != host[i] {
			info.oddNodes.ids = append(info.oddNodes.ids, uint32(i))
			info.oddNodes.names = append(info.oddNodes.names, next(len(nd)))
		}
	}
}
