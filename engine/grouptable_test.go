package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// TestGroupTable: random adds and removals over a chain of derived
// tables agree with a plain map of maps, and no table a later one was
// derived from changes (they are published snapshots' tables); with the
// real hash (a trie a few levels deep) and with hashes of a few bits,
// whose groups share leaves at the trie's last level.
func TestGroupTable(t *testing.T) {
	real := groupHash
	for _, c := range []struct {
		name   string
		hash   func(string) uint64
		groups int // of the longer run
	}{
		{"maphash", real, 800},
		{"3bits", func(g string) uint64 { return real(g) & 7 }, 800},
		// one leaf at the last level: every lookup a scan of all groups
		{"constant", func(string) uint64 { return 1 << 63 }, 300},
	} {
		t.Run("hash="+c.name, func(t *testing.T) {
			defer func() { groupHash = real }()
			groupHash = c.hash
			testGroupTable(t, 2000, 150)
			testGroupTable(t, 6000, c.groups)
		})
	}
}

// TestGroupTableBranches: two tables derived from one published table
// (the Store's next snapshot and a cached view's private one both derive
// from the snapshot they replace) and from a table newGroupTable built
// change neither it nor each other.
func TestGroupTableBranches(t *testing.T) {
	base := map[string]map[string]string{}
	for i := range 300 { // a trie of a few levels
		base[fmt.Sprint("g", i)] = map[string]string{fmt.Sprint("u", i): "h"}
	}
	parent := newGroupTable(cloneGroups(base))
	a, b := parent, parent
	wantA, wantB := cloneGroups(base), cloneGroups(base)
	for i := range 400 {
		g := fmt.Sprint("g", i%350) // old groups and new ones
		a = setGroupPlaced(a, parent, g, fmt.Sprint("a", i), "ha")
		if wantA[g] == nil {
			wantA[g] = map[string]string{}
		}
		wantA[g][fmt.Sprint("a", i)] = "ha"
		old, u := fmt.Sprint("g", i%300), fmt.Sprint("u", i%300) // every old group loses its member
		b = setGroupPlaced(b, parent, old, u, "")
		delete(wantB[old], u)
		if len(wantB[old]) == 0 {
			delete(wantB, old)
		}
	}
	for _, c := range []struct {
		name string
		t    *groupTable
		want map[string]map[string]string
	}{{"parent", parent, base}, {"a", a, wantA}, {"b", b, wantB}} {
		got := groupsOf(c.t)
		if !maps.EqualFunc(got, c.want, maps.Equal) || c.t.len() != len(c.want) {
			t.Errorf("%s: %d groups (len %d), want %d: %v", c.name, len(got), c.t.len(), len(c.want), got)
		}
	}
	if b.root != nil {
		t.Errorf("b has no groups left but keeps nodes: %+v", b.root)
	}
}

// TestPublishedGroupTablesUnchanged: the Store's operations that record
// group members (Commit, DeleteInstance, ApplyExternal's placed and
// deleted instances) and a cached view's private snapshot (withPlan)
// leave the group tables of the snapshots published before them as they
// were: batches read those without a lock.
func TestPublishedGroupTablesUnchanged(t *testing.T) {
	s := mustStore(t, tightCloud(40))
	type kept struct {
		snap   *Snapshot
		groups map[string]map[string]string
	}
	var past []kept
	keep := func() {
		snap := s.Snapshot()
		past = append(past, kept{snap, groupsOf(snap.groupPlaced)})
	}
	check := func(step int, what string) {
		t.Helper()
		for i, k := range past {
			if got := groupsOf(k.snap.groupPlaced); !maps.EqualFunc(got, k.groups, maps.Equal) {
				t.Fatalf("step %d, %s: published snapshot %d's groups changed: %v, were %v", step, what, i, got, k.groups)
			}
		}
	}
	for i := range 60 {
		r := req(fmt.Sprint("i", i, "a"), fmt.Sprint("i", i, "b"))
		r.InstanceGroup = &InstanceGroup{UUID: fmt.Sprint("g", i%25), Policy: PolicyAntiAffinity}
		keep()
		p := mustPlan(t, s.Snapshot(), r)
		if _, err := s.Commit(p); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		check(i, "Commit")
		if i%3 == 2 {
			keep()
			if _, err := s.DeleteInstance(r.InstanceUUIDs[0]); err != nil {
				t.Fatal(err)
			}
			check(i, "DeleteInstance")
		}
		if i%4 == 3 {
			keep()
			hn := s.Snapshot().HostNode(uint32(i % 40))
			ch := ExternalChange{Placed: []Instance{{UUID: fmt.Sprint("ext", i), Host: hn, Group: fmt.Sprint("g", i%30)}}}
			if i%8 == 3 { // a deletion first, or the placed instances alone
				ch.Deleted = []string{r.InstanceUUIDs[1]}
			}
			if _, err := s.ApplyExternal(ch); err != nil {
				t.Fatal(err)
			}
			check(i, "ApplyExternal")
		}
		if i%5 == 4 {
			keep()
			snap := s.Snapshot()
			r := req(fmt.Sprint("v", i))
			r.InstanceGroup = &InstanceGroup{UUID: fmt.Sprint("g", i%25), Policy: PolicyAntiAffinity}
			p := mustPlan(t, snap, r)
			view := snap.withPlan(&p, nil)
			if _, ok := view.groupPlaced.members(r.InstanceGroup.UUID)[r.InstanceUUIDs[0]]; !ok {
				t.Fatalf("step %d: the view lacks its plan's member", i)
			}
			check(i, "withPlan")
		}
	}
	if n := s.Snapshot().groupPlaced.len(); n < 25 {
		t.Fatalf("%d groups at the end, want at least 25", n)
	}
}

