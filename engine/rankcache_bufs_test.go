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
		rk := &denseRanker{v: rankView{b: &batch{s: s}}, act: []int{0}, lo: []float64{0}, hi: []float64{bound}, score: make([]float64, s.n)}
		for i := range rk.score {
			rk.score[i] = bound
		}
		return rk
	}
	holds := func(e *scoreEntry, bound float64) bool {
		for _, b := range e.scores {
			if slices.ContainsFunc(b.w, func(x float64) bool { return x != bound }) {
				return false
			}
		}
		return len(e.scores) == len(s.shards)
	}

	cache.store(ranker(1), s, nil)
	read := cache.lookup(ranker(1))
	if read == nil || !holds(read, 1) {
		t.Fatal("the stored rescoring is not found with its weights")
	}
	// Evict it (maxScoreEntries newer ones) while it is read, and let the
	// newer ones take whatever buffers are free.
	for b := 2.0; b < 2+2*maxScoreEntries; b++ {
		cache.store(ranker(b), s, nil)
	}
	if !read.evicted || !holds(read, 1) {
		t.Fatalf("an evicted entry still read: evicted %v, weights kept %v", read.evicted, holds(read, 1))
	}
	reused := cache.reused
	cache.release(read)
	if read.scores != nil {
		t.Fatal("the last reader's release left the evicted entry holding its buffers")
	}
	cache.store(ranker(100), s, nil)
	if cache.reused-reused != len(s.shards) {
		t.Fatalf("%d buffers reused after the release, want %d", cache.reused-reused, len(s.shards))
	}

	// A newer entry sharing a kept one's buffers: evicting the kept one
	// (it matches the newer one's bounds) leaves them to the newer.
	kept := cache.lookup(ranker(100))
	rk := ranker(100)
	cache.store(rk, s, kept) // every shard shared: the snapshot is the same
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
}
