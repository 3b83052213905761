package engine

import (
	"strings"
	"testing"
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
