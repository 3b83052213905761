package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/placer/placer/bitmap"
)

// TestScoreBufLifecycle drives a lineage's scoreCache by hand: an entry
// evicted while a batch still reads it keeps its weights (its buffers
// are not reused) until the batch releases it; then they are, and
// buffers an entry shares with a newer one survive its eviction.
func TestScoreBufLifecycle(t *testing.T) {
	c := Cloud{Config: DefaultConfig()}
	for i := range bitmap.ShardSize + 100 { // two shards
		c.Hosts = append(c.Hosts, Host{Host: fmt.Sprintf("h%05d", i), MemoryMB: 1024, FreeRAMMB: 1024, VCPUs: 1, LocalGB: 10, FreeDiskGB: 10})
	}
	s, err := NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	cache := &scoreCache{}
	ranker := func(bound float64) *denseRanker {
		return &denseRanker{v: rankView{b: &batch{s: s}}, act: []int{0}, lo: []float64{0}, hi: []float64{bound}}
	}
	// weighed is a rescoring's buffers of every shard of snap, each from
	// the cache (as rescoreAll takes them) and holding bound.
	weighed := func(snap *Snapshot, bound float64) [][]float64 {
		fresh := make([][]float64, len(snap.shards))
		for k, sh := range snap.shards {
			fresh[k] = cache.buffer()[:sh.hostCount()]
			for i := range fresh[k] {
				fresh[k][i] = bound
			}
		}
		return fresh
	}
	store := func(bound float64) {
		cache.release(cache.store(ranker(bound), s, nil, weighed(s, bound)))
	}
	holds := func(e *scoreEntry, bound float64) bool {
		for _, b := range e.scores {
			if slices.ContainsFunc(b.w, func(x float64) bool { return x != bound }) {
				return false
			}
		}
		return len(e.scores) == len(s.shards)
	}

	read := cache.store(ranker(1), s, nil, weighed(s, 1)) // read by the rescoring that stored it
	if cache.lookup(ranker(1)) != read || !holds(read, 1) {
		t.Fatal("the stored rescoring is not found with its weights")
	}
	cache.release(read) // the lookup's read
	// Evict it (maxScoreEntries newer ones) while it is read, and let the
	// newer ones take whatever buffers are free.
	for b := 2.0; b < 2+2*maxScoreEntries; b++ {
		store(b)
	}
	if !read.evicted || !holds(read, 1) {
		t.Fatalf("an evicted entry still read: evicted %v, weights kept %v", read.evicted, holds(read, 1))
	}
	reused := cache.reused
	cache.release(read)
	if read.scores != nil {
		t.Fatal("the last reader's release left the evicted entry holding its buffers")
	}
	store(100)
	if cache.reused-reused != len(s.shards) {
		t.Fatalf("%d buffers reused after the release, want %d", cache.reused-reused, len(s.shards))
	}

	// A newer entry sharing a kept one's buffers: evicting the kept one
	// (it matches the newer one's bounds) leaves them to the newer.
	kept := cache.lookup(ranker(100))
	rk := ranker(100)
	cache.release(cache.store(rk, s, kept, make([][]float64, len(s.shards)))) // every shard shared: the snapshot is the same
	cache.release(kept)
	if kept.scores != nil {
		t.Fatal("the replaced entry holds its buffers after its release")
	}
	got := cache.lookup(ranker(100))
	if got == nil || got == kept || !holds(got, 100) {
		t.Fatal("the newer entry lost the weights it shares")
	}
	for _, b := range got.scores {
		if b.refs != 1 {
			t.Fatalf("a shared buffer counts %d holders, want 1", b.refs)
		}
	}
	cache.release(got)

	// A rescoring on a later snapshot that shares shard 0 (and has a
	// shard 1 of its own, as after a compaction) stores an entry sharing
	// the kept one's shard-0 buffer and taking shard 1's new one;
	// releasing the replaced entry frees only its shard-1 buffer.
	later := s.derive()
	sh1 := *s.shards[1]
	sh1.id = newShardID() // a copy, as cloneUsage makes it
	later.shards[1] = &sh1
	cache = &scoreCache{}
	store(1)
	kept = cache.lookup(ranker(1))
	rk = ranker(1)
	rk.v = rankView{b: &batch{s: later}}
	fresh := weighed(later, 7)
	fresh[0] = nil // read from kept; shard 1's weights are fresh
	got = cache.store(rk, later, kept, fresh)
	cache.release(got)
	if got.scores[0] != kept.scores[0] || got.scores[1] == kept.scores[1] {
		t.Fatal("the later entry does not share shard 0 alone with the kept one")
	}
	if got.scores[0].refs != 2 || got.scores[1].refs != 1 || kept.scores[1].refs != 1 {
		t.Fatalf("holders before the release: shared %d, fresh %d, replaced %d; want 2, 1, 1",
			got.scores[0].refs, got.scores[1].refs, kept.scores[1].refs)
	}
	old1 := kept.scores[1]
	free := len(cache.free)
	cache.release(kept)
	if got.scores[0].refs != 1 || old1.refs != 0 || len(cache.free) != free+1 {
		t.Fatalf("after the release: shared buffer held %d times, replaced %d, free list %d (was %d)",
			got.scores[0].refs, old1.refs, len(cache.free), free)
	}
	for k, want := range []float64{1, 7} {
		if w := got.scores[k].w; len(w) != s.shards[k].hostCount() || slices.ContainsFunc(w, func(x float64) bool { return x != want }) {
			t.Fatalf("the later entry's shard %d does not hold its weights (%v)", k, want)
		}
	}
}
