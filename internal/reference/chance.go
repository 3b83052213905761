package reference

import (
	"context"
	"math/rand/v2"

	"github.com/placer/placer/engine"
)

// The chance scheduler: nova/scheduler/chance.py at rocky-eol
// (c7c85dff5fecc1d6470fe6a534a2930a75df12c8), the last release that had
// it (removed in 19.0.0 Stein by 92a459331f). It looks at no filter, no
// weigher, no host resource and no request field but ignore_hosts and the
// number of instances, and claims nothing.

// Nova's reasons for the chance scheduler's NoValidHost.
const (
	chanceNoHostsUp   = "Is the appropriate service running?"
	chanceAllIgnored  = "Could not find another compute"
	chanceNotEnoughUp = "There are not enough hosts available."
)

// chanceSelectDestinations is ChanceScheduler.select_destinations: the
// hosts that are up (Scheduler.hosts_up: the compute services that are
// enabled, ServiceList.get_by_topic reading only those, and up), minus
// ignore_hosts (_filter_hosts), then _schedule without alternates
// (select_destinations does not pass return_alternates on). Every
// placement weighs 0, has no limits and counts the hosts left as its
// candidates; nothing is consumed, so the group and the hosts are as the
// request found them.
//
// Nova lists service host names, one per compute service, and then makes
// Selection objects from them, which needs HostStates (the unit tests hand
// it HostStates, one per node). placer follows the unit tests: the list is
// the cloud's nodes, in cloud order.
func chanceSelectDestinations(ctx context.Context, spec *RequestSpec, states []*HostState, rng *rand.Rand) (engine.Plan, error) {
	if err := ctx.Err(); err != nil {
		return engine.Plan{}, err
	}
	r := spec.Req
	nvh := func(reason string, left int) error {
		return &engine.NoValidHostError{InstanceUUID: r.InstanceUUIDs[0],
			InPlay: len(states), Prefiltered: left, Reason: reason}
	}
	var up []*HostState
	for _, h := range states {
		if !h.Service.Disabled && !h.Service.Down {
			up = append(up, h)
		}
	}
	if len(up) == 0 {
		return engine.Plan{}, nvh(chanceNoHostsUp, 0)
	}
	hosts := chanceFilterHosts(up, r.IgnoreHosts)
	if len(hosts) == 0 {
		return engine.Plan{}, nvh(chanceAllIgnored, 0)
	}
	selections := chanceSchedule(rng, hosts, r.NumInstances, spec.Cfg.MaxAttempts, false)
	if len(selections) < r.NumInstances {
		return engine.Plan{}, nvh(chanceNotEnoughUp, len(hosts)) // never: one per instance
	}
	placements := make([]engine.Placement, len(selections))
	for i, sel := range selections {
		h := sel[0]
		placements[i] = engine.Placement{
			InstanceUUID: r.InstanceUUIDs[i], HostID: uint32(h.Index),
			Host: h.Host, Node: h.Nodename, Cell: h.Cell,
			Candidates: len(hosts),
		}
		for _, a := range sel[1:] {
			placements[i].Alternates = append(placements[i].Alternates,
				engine.HostNode{Host: a.Host, Node: a.Nodename})
		}
	}
	return engine.Plan{Placements: placements}, nil
}

// chanceFilterHosts is ChanceScheduler._filter_hosts: `host not in
// ignore_hosts`, an exact (case-sensitive) comparison of host names,
// unlike the FilterScheduler's.
func chanceFilterHosts(hosts []*HostState, ignore []string) []*HostState {
	return keepHosts(hosts, func(h *HostState) bool { return !containsStr(ignore, h.Host) })
}

// chanceSchedule is ChanceScheduler._schedule after the hosts are known:
// n distinct hosts (random.sample) when there are at least n, else an
// independent random.choice per instance; then, with returnAlternates,
// each selection is followed by random.choice draws until it holds
// min(len(hosts), maxAttempts) entries, a draw being kept unless it is a
// selected host.
//
// The draws map Python's random onto placer's generator: randbelow(k) is
// rng.IntN(k); random.choice(seq) is seq[rng.IntN(len(seq))];
// random.sample(pop, n) is CPython's pool algorithm: for i in 0..n-1,
// j = rng.IntN(len(pop)-i), take pool[j], then pool[j] = pool[len(pop)-i-1].
//
// Two things of Rocky's code are kept: the test "candidate not in
// sel_plus_alts" compares a HostState with Selection objects, never equal,
// so an alternate may repeat; and when every host is a selected host, Nova
// would draw forever: there the reference stops with no alternate.
func chanceSchedule(rng *rand.Rand, hosts []*HostState, n, maxAttempts int, returnAlternates bool) [][]*HostState {
	var selected []*HostState
	if len(hosts) >= n {
		pool := append([]*HostState(nil), hosts...)
		for i := 0; i < n; i++ {
			j := rng.IntN(len(pool) - i)
			selected = append(selected, pool[j])
			pool[j] = pool[len(pool)-i-1]
		}
	} else {
		for i := 0; i < n; i++ {
			selected = append(selected, hosts[rng.IntN(len(hosts))])
		}
	}
	alts := 0
	if returnAlternates {
		alts = min(len(hosts), maxAttempts)
	}
	isSelected := map[*HostState]bool{}
	for _, h := range selected {
		isSelected[h] = true
	}
	eligible := 0
	for _, h := range hosts {
		if !isSelected[h] {
			eligible++
		}
	}
	out := make([][]*HostState, 0, n)
	for _, sel := range selected {
		list := []*HostState{sel}
		for len(list) < alts && eligible > 0 {
			if c := hosts[rng.IntN(len(hosts))]; !isSelected[c] {
				list = append(list, c)
			}
		}
		out = append(out, list)
	}
	return out
}
