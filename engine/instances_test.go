package engine

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestInstIndex checks the flat index against the maps it replaced, on
// lists with uuids shared between names, repeated ones and empty names.
func TestInstIndex(t *testing.T) {
	perName := [][]string{
		{"c", "a"},
		nil,
		{"a", "b", "z"},
		{"b"},
		{"a"},
		nil,
	}
	x := newInstIndex(perName)
	want := map[string][]int32{}
	for nid, us := range perName {
		if got := x.of(int32(nid)); !slices.Equal(got, us) {
			t.Errorf("of(%d) = %v, want %v", nid, got, us)
		}
		for _, u := range us {
			want[u] = append(want[u], int32(nid))
		}
	}
	for _, u := range append(slices.Sorted(maps.Keys(want)), "", "0", "aa", "zz") {
		if got := slices.Collect(x.namesOf(u)); !slices.Equal(got, want[u]) {
			t.Errorf("namesOf(%q) = %v, want %v", u, got, want[u])
		}
	}
	// of's slices cannot be appended into the next name's.
	a := append(x.of(0), "x")
	if x.of(2)[0] != "a" || len(a) != 3 {
		t.Errorf("append to of(0) reached of(2): %v", x.of(2))
	}
}

// TestNameIndex checks the sorted orders against the maps they replaced.
func TestNameIndex(t *testing.T) {
	host := []string{"b", "A", "a", "B", "a", "c", "b"}
	node := []string{"n1", "n2", "n1", "n1", "n3", "n1", "n2"}
	info := &hostInfo{host: host, node: node, nameIdx: newNameIndex(host, node)}
	lower, byNode, byHN := map[string][]uint32{}, map[string][]uint32{}, map[HostNode]uint32{}
	for i := range host {
		id := uint32(i)
		l := strings.ToLower(host[i])
		lower[l] = append(lower[l], id)
		byNode[node[i]] = append(byNode[node[i]], id)
		byHN[HostNode{host[i], node[i]}] = id
	}
	for _, k := range []string{"a", "b", "c", "A", "d", ""} {
		if got := info.byHostLower(k); !slices.Equal(got, lower[k]) {
			t.Errorf("byHostLower(%q) = %v, want %v", k, got, lower[k])
		}
	}
	for _, k := range []string{"n1", "n2", "n3", "n4"} {
		if got := info.byNode(k); !slices.Equal(got, byNode[k]) {
			t.Errorf("byNode(%q) = %v, want %v", k, got, byNode[k])
		}
	}
	for _, h := range []string{"a", "A", "b", "B", "c", "x"} {
		for _, n := range []string{"n1", "n2", "n3"} {
			hn := HostNode{h, n}
			id, ok := info.byHostNode(hn)
			wantID, wantOK := byHN[hn]
			if id != wantID || ok != wantOK {
				t.Errorf("byHostNode(%v) = %d, %v; want %d, %v", hn, id, ok, wantID, wantOK)
			}
		}
	}
}
