package hostcols

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// TestInstIndex checks the flat index against the maps it replaced, on
// lists with uuids shared between names, repeated ones and empty names, of
// canonical uuids, other text (kept as strings) and both mixed.
func TestInstIndex(t *testing.T) {
	const (
		u1 = "0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f5"
		u2 = "ffffffff-ffff-4fff-bfff-ffffffffffff"
		u3 = "00000000-0000-0000-0000-000000000000" // the zero key
		u4 = "7a1b2c3d-4e5f-4a6b-9c7d-8e9fa0b1c2d3"
	)
	odd := []string{
		strings.ToUpper(u1),               // uppercase
		strings.ReplaceAll(u2, "-", ""),   // no hyphens
		"{" + u4 + "}",                    // braces
		u1[:35] + "g",                     // not hex
		u1[:8] + "_" + u1[9:],             // a hyphen misplaced
		"inst-0", "", "a", "zz", "c", "b", // arbitrary text
	}
	cases := map[string][][]string{
		"text": {{"c", "a"}, nil, {"a", "b", "z"}, {"b"}, {"a"}, nil},
		"canonical": {
			{u2, u1}, nil, {u1, u3, u4}, {u3}, {u1}, {u2, u4, u3}, nil,
		},
		"mixed": {
			{u1, odd[0], u2}, {odd[1], odd[5]}, nil,
			{odd[0], u3, odd[6], u1}, {u2}, {odd[2], odd[3], odd[4], u4},
			{odd[5], odd[7], odd[8], odd[9], odd[10]}, {u1, odd[0]},
		},
		"none":  {nil, nil},
		"empty": {},
	}
	absent := []string{
		"", "0", "aa", "zz", "inst-1",
		"0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f6", "11111111-1111-1111-1111-111111111111",
		strings.ToUpper(u2), strings.ToUpper(u3),
	}
	for name, perName := range cases {
		t.Run(name, func(t *testing.T) {
			x := NewInstances(perName)
			want := map[string][]int32{}
			for nid, us := range perName {
				if got := x.Of(int32(nid)); !slices.Equal(got, us) {
					t.Errorf("of(%d) = %q, want %q", nid, got, us)
				}
				for _, u := range us {
					want[u] = append(want[u], int32(nid))
				}
			}
			probes := slices.Concat(slices.Sorted(maps.Keys(want)), odd, []string{u1, u2, u3, u4}, absent)
			for _, u := range probes {
				if got := slices.Collect(x.NamesOf(u)); !slices.Equal(got, want[u]) {
					t.Errorf("namesOf(%q) = %v, want %v", u, got, want[u])
				}
				for nid, us := range perName {
					if got, w := x.Has(int32(nid), u), slices.Contains(us, u); got != w {
						t.Errorf("has(%d, %q) = %v, want %v", nid, u, got, w)
					}
				}
			}
			// A loop that stops early stops the sequence.
			for u, nids := range want {
				var got []int32
				for nid := range x.NamesOf(u) {
					got = append(got, nid)
					break
				}
				if !slices.Equal(got, nids[:1]) {
					t.Errorf("namesOf(%q) stopped at once = %v, want %v", u, got, nids[:1])
				}
			}
		})
	}
}

// TestInstIndexKeepsNoInput checks that the index's odd uuids are copies:
// the input's text may be garbage once the snapshot is built.
func TestInstIndexKeepsNoInput(t *testing.T) {
	buf := []byte("inst-A inst-B")
	in := string(buf)
	x := NewInstances([][]string{{in[:6], in[7:]}})
	for _, u := range x.uuids.oddUUID {
		if unsafe.StringData(u) == unsafe.StringData(in) || unsafe.StringData(u) == unsafe.StringData(in[7:]) {
			t.Errorf("odd uuid %q shares the input's text", u)
		}
	}
}

