package engine

import (
	"math"
	"slices"
	"sync"

	"github.com/placer/placer/bitmap"
)

// The dense ranker's full rescorings, kept across batches. A full
// rescoring (rescoreAll) weighs every host of every shard with the column
// kernels; what it writes for the hosts of shard k is a function of the
// shard's columns and multipliers, the snapshot's summary of the
// multipliers, the weighers it accumulates with Nova's bounds (lo, hi),
// a soft group's weigher by the term it adds to the hosts without a
// member (weighTerms), and MetricsWeigher's column alone (the
// exceptions, the hosts the batch consumed on and those of a soft group,
// are weighed one by one afterwards). Requests of one flavor and filter recipe tend to have the
// same candidates' extremes, hence the same bounds, from one request to
// the next; and a published shard never changes (commits add to the
// snapshot's delta, compactions copy the shards they cover). So a batch
// whose bounds are those of an earlier full rescoring reads the weights
// of every shard the two snapshots share from it, in place, instead of
// weighing them again (rescore.go: the ranker holds the entry while it
// reads it, and keeps the weights it sets afterwards, the exceptions',
// in score). A compaction's copy of a shard remembers its parent and the
// hosts whose usage it set (shard.parent, shard.changed), so a kept
// rescoring of the parent serves the copy too: its weights are copied
// and those hosts weighed again (derivedShard), as after each compaction (every ~70
// requests of the realistic stream) every kept rescoring's shards are
// parents.
//
// The cache lives in the snapshots' lineage (lineage.go). An entry holds
// the ids of the shards it was computed from (shard.id: a shard's columns
// never change once published, and a copy gets a new id), so a shard of a
// later snapshot with one of those ids is that shard, whose columns are
// what they were; the entry keeps no shard alive. An entry's weights are
// never modified once stored (only its bookkeeping: readers, eviction); a
// batch that weighs some shards afresh stores a new entry in place of the
// old one.
//
// A rescoring to be kept weighs the shards it does not read from an
// entry into buffers the new entry takes (8 bytes a host): fresh
// allocations were most of the bytes a placement allocated on the
// realistic stream, and the collector's work with them. The shards'
// weights are therefore held in scoreBufs counted by the entries that
// hold them (an evicted entry still being read, by a ranker that looked
// it up or stored it, keeps holding them): a buffer no entry holds goes
// to the cache's free list, and the next kept rescoring weighs into it.

// maxScoreEntries bounds the full rescorings kept per lineage: at most
// 16 x 8 bytes a host (6.4 MB at 50,000 hosts, about half the snapshot's
// columns), less where entries share shards. On the realistic stream,
// whose 5,000 requests have ~600 distinct bounds, 16 rather than 8
// entries weigh 34% fewer shards (+5% placements/s, paired runs on
// one CPU each); 32 weigh 42% fewer, for no further measurable gain.
const maxScoreEntries = 16

// scoreCache is a lineage's kept full rescorings, most recently used
// last.
//
// A rescoring is kept only from the second time its weighers and bounds
// turn up among the last len(seen) that missed (a doorkeeper, as in
// TinyLFU): keeping one is a copy of every weight it computed (8 bytes a
// host, into a buffer from the free list when it has one), and in a
// varied stream of requests most bounds are seen once and never again
// (the synthetic realistic stream: 60% of lookups miss).
type scoreCache struct {
	mu      sync.Mutex
	entries []*scoreEntry
	seen    [64]uint64 // keys (boundsKey) of recent misses, a ring
	next    int
	free    [][]float64 // buffers of bitmap.ShardSize weights no entry holds
	reused  int         // buffers taken from free (tests)
}

// maxFreeScoreBufs bounds a scoreCache's free list: two kept rescorings'
// worth at 50,000 hosts.
const maxFreeScoreBufs = 32

// scoreBuf is one shard's weights in kept rescorings, shared by the
// entries whose shard it is (refs of them, under scoreCache.mu; an evicted
// entry still read counts until its last reader releases it). Its
// weights are never written while refs > 0.
type scoreBuf struct {
	w    []float64
	refs int
}

