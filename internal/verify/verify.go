// Package verify checks a run of placer's Store and Scheduler from what
// their callers saw: it recomputes every host's usage from the initial
// cloud, the plans returned to callers (each instance's host, its
// request's flavor) and the external changes callers made (usage reports,
// instance deletions, host additions and removals, aggregate changes), in
// commit order; judges every placement against the host's limits; matches
// the plans returned to callers against the instances the store committed;
// and compares the recomputed usage with the store's final state.
//
// Nothing on the judging path is the engine's: host states, limits and the
// resource filters' arithmetic are internal/reference's (HostStates,
// CheckResources, HostState.Consume: an ironic node consumed whole), and a
// deletion's release is written here (an instance that took an ironic
// node whole gives back what it took). From the store the verifier takes only:
//
//   - the commit order: which instance was committed at which version, on
//     which host (Commit; the store's Journal gives it, but not the
//     values the store applied: claims are recomputed from each request's
//     flavor, and the host is the one the caller was told);
//   - the final state: every host's usage and the number of instances the
//     store holds (Final).
//
// The order matters because a usage report overwrites a host's usage:
// claims committed before it are in the report, claims after it add to it.
// A wrong order, a claim the store applied twice or lost, or a value it
// got wrong shows as a difference from the final state.
package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
)

// told is one instance as a caller was told of it.
type told struct {
	req  int // index into Input.Requests
	host engine.HostNode
}

// step is one change of the timeline: a committed placement or an event.
type step struct {
	version uint64
	seq     int // input order, among equal versions
	ev      *Event
	probe   bool // ev is a Report whose read is checked (Event.ReadVersion)
	// A placement:
	uuid   string
	host   engine.HostNode
	req    int // the request whose flavor it consumes; -1: none known
	forced bool
}

// live is a committed instance not yet released.
type live struct {
	host   engine.HostNode
	flavor engine.Flavor
	// whole marks an instance that took an ironic node whole, and took
	// what it took of the node's free RAM, free disk and vCPUs (the
	// reference's consume: the node's free values to 0, its vCPUs used to
	// its total), which its deletion gives back.
	whole bool
	took  engine.HostUsage
}

// Run verifies in. It fails (error) only when the cloud itself is bad.
func Run(in Input) (*Result, error) {
	states, err := reference.HostStates(in.Cloud)
	if err != nil {
		return nil, fmt.Errorf("verify: the initial cloud: %w", err)
	}
	r := &Result{Counts: map[Kind]int{}}
	v := &verifier{
		in: &in, res: r, cfg: in.Cloud.Config,
		hosts:   make(map[engine.HostNode]*reference.HostState, len(states)),
		spec:    make(map[engine.HostNode]engine.Host, len(states)),
		aggs:    slices.Clone(in.Cloud.Aggregates),
		live:    map[string]live{},
		onHost:  map[engine.HostNode]map[string]bool{},
		overHit: map[engine.HostNode]bool{},
	}
	for i, st := range states {
		hn := engine.HostNode{Host: st.Host, Node: st.Nodename}
		v.hosts[hn] = st
		v.spec[hn] = in.Cloud.Hosts[i]
		v.order = append(v.order, hn)
	}
	v.timeline(v.match())
	v.compare()
	v.checkRules()
	r.Hosts = len(v.hosts)
	r.Instances = len(v.live)
	r.OvercommittedHosts = len(v.overHit)
	r.Usage = make(map[engine.HostNode]engine.HostUsage, len(v.hosts))
	for hn, st := range v.hosts {
		r.Usage[hn] = usageOf(st)
	}
	return r, nil
}

type verifier struct {
	in    *Input
	res   *Result
	cfg   engine.Config
	hosts map[engine.HostNode]*reference.HostState
	spec  map[engine.HostNode]engine.Host // what each host was built from
	aggs  []engine.Aggregate
	// order is every host the run had, in the cloud's order then the
	// order of the additions (for messages in a stable order).
	order []engine.HostNode
	live  map[string]live
	// onHost are the live instances by host, for removals.
	onHost  map[engine.HostNode]map[string]bool
	overHit map[engine.HostNode]bool
}

