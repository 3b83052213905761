package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
)

// The capacity what-if: how many more instances of a request fit, each
// placed as Nova places one request after another (a fresh request of one
// instance, all its filters, its own seeded choice), each committed before
// the next is placed; optionally with hosts drained first. Aggregate
// changes (a ratio changed) need the snapshot rebuilt: Cloud.WithAggregates
// and Store.Preview make that snapshot.

// MaxCapacityCount bounds CapacityOptions.Max.
const MaxCapacityCount = 1 << 20

// CapacityOptions are the question Capacity answers.
type CapacityOptions struct {
	// Max is how many instances to try at most (1 to MaxCapacityCount).
	Max int
	// Drain are hosts taken out first, by host name (every node of the
	// host): no instance lands on them. They are added to each request's
	// ignore_hosts, Nova's own way of leaving hosts out (matched without
	// regard to case); they stay in the cloud otherwise (the instances on
	// them still count for same_host and different_host hints).
	Drain []string
}

// CapacityReport is how many instances fit and where they land.
type CapacityReport struct {
	// Fit is how many instances were placed; Max the most tried.
	Fit, Max int
	// Placements are the instances in the order they were placed (host,
	// node, weight and candidates as PlaceBatch reports them).
	Placements []Placement
	// PerHost counts the instances per host, most first (then by id).
	PerHost []HostCount
	// Full is true when the next instance found no host (Fit < Max);
	// Stop then says why, as PlaceBatch's NoValidHost would.
	Full bool
	Stop *NoValidHostError
}

// HostCount is how many instances landed on one host.
type HostCount struct {
	ID         uint32
	Host, Node string
	Count      int
}

// Capacity places req's flavor again and again on s, one instance per
// request (req's instance count is ignored), each placed on the state
// the previous ones left, until no host passes or opts.Max are placed.
// The n-th placement is the one PlaceBatch makes for a request of one
// instance on s with the n-1 before it committed and the drained hosts
// in its ignore_hosts. s is not changed.
//
// A request with a server group is refused (the group's members would
// grow with each instance); so is a cloud under the chance scheduler
// (nothing to count: it places at random among the hosts that are up), a
// bad Max or an unknown drained host (field "drain[i]").
func Capacity(ctx context.Context, s *Snapshot, req Request, opts CapacityOptions) (*CapacityReport, error) {
	if err := checkSnapshot(s); err != nil {
		return nil, err
	}
	if req.InstanceGroup != nil {
		return nil, invalid("request.instance_group", "capacity places one request after another; a server group is not supported")
	}
	if s.chance() {
		return nil, invalid("config.scheduler_driver", "capacity needs the filter scheduler (%s places at random among the hosts that are up)", DriverChanceScheduler)
	}
	if opts.Max < 1 || opts.Max > MaxCapacityCount {
		return nil, invalid("max", "want an integer from 1 to %d, got %d", MaxCapacityCount, opts.Max)
	}
	for i, h := range opts.Drain {
		if s.info.byHostLower(strings.ToLower(h)).Len() == 0 {
			return nil, invalid(fmt.Sprintf("drain[%d]", i), "no host %q in the snapshot", h)
		}
	}
	req.IgnoreHosts = append(slices.Clone(req.IgnoreHosts), opts.Drain...)
	req.NumInstances, req.InstanceUUIDs = 1, nil
	rep := &CapacityReport{Max: opts.Max}
	var used overlay // the usage of the hosts placed on so far
	used.idx, used.in = make([]int32, s.n), bitmap.NewSet(s.n)
	counts := map[uint32]int{}
	for rep.Fit < opts.Max {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, nvh, err := placeOneAfter(ctx, s, req, &used)
		if err != nil {
			return nil, err
		}
		if nvh != nil {
			rep.Full, rep.Stop = true, nvh
			break
		}
		rep.Fit++
		rep.Placements = append(rep.Placements, p)
		counts[p.HostID]++
	}
	for id, n := range counts {
		rep.PerHost = append(rep.PerHost, HostCount{ID: id, Host: s.info.hostOf(id), Node: s.info.nodeOf(id), Count: n})
	}
	slices.SortFunc(rep.PerHost, func(x, y HostCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.ID, y.ID))
	})
	return rep, nil
}

// placeOneAfter is PlaceBatch of req (one instance) on s with the usage
// of used, without its alternates; it records the placement's
// consumption in used.
func placeOneAfter(ctx context.Context, s *Snapshot, req Request, used *overlay) (Placement, *NoValidHostError, error) {
	b, err := prepare(ctx, s, req, false)
	if err != nil {
		return Placement{}, nil, err
	}
	defer b.release()
	for k, id := range used.ids {
		b.ov.set(id, used.res[k])
	}
	nvh, err := b.filterFirst()
	if err == nil && nvh != nil {
		nvh.InstanceUUID = b.uuid
		return Placement{}, nvh, nil
	}
	var best, ties []scored
	if err == nil {
		best, ties, err = b.rank(nil)
	}
	if err != nil {
		return Placement{}, nil, b.fail(err, nil)
	}
	c := b.choose(best, ties)
	p := b.placement(c.id, c.score, b.candidates)
	used.set(c.id, s.consumeOn(c.id, b.cur(c.id), &b.claim)) // an ironic node whole
	return p, nil, nil
}
