// Package reference is placer's reference implementation of Nova's
// FilterScheduler: the obvious per-host loop, written the way Nova writes
// it, and the baseline the engine is tested and benchmarked against.
//
// PlaceBatch builds one HostState per compute node exactly as
// nova.scheduler.host_manager.HostState.update does, then for each instance
// of the request runs HostManager.get_filtered_hosts (requested
// destination, ignore/force hosts and nodes, then the enabled filters one
// after another as nova/filters.py does), weighs the survivors as
// nova/weights.py does, chooses among the best host_subset_size with a
// seeded generator, and consumes the flavor on the chosen host as
// SchedulerManager._consume_selected_host does. Alternates are picked as
// SchedulerManager._get_alternate_hosts picks them.
//
// Where Nova is random or order-dependent, placer fixes a rule (see
// docs/nova-semantics.md) and the engine applies the very same one:
//
//   - candidates are ranked by weight descending (exact float
//     comparison), equal weights the host chosen most recently in the
//     batch first, then by host index ascending;
//   - one math/rand/v2 PCG generator per call, seeded with
//     (uint64(Config.Seed), 0x9e3779b97f4a7c15); per instance with at
//     least one candidate it shuffles the leading run of hosts tied at the
//     top weight (only with shuffle_best_same_weighed_hosts, and always,
//     even for a run of one), then draws IntN(min(host_subset_size, n));
//   - the re-filtering for alternates draws nothing;
//   - the chance scheduler (config.scheduler_driver chance_scheduler) uses
//     the same generator: with at least as many candidate nodes as
//     instances it takes a random.sample, drawing IntN(len-i) for the i-th
//     instance over CPython's pool (the drawn entry is replaced by the
//     last one still in the pool); with fewer, one IntN(len) per instance
//     (random.choice). See chance.go.
//
// With config.host_manager ironic_host_manager, a node whose
// hypervisor_type is 'ironic' is an IronicNodeState (Queens): it is read
// and consumed as ironic_host_manager.py does (hoststate.go), and
// use_baremetal_filters swaps in baremetal_enabled_filters. The Exact*
// filters are those of the same release (filters.go).
//
// The code favours being obviously right over being fast: every host is a
// struct, every filter a function called once per host, every weigher a
// pass over the candidates.
package reference