// match pairs the instances callers were told of with the store's
// commits, reports what does not pair, and returns the placements to
// replay (one per commit).
func (v *verifier) match() []step {
	in := v.in
	tells := map[string][]told{}
	asked := map[string]int{} // uuid -> first request asking for it
	for i := range in.Requests {
		rq := &in.Requests[i]
		for _, u := range rq.Instances {
			if _, ok := asked[u]; !ok {
				asked[u] = i
			}
		}
		for _, p := range rq.Placed {
			tells[p.Instance] = append(tells[p.Instance], told{req: i, host: p.Host})
		}
	}
	commits := map[string][]int{}
	for i, c := range in.Commits {
		commits[c.Instance] = append(commits[c.Instance], i)
	}
	steps := make([]step, 0, len(in.Commits)+len(in.Events))
	for i, c := range in.Commits {
		s := step{version: c.Version, seq: i, uuid: c.Instance, host: c.Host, req: -1}
		ts, cs := tells[c.Instance], commits[c.Instance]
		k := slices.Index(cs, i) // this is the k-th commit of the uuid
		if k < len(ts) {
			t := ts[k]
			s.req, s.forced = t.req, in.Requests[t.req].Forced
			if t.host != c.Host {
				v.res.add(Misplaced, "instance %s (request #%d) was committed on %s at version %d, its caller was told %s",
					c.Instance, t.req, hostName(c.Host), c.Version, hostName(t.host))
				s.host = t.host // the caller's account: the store's shows as mismatches
			}
		} else if j, ok := asked[c.Instance]; ok {
			s.req, s.forced = j, in.Requests[j].Forced
		}
		steps = append(steps, s)
	}
	// In the callers' order, then the store's, so that the problems a
	// Result keeps are the same from run to run.
	seen := map[string]bool{}
	for i := range in.Requests {
		for _, p := range in.Requests[i].Placed {
			u := p.Instance
			if seen[u] {
				continue
			}
			seen[u] = true
			ts, cs := tells[u], commits[u]
			switch {
			case len(ts) > 1:
				reqs := make([]string, len(ts))
				for i, t := range ts {
					reqs[i] = fmt.Sprintf("#%d on %s", t.req, hostName(t.host))
				}
				v.res.add(DoubledClaim, "instance %s was returned to %d callers (requests %s), committed %d time(s)",
					u, len(ts), strings.Join(reqs, ", "), len(cs))
			case len(cs) > len(ts):
				v.res.add(DoubledClaim, "instance %s (request #%d, told %s) was committed %d times (versions %s)",
					u, ts[0].req, hostName(ts[0].host), len(cs), v.versions(cs))
			case len(cs) < len(ts):
				v.res.add(LostClaim, "instance %s on %s was returned to its caller (request #%d) but never committed",
					u, hostName(ts[0].host), ts[0].req)
			}
		}
	}
	for _, c := range in.Commits {
		u := c.Instance
		if len(tells[u]) > 0 || seen[u] {
			continue
		}
		seen[u] = true
		why := "no request asked for it"
		if j, ok := asked[u]; ok {
			why = fmt.Sprintf("request #%d asked for it and its caller got an error", j)
		}
		v.res.add(UnclaimedCommit, "instance %s was committed on %s at version %d (%d time(s)) but no caller was told: %s",
			u, hostName(c.Host), c.Version, len(commits[u]), why)
	}
	for i := range in.Events {
		steps = append(steps, step{version: in.Events[i].Version, seq: len(in.Commits) + i, ev: &in.Events[i], req: -1})
		if e := &in.Events[i]; e.Kind == Report && e.ReadVersion > 0 {
			// After everything of its version: the snapshot read held it.
			steps = append(steps, step{version: e.ReadVersion, seq: len(in.Commits) + len(in.Events) + i, ev: e, probe: true, req: -1})
		}
	}
	return steps
}

func (v *verifier) versions(commits []int) string {
	s := make([]string, len(commits))
	for i, c := range commits {
		s[i] = fmt.Sprint(v.in.Commits[c].Version)
	}
	return strings.Join(s, ", ")
}

// timeline replays the steps in commit order.
func (v *verifier) timeline(steps []step) {
	slices.SortStableFunc(steps, func(a, b step) int {
		return cmp.Or(cmp.Compare(a.version, b.version), cmp.Compare(a.seq, b.seq))
	})
	for i := range steps {
		s := &steps[i]
		switch {
		case s.probe:
			v.probe(s.ev)
		case s.ev != nil:
			v.res.Events++
			v.event(s.ev)
		default:
			v.res.Placements++
			v.place(s)
		}
	}
}

