package engine

import (
	"sync"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
)

// recycler hands the usage columns of shards that no snapshot can still
// read to the Store's next compaction. A compaction copies every shard its
// delta covers (five columns of 4,096 hosts); into fresh memory, each copy
// page-faults, which cost more than the copying itself (about 40 faults
// per 10-instance commit at 50,000 hosts, ~5 µs each here), and the
// garbage collector seldom runs often enough for the heap to hand back
// the pages it freed.
//
// Who can read a retired column: the snapshots from the one that made it
// to the last before the compaction that replaced it. The Store knows two
// kinds of readers. Leases (acquire) are taken by the Scheduler's workers
// for one batch and returned. Snapshot() hands a snapshot out for good:
// it counts as an escape, and a column that was current when any escape
// happened is never recycled (the garbage collector frees it instead).
//
// Invariants: a column is in free only if it belonged to a shard retired
// at version v (no published snapshot from v on holds it), no lease on a
// version below v is outstanding, and escapes did not change between the
// moment before its shard was first published and the moment after v was
// published. Escapes are counted before the snapshot is loaded, leases
// registered under mu while it is loaded, so neither can miss a
// compaction: an escape the retirement did not see, and a lease taken
// after its check, load a snapshot from v on.
type recycler struct {
	escapes atomic.Uint64

	mu      sync.Mutex
	leases  map[uint64]int // snapshot version -> outstanding leases
	retired []retiredShard // in increasing version
	ints    [][]int32      // free columns of bitmap.ShardSize hosts
	reused  uint64         // columns handed out again (tests, metrics)
}

// retiredShard is the usage columns of a shard the snapshot of version
// at no longer holds.
type retiredShard struct {
	at   uint64
	ints [][]int32
}

// maxFree bounds the free columns kept (two compactions' worth at 50,000
// hosts); beyond it the garbage collector takes them.
const maxFree = 256

// retire takes the shards a compaction replaced once the snapshot of
// version v without them is published; those an escape may reach are
// left to the garbage collector.
func (r *recycler) retire(old []*shard, v uint64) {
	escapes := r.escapes.Load()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sh := range old {
		if sh.bornEscapes != escapes || sh.hostCount() != bitmap.ShardSize {
			continue
		}
		rs := retiredShard{at: v, ints: [][]int32{sh.freeRAM, sh.freeDiskMB, sh.vcpusUsed, sh.numInstances, sh.numIOOps}}
		r.retired = append(r.retired, rs)
	}
	r.reclaimLocked()
}

// reclaimLocked frees the retired columns no lease can reach.
func (r *recycler) reclaimLocked() {
	oldest := ^uint64(0)
	for v := range r.leases {
		oldest = min(oldest, v)
	}
	k := 0
	for ; k < len(r.retired) && r.retired[k].at <= oldest; k++ {
		rs := r.retired[k]
		if len(r.ints)+len(rs.ints) <= maxFree {
			r.ints = append(r.ints, rs.ints...)
		}
	}
	r.retired = append(r.retired[:0], r.retired[k:]...)
}

// cloneInts returns a copy of col, in a free column when there is one (a
// full shard's column only; r nil: always a fresh one).
func (r *recycler) cloneInts(col []int32) []int32 {
	if r != nil && len(col) == bitmap.ShardSize {
		r.mu.Lock()
		if n := len(r.ints); n > 0 {
			c := r.ints[n-1]
			r.ints = r.ints[:n-1]
			r.reused++
			r.mu.Unlock()
			copy(c, col)
			return c
		}
		r.mu.Unlock()
	}
	return append([]int32(nil), col...)
}
