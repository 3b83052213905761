package hostcols

import (
	"math/rand/v2"
	"testing"
)

// TestPackedInts checks that every width gives back its entries, at counts
// around powers of two and with entries straddling words, and that the
// width is the largest value's.
func TestPackedInts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for w := uint(1); w <= 31; w++ {
		top := int32(1)<<w - 1
		for _, n := range []int{1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000} {
			vals := make([]int32, n)
			for i := range vals {
				switch r.IntN(4) {
				case 0:
					vals[i] = top // all ones: spills into a neighbour if misplaced
				case 1:
					vals[i] = 0
				default:
					vals[i] = int32(r.Int64N(int64(top) + 1))
				}
			}
			vals[n-1] = top
			p := newPackedInts(vals, top)
			if p.w != w || p.len() != n || len(p.words) != (n*int(w)+63)/64+1 {
				t.Fatalf("w %d, n %d: packed at width %d, len %d, %d words", w, n, p.w, p.len(), len(p.words))
			}
			for i, v := range vals {
				if got := p.get(i); got != v {
					t.Fatalf("w %d, n %d: get(%d) = %d, want %d", w, n, i, got, v)
				}
			}
		}
	}
	for _, tc := range []struct {
		top int32
		w   uint
	}{{0, 1}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {1<<20 - 1, 20}, {1 << 20, 21}, {1<<31 - 1, 31}} {
		if p := newPackedInts([]int32{tc.top}, tc.top); p.w != tc.w || p.get(0) != tc.top {
			t.Errorf("top %d: width %d, get(0) = %d; want width %d", tc.top, p.w, p.get(0), tc.w)
		}
	}
	if p := newPackedInts(nil, 5); p.len() != 0 || p.words != nil {
		t.Errorf("no entries: len %d, %d words", p.len(), len(p.words))
	}
}
