// Package bench holds placer's benchmarks: PlaceBatch at 1,000 to 100,000
// hosts for the engine and the reference implementation side by side, the
// filter and weigher passes, and the resident size of a snapshot. Clouds
// come from internal/synth (seeded, realistic) and are built once per case,
// before the timer; PlaceBatch never mutates its snapshot, so every
// operation starts from the same state.
//
//	go test ./bench -run '^$' -bench 'PlaceBatch/impl=engine/filters=default/hosts=50000'
//
// Names are key=value so that benchstat can slice them.
package bench
