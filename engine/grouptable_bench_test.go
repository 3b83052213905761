package engine

import (
	"fmt"
	"testing"
)

// BenchmarkGroupTableCommit is what one commit of a two-instance plan in
// a new server group costs the snapshot's group table (setGroupPlaced,
// under the Store's mutex), beside a table already holding groups=N:
// the realistic stream opens a group in about a third of its requests
// and never closes one, so N grows with the stream. One op derives a
// table from the last published one and adds two members of a new
// group and one member of an old group.
func BenchmarkGroupTableCommit(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			groups := make(map[string]map[string]string, n)
			olds := make([]string, n)
			for i := range olds {
				olds[i] = fmt.Sprintf("group-%08d", i)
				groups[olds[i]] = map[string]string{fmt.Sprintf("inst-%d", i): "host"}
			}
			t := newGroupTable(groups)
			names := make([]string, b.N)
			for i := range names {
				names[i] = fmt.Sprintf("new-%08d", i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				parent := t
				cur := setGroupPlaced(t, parent, names[i], "a", "host")
				cur = setGroupPlaced(cur, parent, names[i], "b", "host")
				t = setGroupPlaced(cur, parent, olds[i%n], names[i], "host")
			}
			if t.len() != n+b.N {
				b.Fatalf("%d groups, want %d", t.len(), n+b.N)
			}
		})
	}
}
