package reference

import (
	"context"
	"math/rand/v2"
	"slices"

	"github.com/placer/placer/engine"
)

// PlaceBatch places every instance of req on cloud as Nova's
// SchedulerManager._legacy_find_hosts does, with placer's rules for ties
// and random choices (see the package documentation); with the chance
// scheduler configured, as ChanceScheduler.select_destinations does. cloud
// and req are not modified.
//
// Errors: a *engine.ValidationError for bad input; a
// *engine.NoValidHostError when an instance finds no host (the Plan is
// then empty and the error carries the tentative placements); a
// *engine.MetricNotFoundError or *engine.NovaError where Nova would raise;
// ctx.Err() when ctx ends (checked between instances).
func PlaceBatch(ctx context.Context, cloud engine.Cloud, req engine.Request) (engine.Plan, error) {
	spec, states, err := prepare(ctx, &cloud, req)
	if err != nil {
		return engine.Plan{}, err
	}
	r, cfg := spec.Req, &cloud.Config
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15))
	if cfg.SchedulerDriver == engine.DriverChanceScheduler {
		return chanceSelectDestinations(ctx, spec, states, rng)
	}
	chain := filterChain(cfg)
	ws := newWeighing(cfg, states)

	n := r.NumInstances
	hosts := states // the hosts in play
	placements := make([]engine.Placement, 0, n)
	selected := make([]*HostState, 0, n)
	var first []weighed // instance 0's candidates, ranked
	// lastChosen is the instance that last chose each host: Nova hands the
	// next instance [the chosen host] + the rest in the order it weighed
	// them, and sorts stably, so of hosts of equal weight the most
	// recently chosen ranks first (placer's rule: see rank).
	lastChosen := map[*HostState]int{}
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return engine.Plan{}, err
		}
		spec.InstanceUUID = r.InstanceUUIDs[i]
		res, err := getFilteredHosts(spec, chain, hosts, i)
		if err != nil {
			return engine.Plan{}, failed(err, i, spec.InstanceUUID, placements)
		}
		if len(res.passed) == 0 {
			return engine.Plan{}, &engine.NoValidHostError{
				InstanceIndex: i, InstanceUUID: spec.InstanceUUID,
				InPlay: len(hosts), Prefiltered: res.prefiltered,
				Filters: res.counts, Tentative: placements,
			}
		}
		ranked, err := rank(spec, ws, res.passed, lastChosen)
		if err != nil {
			return engine.Plan{}, failed(err, i, spec.InstanceUUID, placements)
		}
		if i == 0 {
			first = slices.Clone(ranked)
		}
		chosen := choose(cfg, rng, ranked)
		h := chosen.h
		placements = append(placements, engine.Placement{
			InstanceUUID: spec.InstanceUUID, HostID: uint32(h.Index),
			Host: h.Host, Node: h.Nodename, Cell: h.Cell,
			Weight: chosen.w, Candidates: len(res.passed), Limits: h.Limits,
		})
		selected = append(selected, h)
		lastChosen[h] = i
		consumeSelectedHost(spec, h)
		hosts = res.passed
	}
	if err := alternates(spec, chain, ws, hosts, first, selected, placements); err != nil {
		return engine.Plan{}, failed(err, n-1, r.InstanceUUIDs[n-1], placements[:n-1])
	}
	return engine.Plan{BaseVersion: 0, Placements: placements}, nil
}

// weighed is a candidate and its total weight.
type weighed struct {
	h *HostState
	w float64
}

// rank weighs the candidates and sorts them by weight descending; equal
// weights put the host chosen most recently in the batch first (chosen:
// host -> the instance that last chose it), then the others by host
// index ascending. Nova's list order after a choice is [the chosen host]
// + the rest as weighed, sorted stably at the next instance: for hosts of
// equal values whose values only a choice changes this rule is that
// order (collector.better in the engine says where it is not).
func rank(s *RequestSpec, ws *weighing, hosts []*HostState, chosen map[*HostState]int) ([]weighed, error) {
	w, err := ws.weigh(s, hosts)
	if err != nil {
		return nil, err
	}
	out := make([]weighed, len(hosts))
	for i, h := range hosts {
		out[i] = weighed{h, w[i]}
	}
	slices.SortFunc(out, func(a, b weighed) int {
		switch {
		case a.w > b.w:
			return -1
		case a.w < b.w:
			return 1
		}
		ca, oka := chosen[a.h]
		cb, okb := chosen[b.h]
		switch {
		case oka && (!okb || ca > cb):
			return -1
		case okb:
			return 1
		}
		return a.h.Index - b.h.Index
	})
	return out, nil
}

// choose is the end of _get_sorted_hosts: with
// shuffle_best_same_weighed_hosts the leading run of hosts tied at the top
// weight is shuffled (the generator is called even for a run of one), then
// one of the first min(host_subset_size, n) is drawn. ranked is not
// modified.
func choose(cfg *engine.Config, rng *rand.Rand, ranked []weighed) weighed {
	order := slices.Clone(ranked)
	if cfg.ShuffleBestSameWeighedHosts {
		t := 0
		for t < len(order) && order[t].w == order[0].w {
			t++
		}
		rng.Shuffle(t, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	k := min(cfg.HostSubsetSize, len(order))
	return order[rng.IntN(k)]
}

// consumeSelectedHost is SchedulerManager._consume_selected_host: consume
// the flavor; with a server group, append the host name to group.hosts and
// put the instance on the host (all its nodes see it).
func consumeSelectedHost(s *RequestSpec, h *HostState) {
	h.consumeFromRequest(&s.Req.Flavor)
	if s.Group != nil {
		s.Group.Hosts = append(s.Group.Hosts, h.Host)
		h.Instances.Add(s.InstanceUUID)
	}
}

// alternates is SchedulerManager._get_alternate_hosts with
// num_alts = max_attempts - 1: with several instances the hosts in play are
// filtered (at the last instance's index) and weighed again, without a
// random draw; with one, instance 0's ranked candidates are used. Each
// placement gets, in rank order, hosts of its cell that are not a selected
// host, up to num_alts.
func alternates(s *RequestSpec, chain []*Filter, ws *weighing, hosts []*HostState,
	first []weighed, selected []*HostState, placements []engine.Placement) error {
	numAlts := s.Cfg.MaxAttempts - 1
	if numAlts <= 0 {
		return nil
	}
	list := first
	if n := len(selected); n > 1 {
		res, err := getFilteredHosts(s, chain, hosts, n-1)
		if err != nil {
			return err
		}
		list = nil
		if len(res.passed) > 0 {
			if list, err = rank(s, ws, res.passed, nil); err != nil { // the selected hosts are no alternates
				return err
			}
		}
	}
	isSelected := map[*HostState]bool{}
	for _, h := range selected {
		isSelected[h] = true
	}
	for i, sel := range selected {
		var alts []engine.HostNode
		for _, c := range list {
			if len(alts) >= numAlts {
				break
			}
			if c.h.Cell == sel.Cell && !isSelected[c.h] {
				alts = append(alts, engine.HostNode{Host: c.h.Host, Node: c.h.Nodename})
			}
		}
		placements[i].Alternates = alts
	}
	return nil
}

// failed completes an exception Nova would raise at instance index with
// that instance and the tentative placements made before it.
func failed(err error, index int, uuid string, tentative []engine.Placement) error {
	switch e := err.(type) {
	case *engine.MetricNotFoundError:
		e.InstanceIndex, e.InstanceUUID, e.Tentative = index, uuid, tentative
	case *engine.NovaError:
		e.InstanceIndex, e.InstanceUUID, e.Tentative = index, uuid, tentative
	}
	return err
}
