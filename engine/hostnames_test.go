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
	info := &hostInfo{nameID: make([]int32, len(host))}
	ids := map[string]int32{}
	for i, h := range host {
		nid, ok := ids[h]
		if !ok {
			nid = int32(len(info.names))
			ids[h] = nid
			info.names = append(info.names, h)
		}
		info.nameID[i] = nid
	}
	info.ownNames(host, node)
	return info
}

// TestHostNames checks that every host's host and node names come back,
// with only the node names that are not their host's kept apart.
func TestHostNames(t *testing.T) {
	for _, tc := range []struct {
		name       string
		host, node []string
		odd        int
	}{
		{"no hosts", nil, nil, 0},
		{"nodes named as hosts", []string{"a", "b", "c"}, []string{"a", "b", "c"}, 0},
		{"several nodes per host", []string{"a", "a", "b", "a", "b"}, []string{"a", "a-2", "b", "x", ""}, 3},
		{"case differs", []string{"Host", "host"}, []string{"host", "Host"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := make([]string, len(tc.node))
			for i, s := range tc.node {
				in[i] = strings.Clone(s)
			}
			info := infoOfNames(tc.host, in)
			for i := range in {
				in[i] = "changed" // the snapshot keeps its own copies
			}
			if len(info.oddNodes.ids) != tc.odd || len(info.oddNodes.names) != tc.odd {
				t.Fatalf("%d odd node names, want %d", len(info.oddNodes.ids), tc.odd)
			}
			for i := range tc.host {
				id := uint32(i)
				if h, n := info.hostOf(id), info.nodeOf(id); h != tc.host[i] || n != tc.node[i] {
					t.Errorf("host %d: (%q, %q), want (%q, %q)", i, h, n, tc.host[i], tc.node[i])
				}
				if p := info.nodePtr(id); *p != tc.node[i] || p != info.nodePtr(id) {
					t.Errorf("host %d: nodePtr %q, not one stable pointer to %q", i, *p, tc.node[i])
				}
			}
		})
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
