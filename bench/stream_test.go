package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// streamRequests is how many requests of a profile's stream
// BenchmarkRequestStream cycles through.
const streamRequests = 512

// BenchmarkRequestStream places the request stream of a synth profile
// (basic: placer simulate's, as StreamRealistic; rich: the whole filter
// catalogue) on one snapshot of its 50,000-host cloud, with no Store and
// no Scheduler: the cost of filtering and ranking varied requests, apart
// from commits and snapshot derivation. op=filter is instance 0's filter
// pass of each request (FilterHostsInto), op=place its whole PlaceBatch.
// One op is one request, cycling through the first streamRequests of the
// stream; a request answered NoValidHost, or with a Nova exception,
// counts as done. It reports requests/s and, for op=place,
// placements/s.
func BenchmarkRequestStream(b *testing.B) {
	const hosts = 50000
	for _, profile := range []string{synth.Basic, synth.Rich} {
		for _, op := range []string{"filter", "place"} {
			b.Run(fmt.Sprintf("profile=%s/op=%s/hosts=%d", profile, op, hosts), func(b *testing.B) {
				benchRequestStream(b, profile, op, hosts)
			})
		}
	}
}

// streamSnaps caches a profile's snapshot and requests per process.
var streamSnaps = map[string]struct {
	snap *engine.Snapshot
	reqs []engine.Request
}{}

func benchRequestStream(b *testing.B, profile, op string, hosts int) {
	ctx := context.Background()
	key := fmt.Sprint(profile, hosts)
	cloudMu.Lock()
	c, ok := streamSnaps[key]
	if !ok {
		gen := synth.New(synth.Options{Hosts: hosts, Seed: 1, Profile: profile})
		c.reqs = gen.Requests(streamRequests)
		snap, err := engine.NewSnapshot(gen.Cloud())
		if err != nil {
			cloudMu.Unlock()
			b.Fatal(err)
		}
		c.snap = snap
		streamSnaps[key] = c
	}
	cloudMu.Unlock()
	dst := bitmap.NewSet(c.snap.Len())
	placed := 0
	run := func(k int) error {
		req := c.reqs[k%len(c.reqs)]
		var err error
		if op == "filter" {
			_, err = engine.FilterHostsInto(ctx, c.snap, req, dst)
		} else {
			var plan engine.Plan
			plan, err = engine.PlaceBatch(ctx, c.snap, req)
			placed += len(plan.Placements)
		}
		var nerr *engine.NovaError
		if errors.Is(err, engine.ErrNoValidHost) || errors.As(err, &nerr) {
			return nil
		}
		return err
	}
	// One round untimed: the memoised masks of the stream's requests are
	// what a long-running Store holds.
	for k := range c.reqs {
		if err := run(k); err != nil {
			b.Fatalf("request %d: %v", k, err)
		}
	}
	placed = 0
	runtime.GC() // the setup's garbage is not the timed loop's
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		if err := run(k); err != nil {
			b.Fatalf("request %d: %v", k%len(c.reqs), err)
		}
		k++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	if op == "place" {
		b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "placements/s")
	}
}
