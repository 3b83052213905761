package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/placer/placer/internal/nova"
)

// infoOfNames returns a hostInfo holding only the names of hosts with the
// given host and node names, as buildHostInfo makes them.
func infoOfNames(host, node []string) *hostInfo {
	b := newHostNamesBuilder(len(host))
	for i := range host {
		b.add(uint32(i), host[i], node[i])
	}
	return &hostInfo{names: b.done()}
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
				if wide {
					defer func(was uint64) { maxNarrowEnd = was }(maxNarrowEnd)
					maxNarrowEnd = 0
				}
				in := make([]string, len(tc.node))
				for i, s := range tc.node {
					in[i] = strings.Clone(s)
				}
				info := infoOfNames(tc.host, in)
				for i := range in {
					in[i] = "changed" // the snapshot keeps its own copies
				}
				names := &info.names
				if len(names.odd.ids) != tc.odd || len(names.odd.names) != tc.odd {
					t.Fatalf("%d odd node names, want %d", len(names.odd.ids), tc.odd)
				}
				if (names.nameID != nil) != tc.shared {
					t.Errorf("name id per host kept: %v, want %v", names.nameID != nil, tc.shared)
				}
				// Names of one length need no ends; others narrow ends but
				// for a text too long for them.
				oneLen := !slices.ContainsFunc(tc.host, func(h string) bool { return len(h) != len(tc.host[0]) })
				form := func(x *hostNames) string {
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
					if h, n := info.hostOf(id), info.nodeOf(id); h != tc.host[i] || n != tc.node[i] {
						t.Errorf("host %d: (%q, %q), want (%q, %q)", i, h, n, tc.host[i], tc.node[i])
					}
					nid, ok := ids[tc.host[i]]
					if !ok {
						nid = int32(len(ids))
						ids[tc.host[i]] = nid
					}
					if got := info.nameOf(id); got != nid {
						t.Errorf("host %d: name id %d, want %d", i, got, nid)
					}
					nodes[nid] = append(nodes[nid], id)
				}
				if names.count != len(ids) {
					t.Errorf("%d names, want %d", names.count, len(ids))
				}
				for nid, want := range nodes {
					var one [1]uint32
					if got := info.nodesOf(nid, &one); !slices.Equal(got, want) {
						t.Errorf("name %d: nodes %v, want %v", nid, got, want)
					}
					if got := names.name(nid); got != tc.host[want[0]] {
						t.Errorf("name %d: %q, want %q", nid, got, tc.host[want[0]])
					}
				}
			})
		}
	}
}

// TestHostUUID checks the hosts' uuids whether the cloud gives none (made
// up when asked, none kept), some or all.
func TestHostUUID(t *testing.T) {
	const given = "0c4f5b6e-2d1a-4b3c-8e9f-a0b1c2d3e4f5"
	for _, tc := range []struct {
		name  string
		uuids []string
	}{
		{"none given", []string{"", ""}},
		{"some given", []string{"", given}},
		{"all given", []string{given, "Not-A-UUID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Cloud{Config: DefaultConfig()}
			for i, u := range tc.uuids {
				c.Hosts = append(c.Hosts, Host{Host: fmt.Sprint("h", i), Node: fmt.Sprint("n", i), UUID: u,
					MemoryMB: 1024, FreeRAMMB: 1024, VCPUs: 1, LocalGB: 1, FreeDiskGB: 1})
			}
			s, err := NewSnapshot(c)
			if err != nil {
				t.Fatal(err)
			}
			none := !slices.ContainsFunc(tc.uuids, func(u string) bool { return u != "" })
			if kept := s.info.uuid.keys != nil; kept == none {
				t.Errorf("uuids kept: %v, want %v", kept, !none)
			}
			for i, u := range tc.uuids {
				want := u
				if u == "" {
					want = nova.MadeUpUUID("host", fmt.Sprint("h", i), fmt.Sprint("n", i))
				}
				if got := s.info.hostUUID(uint32(i)); got != want {
					t.Errorf("host %d: uuid %q, want %q", i, got, want)
				}
			}
		})
	}
}
