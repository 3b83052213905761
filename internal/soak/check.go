package soak

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/server"
)

// idle waits until no placement is pending (hung-up clients' requests
// may still be running).
func (s *soak) idle() error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, b, err := s.do("stats", http.MethodGet, "/v1/stats", nil, http.StatusOK)
		if err != nil {
			return err
		}
		var st struct {
			Pending    int     `json:"pending"`
			QueueDepth float64 `json:"queue_depth"`
		}
		if code == http.StatusOK && json.Unmarshal(b, &st) == nil && st.Pending == 0 && st.QueueDepth == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			s.problem(BadStatus, "placements still pending 60s after the clients stopped: %s", trim(b))
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quiet waits until the server is idle, closes the idle connections, and
// reads its resources: the lowest goroutine count over a few reads, until
// two agree (closed connections take a moment to go).
func (s *soak) quiet() (Resources, error) {
	if err := s.idle(); err != nil {
		return Resources{}, err
	}
	var best Resources
	for i := range 20 {
		s.c.CloseIdleConnections()
		time.Sleep(20 * time.Millisecond)
		res, err := s.probe()
		if err != nil {
			return Resources{}, err
		}
		stable := i > 0 && res.Goroutines == best.Goroutines
		if i == 0 || res.Goroutines < best.Goroutines {
			best.Goroutines = res.Goroutines
		}
		best.HeapBytes = res.HeapBytes
		if stable {
			break
		}
	}
	s.c.CloseIdleConnections()
	return best, nil
}

func (s *soak) probe() (Resources, error) {
	if s.o.Probe != nil {
		return s.o.Probe(s.ctx)
	}
	if _, _, err := s.do("probe", http.MethodGet, "/debug/pprof/heap?gc=1", nil, http.StatusOK); err != nil {
		return Resources{}, err
	}
	_, b, err := s.do("probe", http.MethodGet, "/metrics", nil, http.StatusOK)
	if err != nil {
		return Resources{}, err
	}
	var res Resources
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			res.Goroutines = int(f)
		case "go_memstats_heap_alloc_bytes":
			res.HeapBytes = uint64(f)
		}
	}
	if res.Goroutines == 0 {
		return res, errors.New("soak: /metrics has no go_goroutines")
	}
	return res, nil
}

// verify checks the server once the clients have stopped.
func (s *soak) verify() error {
	if err := s.idle(); err != nil {
		return err
	}
	st := &s.st // no client runs: no lock needed
	removed := func(hn engine.HostNode) bool {
		h := st.byName[hn.Host]
		return h != nil && h.removed
	}
	// Instances on removed hosts are forgotten; deletions answered 404
	// are fine only there.
	for _, u := range slices.Clone(st.liveList) {
		if in := st.live[u]; removed(in.host) {
			st.dropLive(u)
			s.rep.Forgotten++
		}
	}
	for u, in := range st.suspects {
		if removed(in.host) {
			s.rep.Forgotten++
		} else {
			s.problem(LostInstance, "instance %s, placed on %s, answered 404 to its deletion", u, nodeName(in.host))
		}
	}
	// The hung-up clients' instances: committed or not, released now.
	for _, u := range st.maybe {
		code, _, err := s.do("probe-hung-up", http.MethodDelete, "/v1/instances/"+url.PathEscape(u), nil, http.StatusOK, http.StatusNotFound)
		if err != nil {
			return err
		}
		if code == http.StatusOK {
			s.rep.HungUpCommitted++
		}
	}
	stats, err := s.stats()
	if err != nil {
		return err
	}
	if stats.Instances != len(st.live) {
		kind := LostInstance
		if stats.Instances > len(st.live) {
			kind = Unknown
		}
		s.problem(kind, "the server holds %d instances, the clients %d", stats.Instances, len(st.live))
	}
	s.checkHosts(stats.Hosts)
	s.checkGroups()
	// Every instance held is still there: its deletion answers 200.
	s.rep.HeldAtEnd = len(st.live)
	for _, u := range slices.Clone(st.liveList) {
		in := st.live[u]
		code, _, err := s.do("final-delete", http.MethodDelete, "/v1/instances/"+url.PathEscape(u), nil, http.StatusOK, http.StatusNotFound)
		if err != nil {
			return err
		}
		if code == http.StatusNotFound {
			s.problem(LostInstance, "instance %s, placed on %s and never deleted, is not held (404)", u, nodeName(in.host))
		}
		st.dropLive(u)
	}
	if stats, err = s.stats(); err != nil {
		return err
	}
	if stats.Instances != 0 {
		s.problem(Unknown, "the server still holds %d instances once the clients released theirs", stats.Instances)
	}
	end, err := s.quiet()
	if err != nil {
		return err
	}
	s.rep.End = end
	base := s.rep.Baseline
	if end.Goroutines > base.Goroutines+s.o.GoroutineSlack {
		s.problem(LeakGoroutines, "%d goroutines after the soak, %d after the warm-up (slack %d)",
			end.Goroutines, base.Goroutines, s.o.GoroutineSlack)
	}
	if limit := uint64(float64(base.HeapBytes)*(1+s.o.HeapSlack)) + s.o.HeapSlackBytes; end.HeapBytes > limit {
		s.problem(LeakHeap, "heap %d bytes after the soak, %d after the warm-up (limit %d: slack %g and %d bytes)",
			end.HeapBytes, base.HeapBytes, limit, s.o.HeapSlack, s.o.HeapSlackBytes)
	}
	return nil
}

