package engine

import (
	"math/bits"

	"github.com/placer/placer/bitmap"
)

// A shardKernel clears, in words (one shard of a candidate set), the bits
// of the hosts that fail a filter, reading the snapshot's columns of shard
// sh directly: one tight loop per 64 hosts, no call per host. It sees the
// snapshot's state only; applyFused re-tests the hosts of the batch's
// overlay.
type shardKernel func(b *batch, sh *shard, words []uint64)

// applyFused runs the filters of run (each with a mask or a kernel; see
// filterImpl), in order, over set in one pass: every shard goes through
// all of them, ANDing a mask's words or running a kernel and then
// re-testing the hosts of the overlay that were still in the set. It
// returns the number of hosts in the set before the run and after each
// filter; the masks are built before the pass.
func (b *batch) applyFused(set *bitmap.Set, run []*filterImpl) (int, []int, error) {
	nShards := set.Shards()
	var touchedOf [][]uint32 // per shard, the overlay's hosts
	if len(b.ov.ids) > 0 {
		touchedOf = make([][]uint32, nShards)
		for _, id := range b.ov.ids {
			k := int(id >> bitmap.ShardBits)
			touchedOf[k] = append(touchedOf[k], id)
		}
	}
	masks := make([]*bitmap.Set, len(run))
	for x, f := range run {
		if f.mask != nil {
			masks[x] = f.mask(b)
		}
	}
	stride := len(run) + 1
	counts := make([]int, nShards*stride) // counts[k*stride+x+1]: after run[x]
	err := bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
		words := set.ShardWordsOf(k)
		var mine []uint32
		if touchedOf != nil {
			mine = touchedOf[k]
		}
		was := make([]bool, len(mine))
		counts[k*stride] = popCount(words)
		for x, f := range run {
			if f.kernel == nil {
				if m := masks[x]; m != nil {
					andWords(words, m.ShardWordsOf(k))
				}
				counts[k*stride+x+1] = popCount(words)
				continue
			}
			for i, id := range mine {
				was[i] = set.Has(id)
			}
			f.kernel(b, b.s.shards[k], words)
			for i, id := range mine {
				if !was[i] {
					continue
				}
				ok, err := f.host(b, id)
				if err != nil {
					return err
				}
				if ok {
					set.Add(id)
				} else {
					set.Remove(id)
				}
			}
			counts[k*stride+x+1] = popCount(words)
		}
		return nil
	})
	if err != nil {
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
