package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
)

// Hosts is the verifier's own account of a cloud's compute nodes: each
// one's initial usage and its limits, from internal/reference's host
// states (no engine code). It checks a usage read from a service against
// the limits when the run's order is not known (the soak).
type Hosts struct {
	cfg    engine.Config
	aggs   []engine.Aggregate
	states map[engine.HostNode]*reference.HostState
}

// NewHosts builds the account of cloud c.
func NewHosts(c engine.Cloud) (*Hosts, error) {
	states, err := reference.HostStates(c)
	if err != nil {
		return nil, fmt.Errorf("verify: the cloud: %w", err)
	}
	h := &Hosts{cfg: c.Config, aggs: c.Aggregates, states: make(map[engine.HostNode]*reference.HostState, len(states))}
	for _, st := range states {
		h.states[engine.HostNode{Host: st.Host, Node: st.Nodename}] = st
	}
	return h, nil
}

// Add adds a compute node (under the cloud's aggregates) and returns its
// name as the account keys it (the node named like the host by default).
func (h *Hosts) Add(host engine.Host) (engine.HostNode, error) {
	sts, err := reference.HostStates(engine.Cloud{Config: h.cfg, Hosts: []engine.Host{host}, Aggregates: h.aggs})
	if err != nil {
		return engine.HostNode{}, err
	}
	hn := engine.HostNode{Host: sts[0].Host, Node: sts[0].Nodename}
	h.states[hn] = sts[0]
	return hn, nil
}

// Initial is node hn's usage as the cloud (or Add) gave it.
func (h *Hosts) Initial(hn engine.HostNode) (engine.HostUsage, bool) {
	st := h.states[hn]
	if st == nil {
		return engine.HostUsage{}, false
	}
	return usageOf(st), true
}

// Consumed returns hn's initial usage with flavors consumed by the
// reference's arithmetic (Nova's consume_from_request; an ironic node
// whole), not the engine's: what the host's usage should be once those
// instances are on it. known is false for a host the account lacks.
func (h *Hosts) Consumed(hn engine.HostNode, flavors []engine.Flavor) (u engine.HostUsage, known bool) {
	st := h.states[hn]
	if st == nil {
		return engine.HostUsage{}, false
	}
	c := *st // Consume changes the usage fields alone
	for _, f := range flavors {
		c.Consume(f)
	}
	return usageOf(&c), true
}

// OverLimits names the enabled resource filters whose limit usage u of
// node hn is beyond, with the figures: more RAM, vCPUs or disk used than
// total × ratio, more I/O operations or instances than the limit. (A
// filter refuses one more instance at the limit; a host may reach it.)
// known is false for a node the account does not have.
func (h *Hosts) OverLimits(hn engine.HostNode, u engine.HostUsage) (over []string, known bool) {
	st := h.states[hn]
	if st == nil {
		return nil, false
	}
	for _, name := range h.cfg.Filters {
		if !reference.IsResourceFilter(name) {
			continue
		}
		lim := st.FilterLimit(&h.cfg, name)
		var why string
		switch name {
		case engine.RamFilter, engine.AggregateRamFilter:
			if used, limit := float64(st.TotalUsableRAMMB-u.FreeRAMMB), float64(st.TotalUsableRAMMB)*lim; used > limit {
				why = fmt.Sprintf("%g MB used of memory_mb %d × %g = %g", used, st.TotalUsableRAMMB, lim, limit)
			}
		case engine.CoreFilter, engine.AggregateCoreFilter:
			if limit := float64(st.VCPUsTotal) * lim; st.VCPUsTotal > 0 && limit > 0 && float64(u.VCPUsUsed) > limit {
				why = fmt.Sprintf("vcpus_used %d of vcpus %d × %g = %g", u.VCPUsUsed, st.VCPUsTotal, lim, limit)
			}
		case engine.DiskFilter, engine.AggregateDiskFilter:
			total := st.TotalUsableDiskGB * 1024
			if used, limit := float64(total-u.FreeDiskMB), float64(total)*lim; used > limit {
				why = fmt.Sprintf("%g MB disk used of local_gb %d × %g = %g MB", used, st.TotalUsableDiskGB, lim, limit)
			}
		case engine.IoOpsFilter, engine.AggregateIoOpsFilter:
			if float64(u.NumIOOps) > lim {
				why = fmt.Sprintf("num_io_ops %d, limit %g", u.NumIOOps, lim)
			}
		case engine.NumInstancesFilter, engine.AggregateNumInstancesFilter:
			if float64(u.NumInstances) > lim {
				why = fmt.Sprintf("num_instances %d, limit %g", u.NumInstances, lim)
			}
		}
		if why != "" {
			over = append(over, name+": "+why)
		}
	}
	return over, true
}

// OverLimitsSinceStart is OverLimits less the limits hn was beyond at the
// start (its Initial usage) and is no further beyond now: a host
// overcommitted before any placement may stay so, no further. Each entry
// starts with the filter's name and a colon.
func (h *Hosts) OverLimitsSinceStart(hn engine.HostNode, u engine.HostUsage) (over []string, known bool) {
	over, known = h.OverLimits(hn, u)
	if len(over) == 0 {
		return over, known
	}
	init, _ := h.Initial(hn)
	was, _ := h.OverLimits(hn, init)
	over = slices.DeleteFunc(over, func(why string) bool {
		name, _, _ := strings.Cut(why, ":")
		return slices.ContainsFunc(was, func(w string) bool { return strings.HasPrefix(w, name+":") }) &&
			used(name, u) <= used(name, init)
	})
	return over, known
}

// used is how much of filter name's resource usage u takes, larger when
// more is used.
func used(name string, u engine.HostUsage) int64 {
	switch name {
	case engine.RamFilter, engine.AggregateRamFilter:
		return -u.FreeRAMMB
	case engine.CoreFilter, engine.AggregateCoreFilter:
		return u.VCPUsUsed
	case engine.DiskFilter, engine.AggregateDiskFilter:
		return -u.FreeDiskMB
	case engine.IoOpsFilter, engine.AggregateIoOpsFilter:
		return u.NumIOOps
	}
	return u.NumInstances
}
