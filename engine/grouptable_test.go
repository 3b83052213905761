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
		name string
		hash func(string) uint64
	}{
		{"maphash", real},
		{"3bits", func(g string) uint64 { return real(g) & 7 }},
		{"constant", func(string) uint64 { return 1 << 63 }},
	} {
		t.Run("hash="+c.name, func(t *testing.T) {
			defer func() { groupHash = real }()
			groupHash = c.hash
			testGroupTable(t, 2000, 150)
			testGroupTable(t, 6000, 800)
		})
	}
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
		got := map[string]map[string]string{}
		for g, m := range tb.all() {
			got[g] = maps.Clone(m)
		}
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