// TestUUIDKey checks that parsing and formatting give back every canonical
// uuid and accept nothing else, and that keys order as their strings.
func TestUUIDKey(t *testing.T) {
	canon := []string{
		"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
		"0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f5", "0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f6",
		"9abcdef0-1234-5678-9abc-def012345678", "a0000000-0000-0000-0000-000000000000",
	}
	for _, s := range canon {
		k, ok := parseUUID(s)
		if !ok || k.String() != s {
			t.Errorf("parseUUID(%q) = %v, %v; formats as %q", s, k, ok, k.String())
		}
	}
	for _, s := range []string{
		"", "0c4f5b6e2d1a4b3c8e9fa0b1c2d3e4f5", "0C4F5B6E-2D1A-4B3C-8E9F-A0B1C2D3E4F5",
		"0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f", "0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f55",
		"0c4f5b6e-2d1a-4b3c-8e9fa-0b1c2d3e4f5", "0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f/",
		"0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f:", "0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f`",
		"{c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f5",
	} {
		if k, ok := parseUUID(s); ok {
			t.Errorf("parseUUID(%q) accepted, as %v", s, k)
		}
	}
	for _, a := range canon {
		for _, b := range canon {
			ka, _ := parseUUID(a)
			kb, _ := parseUUID(b)
			if got, want := ka.compare(&kb), strings.Compare(a, b); got != want {
				t.Errorf("compare(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestNameIndex checks the sorted orders against the maps they replaced.
func TestNameIndex(t *testing.T) {
	host := []string{"b", "A", "a", "B", "a", "c", "b", "Ä", "ä", "ab", "aB"}
	node := []string{"n1", "n2", "n1", "n1", "n3", "n1", "n2", "n1", "n2", "n1", "n1"}
	names := namesOf(host, node, false)
	x := NewNameIndex(host, node)
	lower, exact, byNode, byHN := map[string][]uint32{}, map[string][]uint32{}, map[string][]uint32{}, map[hostNode]uint32{}
	for i := range host {
		id := uint32(i)
		l := strings.ToLower(host[i])
		lower[l] = append(lower[l], id)
		exact[host[i]] = append(exact[host[i]], id)
		byNode[node[i]] = append(byNode[node[i]], id)
		byHN[hostNode{host[i], node[i]}] = id
	}
	for _, k := range []string{"a", "b", "c", "A", "d", "", "ä", "Ä", "ab", "aB", "a\x00"} {
		if got := slices.Collect(x.ByHostLower(k, names).All()); !slices.Equal(got, lower[k]) {
			t.Errorf("byHostLower(%q) = %v, want %v", k, got, lower[k])
		}
		got := slices.Collect(x.ByHost(k, names).All())
		slices.Sort(got)
		if !slices.Equal(got, exact[k]) {
			t.Errorf("byHost(%q) = %v, want %v", k, got, exact[k])
		}
	}
	for _, k := range []string{"n1", "n2", "n3", "n4"} {
		if got := slices.Collect(x.ByNode(k, names).All()); !slices.Equal(got, byNode[k]) {
			t.Errorf("byNode(%q) = %v, want %v", k, got, byNode[k])
		}
	}
	for _, h := range []string{"a", "A", "b", "B", "c", "x"} {
		for _, n := range []string{"n1", "n2", "n3"} {
			hn := hostNode{h, n}
			id, ok := x.ByHostNode(h, n, names)
			wantID, wantOK := byHN[hn]
			if id != wantID || ok != wantOK {
				t.Errorf("byHostNode(%v) = %d, %v; want %d, %v", hn, id, ok, wantID, wantOK)
			}
		}
	}
}

// TestCompareLower checks compareLower against its definition,
// strings.Compare(strings.ToLower(s), lower), on ASCII and other names.
func TestCompareLower(t *testing.T) {
	words := []string{"", "a", "A", "ab", "aB", "Ab", "abc", "b", "B", "a0", "a-b", "Z", "[", "@", "ä", "Ä", "aÄ", "İ", "i", "compute-0001", "Compute-0001"}
	for _, s := range words {
		for _, w := range words {
			lower := strings.ToLower(w)
			if got, want := compareLower(s, lower), strings.Compare(strings.ToLower(s), lower); got != want {
				t.Errorf("compareLower(%q, %q) = %d, want %d", s, lower, got, want)
			}
		}
	}
}

// TestUUIDCol checks that a column gives back every uuid as it was set.
func TestUUIDCol(t *testing.T) {
	in := []string{
		"0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f5", "", "00000000-0000-0000-0000-000000000000",
		"0C4F5B6E-2D1A-4B3C-8E9F-A0B1C2D3E4F5", "host-uuid", "ffffffff-ffff-ffff-ffff-ffffffffffff",
	}
	c := NewUUIDs(len(in))
	for i, u := range in {
		c.Set(int32(i), u)
	}
	for i, u := range in {
		if got := c.Get(int32(i)); got != u {
			t.Errorf("get(%d) = %q, want %q", i, got, u)
		}
	}
	if len(c.odd) != 3 {
		t.Errorf("%d odd uuids, want 3", len(c.odd))
	}
}

// TestNameNodes checks the flat lists against the slices they replaced.
func TestNameNodes(t *testing.T) {
	nameID := []int32{0, 1, 0, 2, 2, 0, 4}
	x := newNameNodes(nameID, 5)
	want := make([][]uint32, 5)
	for id, nid := range nameID {
		want[nid] = append(want[nid], uint32(id))
	}
	for nid, w := range want {
		got := x.of(int32(nid))
		if !slices.Equal(got, w) {
			t.Errorf("of(%d) = %v, want %v", nid, got, w)
		}
		if cap(got) != len(got) {
			t.Errorf("of(%d) can be appended into its neighbour", nid)
		}
	}
}

// TestNameIndexShares checks that equal orders share one slice, and only
// those, and that orders that are the identity are not kept: lookups then
// answer as from separate orders.
func TestNameIndexShares(t *testing.T) {
	same := func(a, b []uint32) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }
	for _, tc := range []struct {
		name               string
		host, node         []string
		nodeLower, hnLower bool
		identity           string // of byLower, byNode, byHostNode: "l", "n", "h"
	}{
		{"nodes named as lowercase hosts", []string{"c", "a", "b"}, []string{"c", "a", "b"}, true, true, ""},
		{"uppercase hosts", []string{"c", "A", "b", "B"}, []string{"c", "A", "b", "B"}, false, false, ""},
		{"nodes of their own", []string{"a", "a", "b"}, []string{"y", "z", "x"}, false, false, "lh"},
		{"nodes of their own, unsorted hosts", []string{"b", "a", "a"}, []string{"y", "z", "x"}, false, false, ""},
		{"hosts in order", []string{"h01", "h02", "h10"}, []string{"h01", "h02", "h10"}, false, false, "lnh"},
		{"equal names in order", []string{"a", "a", "b"}, []string{"a", "a2", "b"}, false, false, "lnh"},
		{"in order but for case", []string{"B", "a", "c"}, []string{"B", "a", "c"}, false, false, "nh"},
		{"nodes out of order", []string{"a", "b", "c"}, []string{"z", "y", "c"}, false, false, "lh"},
		{"no hosts", nil, nil, false, false, "lnh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewNameIndex(tc.host, tc.node)
			if same(x.byNode, x.byLower) != tc.nodeLower || same(x.byHostNode, x.byLower) != tc.hnLower {
				t.Fatalf("byNode shares byLower: %v, byHostNode shares byLower: %v; want %v, %v",
					same(x.byNode, x.byLower), same(x.byHostNode, x.byLower), tc.nodeLower, tc.hnLower)
			}
			for k, order := range map[string][]uint32{"l": x.byLower, "n": x.byNode, "h": x.byHostNode} {
				if (order == nil) != strings.Contains(tc.identity, k) {
					t.Errorf("order %s elided: %v, want %v", k, order == nil, strings.Contains(tc.identity, k))
				}
			}
			names := namesOf(tc.host, tc.node, false)
			lower, byNode := map[string][]uint32{}, map[string][]uint32{}
			for i := range tc.host {
				id := uint32(i)
				l := strings.ToLower(tc.host[i])
				lower[l] = append(lower[l], id)
				byNode[tc.node[i]] = append(byNode[tc.node[i]], id)
			}
			for i := range tc.host {
				id := uint32(i)
				if got, ok := x.ByHostNode(tc.host[i], tc.node[i], names); !ok || got != id {
					t.Errorf("byHostNode(%s, %s) = %d, %v", tc.host[i], tc.node[i], got, ok)
				}
				if got, want := slices.Collect(x.ByNode(tc.node[i], names).All()), byNode[tc.node[i]]; !slices.Equal(got, want) {
					t.Errorf("byNode(%s) = %v, want %v", tc.node[i], got, want)
				}
				l := strings.ToLower(tc.host[i])
				if got, want := slices.Collect(x.ByHostLower(l, names).All()), lower[l]; !slices.Equal(got, want) {
					t.Errorf("byHostLower(%s) = %v, want %v", l, got, want)
				}
			}
			for _, miss := range []string{"", "0", "zz", "b1"} {
				if got := slices.Collect(x.ByHostLower(miss, names).All()); len(got) != len(lower[miss]) {
					t.Errorf("byHostLower(%q) = %v, want %v", miss, got, lower[miss])
				}
				if got := slices.Collect(x.ByNode(miss, names).All()); len(got) != len(byNode[miss]) {
					t.Errorf("byNode(%q) = %v, want %v", miss, got, byNode[miss])
				}
				if _, ok := x.ByHostNode(miss, miss, names); ok {
					t.Errorf("byHostNode(%q, %q) found", miss, miss)
				}
			}
		})
	}
}

// TestNameLookupsAllocate checks that the name lookups allocate nothing,
// whether an order is kept or is the identity: group bookkeeping looks a
// host name up per placement.
func TestNameLookupsAllocate(t *testing.T) {
	for _, host := range [][]string{{"a", "b", "c"}, {"c", "b", "a"}} {
		names := namesOf(host, host, false)
		x := NewNameIndex(host, host)
		n := 0
		allocs := testing.AllocsPerRun(100, func() {
			for id := range x.ByHostLower("b", names).All() {
				n += int(id)
			}
			for id := range x.ByNode("c", names).All() {
				n += int(id)
			}
			if id, ok := x.ByHostNode("a", "a", names); ok {
				n += int(id)
			}
			for id := range x.ByHost("a", names).All() {
				n += int(id)
			}
		})
		if allocs != 0 {
			t.Errorf("hosts %v: %v allocations per lookup", host, allocs)
		}
	}
}

// benchInstIndex is an index the size of a 100,000-host cloud's (about 8.6
// random canonical uuids per host name, a few listed twice), with uuids
// listed and not.
var benchInst struct {
	once           sync.Once
	x              Instances
	listed, absent []string
}

func benchInstIndex(b *testing.B) (*Instances, []string, []string) {
	benchInst.once.Do(func() {
		r := rand.New(rand.NewPCG(1, 2))
		uuid := func() string {
			var k uuidKey
			for i := range k {
				k[i] = byte(r.Uint32())
			}
			return k.String()
		}
		perName := make([][]string, 100000)
		for nid := range perName {
			for range r.IntN(18) {
				u := uuid()
				if r.IntN(100) == 0 && len(benchInst.listed) > 0 {
					u = benchInst.listed[r.IntN(len(benchInst.listed))]
				}
				if !slices.Contains(perName[nid], u) {
					perName[nid] = append(perName[nid], u)
					benchInst.listed = append(benchInst.listed, u)
				}
			}
		}
		for range 1024 {
			benchInst.absent = append(benchInst.absent, uuid())
		}
		benchInst.x = NewInstances(perName)
	})
	b.ResetTimer()
	return &benchInst.x, benchInst.listed, benchInst.absent
}

func BenchmarkInstIndex(b *testing.B) {
	b.Run("namesOf", func(b *testing.B) {
		x, listed, _ := benchInstIndex(b)
		for i := 0; b.Loop(); i++ {
			for nid := range x.NamesOf(listed[i*7919%len(listed)]) {
				_ = nid
			}
		}
	})
	b.Run("namesOfAbsent", func(b *testing.B) {
		x, _, absent := benchInstIndex(b)
		for i := 0; b.Loop(); i++ {
			for nid := range x.NamesOf(absent[i%len(absent)]) {
				_ = nid
			}
		}
	})
	b.Run("hasAbsent", func(b *testing.B) { // the anti-affinity filter's, over every host
		x, _, absent := benchInstIndex(b)
		u := absent[0]
		for i := 0; b.Loop(); i++ {
			x.Has(int32(i*7919%100000), u)
		}
	})
	b.Run("hasListed", func(b *testing.B) {
		x, listed, _ := benchInstIndex(b)
		for i := 0; b.Loop(); i++ {
			x.Has(int32(i*7919%100000), listed[i%len(listed)])
		}
	})
	b.Run("of", func(b *testing.B) {
		x, _, _ := benchInstIndex(b)
		for i := 0; b.Loop(); i++ {
			x.Of(int32(i * 7919 % 100000))
		}
	})
}

// TestInstIndexOracle checks the index against maps over random lists:
// uuids shared between names, canonical ones close together (equal
// leading bytes) and apart, and odd text.
func TestInstIndexOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	uuid := func() string { return randomUUID(r) }
	for round := range 60 {
		var pool []string
		for range 1 + r.IntN(200) {
			var k uuidKey
			ok := false
			if len(pool) > 0 {
				k, ok = parseUUID(pool[r.IntN(len(pool))])
			}
			switch c := r.IntN(6); {
			case c == 0: // odd text
				pool = append(pool, []string{"", "a", "inst-" + uuid()[:r.IntN(8)], strings.ToUpper(uuid()), uuid()[1:]}[r.IntN(5)])
			case c <= 2 && ok: // close to another: a bit of one byte flipped
				k[r.IntN(16)] ^= 1 << r.IntN(8)
				pool = append(pool, k.String())
			default:
				pool = append(pool, uuid())
			}
		}
		perName := make([][]string, r.IntN(300))
		for nid := range perName {
			for range r.IntN(13) {
				if u := pool[r.IntN(len(pool))]; !slices.Contains(perName[nid], u) {
					perName[nid] = append(perName[nid], u)
				}
			}
		}
		x := NewInstances(perName)
		want := map[string][]int32{}
		for nid, us := range perName {
			if got := x.Of(int32(nid)); !slices.Equal(got, us) {
				t.Fatalf("round %d: of(%d) = %q, want %q", round, nid, got, us)
			}
			for _, u := range us {
				want[u] = append(want[u], int32(nid))
			}
		}
		probes := slices.Concat(pool, []string{"", "b", uuid(), uuid()})
		for _, u := range probes {
			if got := slices.Collect(x.NamesOf(u)); !slices.Equal(got, want[u]) {
				t.Fatalf("round %d: namesOf(%q) = %v, want %v", round, u, got, want[u])
			}
			for nid, us := range perName {
				if got, w := x.Has(int32(nid), u), slices.Contains(us, u); got != w {
					t.Fatalf("round %d: has(%d, %q) = %v, want %v", round, nid, u, got, w)
				}
			}
		}
	}
}

// hostNode is a (host, node) pair, a map key of the tests.
type hostNode struct{ host, node string }

// TestSortKeys checks the radix sort against a comparison sort, with
// runs of equal high words, equal keys (a uuid on two hosts) and sizes
// on both sides of the cut-over.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 255, 256, 1000, 70000} {
		ks := make([]sortKey, n)
		for i := range ks {
			ks[i] = sortKey{rng.Uint64(), rng.Uint64(), int32(i)}
			switch rng.IntN(8) {
			case 0: // a high word seen before
				if i > 0 {
					ks[i].hi = ks[rng.IntN(i)].hi
				}
			case 1: // a key seen before
				if i > 0 {
					j := rng.IntN(i)
					ks[i].hi, ks[i].lo = ks[j].hi, ks[j].lo
				}
			case 2: // a small high word: the upper digits zero
				ks[i].hi >>= 48
			}
		}
		want := slices.Clone(ks)
		slices.SortFunc(want, func(a, b sortKey) int {
			return cmp.Or(cmp.Compare(a.hi, b.hi), cmp.Compare(a.lo, b.lo), cmp.Compare(a.i, b.i))
		})
		sortKeys(ks)
		if !slices.Equal(ks, want) {
			t.Fatalf("n=%d: the radix sort's order differs from the comparison sort's", n)
		}
	}
}

