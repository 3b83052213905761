package engine

import (
	"context"
	"slices"
)

// The chance scheduler: nova/scheduler/chance.py at rocky-eol, the last
// release that had it (docs/nova-semantics.md#the-chance-scheduler). It
// reads no filter, no weigher, no host resource and no request field but
// ignore_hosts and the number of instances.

// Nova's reasons for the chance scheduler's NoValidHost (chance.py).
const (
	chanceNoHostsUp  = "Is the appropriate service running?"
	chanceAllIgnored = "Could not find another compute"
)

// chancePlace is ChanceScheduler.select_destinations for r (prepared) on
// s: the nodes whose compute service is enabled and up (Scheduler.hosts_up)
// and whose host name is not in ignore_hosts, compared exactly
// (_filter_hosts), in host id order; then n distinct of them drawn as
// random.sample draws when there are at least n, else one random.choice
// per instance (_schedule), from the batch's generator (newRNG), mapped
// as internal/reference/chance.go maps Python's draws. Every placement
// weighs 0, has no limits and no alternates (select_destinations asks for
// none), and counts the nodes left as its candidates.
//
// Nothing is claimed ("we don't claim in the chance scheduler"): the plan
// is Forced, so that Store.Commit consumes it without re-checking any
// filter, as for forced hosts; its group, if any, is recorded by the
// commit but was not read.
func chancePlace(ctx context.Context, s *Snapshot, r *Request) (Plan, error) {
	if err := ctx.Err(); err != nil {
		return Plan{}, err
	}
	nvh := func(reason string) error {
		return &NoValidHostError{InstanceUUID: r.InstanceUUIDs[0], InPlay: s.n, Reason: reason}
	}
	info := s.info
	up := info.serviceUp.AppendTo(nil)
	if len(up) == 0 {
		return Plan{}, nvh(chanceNoHostsUp)
	}
	hosts := slices.DeleteFunc(up, func(id uint32) bool { return slices.Contains(r.IgnoreHosts, info.hostOf(id)) })
	if len(hosts) == 0 {
		return Plan{}, nvh(chanceAllIgnored)
	}
	rng := newRNG(&s.cfg)
	n := r.NumInstances
	chosen := make([]uint32, n)
	if len(hosts) >= n { // random.sample's distribution, by CPython's pool algorithm
		pool := slices.Clone(hosts)
		for i := range n {
			j := rng.IntN(len(pool) - i)
			chosen[i] = pool[j]
			pool[j] = pool[len(pool)-i-1]
		}
	} else { // random.choice per instance
		for i := range n {
			chosen[i] = hosts[rng.IntN(len(hosts))]
		}
	}
	placements := make([]Placement, n)
	for i, id := range chosen {
		host, node := ownNames(info.hostOf(id), info.nodeOf(id))
		placements[i] = Placement{
			InstanceUUID: r.InstanceUUIDs[i], HostID: id,
			Host: host, Node: node, Cell: info.cells[info.cell.At(id)],
			Candidates: len(hosts),
		}
	}
	return Plan{BaseVersion: s.version, Placements: placements, Claim: claimOf(r), Group: groupClaimOf(r), Forced: true, store: s.store}, nil
}

// chance reports whether s's configuration schedules with the chance
// scheduler.
func (s *Snapshot) chance() bool { return s.cfg.SchedulerDriver == DriverChanceScheduler }
