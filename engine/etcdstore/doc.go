// Package etcdstore shares one cloud between several placer processes
// through etcd v3 (issue 19). Each process keeps a local engine.Store, its
// mirror, current from an etcd watch, and places on the mirror's
// snapshots as a single process does; only commits cross the network. A
// Store is an engine.Backend: engine.NewSchedulerOn(store, opts) runs the
// usual Scheduler over it.
//
// # Keys
//
// Under a prefix P (default "/placer/"), with host, node, aggregate,
// instance and group names path-escaped (url.PathEscape), JSON values:
//
//	P/config                 the scheduler configuration (engine.Config)
//	P/aggregates/<name>      one aggregate (engine.Aggregate)
//	P/hosts/<host>/<node>    a compute node's static record (engine.Host) and its order
//	P/usage/<host>/<node>    its usage: free_ram_mb, free_disk_mb (MB), vcpus_used, num_instances, num_io_ops
//	P/inst/<uuid>            an instance committed through placer: host, node, claim, group
//	P/groups/<uuid>          a server group with members committed through placer: policy, members
//
// A host's usage key's mod revision is its generation in etcd: it changes
// with every commit on the host and every compute node report.
//
// # Commits
//
// A commit of a plan (CommitPlan) is checked on the mirror first, with
// engine.DryRun: the same re-checks as an in-process commit (resources on
// hosts changed since the plan, the group rules, duplicates). What it
// accepts is sent as one etcd transaction:
//
//	If:   ModRevision(usage/h) == the mirror's, for every host the accepted placements touch
//	      CreateRevision(inst/u) == 0, for every accepted instance
//	      ModRevision(groups/g) == the mirror's (0: no key yet), with a group
//	Then: put usage/h (the usage the dry run computed), inst/u, groups/g
//	Else: get inst/u (on a resend only: an earlier send's outcome is unknown)
//
// A plan whose hosts nobody else touched since the mirror saw them commits
// in one round trip; plans on other hosts never conflict. Within one
// process, a commit on a host another of its commits is still on (sent,
// and not yet back through the watch) waits for that one and is checked
// again before it is sent, rather than sent to fail its compare. When a compare
// fails, another process (or a compute node report) changed a host or the
// group first: the Store waits until its watch has applied the revision
// the failure reported and checks the plan again on the newer mirror (the
// engine's fine-grained re-check: a changed host that still fits is
// accepted), up to Options.Rebases times, then reports a
// *engine.ConflictError so that the Scheduler places the request again.
//
// # Invariants
//
//   - No overcommit: a usage key is only written by a transaction that
//     compared its mod revision with the one the written value was
//     computed from (compute node reports, which replace usage, excepted),
//     so two commits never both consume the same state of a host.
//   - No doubled claim: an instance key is only created by a transaction
//     that compared its create revision with 0; a retried or duplicated
//     commit of an instance fails its compare (and is reported as an
//     *engine.ValidationError once the mirror has the instance).
//   - Applied once or reported failed: when a transaction's outcome is
//     unknown (a timeout, a lost leader), the same transaction is sent
//     again until an answer comes; it cannot apply after an answer that
//     failed its compares (mod revisions never come back), and its Else
//     branch tells whether an earlier send applied it (the instance keys
//     are there with the transaction's nonce). After Options.CommitTimeout without
//     an answer the error matches engine.ErrUnavailable and says the
//     outcome is unknown.
//   - Read your writes: a successful CommitPlan returns once the mirror has
//     applied the commit's revision, so the next plan of the same process
//     sees it (but after Options.CommitTimeout from its first send, or at
//     Close: then the commit stands and the mirror is behind it).
//   - The mirror applies the watch's events revision by revision, each
//     watch response as one engine.Store publication (ApplyExternal); a
//     host, aggregate or configuration change rebuilds it. A broken watch
//     resumes from the last revision applied; a compacted one re-lists
//     the prefix at the current revision and replaces the mirror's state.
//
// # Limits
//
// A transaction has one compare and one put per host, instance and group
// touched; etcd refuses more than --max-txn-ops (128 by default) of
// either. A plan needing more (Options.MaxTxnOps) is refused before it is
// sent, with an *engine.ValidationError naming the count: a request of up
// to 63 instances on distinct hosts always fits. A partial commit
// (engine.Partial) of such a plan is split into pieces that fit, by
// placement order, each committed (and re-checked) by itself. The loader (Load) writes
// in transactions of at most MaxTxnOps puts and about 1 MiB. A change of
// the cloud is one transaction under the same limit (two operations per
// host added or removed, one per instance a removed host holds), refused
// the same way past it.
//
// Changes of the cloud (Load, UpdateHost, AddHosts, RemoveHosts,
// SetAggregateMetadata, DeleteInstance) are written to etcd and reach
// every process, the writer's own mirror included, through the watch. A
// watch response or re-list the mirror cannot apply leaves the revisions
// it compares on ahead of its local store: until a re-list succeeds,
// commits and changes are refused (engine.ErrUnavailable), never made on
// the older usage.
//
// The files: doc.go (this), keys.go (key and value encoding), store.go
// (Open, the mirror, the watch), commit.go (CommitPlan), update.go (the
// cloud's changes and the loader), state.go (ReadState: etcd's state for
// verification; Stats), metrics.go.
package etcdstore