// TestDeriveInstances checks that an index derived from another (some
// names' lists copied from names of it, in any order, the others given)
// equals the one NewInstances builds from every list, with odd text among
// the copied entries and among the given ones. Half the rounds have a
// rebuild's shape (the copied names in prev's order), where the uuid
// order is prev's renumbered with the new entries merged in.
func TestDeriveInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	uuid := func() string { return randomUUID(r) }
	list := func() []string {
		var us []string
		for range r.IntN(6) {
			u := uuid()
			if r.IntN(5) == 0 {
				u = []string{"inst-" + u[:4], strings.ToUpper(u), "", "a"}[r.IntN(4)]
			}
			if !slices.Contains(us, u) {
				us = append(us, u)
			}
		}
		return us
	}
	copied, inOrder := 0, 0
	for round := range 100 {
		prevLists := make([][]string, r.IntN(200))
		for nid := range prevLists {
			prevLists[nid] = list()
			if nid > 0 && r.IntN(8) == 0 { // an instance listed on two names
				prevLists[nid] = append(prevLists[nid], prevLists[r.IntN(nid)]...)
			}
		}
		prev := NewInstances(prevLists)
		var lists, given [][]string // given: nil where copied (not read)
		var same []int32
		if round%2 == 0 {
			// A rebuild's shape: prev's names kept in order (some left
			// out, some with new lists), new names among them.
			for o := range prevLists {
				switch k := r.IntN(8); {
				case k == 0: // left out
				case k == 1: // a new list (a commit changed it)
					l := append(slices.Clone(prevLists[o]), uuid())
					lists, given, same = append(lists, l), append(given, l), append(same, -1)
				default:
					lists, given, same = append(lists, prevLists[o]), append(given, nil), append(same, int32(o))
					copied++
				}
				if r.IntN(10) == 0 { // a new name, one of its uuids another's
					l := list()
					if len(lists) > 1 && len(lists[0]) > 0 {
						l = append(l, lists[0][0])
					}
					lists, given, same = append(lists, l), append(given, l), append(same, -1)
				}
			}
			inOrder++
		} else {
			lists = make([][]string, r.IntN(200))
			given = make([][]string, len(lists))
			same = make([]int32, len(lists))
			for nid := range lists {
				same[nid] = -1
				if len(prevLists) > 0 && r.IntN(3) > 0 {
					same[nid] = int32(r.IntN(len(prevLists)))
					lists[nid] = prevLists[same[nid]]
					copied++
					continue
				}
				lists[nid] = list()
				given[nid] = lists[nid]
			}
		}
		got, want := DeriveInstances(&prev, same, given), NewInstances(lists)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: the derived index differs from a build's", round)
		}
	}
	if copied < 2000 || inOrder < 50 {
		t.Fatalf("%d lists copied, %d rounds in a rebuild's shape: want most", copied, inOrder)
	}
	// Every name keeping its own list (an aggregate change with no
	// commit since): prev's index, shared; one name more is derived.
	prevLists := make([][]string, 50)
	for nid := range prevLists {
		prevLists[nid] = list()
	}
	prevLists[7] = []string{uuid()} // the share is seen through start and the keys
	prev := NewInstances(prevLists)
	same := make([]int32, len(prevLists))
	for nid := range same {
		same[nid] = int32(nid)
	}
	got := DeriveInstances(&prev, same, make([][]string, len(prevLists)))
	if !reflect.DeepEqual(got, prev) || &got.start[0] != &prev.start[0] || &got.uuids.keys[0] != &prev.uuids.keys[0] {
		t.Fatalf("every list kept: the index is not prev's, shared")
	}
	more := append(slices.Clone(prevLists), []string{uuid()})
	got = DeriveInstances(&prev, append(slices.Clone(same), -1), append(make([][]string, len(prevLists)), more[len(prevLists)]))
	if want := NewInstances(more); !reflect.DeepEqual(got, want) || &got.start[0] == &prev.start[0] {
		t.Fatalf("every list kept and one name more: the index differs from a build's, or is prev's")
	}
}

