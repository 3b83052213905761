package bitmap

import (
	"context"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// ParallelMinHosts is the host count below which ForShards runs on the
// calling goroutine: under it, starting goroutines costs more than it saves.
const ParallelMinHosts = 2 * ShardSize

// ForShards calls fn(k) for every shard k of a set over n hosts. With at
// least ParallelMinHosts hosts the shards run in parallel: GOMAXPROCS
// goroutines each take the next shard until none is left (two goroutines,
// not one per shard, on this project's two-core machines); fn must only touch its own shard. The context is
// checked between shards; the first error (or ctx.Err()) is returned.
func ForShards(ctx context.Context, n int, fn func(k int) error) error {
	shards := (n + ShardSize - 1) / ShardSize
	procs := runtime.GOMAXPROCS(0)
	if n < ParallelMinHosts || procs == 1 || shards == 1 {
		for k := 0; k < shards; k++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(k); err != nil {
				return err
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	work := func() error {
		for {
			k := int(next.Add(1) - 1)
			if k >= shards {
				return nil
			}
			if err := gctx.Err(); err != nil {
				return err
			}
			if err := fn(k); err != nil {
				return err
			}
		}
	}
	for range min(procs, shards) - 1 {
		g.Go(work)
	}
	g.Go(work)
	return g.Wait()
}
