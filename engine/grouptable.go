package engine

import (
	"hash/maphash"
	"iter"
	"maps"
	"slices"
	"sync/atomic"
)

// groupTable is a snapshot's server-group members committed through a
// Store (Snapshot.groupPlaced): group uuid -> member uuid -> where it
// was placed (placedAt).
//
// Invariants: a table reachable from a published snapshot is never
// modified. The groups live in a persistent hash trie (a tree of nodes
// indexed by groupFanBits of the group's hash per level, groups in its
// leaves); a node or group entry whose edit is the table's own edit was
// made by this table and may be modified by it in place, and every other
// node, entry and member map is shared with the tables it came from and
// is copied before a change. A table's edit is never any other table's.
//
// A change copies the path from the root to its group's leaf once per
// derived table (a few nodes of groupFan pointers at any size), so that
// a commit's cost does not grow with the number of groups: the realistic
// stream opens a group in about a third of its requests and never closes
// one, and the 64 maps the groups were split into before (each copied
// whole on a commit adding to it) cost a commit O(groups/64), 6% of the
// Scheduler's time after 150,000 requests.
type groupTable struct {
	root *groupNode
	n    int    // groups
	edit uint64 // the nodes and entries this table may modify in place
}

// groupNode is an interior node (kids, groupFan of them, nil: empty) or
// a leaf (ents: at most groupLeafMax, but at the last level, where the 60
// hash bits the levels read are used up). A split spreads a full leaf's
// groups over groupFan children, so leaves hold about two groups on
// average; a node left empty by a removal is taken off its parent.
type groupNode struct {
	kids []*groupNode
	ents []groupEntry
	edit uint64
}

// groupEntry is one group: its hash, uuid and members (never empty).
type groupEntry struct {
	hash    uint64
	group   string
	members map[string]string
	edit    uint64 // members may be modified in place by the table of this edit
}

const (
	groupFanBits = 5
	groupFan     = 1 << groupFanBits
	groupLeafMax = 8
)

var (
	groupSeed  = maphash.MakeSeed()
	groupEdits atomic.Uint64 // the last edit given to a table
)

// groupHash is a group's hash in the trie (a variable for tests to give
// groups colliding hashes).
var groupHash = func(group string) uint64 { return maphash.String(groupSeed, group) }

// newGroupTable is the table of groups (nil when empty); it takes the
// maps over: the table is their owner, and a change made to it before it
// is published (cur != parent in setGroupPlaced) may modify them.
func newGroupTable(groups map[string]map[string]string) *groupTable {
	if len(groups) == 0 {
		return nil
	}
	t := &groupTable{edit: groupEdits.Add(1)}
	for g, m := range groups {
		if len(m) > 0 {
			h := groupHash(g)
			l, shift := t.leaf(h)
			l.ents = append(l.ents, groupEntry{hash: h, group: g, members: m, edit: t.edit})
			t.n++
			t.split(l, h, shift)
		}
	}
	if t.n == 0 {
		return nil
	}
	return t
}

// members is group's members (nil: none).
func (t *groupTable) members(group string) map[string]string {
	if t == nil {
		return nil
	}
	return t.membersOf(groupHash(group), group)
}

// membersOf is the members of group, of hash h (nil: none).
func (t *groupTable) membersOf(h uint64, group string) map[string]string {
	nd := t.root
	for shift := 0; nd != nil && nd.kids != nil; shift += groupFanBits {
		nd = nd.kids[h>>shift%groupFan]
	}
	if nd == nil {
		return nil
	}
	if i := entryIndex(nd.ents, h, group); i >= 0 {
		return nd.ents[i].members
	}
	return nil
}

// entryIndex is the index of group, of hash h, in ents (-1: none).
func entryIndex(ents []groupEntry, h uint64, group string) int {
	return slices.IndexFunc(ents, func(e groupEntry) bool { return e.hash == h && e.group == group })
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
		if t != nil {
			t.root.each(yield)
		}
	}
}

// each yields the groups under nd; false once yield asked to stop.
func (nd *groupNode) each(yield func(string, map[string]string) bool) bool {
	if nd == nil {
		return true
	}
	for _, k := range nd.kids {
		if !k.each(yield) {
			return false
		}
	}
	for _, e := range nd.ents {
		if !yield(e.group, e.members) {
			return false
		}
	}
	return true
}