// randomUUID is a canonical uuid of random bytes.
func randomUUID(r *rand.Rand) string {
	var k uuidKey
	for i := range k {
		k[i] = byte(r.Uint32())
	}
	return k.String()
}

// TestDeriveNameIndex checks DeriveNameIndex against NewNameIndex of the
// same names: for host lists drawn with duplicate names, names differing
// in case only, nodes named as their hosts or not, lists in name order or
// not, a derived list keeps prev's hosts in order but for some left out
// and appends new ones (as a Store's rebuilds do; none left out and none
// added, as an aggregate change), and a list reordered falls back. Every
// order is the built one, nil where the identity, shared where equal.
func TestDeriveNameIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	name := func(sorted bool, i int) string {
		if sorted {
			return fmt.Sprintf("h%05d", i)
		}
		s := []string{"a", "B", "b", "c", "A", "d"}[rng.IntN(6)]
		return s + fmt.Sprint(rng.IntN(8))
	}
	same := func(a, b []uint32) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }
	derived := 0
	for round := range 400 {
		n := rng.IntN(60)
		sorted, ownNodes := round%3 == 0, round%2 == 1
		host, node := make([]string, n), make([]string, n)
		for i := range host {
			host[i] = name(sorted, i)
			node[i] = host[i]
			if ownNodes && rng.IntN(2) == 0 {
				node[i] = name(false, i)
			}
		}
		prev := NewNameIndex(host, node)
		var newHost, newNode []string
		var old []int32
		for i := range host {
			if round%5 == 4 || rng.IntN(6) > 0 { // round%5 == 4: keep all
				newHost, newNode, old = append(newHost, host[i]), append(newNode, node[i]), append(old, int32(i))
			}
		}
		if round%5 != 4 {
			for k := range rng.IntN(5) {
				h := name(sorted, n+k)
				newHost, newNode, old = append(newHost, h), append(newNode, h), append(old, -1)
			}
		}
		if round%17 == 0 && len(old) > 1 && old[0] >= 0 && old[1] >= 0 { // reordered: the fallback
			newHost[0], newHost[1], newNode[0], newNode[1], old[0], old[1] = newHost[1], newHost[0], newNode[1], newNode[0], old[1], old[0]
		} else {
			derived++
		}
		got, want := DeriveNameIndex(&prev, old, newHost, newNode), NewNameIndex(newHost, newNode)
		if got.n != want.n || !slices.Equal(got.byLower, want.byLower) || !slices.Equal(got.byNode, want.byNode) || !slices.Equal(got.byHostNode, want.byHostNode) {
			t.Fatalf("round %d: derived %+v, built %+v (hosts %q nodes %q, old %v)", round, got, want, newHost, newNode, old)
		}
		for _, o := range [][2][]uint32{{got.byLower, want.byLower}, {got.byNode, want.byNode}, {got.byHostNode, want.byHostNode}} {
			if (o[0] == nil) != (o[1] == nil) {
				t.Fatalf("round %d: an order elided in one index only", round)
			}
		}
		if same(got.byNode, got.byLower) != same(want.byNode, want.byLower) || same(got.byHostNode, got.byLower) != same(want.byHostNode, want.byLower) ||
			same(got.byHostNode, got.byNode) != same(want.byHostNode, want.byNode) {
			t.Fatalf("round %d: orders shared differently", round)
		}
	}
	if derived < 300 {
		t.Fatalf("only %d rounds derived", derived)
	}
}