// place replays one committed placement: the enabled resource filters must
// pass it on the host's state just before it (Nova's guarantee, and the
// store's), then the flavor is consumed.
func (v *verifier) place(s *step) {
	if s.req < 0 {
		v.res.add(UsageMismatch, "instance %s committed on %s at version %d: no request asked for it, its claim is unknown",
			s.uuid, hostName(s.host), s.version)
		return
	}
	st := v.hosts[s.host]
	if st == nil {
		v.res.add(Misplaced, "instance %s (request #%d) was committed at version %d on %s, which the cloud does not have then",
			s.uuid, s.req, s.version, hostName(s.host))
		return
	}
	r := &v.in.Requests[s.req]
	f := r.Flavor
	// The chance scheduler reads no filter and no force_hosts: its
	// placements go to any host up, over limits too (counted as forced
	// ones); one on a host disabled or down is misplaced.
	chance := v.cfg.SchedulerDriver == engine.DriverChanceScheduler
	if h := v.spec[s.host]; chance && (h.Service.Disabled || h.Service.Down) {
		v.res.add(Misplaced, "instance %s (request #%d) was committed at version %d on %s, whose compute service is disabled or down: the chance scheduler takes hosts up only",
			s.uuid, s.req, s.version, hostName(s.host))
	}
	if s.forced && !chance && !r.forcedOn(s.host) {
		v.res.add(Misplaced, "instance %s (request #%d, forced to hosts %q nodes %q) was committed at version %d on %s, outside them",
			s.uuid, s.req, r.ForceHosts, r.ForceNodes, s.version, hostName(s.host))
	}
	if refused := reference.CheckResources(&v.cfg, st, f); refused != "" {
		if s.forced || chance {
			v.res.ForcedOverLimits++
		} else {
			v.overHit[s.host] = true
			v.res.add(Overcommit, "instance %s (request #%d, %s) committed at version %d on %s, which %s refuses: %s",
				s.uuid, s.req, flavorText(f), s.version, hostName(s.host), refused, refusal(&v.cfg, st, refused, f))
		}
	}
	before := usageOf(st)
	st.Consume(f)
	if _, dup := v.live[s.uuid]; dup {
		v.forget(s.uuid) // counted as doubled by match; the second claim stands
	}
	l := live{host: s.host, flavor: f, whole: st.Ironic}
	if l.whole {
		after := usageOf(st)
		l.took = engine.HostUsage{FreeRAMMB: before.FreeRAMMB - after.FreeRAMMB, FreeDiskMB: before.FreeDiskMB - after.FreeDiskMB,
			VCPUsUsed: after.VCPUsUsed - before.VCPUsUsed}
	}
	v.live[s.uuid] = l
	if v.onHost[s.host] == nil {
		v.onHost[s.host] = map[string]bool{}
	}
	v.onHost[s.host][s.uuid] = true
}

// probe checks what report e read against the account at e.ReadVersion.
func (v *verifier) probe(e *Event) {
	st := v.hosts[e.Host]
	if st == nil {
		v.res.add(BadEvent, "usage report on %s read version %d, but the host is not in the cloud then", hostName(e.Host), e.ReadVersion)
		return
	}
	got, want := usageOf(st), e.Usage
	got.NumIOOps, want.NumIOOps = 0, 0
	if got != want {
		v.res.add(UsageMismatch, "host %s at version %d: the store showed free_ram_mb %d, free_disk_mb %d, vcpus_used %d, num_instances %d; the account makes it %d, %d, %d, %d",
			hostName(e.Host), e.ReadVersion, want.FreeRAMMB, want.FreeDiskMB, want.VCPUsUsed, want.NumInstances,
			got.FreeRAMMB, got.FreeDiskMB, got.VCPUsUsed, got.NumInstances)
	}
}

func (v *verifier) forget(uuid string) {
	if l, ok := v.live[uuid]; ok {
		delete(v.onHost[l.host], uuid)
		delete(v.live, uuid)
	}
}