// weighTerm is one weigher's part in what weigh writes: the weigher and
// its bounds' bits, or for a sparse weigher the bits of the term it adds
// to the hosts holding its default value (sparseTerm; lo is 1 to tell it
// apart, hi 0).
type weighTerm struct {
	w      int
	lo, hi uint64
}

// weighTerms appends to dst what weigh's output depends on of rk's
// weighers and bounds, in the order weigh accumulates them: the weighers
// it runs, with their bounds. A weigher whose values are all equal adds
// nothing and is left out; a sparse weigher counts by the term it adds to
// the hosts holding its default (left out when that is 0), since the
// others, its exceptions, are weighed one by one afterwards. So a request
// of a soft-affinity group, whose members' hosts are its only exceptions,
// shares the kept rescorings of requests without one.
func (rk *denseRanker) weighTerms(dst []weighTerm) []weighTerm {
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		switch {
		case !rk.weighs(a):
		case sparseWeigher(w):
			dst = append(dst, weighTerm{w: w, lo: 1, hi: math.Float64bits(sparseTerm(w, lo, hi))})
		default:
			dst = append(dst, weighTerm{w: w, lo: math.Float64bits(lo), hi: math.Float64bits(hi)})
		}
	}
	return dst
}

// boundsKey hashes what an entry is matched on but for the pointers (the
// MetricsWeigher column, the multiplier summary): a collision only keeps
// a rescoring that may not be needed again.
func boundsKey(rk *denseRanker) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) { h = (h ^ x) * 1099511628211 }
	var buf [numWeighers]weighTerm
	for _, t := range rk.weighTerms(buf[:0]) {
		mix(uint64(t.w))
		mix(t.lo)
		mix(t.hi)
	}
	return h
}

// admit reports whether a rescoring under rk's weighers and bounds,
// which missed the cache, is worth keeping: whether they missed already
// among the recent misses. It records them otherwise.
func (c *scoreCache) admit(rk *denseRanker) bool {
	k := boundsKey(rk)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.seen {
		if x == k {
			return true
		}
	}
	c.seen[c.next] = k
	c.next = (c.next + 1) % len(c.seen)
	return false
}

// scoreEntry is one full rescoring.
//
// Invariants: for every k < len(shards), scores[k].w is what weigh writes
// for the hosts of the shard whose id is shards[k] under terms (its
// weighers and bounds), metrics and mults, or, where the rescoring
// weighed shard k's few candidates alone (weighSparse), shards[k] is 0
// (no shard's id: the entry holds no weights there) and scores[k] nil.
// A buffer is never written while an entry holds it, so that a later
// entry shares the buffers of the shards it copied. The entry holds its buffers (counts in
// their refs) from store until it is evicted and has no reader (readers:
// the lookups and stores not yet released, a ranker reading its buffers
// in place among them; both under scoreCache.mu). A Scheduler worker's
// kept batch holds the entry it read until its next full rescoring, so
// beyond the maxScoreEntries entries, up to one evicted entry per worker
// may still hold its buffers.
type scoreEntry struct {
	mults   multipliers
	terms   []weighTerm
	metrics *metricsCol
	shards  []uint64 // shard ids
	scores  []*scoreBuf
	readers int
	evicted bool
}

// matches reports whether e was computed under o's weighers and bounds
// (their weighTerms, bit for bit: a signed zero or a NaN bound weighs as
// itself), MetricsWeigher column and multiplier summary.
func (e *scoreEntry) matches(o *scoreEntry) bool {
	return e.metrics == o.metrics && e.mults == o.mults && slices.Equal(e.terms, o.terms)
}

// lookup returns the entry computed under rk's weighers and bounds (nil:
// none), made the most recently used. The caller reads it until it calls
// release.
func (c *scoreCache) lookup(rk *denseRanker) *scoreEntry {
	var buf [numWeighers]weighTerm
	probe := scoreEntry{mults: rk.v.snap().mults, metrics: rk.metrics, terms: rk.weighTerms(buf[:0])}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.matches(&probe) {
			c.entries = append(slices.Delete(c.entries, i, i+1), e)
			e.readers++
			return e
		}
	}
	return nil
}

