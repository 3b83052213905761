package engine

import (
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// A shardKernel clears, in words (one shard of a candidate set), the bits
// of the hosts that fail a filter, reading the snapshot's columns of shard
// sh directly: one tight loop per 64 hosts, no call per host. It sees the
// snapshot's state only; applyFused re-tests the hosts of the batch's
// overlay.
type shardKernel func(b *batch, sh *shard, words []uint64)

func ramKernel(agg bool) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		ratio := &sh.ramRatio
		if agg {
			ratio = &sh.aggRAMRatio
		}
		kernels.RAMPass(words, &sh.totalRAM, sh.freeRAM, ratio, b.memMB)
	}
}

func coreKernel(agg bool) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		ratio := &sh.cpuRatio
		if agg {
			ratio = &sh.aggCPURatio
		}
		kernels.CorePass(words, &sh.vcpusTotal, sh.vcpusUsed, ratio, b.vcpus)
	}
}

func diskKernel(agg bool) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		ratio := &sh.diskRatio
		if agg {
			ratio = &sh.aggDiskRatio
		}
		kernels.DiskPass(words, &sh.totalDiskGB, sh.freeDiskMB, ratio, b.diskReqMB)
	}
}

// belowKernel keeps the hosts whose counter is below a limit: the
// configured one, or the per-host (aggregate) column when limits is set.
func belowKernel(counter func(*shard) []int64, limit func(*batch) int64, limits func(*shard) *kernels.Coded[int64]) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		if limits != nil {
			kernels.BelowPass(words, counter(sh), 0, limits(sh))
			return
		}
		kernels.BelowPass(words, counter(sh), limit(b), nil)
	}
}

// applyFused runs the kernels of run (column filters, in order) over set,
// every shard through all of them in one pass, re-testing after each the
// hosts of the overlay that were still in the set; it returns the number
// of hosts in the set after each filter.
func (b *batch) applyFused(set *bitmap.Set, run []*filterImpl) ([]int, error) {
	nShards := set.Shards()
	var touchedOf [][]uint32 // per shard, the overlay's hosts
	if len(b.touchedIDs) > 0 {
		touchedOf = make([][]uint32, nShards)
		for _, id := range b.touchedIDs {
			k := int(id >> bitmap.ShardBits)
			touchedOf[k] = append(touchedOf[k], id)
		}
	}
	counts := make([]int, nShards*len(run)) // counts[k*len(run)+x]
	err := bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
		words := set.ShardWordsOf(k)
		var mine []uint32
		if touchedOf != nil {
			mine = touchedOf[k]
		}
		was := make([]bool, len(mine))
		for x, f := range run {
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
			c := 0
			for _, w := range words {
				c += bits.OnesCount64(w)
			}
			counts[k*len(run)+x] = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ends := make([]int, len(run))
	for k := range nShards {
		for x := range run {
			ends[x] += counts[k*len(run)+x]
		}
	}
	return ends, nil
}
