// Package engine is placer's public API: host state and snapshots,
// requests and plans, Nova's filters and weighers, and PlaceBatch.
//
// A Snapshot is an immutable, columnar view of a cloud (one column per
// attribute, cut into shards of bitmap.ShardSize hosts, per-aggregate
// overrides already resolved per host, inverted indexes for categorical
// attributes). PlaceBatch places one request against it with the
// semantics of OpenStack Nova's FilterScheduler (see
// docs/nova-semantics.md): for each instance, filter the hosts still
// in play, weigh them, choose among the best host_subset_size with a seeded
// generator, consume the flavor on the chosen host in a private overlay,
// and go on. Only the hosts a placement changed are re-filtered and
// re-weighed for the next instance. A Store publishes snapshots and
// commits plans under optimistic concurrency; a Scheduler is a pool of
// workers placing and committing on a Store.
//
// Results are deterministic: the same snapshot, request and seed give the
// same plan, whatever the number of shards, goroutines or CPUs.
//
// # Layers
//
// The package is one package, not several: filters, rankers, the
// placement loop and commits share the batch, the shards and the overlay.
// Its files stand in seven layers instead, each using the declarations of
// its own layer and of the layers below; a use of a layer above is the
// exception, counted. The layering test (layering_test.go) reads this
// list and holds the files to it: every file in one layer, at most 8
// levels deep, at most 10 uses running up a layer, none over 500 lines.
//
//  1. Values and errors: config.go, request.go, plan.go, cloud.go, weighers.go, errors.go, validate.go, limits.go
//  2. Column types: hostinfo.go, memo.go, ironic.go
//  3. The snapshot: snapshot.go, grouptable.go, placedsince.go, shard.go, usage.go, delta.go, rawcols.go, summaryupdate.go, resources.go, capacity.go, scratch.go, recycle.go, build.go, summarise.go, buildkeys.go, aggclasses.go, derive.go
//  4. Filters and rankers: batch.go, group.go, hostattrs.go, filters.go, masks.go, verdict.go, statickeys.go, attrfilters.go, capfilter.go, cidrfilter.go, jsoncols.go, intattrs.go, fused.go, weigh.go, collector.go, recency.go, rank.go, rankview.go, baseline.go, lineage.go, rankcache.go, fitcache.go, dense.go, denseraw.go, blockstats.go, lazybounds.go, modelbounds.go, trees.go, scaled.go, rescore.go, search.go
//  5. The placement loop: chain.go, place.go, evaluate.go, chance.go, explain.go, explain_reasons.go, whatif.go
//  6. Commits and metrics: store.go, commit.go, store_update.go, joined.go, validate_changes.go, committed.go, changes.go, metrics.go, backend.go, external.go, whatif_store.go
//  7. The scheduler: scheduler.go, jobqueue.go, warm.go, caching.go
//
// The column types are the package engine/internal/hostcols (compact,
// read-only per-host columns that import nothing from engine), and
// hostinfo.go, the static per-host data kept in them.
//
// # Files
//
// Values and errors, what callers build and get back:
//   - config.go: the filter and weigher names, the catalogues, Config and Nova's defaults.
//   - request.go: Request and its parts (flavor, image, server group, hints).
//   - plan.go: Plan, Placement, Claim and Limits, what PlaceBatch returns.
//   - cloud.go: Cloud, Host and Aggregate, what a snapshot is built from.
//   - weighers.go: the weigher indexes and what each weigher is (its multiplier's name, whether it reads a column).
//   - errors.go: the errors of a placement (NoValidHost, metric not found, Nova's exceptions) and ErrNotFound.
//   - validate.go: ValidationError and the checks of clouds, configurations and requests.
//   - limits.go: the bounds of the numbers a cloud and a request carry (MaxMB, MaxGB, MaxRatio, MaxFactor, MaxInstances).
//
// Column types:
//   - hostinfo.go: hostInfo, the static per-host data (names, instances, hypervisor attributes, aggregate classes) in hostcols columns, and its accessors.
//   - memo.go: memoTable, what a hostInfo memoises for the static filters (masks, verdicts, indexes), least recently used first out.
//   - ironic.go: the ironic host manager's nodes and their instance dicts of their own (instance keys).
//
// The snapshot:
//   - snapshot.go: Snapshot, its invariants and accessors, and derive, the copy a Store publishes.
//   - grouptable.go: the server-group members a Store committed, in a persistent hash trie (a commit copies one path).
//   - placedsince.go: the instances a Store committed or released since the instance lists were built, for the hints' lookups by uuid.
//   - shard.go: a shard's columns and the weigher multipliers' summary.
//   - usage.go: a host's usage (hostRes), consuming a claim (an ironic node whole), the int32 usage columns, and the usages over them: a commit's pending usage and a batch's overlay.
//   - delta.go: the snapshot's usage delta and its compaction into shard copies.
//   - rawcols.go: the column weighers' raw values as the kernels read them, and their per-block summaries.
//   - summaryupdate.go: a compaction's block summaries, brought up to date from the changed hosts instead of summarised again.
//   - resources.go: Nova's resource filters as one rule each, read by the filters, the commit check and the capacity.
//   - capacity.go: the public usage and capacity of a host and the cloud's utilization.
//   - scratch.go: the reusable memory of a PlaceBatch and the snapshot's pool of it.
//   - recycle.go: the reuse of the usage columns compactions replace.
//   - build.go: NewSnapshot, building a snapshot from a Cloud (its host data and its shards).
//   - summarise.go: the shards' multipliers' summary (each weigher's most common multiplier and the hosts off it), set only on the shards a build makes.
//   - buildkeys.go: the keys NewSnapshot interns hosts' stats and hypervisor signatures by.
//   - aggclasses.go: aggregate classes (hosts in one set of aggregates): grouping the hosts, what a class resolves (the limits' sources, the values a build resolves once per class), and whether two builds resolve the same.
//   - derive.go: a Store's rebuild copies what the build parses of the hosts it keeps from the snapshot it replaces, and keeps the leading shards whose hosts keep their ids; with the same hosts, it shares their columns, and keeps every shard when the classes resolve the same values.
//
// Filters and rankers:
//   - batch.go: batch, the private state of one PlaceBatch, its reset and consumption.
//   - group.go: the server group as a batch changes it, and the group filters.
//   - hostattrs.go: the host view Nova's JsonFilter and capability checks read.
//   - filters.go: the filter catalogue and how a filter runs over a set.
//   - masks.go: the static filters' host masks, memoised per snapshot lineage.
//   - verdict.go: a static filter's verdict (the hosts that pass, those where Nova raises), judged once per distinct value and memoised.
//   - statickeys.go: a host's static values as a small key, so that an outcome depending on them alone is judged once per key (once per code of the lead column where that code decides it, as a set cpu_info does for a capability spec).
//   - attrfilters.go: the filters reading what a host reports (image properties, capabilities, JsonFilter, isolated hosts).
//   - capfilter.go: ComputeCapabilitiesFilter spec by spec: static specs as verdicts, usage integers as column passes.
//   - cidrfilter.go: SimpleCIDRAffinityFilter through an index of the hosts' IPv4 addresses.
//   - jsoncols.go: JsonFilter's query compiled to column predicates and memoised static parts.
//   - intattrs.go: integer capabilities judged on the columns.
//   - fused.go: one pass over the shards running a run of mask and column filters, consecutive resource filters re-testing the overlay's hosts once.
//   - weigh.go: the weighers' raw values and the baseline weighing of every candidate.
//   - collector.go: the k best candidates and the ties, in Nova's order.
//   - recency.go: which hosts a batch chose and when: of equal weights, the most recently chosen ranks first, as Nova's list puts it.
//   - rank.go: the ranking interface, the rankers' options and the choice of a ranker.
//   - rankview.go: rankView, what a ranker reads of its batch.
//   - baseline.go: the baseline ranker, Nova's loop as written.
//   - lineage.go: the static ranking data shared by the snapshots of one host data (MetricsWeigher's column), built on first use.
//   - rankcache.go: the dense ranker's full rescorings, kept per lineage and copied shard by shard into batches with the same bounds.
//   - fitcache.go: the resource filters' verdicts per request amount, kept per lineage and shard and ANDed in place of their passes.
//   - dense.go: the dense ranker: its state, update and top.
//   - denseraw.go: the dense ranker's raw values: columns, the metrics column, the sparse soft-affinity weighers.
//   - blockstats.go: the dense ranker's per-block statistics and bounds.
//   - lazybounds.go: the column weighers' leaves seeded with the block
//     summaries' bounds, refined from the root down.
//   - modelbounds.go: the seeds by hypervisor model: a block's bounds over
//     the models its candidates hold, summarised per shard and model.
//   - trees.go: tournament trees and the heap of blocks.
//   - scaled.go: the dense ranker's scaled weights and their error bound.
//   - rescore.go: the dense ranker's rescoring (a shard of few candidates weighed host by host).
//   - search.go: the dense ranker's top-k search.
//
// The placement loop:
//   - chain.go: the filter chain driver: prefiltering, the whole chain for instance 0, the changed hosts after.
//   - place.go: PlaceBatch, the placement loop, the choice and the alternates.
//   - evaluate.go: FilterHosts and WeighHosts, one filter or weigher pass.
//   - chance.go: the chance scheduler, PlaceBatch's other driver.
//   - explain.go: Explain, instance 0 filter by filter and weigher by weigher: each host's rejection or weight terms, rank and the choice.
//   - explain_reasons.go: the reasons Explain gives, Nova's log lines where placer can write them word for word.
//   - whatif.go: Capacity, how many instances of a request fit one request after another, with hosts drained; aggregate changes to a cloud.
//
// Commits and metrics:
//   - store.go: Store, its states, leases and the derivation of the next snapshot.
//   - commit.go: Commit, the re-check of a plan, and conflicts.
//   - store_update.go: compute node reports, deletions, host and aggregate changes, the journal.
//   - joined.go: the nodes that joined a Store's cloud since its start (removed and added again, changed by an external rebuild), whose placements in older plans are refused.
//   - validate_changes.go: the checks of a store change before it applies (ValidateAddHosts, ValidateAggregate, ValidateUsage).
//   - committed.go: the instances committed through a Store, per host, kept as its ledger changes, for its builds, and the notes of those committed or released since its lists were built.
//   - changes.go: the log of the hosts each commit changed.
//   - metrics.go: the Prometheus metrics of a Store and a Scheduler.
//   - backend.go: Backend, the commit layer a Scheduler uses (a Store, or one shared through etcd), and ErrUnavailable.
//   - external.go: a Store as the mirror of a shared commit layer: DryRun checks, ApplyExternal, usage arithmetic.
//   - whatif_store.go: Store.Preview, the snapshot an aggregate change would publish, unpublished.
//
// The scheduler:
//   - scheduler.go: Scheduler, the worker pool placing and committing.
//   - jobqueue.go: the Scheduler's queue, whose abandoned requests leave at once.
//   - warm.go: a worker's last batch, brought up to date for its next alike request.
//   - caching.go: the caching mode, a worker's own view of the Store refreshed on an interval (CachingScheduler).
//
// And doc.go, this map.
//
// Static shard columns are internal/kernels.Coded: half a byte per host
// where a shard's column takes at most 16 values.
package engine