// release ends a read of e that lookup or store began (nil: none).
func (c *scoreCache) release(e *scoreEntry) {
	if e == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.readers--; e.evicted && e.readers == 0 {
		c.dropLocked(e)
	}
}

// evictLocked takes e out of the entries' reckoning: its buffers are let
// go now, or by the release of its last reader.
func (c *scoreCache) evictLocked(e *scoreEntry) {
	e.evicted = true
	if e.readers == 0 {
		c.dropLocked(e)
	}
}

// dropLocked lets go of e's buffers; those no other entry holds go to the
// free list (while it has room).
func (c *scoreCache) dropLocked(e *scoreEntry) {
	for _, b := range e.scores {
		if b == nil { // a shard the entry does not hold
			continue
		}
		if b.refs--; b.refs == 0 && len(c.free) < maxFreeScoreBufs {
			c.free = append(c.free, b.w[:0])
		}
	}
	e.scores = nil
}

// buffer returns an empty buffer for a shard's weights, from the free list
// first.
func (c *scoreCache) buffer() []float64 {
	c.mu.Lock()
	if n := len(c.free); n > 0 {
		w := c.free[n-1]
		c.free = c.free[:n-1]
		c.reused++
		c.mu.Unlock()
		return w
	}
	c.mu.Unlock()
	return make([]float64, 0, bitmap.ShardSize)
}

// store keeps rk's full rescoring of the shards of snapshot s (before its
// exceptions), in place of any entry under the same weighers and bounds,
// and returns it with the caller as its reader (release ends the read).
// fresh[k] holds the weights of shard k when the rescoring weighed it (a
// buffer from buffer, which the entry takes), and is nil when it read
// them from kept (its entry, nil when none; the caller has not released
// it yet): the new entry shares kept's buffer then.
func (c *scoreCache) store(rk *denseRanker, s *Snapshot, kept *scoreEntry, fresh [][]float64) *scoreEntry {
	e := &scoreEntry{
		mults: s.mults, terms: rk.weighTerms(nil),
		metrics: rk.metrics, shards: make([]uint64, len(s.shards)), scores: make([]*scoreBuf, len(s.shards)),
		readers: 1,
	}
	for k, sh := range s.shards {
		e.shards[k] = sh.id
		if fresh[k] != nil {
			e.scores[k] = &scoreBuf{w: fresh[k]}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, b := range e.scores {
		if b == nil {
			if !kept.has(s, k) { // weighed for its candidates only (weighSparse): not kept
				e.shards[k] = 0 // no shard's id
				continue
			}
			b = kept.scores[k] // held by kept, which the caller still reads
			e.scores[k] = b
		}
		b.refs++
	}
	c.entries = slices.DeleteFunc(c.entries, func(o *scoreEntry) bool {
		if o.matches(e) {
			c.evictLocked(o)
			return true
		}
		return false
	})
	if len(c.entries) >= maxScoreEntries {
		c.evictLocked(c.entries[0])
		c.entries = slices.Delete(c.entries, 0, 1)
	}
	c.entries = append(c.entries, e)
	return e
}

// derivedShard copies into score the weights of shard k of s from e when
// e was computed from the shard it was compacted from (its parent), and
// weighs again the hosts the compaction changed (rk.weighHosts), reporting
// whether it did: every other host's columns are its parent's.
func (e *scoreEntry) derivedShard(rk *denseRanker, s *Snapshot, k int, score []float64) bool {
	sh := s.shards[k]
	if e == nil || k >= len(e.shards) || sh.parent == 0 || e.shards[k] != sh.parent {
		return false
	}
	copy(score, e.scores[k].w)
	rk.weighHosts(k, sh.changed, score)
	return true
}

// has reports whether e holds the weights of shard k of s: whether it was
// computed from that very shard.
func (e *scoreEntry) has(s *Snapshot, k int) bool {
	return e != nil && k < len(e.shards) && e.shards[k] == s.shards[k].id
}