type statsDoc struct {
	Hosts     int `json:"hosts"`
	Instances int `json:"instances"`
}

func (s *soak) stats() (statsDoc, error) {
	var d statsDoc
	_, b, err := s.do("final-stats", http.MethodGet, "/v1/stats", nil, http.StatusOK)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("soak: /v1/stats: %w", err)
	}
	return d, nil
}

func nodeName(hn engine.HostNode) string {
	if hn.Node == hn.Host {
		return hn.Host
	}
	return hn.Host + "/" + hn.Node
}

// checkHosts reads every host the soak knows (and the ones placements
// landed on): removed ones must be gone, the others within their limits,
// and the ones no client reported usage for at their exact usage.
func (s *soak) checkHosts(serverHosts int) {
	st := &s.st
	held := map[engine.HostNode][]inst{}
	for _, in := range st.live {
		held[in.host] = append(held[in.host], in)
	}
	names := make([]string, 0, len(st.hosts))
	for _, h := range st.hosts {
		names = append(names, h.name)
	}
	for hn := range st.seenNodes {
		if st.byName[hn.Host] == nil {
			st.byName[hn.Host] = &hostInfo{name: hn.Host, reported: true} // not ours: not exact
			names = append(names, hn.Host)
		}
	}
	sort.Strings(names)
	names = slices.Compact(names)
	nodes := 0
	excess := int64(0) // num_io_ops beyond the placements told, on exact hosts
	for _, name := range names {
		h := st.byName[name]
		code, b, err := s.do("final-host", http.MethodGet, "/v1/hosts/"+url.PathEscape(name), nil, http.StatusOK, http.StatusNotFound)
		if err != nil {
			return
		}
		if h.removed {
			if code != http.StatusNotFound {
				s.problem(HostMissing, "host %s was removed, GET answers %d", name, code)
			}
			continue
		}
		if code != http.StatusOK {
			s.problem(HostMissing, "host %s was never removed, GET answers %d", name, code)
			continue
		}
		var doc server.HostDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			s.problem(BadStatus, "GET /v1/hosts/%s: %v", name, err)
			continue
		}
		if s.o.Cloud != nil || !h.reported {
			nodes += len(doc.Nodes)
		}
		for i := range doc.Nodes {
			n := &doc.Nodes[i]
			hn, u := engine.HostNode{Host: n.Host, Node: n.Node}, usageOf(n)
			s.rep.HostsChecked++
			s.checkLimits(hn, n, u)
			if h.reported {
				continue
			}
			init, ok := s.initial(hn)
			if !ok {
				continue
			}
			want := init
			for _, in := range held[hn] {
				f := flavors[in.flavor]
				want.FreeRAMMB -= f.MemoryMB
				want.FreeDiskMB -= f.RootGB * 1024
				want.VCPUsUsed += f.VCPUs
				want.NumInstances++
			}
			minIO := init.NumIOOps + st.placedOn[hn]
			s.rep.ExactHosts++
			if u.FreeRAMMB != want.FreeRAMMB || u.FreeDiskMB != want.FreeDiskMB || u.VCPUsUsed != want.VCPUsUsed ||
				u.NumInstances != want.NumInstances || u.NumIOOps < minIO {
				s.problem(WrongUsage, "host %s (no usage report): the server holds free_ram_mb %d, free_disk_mb %d, vcpus_used %d, num_instances %d, num_io_ops %d; the clients' instances make it %d, %d, %d, %d, >= %d",
					nodeName(hn), u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps,
					want.FreeRAMMB, want.FreeDiskMB, want.VCPUsUsed, want.NumInstances, minIO)
			}
			excess += max(0, u.NumIOOps-minIO)
		}
	}
	if excess > s.rep.HungUpCommitted {
		s.problem(WrongUsage, "the hosts without usage reports count %d I/O operations more than the placements told, but only %d instances of hung-up clients were committed",
			excess, s.rep.HungUpCommitted)
	}
	if s.o.Cloud != nil && nodes != serverHosts {
		s.problem(HostMissing, "the server has %d nodes, the soak expects %d", serverHosts, nodes)
	}
}

