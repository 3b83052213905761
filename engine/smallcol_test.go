package engine

import (
	"math"
	"testing"
)

// TestIdxCol checks that a column takes the narrowest width that holds its
// values, widening as they come (one step or several at once), and gives
// every value back.
func TestIdxCol(t *testing.T) {
	for _, tc := range []struct {
		name  string
		vals  []uint64
		bytes int
	}{
		{"empty", nil, 0},
		{"bytes", []uint64{0, 3, 255, 1}, 1},
		{"one past a byte", []uint64{0, 3, 255, 256, 1}, 2},
		{"step by step", []uint64{7, 300, 70000, 1 << 40, 2}, 8},
		{"straight to 4 bytes", []uint64{1, math.MaxUint16 + 1, 0}, 4},
		{"straight to 8 bytes", []uint64{9, math.MaxUint64, 1}, 8},
		{"widest last", append(make([]uint64, 130), math.MaxUint32), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newIdxColBuilder(len(tc.vals))
			for i, v := range tc.vals {
				b.set(uint32(i), v)
			}
			c := b.done()
			if c.len() != len(tc.vals) || c.bytes() != tc.bytes && len(tc.vals) > 0 {
				t.Fatalf("%d elements of %d bytes, want %d of %d", c.len(), c.bytes(), len(tc.vals), tc.bytes)
			}
			for i, v := range tc.vals {
				if got := c.at(uint32(i)); got != v {
					t.Errorf("at(%d) = %d, want %d", i, got, v)
				}
			}
		})
	}
}

// TestIdxColMask checks maskWordsOf on every width against the values one
// by one, over ranges that start and end inside words.
func TestIdxColMask(t *testing.T) {
	const n = 300
	vals := make([]uint64, n)
	pass := []uint64{1, 0, 0, 1, 1, 0, 1}
	for i := range vals {
		vals[i] = uint64(i*i+i/7) % uint64(len(pass))
	}
	var cols [4]idxCol
	for _, v := range vals {
		cols[0].u8 = append(cols[0].u8, uint8(v))
		cols[1].u16 = append(cols[1].u16, uint16(v))
		cols[2].u32 = append(cols[2].u32, uint32(v))
		cols[3].u64 = append(cols[3].u64, v)
	}
	for _, c := range cols {
		for _, r := range [][2]int{{0, n}, {64, 128}, {0, 1}, {128, 300}, {256, 300}} {
			lo, hi := r[0], r[1]
			words := make([]uint64, (hi-lo+63)/64)
			words[0] = 1 << 63 // kept: the pass adds bits
			c.maskWordsOf(lo, hi, words, pass)
			for i := lo; i < hi; i++ {
				got := words[(i-lo)/64]>>((i-lo)%64)&1 == 1
				want := pass[vals[i]] == 1 || i-lo == 63
				if got != want {
					t.Errorf("%d-byte column, [%d, %d): host %d %v, want %v", c.bytes(), lo, hi, i, got, want)
				}
			}
		}
	}
}

// InfoLayout reports the bytes per host of the snapshot's compact per-host
// columns, by name (0: elided), for the external tests.
func InfoLayout(s *Snapshot) map[string]int {
	info := s.info
	nameID := 0
	if info.names.nameID != nil {
		nameID = 4
	}
	nameEnds := 0
	switch {
	case info.names.ends != nil:
		nameEnds = 4
	case info.names.wideEnds != nil:
		nameEnds = 8
	}
	nameOrders := 0
	if x := &info.nameIdx; x.byLower != nil || x.byNode != nil || x.byHostNode != nil {
		nameOrders = 4
	}
	return map[string]int{
		"nameID": nameID, "nameEnds": nameEnds, "nameOrders": nameOrders,
		"cell": info.cell.bytes(), "hvModel": info.hvModel.bytes(), "stats": info.stats.bytes(),
		"hvSig": info.hvSig.bytes(), "class": info.class.bytes(), "diskGBUsed": info.diskGBUsed.off.bytes(),
	}
}

// TestIntCol checks that a column keeps its values' distances from the
// smallest in the narrowest width, and gives back every value, across
// int64's whole range.
func TestIntCol(t *testing.T) {
	for _, tc := range []struct {
		name  string
		vals  []int64
		bytes int
	}{
		{"empty", nil, 0},
		{"one value", []int64{-7}, 1},
		{"within a byte", []int64{1000, 1255, 1100}, 1},
		{"negative", []int64{-3, 260, 0}, 2},
		{"four bytes", []int64{-1 << 31, 1<<31 - 5}, 4},
		{"past four bytes", []int64{-1 << 31, 1 << 31}, 8},
		{"whole range", []int64{math.MaxInt64, 0, math.MinInt64, -1}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newIntCol(len(tc.vals), func(i int) int64 { return tc.vals[i] })
			if c.off.len() != len(tc.vals) || c.off.bytes() != tc.bytes {
				t.Fatalf("%d elements of %d bytes, want %d of %d", c.off.len(), c.off.bytes(), len(tc.vals), tc.bytes)
			}
			for i, v := range tc.vals {
				if got := c.at(uint32(i)); got != v {
					t.Errorf("at(%d) = %d, want %d", i, got, v)
				}
			}
		})
	}
}

// TestDiskMBUsed checks disk_mb_used, one host at a time and through the
// column pass, against (local_gb - free_disk_gb) * 1024 as int64 computes
// it, wrapping where it overflows.
func TestDiskMBUsed(t *testing.T) {
	pairs := [][2]int64{ // local_gb, free_disk_gb
		{100, 40}, {100, 100}, {0, 5}, {1 << 40, -(1 << 40)}, {math.MaxInt64, -5},
		{math.MaxInt64, math.MinInt64 + 1}, {7, math.MinInt64}, {3, 1},
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
