package hostcols

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
			b := NewIdxBuilder(len(tc.vals))
			for i, v := range tc.vals {
				b.Set(uint32(i), v)
			}
			c := b.Done()
			if c.Len() != len(tc.vals) || c.Bytes() != tc.bytes && len(tc.vals) > 0 {
				t.Fatalf("%d elements of %d bytes, want %d of %d", c.Len(), c.Bytes(), len(tc.vals), tc.bytes)
			}
			for i, v := range tc.vals {
				if got := c.At(uint32(i)); got != v {
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
	var cols [4]Idx
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
			c.MaskWordsOf(lo, hi, words, pass)
			for i := lo; i < hi; i++ {
				got := words[(i-lo)/64]>>((i-lo)%64)&1 == 1
				want := pass[vals[i]] == 1 || i-lo == 63
				if got != want {
					t.Errorf("%d-byte column, [%d, %d): host %d %v, want %v", c.Bytes(), lo, hi, i, got, want)
				}
			}
		}
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
			c := NewInts(len(tc.vals), func(i int) int64 { return tc.vals[i] })
			if c.off.Len() != len(tc.vals) || c.off.Bytes() != tc.bytes {
				t.Fatalf("%d elements of %d bytes, want %d of %d", c.off.Len(), c.off.Bytes(), len(tc.vals), tc.bytes)
			}
			for i, v := range tc.vals {
				if got := c.At(uint32(i)); got != v {
					t.Errorf("at(%d) = %d, want %d", i, got, v)
				}
			}
		})
	}
}
