package engine

import (
	"math/bits"
	"slices"

	"github.com/placer/placer/bitmap"
)

// A shardKernel clears, in words (shard k of a candidate set), the bits
// of the hosts that fail a filter, reading the snapshot's columns of the
// shard directly: one tight loop per 64 hosts, no call per host. It sees
// the snapshot's state only, unless its stage says otherwise (see stage).
type shardKernel func(b *batch, k int, words []uint64)

// stage is one filter of a fused run in the form it takes for the batch's
// request: a mask ANDed into the set (nil: every host passes it), then a
// kernel (nil: none). retest, when set, re-tests after the kernel the
// hosts of the batch's overlay that were in the set before it (the kernel
// read the snapshot's columns, not their usage now); a kernel without
// retest judges them itself.
type stage struct {
	f      *filterImpl
	mask   *bitmap.Set
	kernel shardKernel
	// fit, for a resource filter, holds its verdicts kept across batches,
	// which the pass uses in place of kernel (fitcache.go).
	fit    *fitEntry
	retest func(b *batch, id uint32) (bool, error)
}

// stageOf returns f's stage for b's request, or false when f must run
// through its apply (it has no column form, or a Nova exception may
// surface from it for this request).
func (b *batch) stageOf(f *filterImpl) (stage, bool) {
	switch {
	case f.kernel != nil:
		return stage{f: f, kernel: f.kernel, fit: b.fitEntryOf(f), retest: f.host}, true
	case f.mask != nil:
		return stage{f: f, mask: f.mask(b)}, true
	case f.plan != nil:
		st, ok := f.plan(b)
		st.f = f
		return st, ok
	}
	return stage{}, false
}

// applyFused runs the stages of run, in order, over set in one pass:
// every shard goes through all of them, ANDing a stage's mask, running its
// kernel and then re-testing the hosts of the overlay that were still in
// the set; consecutive resource filters (no mask between) run their
// kernels one after the other and re-test those hosts once, against all
// of their rules (fitsAll). Counted (count), it returns the number of
// hosts in the set before the run and after each stage (every stage
// re-tests its own then); else nothing but an error.
func (b *batch) applyFused(set *bitmap.Set, run []stage, count bool) (int, []int, error) {
	nShards := set.Shards()
	touched, off, was := b.overlayByShard(nShards)
	stride := len(run) + 1
	var counts []int // counts[k*stride+x+1]: after run[x]
	if count {
		counts = make([]int, nShards*stride)
	}
	err := bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
		words := set.ShardWordsOf(k)
		mine, was := touched[off[k]:off[k+1]], was[off[k]:off[k+1]]
		if count {
			counts[k*stride] = popCount(words)
		}
		for x := 0; x < len(run); x++ {
			st := &run[x]
			if st.mask != nil {
				andWords(words, st.mask.ShardWordsOf(k))
			}
			if st.kernel != nil {
				if st.retest != nil {
					for i, id := range mine {
						was[i] = set.Has(id)
					}
				}
				y := x + 1 // the stages [x, y) run before the re-test
				if !count && st.f != nil && st.f.rule != nil {
					for y < len(run) && run[y].mask == nil && run[y].f != nil && run[y].f.rule != nil {
						y++
					}
				}
				for z := x; z < y; z++ {
					if st := &run[z]; st.fit != nil {
						st.fit.pass(b, k, words)
					} else {
						st.kernel(b, k, words)
					}
				}
				switch {
				case y > x+1:
					group := run[x:y]
					_ = retestHosts(b, set, mine, was, func(b *batch, id uint32) (bool, error) { return fitsAll(b, id, group), nil })
					x = y - 1
				case st.retest != nil:
					if err := retestHosts(b, set, mine, was, st.retest); err != nil {
						return err
					}
				}
			}
			if count {
				counts[k*stride+x+1] = popCount(words)
			}
		}
		return nil
	})
	if err != nil || !count {
		return 0, nil, err
	}
	start, ends := 0, make([]int, len(run))
	for k := range nShards {
		start += counts[k*stride]
		for x := range run {
			ends[x] += counts[k*stride+x+1]
		}
	}
	return start, ends, nil
}

// overlayByShard returns the batch's overlay's hosts grouped by shard, in
// the overlay's order within each (a stable counting sort): shard k's are
// touched[off[k]:off[k+1]]; and as many flags, for applyFused to mark
// which of them a kernel may have judged on stale usage. All three are
// the batch's scratch, reused by its next call: a slice per shard grown
// by appends was a sixth of a realistic request's allocations.
func (b *batch) overlayByShard(nShards int) (touched []uint32, off []int32, was []bool) {
	sc, ids := b.sc, b.ov.ids
	off = slices.Grow(sc.touchedOff[:0], nShards+1)[:nShards+1]
	clear(off)
	for _, id := range ids {
		off[id>>bitmap.ShardBits+1]++
	}
	for k := range nShards {
		off[k+1] += off[k]
	}
	touched = slices.Grow(sc.touched[:0], len(ids))[:len(ids)]
	was = slices.Grow(sc.was[:0], len(ids))[:len(ids)]
	for _, id := range ids {
		k := id >> bitmap.ShardBits
		touched[off[k]] = id
		off[k]++
	}
	copy(off[1:], off[:nShards]) // each off[k] was shard k's end
	off[0] = 0
	sc.touched, sc.touchedOff, sc.was = touched, off, was
	return touched, off, was
}

// fitsAll reports whether host id fits the rule of every stage of run
// (consecutive resource filters) with its usage now, read once: what
// re-testing it after each stage makes of it (a stage's re-test sets a
// host's bit to its verdict, and a host out of the set is not re-tested),
// since a resource filter's re-test neither fails nor changes anything.
func fitsAll(b *batch, id uint32, run []stage) bool {
	sh, j := b.s.at(id)
	r := b.cur(id)
	for x := range run {
		if !run[x].f.rule.fits(sh, j, &r, &b.claim, b.cfg) {
			return false
		}
	}
	return true
}

// retestHosts re-tests with test the hosts of ids that was marks (those in
// set before a kernel ran), in order, setting their bits to the verdict.
func retestHosts(b *batch, set *bitmap.Set, ids []uint32, was []bool, test func(*batch, uint32) (bool, error)) error {
	for i, id := range ids {
		if !was[i] {
			continue
		}
		ok, err := test(b, id)
		if err != nil {
			return err
		}
		if ok {
			set.Add(id)
		} else {
			set.Remove(id)
		}
	}
	return nil
}

// popCount is the number of bits set in words.
func popCount(words []uint64) int {
	c := 0
	for _, w := range words {
		c += bits.OnesCount64(w)
	}
	return c
}

// andWords ANDs m into words (the same length).
func andWords(words, m []uint64) {
	m = m[:len(words)]
	for q := range words {
		words[q] &= m[q]
	}
}
