package engine

import (
	"context"
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
// none), and counts the nodes left as its candidates. The list is never
// made for a few instances: a draw's position is looked up in the set of
// those nodes (bitmap.Set.Select), and random.sample's pool is the
// identity but for the slots its draws moved. Listing every node up per
// request made placer simulate --driver chance_scheduler at 50,000 hosts
// 5.4 times as slow (AMD EPYC, Zen 4).
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
	if !info.serviceUp.Any() {
		return Plan{}, nvh(chanceNoHostsUp)
	}
	// The hosts to draw from, as a set: the nodes up, less those of an
	// ignored host name. A draw's position in _filter_hosts' list is the
	// set's position-th host (Select), so that no list of every host is
	// made per request.
	hosts := info.serviceUp
	if len(r.IgnoreHosts) > 0 {
		hosts = hosts.Clone()
		for _, name := range r.IgnoreHosts {
			for id := range info.byHost(name).All() {
				hosts.Remove(id)
			}
		}
	}
	count := hosts.Count()
	if count == 0 {
		return Plan{}, nvh(chanceAllIgnored)
	}
	n := r.NumInstances
	at := func(pos int) uint32 { return uint32(hosts.Select(pos)) }
	if n > 64 { // a pass over the words per draw would outgrow the list
		list := hosts.AppendTo(make([]uint32, 0, count))
		at = func(pos int) uint32 { return list[pos] }
	}
	rng := newRNG(&s.cfg)
	chosen := make([]uint32, n)
	if count >= n { // random.sample's distribution, by CPython's pool algorithm
		// The pool is the identity but where a draw moved the last
		// entry into the drawn slot (moved: slot -> position held).
		moved := make(map[int]int, n)
		for i := range n {
			j := rng.IntN(count - i)
			pos, ok := moved[j]
			if !ok {
				pos = j
			}
			chosen[i] = at(pos)
			last := count - i - 1
			if held, ok := moved[last]; ok {
				moved[j] = held
			} else {
				moved[j] = last
			}
		}
	} else { // random.choice per instance
		for i := range n {
			chosen[i] = at(rng.IntN(count))
		}
	}
	placements := make([]Placement, n)
	for i, id := range chosen {
		host, node := ownNames(info.hostOf(id), info.nodeOf(id))
		placements[i] = Placement{
			InstanceUUID: r.InstanceUUIDs[i], HostID: id,
			Host: host, Node: node, Cell: info.cells[info.cell.At(id)],
			Candidates: count,
		}
	}
	return Plan{BaseVersion: s.version, Placements: placements, Claim: claimOf(r), Group: groupClaimOf(r), Forced: true, store: s.store}, nil
}

// chance reports whether s's configuration schedules with the chance
// scheduler.
func (s *Snapshot) chance() bool { return s.cfg.SchedulerDriver == DriverChanceScheduler }