func (v *verifier) event(e *Event) {
	switch e.Kind {
	case Report:
		st := v.hosts[e.Host]
		if st == nil {
			v.res.add(BadEvent, "usage report on %s answered version %d, but the host is not in the cloud then", hostName(e.Host), e.Version)
			return
		}
		st.FreeRAMMB, st.FreeDiskMB, st.VCPUsUsed = e.Usage.FreeRAMMB, e.Usage.FreeDiskMB, e.Usage.VCPUsUsed
		st.NumInstances, st.NumIOOps = e.Usage.NumInstances, e.Usage.NumIOOps
		if st.Ironic { // an IronicNodeState reads neither counter from its node
			st.NumInstances, st.NumIOOps = 0, 0
		}
	case Delete:
		l, ok := v.live[e.Instance]
		if !ok {
			v.res.add(BadEvent, "deletion of instance %s answered version %d, but no committed instance %s is held then", e.Instance, e.Version, e.Instance)
			return
		}
		v.forget(e.Instance)
		st := v.hosts[l.host]
		if l.whole { // what it took back; the counters never moved
			st.FreeRAMMB += l.took.FreeRAMMB
			st.FreeDiskMB += l.took.FreeDiskMB
			st.VCPUsUsed -= l.took.VCPUsUsed
			return
		}
		st.FreeRAMMB += l.flavor.MemoryMB
		st.FreeDiskMB += (l.flavor.RootGB + l.flavor.EphemeralGB) * 1024
		st.VCPUsUsed -= l.flavor.VCPUs
		st.NumInstances--
	case AddHost:
		h := e.NewHost
		hn := engine.HostNode{Host: h.Host, Node: h.Node}
		if hn.Node == "" {
			hn.Node = h.Host
		}
		if v.hosts[hn] != nil {
			v.res.add(BadEvent, "addition of %s answered version %d, but the host is already in the cloud", hostName(hn), e.Version)
			return
		}
		sts, err := reference.HostStates(engine.Cloud{Config: v.cfg, Hosts: []engine.Host{h}, Aggregates: v.aggs})
		if err != nil {
			v.res.add(BadEvent, "addition of %s answered version %d, but the host is not valid: %v", hostName(hn), e.Version, err)
			return
		}
		v.hosts[hn], v.spec[hn] = sts[0], h
		v.order = append(v.order, hn)
	case RemoveHost:
		if v.hosts[e.Host] == nil {
			v.res.add(BadEvent, "removal of %s answered version %d, but the host is not in the cloud then", hostName(e.Host), e.Version)
			return
		}
		delete(v.hosts, e.Host)
		delete(v.spec, e.Host)
		for u := range v.onHost[e.Host] {
			delete(v.live, u)
		}
		delete(v.onHost, e.Host)
	case SetAggregate:
		v.setAggregate(e)
	default:
		v.res.add(BadEvent, "unknown event kind %d at version %d", e.Kind, e.Version)
	}
}