// BenchmarkNameIndex builds the name index of 50,000 hosts and one added
// to them, from scratch (build=new) and from the index before the
// addition (build=derived): with names in order but for one (a first
// added host named out of order), and with names in no order (hosts
// listed as a database lists them, named by their FQDN).
func BenchmarkNameIndex(b *testing.B) {
	const n = 50000
	rng := rand.New(rand.NewPCG(1, 1))
	for _, names := range []string{"sorted", "random"} {
		host := make([]string, n)
		for i := range host {
			host[i] = fmt.Sprintf("compute-%05d", i)
			if names == "random" {
				host[i] = fmt.Sprintf("node-%08x.example.net", rng.Uint32())
			}
		}
		host[0] = "added-0"
		prev := NewNameIndex(host, host)
		next := append(slices.Clone(host), "added-1")
		old := make([]int32, n+1)
		for i := range n {
			old[i] = int32(i)
		}
		old[n] = -1
		b.Run(fmt.Sprintf("names=%s/hosts=%d/build=new", names, n), func(b *testing.B) {
			for b.Loop() {
				NewNameIndex(next, next)
			}
		})
		b.Run(fmt.Sprintf("names=%s/hosts=%d/build=derived", names, n), func(b *testing.B) {
			for b.Loop() {
				DeriveNameIndex(&prev, old, next, next)
			}
		})
	}
}

// BenchmarkDeriveInstances derives the index of 50,000 host names, three
// instances each, after 20,000 of them, spread evenly, got one more: what
// a Store's rebuild does with the lists of the hosts committed on since
// the last one (the others' copied).
func BenchmarkDeriveInstances(b *testing.B) {
	const names, changed = 50000, 20000
	r := rand.New(rand.NewPCG(7, 8))
	perName := make([][]string, names)
	for nid := range perName {
		for range 3 {
			perName[nid] = append(perName[nid], randomUUID(r))
		}
	}
	prev := NewInstances(perName)
	same := make([]int32, names)
	next := make([][]string, names)
	for nid := range same {
		same[nid] = int32(nid)
		if nid%(names/changed) == 0 {
			same[nid] = -1
			next[nid] = append(slices.Clone(perName[nid]), randomUUID(r))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		DeriveInstances(&prev, same, next)
	}
}
