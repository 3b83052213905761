// Package bench holds placer's benchmarks: PlaceBatch at 1,000 to 100,000
// hosts for the engine and the reference implementation side by side, the
// filter and weigher passes, and the resident size of a snapshot. Clouds
// come from internal/synth (seeded, realistic) and are built once per case,
// before the timer; PlaceBatch never mutates its snapshot, so every
// operation starts from the same state: a warm one, whose scratch pool
// holds the memory of an earlier batch. BenchmarkBatchStart times the
// first batch of a fresh snapshot (start=cold) beside that (start=warm);
// BenchmarkSnapshotMemory reports bytes per host before and after the
// snapshot has placed.
//
// BenchmarkFilterPass runs the filter pass at GOMAXPROCS 1 and 2 as two
// sub-benchmarks; BenchmarkFilterPassScaling interleaves the two in blocks
// within one benchmark and reports their ratio (speedup), the figure to
// trust on a shared machine whose speed drifts between one sub-benchmark
// and the next, and the ratio of the median passes (speedup-p50), which
// the passes a stalled second processor drags out do not move. Repeating
// one request on one snapshot, both AND the resource filters' verdicts
// kept from the first pass (engine/fitcache.go); their verdicts=judged
// cases ask for a new RAM and swap amount each op, so that RamFilter and
// DiskFilter run their column passes, as a flavor's first request does.
//
// BenchmarkStoreChange times a Store's host added, host removed and
// aggregate changed at 50,000 hosts, each a snapshot derived from the one
// it replaces (engine/derive.go), beside BenchmarkNewSnapshot's whole
// build of the same cloud.
//
// BenchmarkRequestStream places a synth profile's varied requests (basic:
// placer simulate's stream; rich: the whole filter catalogue) on one
// 50,000-host snapshot without a Store, op=filter the filter pass of each,
// op=place its whole PlaceBatch: the cost of varied requests apart from
// commits, after one untimed round has memoised the static filters'
// verdicts as a long-running Store's lineage holds them.
//
//	go test ./bench -run '^$' -bench 'PlaceBatch/impl=engine/filters=default/hosts=50000'
//
// Names are key=value so that benchstat can slice them.
package bench