// leaf is the leaf hash h falls in and the hash bits its level starts
// at, with the path to it made the table's own (copied where shared,
// created where empty).
func (t *groupTable) leaf(h uint64) (*groupNode, int) {
	p := &t.root
	for shift := 0; ; shift += groupFanBits {
		nd := *p
		switch {
		case nd == nil:
			nd = &groupNode{edit: t.edit}
			*p = nd
		case nd.edit != t.edit:
			nd = &groupNode{kids: slices.Clone(nd.kids), ents: slices.Clone(nd.ents), edit: t.edit}
			*p = nd
		}
		if nd.kids == nil {
			return nd, shift
		}
		p = &nd.kids[h>>shift%groupFan]
	}
}

// split turns leaf l, one of the table's own on hash h's path whose
// level starts at hash bit shift, into an interior node when it holds
// more than groupLeafMax groups and the hash has bits left to tell them
// apart (and so on down, while the groups fall in one child).
func (t *groupTable) split(l *groupNode, h uint64, shift int) {
	for ; len(l.ents) > groupLeafMax; shift += groupFanBits {
		if shift+groupFanBits > 64 {
			return
		}
		l.kids = make([]*groupNode, groupFan)
		for _, e := range l.ents {
			k := &l.kids[e.hash>>shift%groupFan]
			if *k == nil {
				*k = &groupNode{edit: t.edit}
			}
			(*k).ents = append((*k).ents, e)
		}
		l.ents = nil
		l = l.kids[h>>shift%groupFan] // the only child that may still be too full
		if l == nil {
			return
		}
	}
}

// pruned is nd, a node of the table's own on hash h's path at the level
// of hash bit shift, with the empty nodes on that path taken off their
// parents (nil: nd is empty).
func pruned(nd *groupNode, h uint64, shift int) *groupNode {
	switch {
	case nd == nil || nd.kids == nil && len(nd.ents) == 0:
		return nil
	case nd.kids == nil:
		return nd
	}
	k := &nd.kids[h>>shift%groupFan]
	*k = pruned(*k, h, shift+groupFanBits)
	if slices.ContainsFunc(nd.kids, func(c *groupNode) bool { return c != nil }) {
		return nd
	}
	return nil
}

// setGroupPlaced returns cur with group's member uuid at placed (placed
// "" removes it), copying what it changes: the table once per derived
// snapshot (while cur is still parent, the table it derives from), the
// trie's path to group once, and the group's member map once (a plan's
// instances in one group: copying it for each was quadratic in the
// group's size). parent must be the published table the changes derive
// from: the first call passes it as cur too, and the later ones the
// table the first returned; cur != parent is taken to mean that cur is
// not published yet, and is modified in place.
func setGroupPlaced(cur, parent *groupTable, group, uuid, placed string) *groupTable {
	if cur == nil || cur == parent {
		next := &groupTable{edit: groupEdits.Add(1)}
		if cur != nil {
			next.root, next.n = cur.root, cur.n
		}
		cur = next
	}
	h := groupHash(group)
	if placed == "" {
		if _, ok := cur.membersOf(h, group)[uuid]; !ok {
			return cur // nothing to remove
		}
	}
	l, shift := cur.leaf(h)
	i := entryIndex(l.ents, h, group)
	if i < 0 { // a new group (placed is not "": a removal found its member)
		l.ents = append(l.ents, groupEntry{hash: h, group: group, members: map[string]string{uuid: placed}, edit: cur.edit})
		cur.n++
		cur.split(l, h, shift)
		return cur
	}
	e := &l.ents[i]
	if e.edit != cur.edit {
		e.members, e.edit = maps.Clone(e.members), cur.edit
	}
	if placed != "" {
		e.members[uuid] = placed
		return cur
	}
	delete(e.members, uuid)
	if len(e.members) == 0 {
		l.ents = slices.Delete(l.ents, i, i+1)
		cur.n--
		if len(l.ents) == 0 {
			cur.root = pruned(cur.root, h, 0)
		}
	}
	return cur
}