func (s *soak) initial(hn engine.HostNode) (engine.HostUsage, bool) {
	if s.hosts != nil {
		return s.hosts.Initial(hn)
	}
	for _, h := range s.st.added {
		if h.Host == hn.Host && h.Node == hn.Node {
			return engine.HostUsage{FreeRAMMB: h.FreeRAMMB, FreeDiskMB: h.FreeDiskGB * 1024, VCPUsUsed: h.VCPUsUsed}, true
		}
	}
	return engine.HostUsage{}, false
}

// checkLimits: the soak's own account of the limits when it knows the
// cloud (a host over them at the start may stay so, no further), else the
// ones the server reports.
func (s *soak) checkLimits(hn engine.HostNode, n *server.NodeDoc, u engine.HostUsage) {
	if s.hosts != nil {
		// A host over a limit from the start may stay so, no further.
		over, known := s.hosts.OverLimitsSinceStart(hn, u)
		if !known {
			s.problem(HostMissing, "node %s is not one the soak knows", nodeName(hn))
			return
		}
		if len(over) == 0 {
			return
		}
		s.problem(Overcommit, "node %s: %s", nodeName(hn), strings.Join(over, "; "))
		return
	}
	// A limit of 0 or less lets nothing be placed: any usage under it was
	// there from the start (the soak does not know the cloud's), so it is
	// not checked.
	var over []string
	if r := n.RAMAllocationRatio; r != nil && *r > 0 && float64(n.MemoryMB-u.FreeRAMMB) > float64(float64(n.MemoryMB)**r) {
		over = append(over, fmt.Sprintf("RAM %d MB used of %d × %g", n.MemoryMB-u.FreeRAMMB, n.MemoryMB, *r))
	}
	if r := n.CPUAllocationRatio; r != nil && *r > 0 && n.VCPUs > 0 && float64(u.VCPUsUsed) > float64(float64(n.VCPUs)**r) {
		over = append(over, fmt.Sprintf("vcpus_used %d of %d × %g", u.VCPUsUsed, n.VCPUs, *r))
	}
	if r := n.DiskAllocationRatio; r != nil && *r > 0 && float64(n.LocalGB*1024-u.FreeDiskMB) > float64(float64(n.LocalGB*1024)**r) {
		over = append(over, fmt.Sprintf("disk %d MB used of %d GB × %g", n.LocalGB*1024-u.FreeDiskMB, n.LocalGB, *r))
	}
	if m := n.MaxIOOps; m != nil && *m > 0 && u.NumIOOps > *m {
		over = append(over, fmt.Sprintf("num_io_ops %d > %d", u.NumIOOps, *m))
	}
	if m := n.MaxInstances; m != nil && *m > 0 && u.NumInstances > *m {
		over = append(over, fmt.Sprintf("num_instances %d > %d", u.NumInstances, *m))
	}
	if len(over) > 0 {
		s.problem(Overcommit, "node %s (the server's own limits): %s", nodeName(hn), strings.Join(over, "; "))
	}
}

// checkGroups: an anti-affinity group has at most one live member per
// host name.
func (s *soak) checkGroups() {
	on := map[string]map[string]string{} // group -> host -> a member
	for _, u := range s.st.liveList {
		in := s.st.live[u]
		if in.group == "" {
			continue
		}
		if on[in.group] == nil {
			on[in.group] = map[string]string{}
		}
		if other, dup := on[in.group][in.host.Host]; dup {
			s.problem(AntiAffinity, "group %s has %s and %s on host %s", in.group, other, u, in.host.Host)
		}
		on[in.group][in.host.Host] = u
	}
}
