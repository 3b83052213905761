package reference

import (
	"context"

	"github.com/placer/placer/engine"
)

// FilterHosts is engine.FilterHosts done the reference way: the first
// instance's get_filtered_hosts (requested destination, ignore/force hosts
// and nodes, then the enabled filters one after another) over every host
// of cloud. It returns the indexes of the hosts that pass, in ascending
// order, and the per-filter counts up to the first filter that leaves no
// host (nil when no filter ran). Errors are those of PlaceBatch: a
// *engine.ValidationError for bad input, an *engine.NovaError where Nova
// would raise (its InstanceIndex and InstanceUUID are not filled in).
func FilterHosts(ctx context.Context, cloud engine.Cloud, req engine.Request) ([]int, []engine.FilterCount, error) {
	spec, states, err := prepare(ctx, &cloud, req)
	if err != nil {
		return nil, nil, err
	}
	res, err := getFilteredHosts(spec, filterChain(&cloud.Config), states, 0)
	if err != nil {
		return nil, nil, err
	}
	out := make([]int, len(res.passed))
	for i, h := range res.passed {
		out[i] = h.Index
	}
	return out, res.counts, nil
}

// WeighHosts is engine.WeighHosts done the reference way: the hosts of
// cloud whose indexes are in ids, weighed for req's first instance by the
// configured weighers (nova/weights.py), best first, equal weights by index
// ascending. Errors are those of PlaceBatch (a *engine.MetricNotFoundError
// without its instance fields filled in, say).
func WeighHosts(ctx context.Context, cloud engine.Cloud, req engine.Request, ids []int) ([]engine.Candidate, error) {
	spec, states, err := prepare(ctx, &cloud, req)
	if err != nil {
		return nil, err
	}
	hosts := make([]*HostState, 0, len(ids))
	for _, i := range ids {
		hosts = append(hosts, states[i])
	}
	ranked, err := rank(spec, newWeighing(&cloud.Config, states), hosts, nil)
	if err != nil {
		return nil, err
	}
	out := make([]engine.Candidate, len(ranked))
	for i, c := range ranked {
		out[i] = engine.Candidate{ID: uint32(c.h.Index),
			Host: engine.HostNode{Host: c.h.Host, Node: c.h.Nodename}, Weight: c.w}
	}
	return out, nil
}

// prepare validates cloud and req as PlaceBatch does and returns the
// request spec of the first instance and the host states.
func prepare(ctx context.Context, cloud *engine.Cloud, req engine.Request) (*RequestSpec, []*HostState, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := engine.ValidateCloud(cloud); err != nil {
		return nil, nil, err
	}
	r, err := engine.PrepareRequest(&cloud.Config, req)
	if err != nil {
		return nil, nil, err
	}
	states, err := buildHostStates(cloud)
	if err != nil {
		return nil, nil, err
	}
	spec, err := newRequestSpec(&cloud.Config, &r)
	if err != nil {
		return nil, nil, err
	}
	spec.InstanceUUID = r.InstanceUUIDs[0]
	return spec, states, nil
}

// filterChain is the filters HostManager._load_filters gives (with the
// ironic host manager and use_baremetal_filters, the baremetal ones), in
// order.
func filterChain(cfg *engine.Config) []*Filter {
	names := cfg.LoadFilters()
	chain := make([]*Filter, len(names))
	for i, name := range names {
		chain[i] = filters[name]
	}
	return chain
}
