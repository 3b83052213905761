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
// and go on. Only the hosts a placement changed are re-filtered and
// re-weighed for the next instance.
//
// Files, one concept each: snapshot.go (columns, shards, static host
// data), hostnames.go (host and node names, a node's kept only where it
// is not its host's), instances.go (the sorted instance and host-name
// indexes), uuidkey.go (uuids kept as their 16 bytes), hostmetrics.go
// (the metrics' columns), hvattrs.go (hypervisor attributes by index into
// their distinct values), hostip.go (host_ip as 4 bytes), usage.go (the
// int32 usage columns, and the hosts past them) and rawcols.go (the
// weighers' raw columns and their per-block summaries); batch.go (a
// PlaceBatch's overlay and group state); filters.go and kernels.go (the
// filter catalogue, fused column passes); weigh.go (the baseline
// weighing), dense.go and rank.go (the incremental rankers); place.go (the
// placement loop); store.go, delta.go, store_update.go and claim.go (the
// commit layer); changes.go (the Store's log of the hosts each commit
// changed); recycle.go (snapshot leases, and the reuse of the columns
// compactions replace); scheduler.go and metrics.go (the worker pool);
// warm.go (a worker's last batch, brought up to date for its next alike
// request).
// Static shard columns are internal/kernels.Coded: half a byte per host
// where a shard's column takes at most 16 values.
//
// Results are deterministic: the same snapshot, request and seed give the
// same plan, whatever the number of shards, goroutines or CPUs.
package engine
