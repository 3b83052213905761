package engine

import "slices"

// Plan is the outcome of PlaceBatch: where each instance goes.
//
// Invariants: len(Placements) equals the request's instance count; the
// Plan was computed against the snapshot whose version is BaseVersion, and
// nothing has been applied to any state yet (a Plan is a proposal; the
// commit layer applies it).
type Plan struct {
	// BaseVersion is the version of the snapshot the plan was made on.
	BaseVersion uint64
	// Placements has one entry per instance, in request order.
	Placements []Placement
	// Claim is what each instance consumes on its host and what the
	// resource filters asked of it; Store.Commit re-checks it on hosts
	// that changed since BaseVersion. PlaceBatch sets it.
	Claim Claim
	// Group is the request's server group as the commit layer needs it
	// (nil when the request has none). PlaceBatch sets it.
	Group *GroupClaim
	// Forced is true when no filter ran: force_hosts or force_nodes made
	// every filter be skipped (Nova's admin override), or the chance
	// scheduler, which runs none, made the plan. Store.Commit then does not
	// re-check the resource filters either. PlaceBatch sets it.
	Forced bool
	// store is the id of the Store whose snapshot the plan was made on
	// (a bare NewSnapshot's own; 0 for a plan made by hand, or decoded);
	// Commit refuses one of another store's or snapshot's: versions are
	// process-wide, so BaseVersion alone cannot tell, and the other
	// store's hosts were never this one's.
	store uint64
}

// Claim is one instance's demand on its host, as Nova's resource filters
// check it and consume_from_request applies it.
type Claim struct {
	// MemoryMB is subtracted from free_ram_mb and checked by RamFilter.
	MemoryMB int64
	// VCPUs is added to vcpus_used and checked by CoreFilter.
	VCPUs int64
	// DiskMB is (root_gb + ephemeral_gb) * 1024, subtracted from
	// free_disk_mb.
	DiskMB int64
	// DiskRequestMB is DiskMB plus swap: what DiskFilter asks for.
	DiskRequestMB int64
}

// GroupClaim is the server group of a plan: which group its instances join
// and the anti-affinity rule the commit layer re-checks.
type GroupClaim struct {
	UUID   string
	Policy string
	// MaxServerPerHost is the anti-affinity limit (at least 1).
	MaxServerPerHost int
	// Members are the group's members, the plan's own instances included.
	Members []string
	// Hosts are the host names the request gave as the group's (Nova's
	// group.hosts before this request): an affinity plan may land on them.
	Hosts []string
}

// Placement is the choice made for one instance.
type Placement struct {
	InstanceUUID string
	// HostID is the chosen host's dense id in the snapshot.
	HostID uint32
	Host   string
	Node   string
	Cell   string
	// Weight is the chosen host's total weight at that step.
	Weight float64
	// Candidates is how many hosts passed the filters for this instance.
	Candidates int
	// Limits are what the resource filters set on the chosen host.
	Limits Limits
	// Alternates are other hosts of the same cell to retry on.
	Alternates []HostNode
}

// LimitSet says which fields of a Limits are set.
type LimitSet uint8

// The limits the resource filters can set.
const (
	HasMemoryMB LimitSet = 1 << iota
	HasVCPU
	HasDiskGB
)

// Limits are Nova's limits dict: what RamFilter (memory_mb), CoreFilter
// (vcpu) and DiskFilter (disk_gb) left on the host. A field counts only
// when its bit is in Set.
type Limits struct {
	Set      LimitSet
	MemoryMB float64
	VCPU     float64
	DiskGB   float64
}

// claimOf is the per-instance claim of a prepared request.
func claimOf(r *Request) Claim {
	disk := (r.Flavor.RootGB + r.Flavor.EphemeralGB) * 1024
	return Claim{
		MemoryMB: r.Flavor.MemoryMB, VCPUs: r.Flavor.VCPUs,
		DiskMB: disk, DiskRequestMB: disk + r.Flavor.Swap,
	}
}

// groupClaimOf is the group of a prepared request, nil without one.
func groupClaimOf(r *Request) *GroupClaim {
	g := r.InstanceGroup
	if g == nil {
		return nil
	}
	gc := &GroupClaim{UUID: g.UUID, Policy: g.Policy, MaxServerPerHost: g.MaxServerPerHost, Hosts: slices.Clone(g.Hosts)}
	if gc.MaxServerPerHost == 0 {
		gc.MaxServerPerHost = 1
	}
	// Nova counts set(group.members): each member once, however often
	// the request lists it (the planner's groupState is a set too).
	seen := make(map[string]bool, len(g.Members)+len(r.InstanceUUIDs))
	for _, u := range slices.Concat(g.Members, r.InstanceUUIDs) {
		if !seen[u] {
			seen[u] = true
			gc.Members = append(gc.Members, u)
		}
	}
	return gc
}
