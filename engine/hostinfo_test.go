package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/placer/placer/internal/nova"
)

// InfoLayout reports the bytes per host of the snapshot's compact per-host
// columns, by name (0: elided), for the external tests.
func InfoLayout(s *Snapshot) map[string]int {
	info := s.info
	return map[string]int{
		"nameID": info.names.IDBytes(), "nameEnds": info.names.EndBytes(), "nameOrders": info.nameIdx.OrderBytes(),
		"cell": info.cell.Bytes(), "hvModel": info.hvModel.Bytes(), "stats": info.stats.Bytes(),
		"hvSig": info.hvSig.Bytes(), "class": info.class.Bytes(), "diskGBUsed": info.diskGBUsed.Bytes(),
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
			if kept := s.info.uuid.Kept(); kept == none {
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

// TestDiskMBUsed checks disk_mb_used, one host at a time and through the
// column pass, against (local_gb - free_disk_gb) * 1024, exact at the
// bounds a cloud's numbers keep to (MaxGB: up to 2^41 MB).
func TestDiskMBUsed(t *testing.T) {
	pairs := [][2]int64{ // local_gb, free_disk_gb
		{100, 40}, {100, 100}, {0, 5}, {1 << 29, -(1 << 29)}, {MaxGB, -5},
		{MaxGB, -MaxGB + 1}, {7, -MaxGB}, {3, 1},
	}
	c := Cloud{Config: DefaultConfig()}
	for i := range 150 {
		p := pairs[i%len(pairs)]
		if i >= len(pairs) {
			p = [2]int64{int64(i), int64(i % 9)}
		}
		c.Hosts = append(c.Hosts, Host{Host: "h" + string(rune('a'+i%26)) + string(rune('a'+i/26)),
			MemoryMB: 1024, FreeRAMMB: 1024, VCPUs: 1, LocalGB: p[0], FreeDiskGB: p[1]})
	}
	s, err := NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int64, len(c.Hosts))
	for i, h := range c.Hosts {
		want[i] = (h.LocalGB - h.FreeDiskGB) * 1024
		if got := s.info.diskMBUsed(uint32(i)); got != want[i] {
			t.Errorf("host %d: disk_mb_used %d, want %d", i, got, want[i])
		}
	}
	pass := func(v float64) bool { return v >= 0 && v < 1e12 }
	for _, lo := range []int{0, 64} { // the hosts from lo, as of a shard
		words := make([]uint64, (len(c.Hosts)-lo+63)/64)
		for i := range words {
			words[i] = 0xaaaa_5555_f0f0_0f0f
		}
		wantWords := append([]uint64(nil), words...)
		intPass(wantWords, want[lo:], pass)
		diskUsedPass(words, s.info, lo, len(c.Hosts)-lo, pass)
		for wi := range words {
			if words[wi] != wantWords[wi] {
				t.Errorf("from host %d, word %d: %x, want %x", lo, wi, words[wi], wantWords[wi])
			}
		}
	}
}