// groupsOf is a copy of t's groups and members.
func groupsOf(t *groupTable) map[string]map[string]string {
	out := map[string]map[string]string{}
	for g, m := range t.all() {
		out[g] = maps.Clone(m)
	}
	return out
}

func testGroupTable(t *testing.T, steps, groups int) {
	r := rand.New(rand.NewPCG(1, uint64(steps)))
	type frozen struct {
		t    *groupTable
		want map[string]map[string]string
	}
	var past []frozen
	var cur *groupTable
	lastGroup := "g0"
	want := map[string]map[string]string{}
	check := func(tb *groupTable, want map[string]map[string]string, what string) {
		t.Helper()
		got := groupsOf(tb)
		if !maps.EqualFunc(got, want, maps.Equal) || tb.len() != len(want) {
			t.Fatalf("%s: table %v (len %d), want %v", what, got, tb.len(), want)
		}
		for g, m := range want {
			if !maps.Equal(tb.members(g), m) {
				t.Fatalf("%s: members(%s) %v, want %v", what, g, tb.members(g), m)
			}
		}
	}
	for step := range steps {
		parent := cur
		if step%7 == 0 { // publish: the next change derives a new table
			past = append(past, frozen{cur, cloneGroups(want)})
		} else {
			parent = nil // still building cur
		}
		g, u := fmt.Sprint("g", r.IntN(groups)), fmt.Sprint("u", r.IntN(8))
		switch r.IntN(8) {
		case 0, 1, 2, 3:
			g = lastGroup // a run of changes to one group: its map is copied once
		case 4:
			g = "" // the zero string is a group like any other
		}
		lastGroup = g
		placed := ""
		if r.IntN(3) > 0 {
			placed = fmt.Sprint("h", r.IntN(5))
		}
		next := setGroupPlaced(cur, parent, g, u, placed)
		if parent != nil && next == parent {
			t.Fatalf("step %d: a change to a published table made in place", step)
		}
		cur = next
		if placed == "" {
			delete(want[g], u)
			if len(want[g]) == 0 {
				delete(want, g)
			}
		} else {
			if want[g] == nil {
				want[g] = map[string]string{}
			}
			want[g][u] = placed
		}
		if step < 500 || step%50 == 0 || step == steps-1 {
			check(cur, want, fmt.Sprint("step ", step))
		}
	}
	for i, f := range past {
		check(f.t, f.want, fmt.Sprint("published table ", i))
	}
	check(newGroupTable(cloneGroups(want)), want, "newGroupTable")
}

func cloneGroups(m map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for g, mm := range m {
		out[g] = maps.Clone(mm)
	}
	return out
}

// BenchmarkSetGroupPlaced commits a plan of 20 instances of one group of
// members= members already placed: one derived table, 20 changes.
func BenchmarkSetGroupPlaced(b *testing.B) {
	for _, members := range []int{10, 1000} {
		b.Run(fmt.Sprintf("members=%d/instances=20", members), func(b *testing.B) {
			m := map[string]string{}
			for i := range members {
				m[fmt.Sprint("u", i)] = "h"
			}
			parent := newGroupTable(map[string]map[string]string{"g": m})
			for b.Loop() {
				cur := parent
				for i := range 20 {
					cur = setGroupPlaced(cur, parent, "g", fmt.Sprint("new", i), "h")
				}
			}
		})
	}
}
