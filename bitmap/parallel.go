package bitmap

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// ParallelMinHosts is the host count below which ForShards runs on the
// calling goroutine: under it, starting goroutines costs more than it saves.
const ParallelMinHosts = 2 * ShardSize

// ForShards calls fn(k) for every shard k of a set over n hosts. With at
// least ParallelMinHosts hosts the shards run in parallel: GOMAXPROCS
// goroutines each take the next shard until none is left (two goroutines,
// not one per shard, on this project's two-core machines); fn must only
// touch its own shard.
//
// The error is deterministic, whatever GOMAXPROCS: the error of the lowest
// shard that failed (a shard stops at its first error, so with fn walking
// its hosts in order that is the first failing host, as a sequential walk
// would find it), else ctx.Err() if the context ended (checked between
// shards), else nil.
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
	errs := make([]error, shards)
	var failed atomic.Int64 // lowest failed shard + 1, 0 while none failed
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		defer wg.Done()
		for {
			k := int(next.Add(1) - 1)
			if k >= shards {
				return
			}
			if f := failed.Load(); f != 0 && int(f-1) < k {
				continue // a lower shard failed: its error wins
			}
			if err := ctx.Err(); err != nil {
				errs[k] = err
				continue
			}
			if err := fn(k); err != nil {
				errs[k] = err
				for {
					f := failed.Load()
					if (f != 0 && int(f-1) < k) || failed.CompareAndSwap(f, int64(k+1)) {
						break
					}
				}
			}
		}
	}
	workers := min(procs, shards)
	wg.Add(workers)
	for range workers - 1 {
		go work()
	}
	work()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
