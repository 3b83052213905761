package engine

import "github.com/placer/placer/bitmap"

// A shardKernel clears, in words (one shard of a candidate set), the bits
// of the hosts that fail a filter, reading the snapshot's columns of shard
// sh directly: one tight loop per 64 hosts, no call per host. It sees the
// snapshot's state only; applyColumns re-tests the hosts this batch has
// consumed on.
type shardKernel func(b *batch, sh *shard, words []uint64)

// applyColumns runs a column kernel over every shard of set (in parallel),
// then re-tests with pass the hosts whose state the batch's overlay
// changed.
func applyColumns(kernel shardKernel, pass func(*batch, uint32) (bool, error)) func(*batch, *bitmap.Set) error {
	return func(b *batch, set *bitmap.Set) error {
		var retest []uint32
		for _, id := range b.touchedIDs {
			if set.Has(id) {
				retest = append(retest, id)
			}
		}
		err := bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
			kernel(b, b.s.shards[k], set.ShardWordsOf(k))
			return nil
		})
		if err != nil {
			return err
		}
		for _, id := range retest {
			ok, err := pass(b, id)
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
}

// forWords calls keep for every word of words holding a candidate and
// masks the word with the bits keep returns for hosts [lo, hi) of the
// shard.
func forWords(words []uint64, n int, keep func(lo, hi int) uint64) {
	for wi, w := range words {
		if w == 0 {
			continue
		}
		lo := wi * 64
		words[wi] = w & keep(lo, min(lo+64, n))
	}
}

func ramKernel(agg bool) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		ratio := sh.ramRatio
		if agg {
			ratio = sh.aggRAMRatio
		}
		req := b.memMB
		forWords(words, len(sh.freeRAM), func(lo, hi int) (keep uint64) {
			for j := lo; j < hi; j++ {
				if ramPasses(sh.totalRAM[j], sh.freeRAM[j], ratio[j], req) {
					keep |= 1 << (j - lo)
				}
			}
			return keep
		})
	}
}

func coreKernel(agg bool) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		ratio := sh.cpuRatio
		if agg {
			ratio = sh.aggCPURatio
		}
		req := b.vcpus
		forWords(words, len(sh.vcpusUsed), func(lo, hi int) (keep uint64) {
			for j := lo; j < hi; j++ {
				if corePasses(sh.vcpusTotal[j], sh.vcpusUsed[j], ratio[j], req) {
					keep |= 1 << (j - lo)
				}
			}
			return keep
		})
	}
}

func diskKernel(agg bool) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		ratio := sh.diskRatio
		if agg {
			ratio = sh.aggDiskRatio
		}
		req := b.diskReqMB
		forWords(words, len(sh.freeDiskMB), func(lo, hi int) (keep uint64) {
			for j := lo; j < hi; j++ {
				if diskPasses(sh.totalDiskGB[j], sh.freeDiskMB[j], ratio[j], req) {
					keep |= 1 << (j - lo)
				}
			}
			return keep
		})
	}
}

// belowKernel keeps the hosts whose counter is below a limit: the
// configured one, or the per-host (aggregate) column when limits is set.
func belowKernel(counter func(*shard) []int64, limit func(*batch) int64, limits func(*shard) []int64) shardKernel {
	return func(b *batch, sh *shard, words []uint64) {
		c := counter(sh)
		var per []int64
		var fixed int64
		if limits != nil {
			per = limits(sh)
		} else {
			fixed = limit(b)
		}
		forWords(words, len(c), func(lo, hi int) (keep uint64) {
			for j := lo; j < hi; j++ {
				max := fixed
				if per != nil {
					max = per[j]
				}
				if c[j] < max {
					keep |= 1 << (j - lo)
				}
			}
			return keep
		})
	}
}
