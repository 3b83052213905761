package hostcols

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeSorted compares mergeSorted with a sort of both slices
// together, for few and many added elements, all before, after or among
// the kept ones, and empty inputs.
func TestMergeSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	less := func(a, b int) bool { return a < b }
	for _, tc := range []struct{ kept, added, span int }{
		{0, 0, 10}, {0, 5, 10}, {5, 0, 10}, {1, 1, 4}, {100, 1, 1000},
		{1000, 3, 5000}, {1000, 1000, 5000}, {1000, 5000, 20000}, {50, 2000, 10000},
	} {
		for round := range 20 {
			pool := r.Perm(tc.span)[:tc.kept+tc.added] // distinct values
			kept, added := slices.Clone(pool[:tc.kept]), slices.Clone(pool[tc.kept:])
			switch round % 4 { // all added below, or above, the kept ones
			case 1:
				for i := range added {
					added[i] = -1 - added[i]
				}
			case 2:
				for i := range added {
					added[i] += tc.span
				}
			}
			slices.Sort(kept)
			slices.Sort(added)
			want := slices.Sorted(slices.Values(append(slices.Clone(kept), added...)))
			if got := mergeSorted(kept, added, less); !slices.Equal(got, want) {
				t.Fatalf("kept %d, added %d, round %d: got %v, want %v", tc.kept, tc.added, round, got, want)
			}
		}
	}
}

// TestMergeSortedGallops counts the comparisons of one many-into-many
// merge: the galloping search makes under three per added element when
// they fall among the kept ones evenly, where a binary search over the
// rest of kept made about fifteen (876,000 for this merge).
func TestMergeSortedGallops(t *testing.T) {
	kept, added := make([]int, 0, 50000), make([]int, 0, 60000)
	for i := range 110000 {
		if i%11 < 5 {
			kept = append(kept, i)
		} else {
			added = append(added, i)
		}
	}
	n := 0
	mergeSorted(kept, added, func(a, b int) bool { n++; return a < b })
	if n > 4*len(added) {
		t.Errorf("merging %d into %d took %d comparisons, want at most %d", len(added), len(kept), n, 4*len(added))
	}
	t.Logf("%d comparisons for %d into %d", n, len(added), len(kept))
}
