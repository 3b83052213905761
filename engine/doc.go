// Package engine is placer's public API: host state and snapshots,
// requests and plans, Nova's filters and weighers, and PlaceBatch.
//
// A Snapshot is an immutable, columnar view of a cloud (one column per
// attribute, cut into shards of bitmap.ShardSize hosts, per-aggregate
// overrides already resolved per host, inverted indexes for categorical
// attributes). PlaceBatch places one request against it with the
// semantics of OpenStack Nova's FilterScheduler (see
// ../shared/NOVA-SEMANTICS.md): for each instance, filter the hosts still
// in play, weigh them, choose among the best host_subset_size with a seeded
// generator, consume the flavor on the chosen host in a private overlay,
// and go on. Only the hosts a placement changed are re-filtered for the
// next instance.
//
// Results are deterministic: the same snapshot, request and seed give the
// same plan, whatever the number of shards, goroutines or CPUs.
package engine
