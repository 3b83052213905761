package hostcols

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// namesOf returns the names of hosts with the given host and node names,
// as engine's snapshot builds them; with wide, their ends are kept wide
// whatever the text's length.
func namesOf(host, node []string, wide bool) *Names {
	b := NewNamesBuilder(len(host))
	if wide {
		b.maxNarrowEnd = 0
	}
	for i := range host {
		b.Add(uint32(i), host[i], node[i])
	}
	names := b.Done()
	return &names
}

// TestHostNames checks that every host's host and node names and name id
// come back, with only the node names that are not their host's kept
// apart, no name id per host where every host has a name of its own, no
// ends where the names have one length, and the long texts' wide ends.
func TestHostNames(t *testing.T) {
	for _, tc := range []struct {
		name       string
		host, node []string
		odd        int
		shared     bool // some hosts share a host name
	}{
		{"no hosts", nil, nil, 0, false},
		{"nodes named as hosts", []string{"a", "b", "c"}, []string{"a", "b", "c"}, 0, false},
		{"names of two lengths", []string{"a1", "a2", "b"}, []string{"a1", "a2", "b"}, 0, false},
		{"nodes of their own", []string{"a", "bb", "c"}, []string{"x", "bb", "yy"}, 2, false},
		{"nodes of their own, hosts of one length", []string{"aa", "bb"}, []string{"x", "bbb"}, 2, false},
		{"several nodes per host", []string{"a", "a", "b", "a", "b"}, []string{"a", "a-2", "b", "x", ""}, 3, true},
		{"shared name last", []string{"a", "b", "c", "a"}, []string{"a", "b", "c", "a2"}, 1, true},
		{"case differs", []string{"Host", "host"}, []string{"host", "Host"}, 2, false},
	} {
		for _, wide := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/wide=%v", tc.name, wide), func(t *testing.T) {
				in := make([]string, len(tc.node))
				for i, s := range tc.node {
					in[i] = strings.Clone(s)
				}
				names := namesOf(tc.host, in, wide)
				for i := range in {
					in[i] = "changed" // the snapshot keeps its own copies
				}
				if len(names.odd.ids) != tc.odd || len(names.odd.names) != tc.odd {
					t.Fatalf("%d odd node names, want %d", len(names.odd.ids), tc.odd)
				}
				if (names.nameID != nil) != tc.shared {
					t.Errorf("name id per host kept: %v, want %v", names.nameID != nil, tc.shared)
				}
				// Names of one length need no ends; others narrow ends but
				// for a text too long for them.
				oneLen := !slices.ContainsFunc(tc.host, func(h string) bool { return len(h) != len(tc.host[0]) })
				form := func(x *Names) string {
					switch {
					case x.ends != nil && x.wideEnds == nil:
						return "narrow"
					case x.wideEnds != nil && x.ends == nil:
						return "wide"
					case x.ends == nil && x.wideEnds == nil && (x.width > 0 || x.count == 0):
						return "one length"
					}
					return "mixed"
				}
				want := "narrow"
				switch {
				case oneLen:
					want = "one length"
				case wide:
					want = "wide"
				}
				if got := form(names); got != want {
					t.Errorf("ends %s, want %s", got, want)
				}
				ids := map[string]int32{}
				nodes := map[int32][]uint32{}
				for i := range tc.host {
					id := uint32(i)
					if h, n := names.HostOf(id), names.NodeOf(id); h != tc.host[i] || n != tc.node[i] {
						t.Errorf("host %d: (%q, %q), want (%q, %q)", i, h, n, tc.host[i], tc.node[i])
					}
					nid, ok := ids[tc.host[i]]
					if !ok {
						nid = int32(len(ids))
						ids[tc.host[i]] = nid
					}
					if got := names.NameOf(id); got != nid {
						t.Errorf("host %d: name id %d, want %d", i, got, nid)
					}
					nodes[nid] = append(nodes[nid], id)
				}
				if names.count != len(ids) {
					t.Errorf("%d names, want %d", names.count, len(ids))
				}
				for nid, want := range nodes {
					var one [1]uint32
					if got := names.NodesOf(nid, &one); !slices.Equal(got, want) {
						t.Errorf("name %d: nodes %v, want %v", nid, got, want)
					}
					if got := names.Name(nid); got != tc.host[want[0]] {
						t.Errorf("name %d: %q, want %q", nid, got, tc.host[want[0]])
					}
				}
			})
		}
	}
}

// TestDerivedNames checks that a derived builder, given prev's hosts it
// keeps by their ids there (AddFrom) and the others by their names (Add),
// builds the very Names a plain builder does, on random clouds of shared
// and odd names: hosts removed, hosts added with a name prev has (its
// kept hosts before them, after them, or none left) or lacks, and in
// between.
func TestDerivedNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	name := func() string { return fmt.Sprintf("h%d", rng.IntN(12)) }
	for rep := range 400 {
		n := rng.IntN(20)
		host, node := make([]string, n), make([]string, n)
		for i := range host {
			host[i] = name()
			node[i] = host[i]
			if rng.IntN(3) == 0 {
				node[i] = fmt.Sprintf("n%d", i)
			}
		}
		prev := namesOf(host, node, false)
		index := NewNameIndex(host, node)
		// The next cloud: each host kept with probability 3/4, in order,
		// with new hosts in between (old -1).
		var nh, nn []string
		var old []int32
		for i := 0; i <= n; i++ {
			for rng.IntN(4) == 0 {
				h := name()
				nh, nn, old = append(nh, h), append(nn, h+"-new"), append(old, -1)
			}
			if i < n && rng.IntN(4) != 0 {
				nh, nn, old = append(nh, host[i]), append(nn, node[i]), append(old, int32(i))
			}
		}
		want := namesOf(nh, nn, false)
		b := NewDerivedNamesBuilder(len(nh), prev, &index)
		for i := range nh {
			var nid int32
			if old[i] >= 0 {
				nid = b.AddFrom(uint32(i), nh[i], nn[i], uint32(old[i]))
			} else {
				nid = b.Add(uint32(i), nh[i], nn[i])
			}
			if w := want.NameOf(uint32(i)); nid != w {
				t.Fatalf("rep %d host %d (%s): name id %d, want %d", rep, i, nh[i], nid, w)
			}
		}
		if got := b.Done(); !reflect.DeepEqual(&got, want) {
			t.Fatalf("rep %d: derived %+v, want %+v (hosts %v, old %v, prev hosts %v)", rep, got, *want, nh, old, host)
		}
	}
}
