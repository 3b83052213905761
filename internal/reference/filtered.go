package reference

import (
	"strings"

	"github.com/placer/placer/engine"
)

// filtered is what HostManager.get_filtered_hosts did for one instance.
type filtered struct {
	// passed are the hosts that passed, in the order they were given.
	passed []*HostState
	// prefiltered is how many hosts were left after requested_destination
	// and ignore/force hosts and nodes.
	prefiltered int
	// counts are (name, start, end) of every filter that ran, up to the
	// first that left no host.
	counts []engine.FilterCount
}

// getFilteredHosts is HostManager.get_filtered_hosts for instance index:
// requested_destination keeps exact host (and node) matches and the
// filters still run; ignore_hosts drops every node of a host named
// case-insensitively (nothing left: no filter runs); force_hosts keeps
// case-insensitive host matches and force_nodes exact node matches, and
// with either no filter runs at all. Then the filters run as
// BaseFilterHandler.get_filtered_objects runs them.
func getFilteredHosts(s *RequestSpec, chain []*Filter, hosts []*HostState, index int) (filtered, error) {
	r := s.Req
	if d := r.RequestedDestination; d != nil {
		var keep []*HostState
		for _, h := range hosts {
			if h.Host == d.Host && (d.Node == "" || h.Nodename == d.Node) {
				keep = append(keep, h)
			}
		}
		hosts = keep
	}
	if len(r.IgnoreHosts) > 0 || len(r.ForceHosts) > 0 || len(r.ForceNodes) > 0 {
		if len(r.IgnoreHosts) > 0 {
			hosts = keepHosts(hosts, func(h *HostState) bool {
				return !matchesFold(r.IgnoreHosts, h.Host)
			})
			if len(hosts) == 0 {
				return filtered{}, nil
			}
		}
		if len(r.ForceHosts) > 0 {
			hosts = keepHosts(hosts, func(h *HostState) bool {
				return matchesFold(r.ForceHosts, h.Host)
			})
		}
		if len(r.ForceNodes) > 0 {
			hosts = keepHosts(hosts, func(h *HostState) bool {
				return containsStr(r.ForceNodes, h.Nodename)
			})
		}
		if len(r.ForceHosts) > 0 || len(r.ForceNodes) > 0 {
			return filtered{passed: hosts, prefiltered: len(hosts)}, nil
		}
	}
	out := filtered{prefiltered: len(hosts)}
	list := hosts
	for _, f := range chain {
		if f.Once && index > 0 {
			continue
		}
		start := len(list)
		var next []*HostState
		for _, h := range list {
			pass, err := f.Passes(s, h)
			if err != nil {
				return filtered{}, err
			}
			if pass {
				next = append(next, h)
			}
		}
		list = next
		out.counts = append(out.counts, engine.FilterCount{Name: f.Name, Start: start, End: len(list)})
		if len(list) == 0 {
			break
		}
	}
	out.passed = list
	return out, nil
}

// keepHosts returns the hosts for which keep is true, in order.
func keepHosts(hosts []*HostState, keep func(*HostState) bool) []*HostState {
	var out []*HostState
	for _, h := range hosts {
		if keep(h) {
			out = append(out, h)
		}
	}
	return out
}

// matchesFold reports whether name equals one of names ignoring case
// (Python's str.lower() on both sides).
func matchesFold(names []string, name string) bool {
	lower := strings.ToLower(name)
	for _, n := range names {
		if strings.ToLower(n) == lower {
			return true
		}
	}
	return false
}
