package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/placer/placer/engine"
)

// BenchmarkScheduler runs 10-instance requests through a Scheduler over a
// Store of the 50,000-host basic cloud, with 1 to 16 workers (and twice as
// many submitters, so the queue never runs dry). One op is one request,
// committed. It reports placements/s (instances committed per second of
// wall time), retries/req (conflict retries per request) and warm/req
// (placements started from the worker's previous batch, per request).
func BenchmarkScheduler(b *testing.B) { benchScheduler(b, false) }

// BenchmarkSchedulerColdStart is BenchmarkScheduler with every placement
// made from scratch (SchedulerOptions.ColdStart): its baseline.
func BenchmarkSchedulerColdStart(b *testing.B) { benchScheduler(b, true) }

func benchScheduler(b *testing.B, cold bool) {
	const hosts, instances = 50000, 10
	for _, workers := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("hosts=%d/workers=%d", hosts, workers), func(b *testing.B) {
			store, err := engine.NewStore(Cloud(hosts, FiltersDefault), engine.StoreOptions{})
			if err != nil {
				b.Fatal(err)
			}
			sc := engine.NewScheduler(store, engine.SchedulerOptions{Workers: workers, ColdStart: cold})
			defer sc.Close()
			ctx := context.Background()
			var seq atomic.Int64
			request := func() engine.Request {
				r := Request(instances, FiltersDefault)
				n := seq.Add(1)
				for k := range instances {
					r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("bench-%d-%d", n, k))
				}
				return r
			}
			if plan, err := sc.Place(ctx, request()); err != nil || len(plan.Placements) != instances {
				b.Fatalf("warm-up request: %d placements, %v", len(plan.Placements), err)
			}
			before := sc.Stats()
			runtime.GC() // the setup's garbage is not the timed loop's
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			var next atomic.Int64
			var wg sync.WaitGroup
			for range 2 * workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if _, err := sc.Place(ctx, request()); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			st := sc.Stats()
			b.ReportMetric(float64(st.Instances-before.Instances)/elapsed.Seconds(), "placements/s")
			b.ReportMetric(float64(st.ConflictRetries-before.ConflictRetries)/float64(b.N), "retries/req")
			b.ReportMetric(float64(st.WarmStarts-before.WarmStarts)/float64(b.N), "warm/req")
		})
	}
}
