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
	return map[string]int{
		"cell": info.cell.bytes(), "hvModel": info.hvModel.bytes(), "stats": info.stats.bytes(),
		"hvSig": info.hvSig.bytes(), "class": info.class.bytes(),
	}
}