// setAggregate changes an aggregate's metadata and builds the states of
// its hosts again (their limits may change), keeping their usage.
func (v *verifier) setAggregate(e *Event) {
	i := slices.IndexFunc(v.aggs, func(a engine.Aggregate) bool { return a.Name == e.Aggregate })
	if i < 0 {
		v.aggs = append(v.aggs, engine.Aggregate{Name: e.Aggregate})
		i = len(v.aggs) - 1
	}
	a := v.aggs[i]
	meta := make(map[string]string, len(a.Metadata)+len(e.Set))
	for k, x := range a.Metadata {
		meta[k] = x
	}
	for k, x := range e.Set {
		meta[k] = x
	}
	for _, k := range e.Del {
		delete(meta, k)
	}
	a.Metadata = meta
	v.aggs = slices.Clone(v.aggs)
	v.aggs[i] = a
	in := map[string]bool{}
	for _, h := range a.Hosts {
		in[h] = true
	}
	var hns []engine.HostNode
	var hosts []engine.Host
	for hn, h := range v.spec {
		if in[hn.Host] {
			hns, hosts = append(hns, hn), append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return
	}
	sts, err := reference.HostStates(engine.Cloud{Config: v.cfg, Hosts: hosts, Aggregates: v.aggs})
	if err != nil {
		v.res.add(BadEvent, "aggregate change of %s answered version %d, but the cloud it makes is not valid: %v", e.Aggregate, e.Version, err)
		return
	}
	for j, hn := range hns {
		old, st := v.hosts[hn], sts[j]
		st.FreeRAMMB, st.FreeDiskMB, st.VCPUsUsed = old.FreeRAMMB, old.FreeDiskMB, old.VCPUsUsed
		st.NumInstances, st.NumIOOps = old.NumInstances, old.NumIOOps
		v.hosts[hn] = st
	}
}

// compare checks the recomputed state against the store's final state.
func (v *verifier) compare() {
	fin := v.in.Final
	done := make(map[engine.HostNode]bool, len(v.hosts))
	for _, hn := range v.order {
		st := v.hosts[hn]
		if st == nil || done[hn] {
			continue // removed, or added again after a removal
		}
		done[hn] = true
		got, ok := fin.Usage[hn]
		want := usageOf(st)
		switch {
		case !ok:
			v.res.add(UsageMismatch, "host %s is in the recomputed cloud, not in the store", hostName(hn))
		case got != want:
			v.res.add(UsageMismatch, "host %s: the store holds %s, recomputed %s", hostName(hn), diffText(got, want), usageText(want))
		}
	}
	for hn := range fin.Usage {
		if v.hosts[hn] == nil {
			v.res.add(UsageMismatch, "host %s is in the store, not in the recomputed cloud", hostName(hn))
		}
	}
	if fin.Instances >= 0 && fin.Instances != len(v.live) {
		v.res.add(UsageMismatch, "the store holds %d committed instances, recomputed %d", fin.Instances, len(v.live))
	}
}

func usageOf(st *reference.HostState) engine.HostUsage {
	return engine.HostUsage{FreeRAMMB: st.FreeRAMMB, FreeDiskMB: st.FreeDiskMB, VCPUsUsed: st.VCPUsUsed,
		NumInstances: st.NumInstances, NumIOOps: st.NumIOOps}
}

func hostName(hn engine.HostNode) string {
	if hn.Node == hn.Host {
		return hn.Host
	}
	return hn.Host + "/" + hn.Node
}

func flavorText(f engine.Flavor) string {
	return fmt.Sprintf("flavor %s: %d MB RAM, %d vCPUs, %d GB disk", f.Name, f.MemoryMB, f.VCPUs, f.RootGB+f.EphemeralGB)
}

// refusal says why filter refused one instance of f on st: what it asked,
// what the host had, and the limit.
func refusal(cfg *engine.Config, st *reference.HostState, filter string, f engine.Flavor) string {
	lim := st.FilterLimit(cfg, filter)
	switch filter {
	case engine.RamFilter, engine.AggregateRamFilter:
		return fmt.Sprintf("%d MB asked, %d MB used of memory_mb %d × ratio %g = %g MB",
			f.MemoryMB, st.TotalUsableRAMMB-st.FreeRAMMB, st.TotalUsableRAMMB, lim, float64(st.TotalUsableRAMMB)*lim)
	case engine.CoreFilter, engine.AggregateCoreFilter:
		return fmt.Sprintf("%d vCPUs asked, %d used of vcpus %d × ratio %g = %g",
			f.VCPUs, st.VCPUsUsed, st.VCPUsTotal, lim, float64(st.VCPUsTotal)*lim)
	case engine.DiskFilter, engine.AggregateDiskFilter:
		return fmt.Sprintf("%d MB asked (swap included), %d MB used of local_gb %d × ratio %g = %g MB",
			(f.RootGB+f.EphemeralGB)*1024+f.Swap, st.TotalUsableDiskGB*1024-st.FreeDiskMB, st.TotalUsableDiskGB, lim,
			float64(st.TotalUsableDiskGB*1024)*lim)
	case engine.IoOpsFilter, engine.AggregateIoOpsFilter:
		return fmt.Sprintf("num_io_ops %d, limit %g", st.NumIOOps, lim)
	case engine.NumInstancesFilter, engine.AggregateNumInstancesFilter:
		return fmt.Sprintf("num_instances %d, limit %g", st.NumInstances, lim)
	}
	return ""
}

func usageText(u engine.HostUsage) string {
	return fmt.Sprintf("free_ram_mb %d, free_disk_mb %d, vcpus_used %d, num_instances %d, num_io_ops %d",
		u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps)
}

// diffText names the fields of got that differ from want, with the
// difference.
func diffText(got, want engine.HostUsage) string {
	var parts []string
	field := func(name string, g, w int64) {
		if g != w {
			parts = append(parts, fmt.Sprintf("%s %d (%+d)", name, g, g-w))
		}
	}
	field("free_ram_mb", got.FreeRAMMB, want.FreeRAMMB)
	field("free_disk_mb", got.FreeDiskMB, want.FreeDiskMB)
	field("vcpus_used", got.VCPUsUsed, want.VCPUsUsed)
	field("num_instances", got.NumInstances, want.NumInstances)
	field("num_io_ops", got.NumIOOps, want.NumIOOps)
	return strings.Join(parts, ", ")
}

// checkRules checks every request's placements, as its caller was told,
// against the rules of the request that host names alone judge
// (BrokenRule): Nova's pre-filtering of ignore_hosts (host names compared
// lower-cased) and requested_destination (host, and node when given),
// applied to forced requests too, and, for the others, the server group
// filters when the configuration enables them. Under the chance driver
// (Rocky's) only ignore_hosts holds, compared exactly, as it compares.
// An ironic node's instances are its own (the ironic host manager gives
// each node its own instance dict): anti-affinity counts them per node.
func (v *verifier) checkRules() {
	filters := v.cfg.LoadFilters()
	chance := v.cfg.SchedulerDriver == engine.DriverChanceScheduler
	antiAffinity := !chance && slices.Contains(filters, engine.ServerGroupAntiAffinityFilter)
	affinity := !chance && slices.Contains(filters, engine.ServerGroupAffinityFilter)
	ironic := v.cfg.HostManager == engine.HostManagerIronic
	for i := range v.in.Requests {
		r := &v.in.Requests[i]
		if len(r.Placed) == 0 {
			continue
		}
		perHost := map[string]int{}
		for _, p := range r.Placed {
			name := strings.ToLower(p.Host.Host)
			ignored := slices.ContainsFunc(r.IgnoreHosts, func(h string) bool { return strings.ToLower(h) == name })
			if chance {
				ignored = slices.Contains(r.IgnoreHosts, p.Host.Host)
			}
			if ignored {
				v.res.add(BrokenRule, "instance %s (request #%d) was placed on %s, a host its request ignores", p.Instance, i, hostName(p.Host))
			}
			if d := r.Destination; d != nil && !chance && (d.Host != p.Host.Host || d.Node != "" && d.Node != p.Host.Node) {
				v.res.add(BrokenRule, "instance %s (request #%d) was placed on %s, not its requested destination %s/%s", p.Instance, i, hostName(p.Host), d.Host, d.Node)
			}
			key := p.Host.Host
			if h, ok := v.spec[p.Host]; ironic && ok && h.HypervisorType != nil && *h.HypervisorType == engine.HVTypeIronic {
				key += "\x00" + p.Host.Node // the node's own dict
			}
			perHost[key]++
		}
		g := r.Group
		switch {
		case g == nil || r.Forced: // force_hosts skips every filter
		case g.Policy == engine.PolicyAntiAffinity && antiAffinity:
			limit := max(g.MaxServerPerHost, 1)
			for h, n := range perHost {
				if n > limit {
					v.res.add(BrokenRule, "request #%d placed %d instances of anti-affinity group %s on host %s (max_server_per_host %d)", i, n, g.UUID, strings.ReplaceAll(h, "\x00", "/"), limit)
				}
			}
		case g.Policy == engine.PolicyAffinity && affinity:
			// Nova passes a host of the group's hosts, or any while it has
			// none; each choice joins them.
			names := map[string]bool{}
			for _, p := range r.Placed {
				names[p.Host.Host] = true
			}
			if len(g.Hosts) == 0 && len(names) > 1 {
				v.res.add(BrokenRule, "request #%d placed the instances of affinity group %s, which had no host, on %d hosts", i, g.UUID, len(names))
			}
			for h := range names {
				if len(g.Hosts) > 0 && !slices.Contains(g.Hosts, h) {
					v.res.add(BrokenRule, "request #%d placed an instance of affinity group %s on %s, not one of the group's hosts %q", i, g.UUID, h, g.Hosts)
				}
			}
		}
	}
}
