package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// Request streams of the Scheduler benchmarks.
const (
	// StreamUniform is one request again and again: 10 instances of
	// m1.small, no zone, image, extra specs, group or hint (Request with
	// the default filters), fresh uuids each time. After the first, every
	// placement is a worker's warm start.
	StreamUniform = "uniform"
	// StreamRealistic is the request stream placer simulate draws from
	// internal/synth (basic profile, seed 1): 1-20 instances of mixed
	// flavors, zones, images, capability and aggregate extra specs,
	// JsonFilter queries, server groups, hints, ignored and forced hosts
	// and requested destinations; no external updates.
	StreamRealistic = "realistic"
)

// BenchmarkScheduler runs a request stream through a Scheduler over a
// Store of the 50,000-host basic cloud, with 1 to 16 workers (and twice as
// many submitters, so the queue never runs dry). One op is one request,
// committed or answered NoValidHost. It reports placements/s (instances
// committed per second of wall time), retries/req (conflict retries per
// request), warm/req (placements started from the worker's previous
// batch, per request), novalid/req (requests answered NoValidHost) and
// conflictfail/req (requests whose retry budget ran out: a request, like
// NoValidHost, the Scheduler answered; they appear as the cloud fills,
// when every worker's best hosts are the same few, at long -benchtime).
func BenchmarkScheduler(b *testing.B) { benchScheduler(b, false) }

// BenchmarkSchedulerColdStart is BenchmarkScheduler with every placement
// made from scratch (SchedulerOptions.ColdStart): its baseline.
func BenchmarkSchedulerColdStart(b *testing.B) { benchScheduler(b, true) }

func benchScheduler(b *testing.B, cold bool) {
	const hosts = 50000
	for _, stream := range []string{StreamUniform, StreamRealistic} {
		for _, workers := range []int{1, 2, 4, 8, 16} {
			name := fmt.Sprintf("stream=%s/hosts=%d/workers=%d", stream, hosts, workers)
			b.Run(name, func(b *testing.B) { runStream(b, stream, hosts, workers, cold) })
		}
	}
}

// streamSource is a stream's cloud and its requests, one per op.
type streamSource struct {
	cloud engine.Cloud
	// next returns the k-th request (0-based); requests are never
	// repeated, so that their instance uuids are new to the Store.
	next func(k int) engine.Request
}

// newStream returns the cloud and the first n requests of stream.
func newStream(b *testing.B, stream string, hosts, n int) streamSource {
	switch stream {
	case StreamUniform:
		const instances = 10
		return streamSource{cloud: Cloud(hosts, FiltersDefault), next: func(k int) engine.Request {
			r := Request(instances, FiltersDefault)
			for i := range instances {
				r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("bench-%d-%d", k, i))
			}
			return r
		}}
	case StreamRealistic:
		gen := synth.New(synth.Options{Hosts: hosts, Seed: 1, Profile: synth.Basic})
		reqs := gen.Requests(n)
		return streamSource{cloud: gen.Cloud(), next: func(k int) engine.Request { return reqs[k] }}
	}
	b.Fatalf("unknown stream %q", stream)
	return streamSource{}
}

func runStream(b *testing.B, stream string, hosts, workers int, cold bool) {
	// Request 0 warms the Scheduler up, untimed; requests 1..b.N are the
	// timed ops.
	src := newStream(b, stream, hosts, b.N+1)
	store, err := engine.NewStore(src.cloud, engine.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	sc := engine.NewScheduler(store, engine.SchedulerOptions{Workers: workers, ColdStart: cold})
	defer sc.Close()
	ctx := context.Background()
	place := func(k int) (engine.Plan, error) {
		plan, err := sc.Place(ctx, src.next(k))
		if errors.Is(err, engine.ErrNoValidHost) {
			return plan, nil
		}
		return plan, err
	}
	if _, err := place(0); err != nil {
		b.Fatalf("warm-up request: %v", err)
	}
	if sc.Stats().Instances == 0 && stream == StreamUniform {
		b.Fatal("warm-up request placed nothing")
	}
	before := sc.Stats()
	runtime.GC() // the setup's garbage is not the timed loop's
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var next, novalid, conflicts atomic.Int64
	var wg sync.WaitGroup
	for range 2 * workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1)
				if k > int64(b.N) {
					return
				}
				_, err := sc.Place(ctx, src.next(int(k)))
				switch {
				case errors.Is(err, engine.ErrNoValidHost):
					novalid.Add(1)
				case errors.Is(err, engine.ErrConflict):
					conflicts.Add(1)
				case err != nil:
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
	placed := st.Instances - before.Instances
	if placed == 0 {
		b.Fatal("the timed requests placed nothing")
	}
	b.ReportMetric(float64(placed)/elapsed.Seconds(), "placements/s")
	b.ReportMetric(float64(st.ConflictRetries-before.ConflictRetries)/float64(b.N), "retries/req")
	b.ReportMetric(float64(st.WarmStarts-before.WarmStarts)/float64(b.N), "warm/req")
	b.ReportMetric(float64(novalid.Load())/float64(b.N), "novalid/req")
	b.ReportMetric(float64(conflicts.Load())/float64(b.N), "conflictfail/req")
	if failed := st.ConflictFailures - before.ConflictFailures; failed != conflicts.Load() {
		b.Fatalf("the Scheduler counts %d conflict failures, the submitters saw %d", failed, conflicts.Load())
	}
}
