// Package soak runs a bounded load of concurrent clients against the
// placement API of "placer serve" (internal/server) for a fixed time, then
// verifies the service through the API as placer simulate verifies a run:
//
//   - no overcommit: every host's usage (GET /v1/hosts/{host}) is within
//     its limits (internal/verify's own account of the cloud when the soak
//     knows it, else the limits the server reports); on the hosts no
//     client reported usage for, the usage is exactly the initial one
//     minus the flavors of the instances the clients hold there;
//   - no lost instance: every instance placed (a 200 answer) and neither
//     deleted nor on a removed host is still held (its DELETE answers
//     200), and the server holds no instance the clients do not know of
//     (GET /v1/stats); the instances of a client that hung up are probed;
//   - anti-affinity groups have at most one live member per host;
//   - every answer has a status the API documents for what was asked (a
//     bad body 400, an oversized one 413...), never a 5xx but 503;
//   - the server's goroutines and heap are back to where they were after
//     a warm-up, within a slack (Options.GoroutineSlack, HeapSlack).
//
// The clients place (with server-made uuids, some with an anti-affinity
// group, some partial), delete, report usage, read, add and remove hosts,
// send bad and oversized bodies, and hang up: in the middle of sending a
// body, or while waiting for the answer.
package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/verify"
)

// Options configure a soak.
type Options struct {
	// URL is the server's base URL (http://127.0.0.1:8080).
	URL string
	// Client sends the requests; nil means a client of the soak's own.
	Client *http.Client
	// Duration is how long the clients run (after the warm-up).
	Duration time.Duration
	// Warmup is how long the clients run before the baseline of
	// goroutines and heap is taken; 0 means Duration/10, at most 5s.
	Warmup time.Duration
	// Clients is how many clients run at once.
	Clients int
	// Seed seeds the clients' choices.
	Seed uint64
	// Cloud is the server's initial cloud when the soak knows it (it
	// started the server): the hosts it reports usage for and removes,
	// and the limits, by internal/verify's account. Nil: the soak adds
	// hosts of its own to work on and takes the limits the server reports.
	Cloud *engine.Cloud
	// MaxBodyBytes is the server's body limit (oversized bodies go past
	// it); 0 means server.DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Probe reads the server's goroutines and heap after a GC; nil means
	// through the API (GET /debug/pprof/heap?gc=1, then /metrics).
	Probe func(context.Context) (Resources, error)
	// GoroutineSlack is how many goroutines more than the baseline the
	// end may count; 0 means 8. HeapSlack is the fraction and HeapSlackBytes the bytes
	// of heap more than the baseline it may hold; 0 means 0.5 and 16 MiB.
	GoroutineSlack int
	HeapSlack      float64
	HeapSlackBytes uint64
	// Progress, when set, receives a line every few seconds.
	Progress io.Writer
}

// Resources are what the soak watches of the server's process.
type Resources struct {
	Goroutines int    `json:"goroutines"`
	HeapBytes  uint64 `json:"heap_bytes"`
}

// Report is the outcome of a soak.
type Report struct {
	Seconds float64 `json:"seconds"`
	Clients int     `json:"clients"`
	// Requests counts the requests by operation; Statuses by operation
	// and answer ("place 200", "oversized transport-error").
	Requests map[string]int64 `json:"requests"`
	Statuses map[string]int64 `json:"statuses"`
	// Placed is how many instances 200 answers placed; Deleted how many
	// the clients released; Forgotten how many went with a removed host;
	// HungUp how many instances hung-up clients asked for and
	// HungUpCommitted how many of them the server had committed.
	Placed          int64 `json:"placed_instances"`
	Deleted         int64 `json:"deleted_instances"`
	Forgotten       int64 `json:"forgotten_instances"`
	HungUp          int64 `json:"hung_up_instances"`
	HungUpCommitted int64 `json:"hung_up_committed"`
	// HostsAdded and HostsRemoved are the host changes made.
	HostsAdded   int64 `json:"hosts_added"`
	HostsRemoved int64 `json:"hosts_removed"`
	// HeldAtEnd is how many instances the clients held at the end (each
	// checked, then released); HostsChecked how many nodes were checked,
	// ExactHosts of them against their exact usage.
	HeldAtEnd    int `json:"held_at_end"`
	HostsChecked int `json:"hosts_checked"`
	ExactHosts   int `json:"exact_hosts"`
	// Baseline is the server after the warm-up, End after the soak.
	Baseline Resources `json:"baseline"`
	End      Resources `json:"end"`
	// Counts are the problems by kind; Problems the first of each kind.
	Counts   map[string]int `json:"problem_counts"`
	Problems []string       `json:"problems"`
	OK       bool           `json:"ok"`
}

// Problem kinds.
const (
	Overcommit     = "overcommit"
	LostInstance   = "lost instance"
	Unknown        = "unknown instance"
	WrongUsage     = "wrong usage"
	AntiAffinity   = "anti-affinity"
	BadStatus      = "unexpected answer"
	LeakGoroutines = "goroutine leak"
	LeakHeap       = "heap growth"
	HostMissing    = "host set"
)

const maxProblems = 10

// flavor is one of the soak's flavors.
type flavor struct {
	Name     string `json:"name"`
	MemoryMB int64  `json:"memory_mb"`
	VCPUs    int64  `json:"vcpus"`
	RootGB   int64  `json:"root_gb"`
	Swap     int64  `json:"swap,omitempty"`
}

var flavors = []flavor{
	{"m1.tiny", 512, 1, 1, 0},
	{"m1.small", 2048, 1, 20, 0},
	{"m1.medium", 4096, 2, 40, 512},
	{"m1.large", 8192, 4, 80, 0},
	{"m1.xlarge", 16384, 8, 160, 0},
}

// inst is an instance a client was told of.
type inst struct {
	host   engine.HostNode
	flavor int // index into flavors
	group  string
}

// hostInfo is a host name the soak works on.
type hostInfo struct {
	name      string
	reported  bool // clients send usage reports for it
	removable bool
	removed   bool
	removing  bool
}

// state is what the clients share.
type state struct {
	mu        sync.Mutex
	live      map[string]inst
	liveList  []string
	liveAt    map[string]int
	hosts     []*hostInfo
	removable []*hostInfo
	byName    map[string]*hostInfo
	placedOn  map[engine.HostNode]int64 // placements told, for num_io_ops
	maybe     []string                  // instances of hung-up clients
	suspects  map[string]inst           // deletions answered 404
	seenNodes map[engine.HostNode]bool  // nodes placements landed on
	added     []engine.Host
	groups    []string
	removedN  int
}

func (s *state) addInfo(h *hostInfo) {
	s.hosts = append(s.hosts, h)
	s.byName[h.name] = h
	if h.removable {
		s.removable = append(s.removable, h)
	}
}

func (s *state) addLive(u string, in inst) {
	s.live[u] = in
	s.liveAt[u] = len(s.liveList)
	s.liveList = append(s.liveList, u)
}

func (s *state) dropLive(u string) (inst, bool) {
	in, ok := s.live[u]
	if !ok {
		return in, false
	}
	i := s.liveAt[u]
	last := s.liveList[len(s.liveList)-1]
	s.liveList[i], s.liveAt[last] = last, i
	s.liveList = s.liveList[:len(s.liveList)-1]
	delete(s.liveAt, u)
	delete(s.live, u)
	return in, true
}

type soak struct {
	o      Options
	c      *http.Client
	ctx    context.Context
	st     state
	hosts  *verify.Hosts // nil without Options.Cloud
	rep    *Report
	repMu  sync.Mutex
	seq    atomic.Int64
	placed atomic.Int64
	// tag makes the names of the soak's hosts, groups and instances its
	// own (a server soaked twice has the first soak's hosts).
	tag string
}

// Run soaks the server at o.URL and verifies it. The error is for a soak
// that could not run (a bad option, a server that does not answer); a
// failed verification is a Report with OK false.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Clients < 1 || o.Duration <= 0 {
		return nil, errors.New("soak: want Clients >= 1 and Duration > 0")
	}
	if o.Warmup == 0 {
		o.Warmup = min(o.Duration/10, 5*time.Second)
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.GoroutineSlack == 0 {
		o.GoroutineSlack = 8
	}
	if o.HeapSlack == 0 {
		o.HeapSlack = 0.5
	}
	if o.HeapSlackBytes == 0 {
		o.HeapSlackBytes = 16 << 20
	}
	o.URL = strings.TrimRight(o.URL, "/")
	s := &soak{o: o, c: o.Client, ctx: ctx, tag: fmt.Sprintf("%d-%x", o.Seed, time.Now().UnixNano()&0xffffff), rep: &Report{Clients: o.Clients, Requests: map[string]int64{},
		Statuses: map[string]int64{}, Counts: map[string]int{}}}
	if s.c == nil {
		s.c = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients + 4}}
	}
	s.st = state{live: map[string]inst{}, liveAt: map[string]int{}, byName: map[string]*hostInfo{},
		placedOn: map[engine.HostNode]int64{}, suspects: map[string]inst{}, seenNodes: map[engine.HostNode]bool{}}
	if err := s.setup(); err != nil {
		return nil, err
	}
	start := time.Now()
	s.everyKind()
	if err := s.phase(o.Warmup, 0); err != nil {
		return nil, err
	}
	base, err := s.quiet()
	if err != nil {
		return nil, err
	}
	s.rep.Baseline = base
	if err := s.phase(o.Duration, 1); err != nil {
		return nil, err
	}
	s.rep.Seconds = time.Since(start).Seconds()
	s.rep.Placed = s.placed.Load()
	if err := s.verify(); err != nil {
		return nil, err
	}
	s.rep.OK = len(s.rep.Problems) == 0
	return s.rep, nil
}

func (s *soak) problem(kind, format string, args ...any) {
	s.repMu.Lock()
	defer s.repMu.Unlock()
	s.rep.Counts[kind]++
	if s.rep.Counts[kind] <= maxProblems {
		s.rep.Problems = append(s.rep.Problems, kind+": "+fmt.Sprintf(format, args...))
	}
}

func (s *soak) count(op, status string) {
	s.repMu.Lock()
	s.rep.Requests[op]++
	s.rep.Statuses[op+" "+status]++
	s.repMu.Unlock()
}

// setup learns the hosts to work on: the cloud's (every other one
// reported, one in ten removable), or, without a cloud, hosts of the
// soak's own.
func (s *soak) setup() error {
	if _, _, err := s.do("setup", http.MethodGet, "/v1/stats", nil, 200); err != nil {
		return fmt.Errorf("soak: the server does not answer: %w", err)
	}
	if c := s.o.Cloud; c != nil {
		h, err := verify.NewHosts(*c)
		if err != nil {
			return err
		}
		s.hosts = h
		for i, host := range c.Hosts {
			if s.st.byName[host.Host] == nil {
				hi := &hostInfo{name: host.Host, reported: i%2 == 0, removable: i%10 == 3}
				s.st.addInfo(hi)
			}
		}
		return nil
	}
	for i := range max(8, s.o.Clients) {
		if err := s.addHost(fmt.Sprintf("soak-base-%s-%d", s.tag, i), i%2 == 0, i%4 == 3); err != nil {
			return err
		}
	}
	return nil
}

// phase runs the clients for d.
func (s *soak) phase(d time.Duration, phase uint64) error {
	ctx, cancel := context.WithTimeout(s.ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	for i := range s.o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(s.o.Seed, uint64(i)<<8|phase))
			for ctx.Err() == nil {
				s.step(r)
			}
		}()
	}
	if s.o.Progress != nil {
		go func() {
			t := time.NewTicker(5 * time.Second)
			defer t.Stop()
			start := time.Now()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					s.st.mu.Lock()
					live := len(s.st.live)
					s.st.mu.Unlock()
					fmt.Fprintf(s.o.Progress, "soak: %.0fs, %d instances placed, %d held\n",
						time.Since(start).Seconds(), s.placed.Load(), live)
				}
			}
		}()
	}
	wg.Wait()
	return s.ctx.Err()
}

// step is one client request, drawn from the mix.
func (s *soak) step(r *rand.Rand) {
	switch n := r.IntN(100); {
	case n < 40:
		s.place(r)
	case n < 55:
		s.deleteInstance(r)
	case n < 67:
		s.report(r)
	case n < 71:
		s.read(r)
	case n < 72:
		s.addHostTwice()
	case n < 73:
		s.addHost(fmt.Sprintf("soak-add-%s-%d", s.tag, s.seq.Add(1)), false, true)
	case n < 75:
		s.removeHost(r)
	case n < 84:
		s.badBody(r)
	case n < 87:
		s.oversized(r)
	default:
		s.hangUp(r, r.IntN(2) == 0)
	}
}

// everyKind sends one request of every kind, so that even a short soak
// has been through them all.
func (s *soak) everyKind() {
	r := rand.New(rand.NewPCG(s.o.Seed, 1<<40))
	s.place(r)
	s.deleteInstance(r)
	s.report(r)
	s.read(r)
	s.addHost(fmt.Sprintf("soak-add-%s-%d", s.tag, s.seq.Add(1)), false, true)
	s.addHostTwice()
	s.removeHost(r)
	s.badBody(r)
	s.oversized(r)
	s.hangUp(r, true)
	s.hangUp(r, false)
}

// do sends a request and reads the answer; the status must be one of
// want (else a problem, with the body). A transport error is returned.
func (s *soak) do(op, method, path string, body []byte, want ...int) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(s.ctx, method, s.o.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.c.Do(req)
	if err != nil {
		if s.ctx.Err() == nil {
			s.count(op, "transport-error")
			s.problem(BadStatus, "%s %s: %v", method, path, err)
		}
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	s.count(op, strconv.Itoa(resp.StatusCode))
	if err != nil {
		s.problem(BadStatus, "%s %s: reading the answer: %v", method, path, err)
		return resp.StatusCode, b, err
	}
	if !slices.Contains(want, resp.StatusCode) {
		s.problem(BadStatus, "%s %s answered %d (want %v): %s", method, path, resp.StatusCode, want, trim(b))
	}
	return resp.StatusCode, b, nil
}

func trim(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// placeBody is a request body: n instances of flavor f, with uuids when
// given, in group g (anti-affinity) when not "".
func placeBody(n int, f flavor, uuids []string, g string, partial bool) []byte {
	m := map[string]any{"num_instances": n, "flavor": f}
	if uuids != nil {
		m["instance_uuids"] = uuids
	}
	if g != "" {
		m["instance_group"] = map[string]any{"uuid": g, "policy": "anti-affinity"}
	}
	if partial {
		m["partial"] = true
	}
	b, _ := json.Marshal(m)
	return b
}

type resultDoc struct {
	Placements []struct {
		InstanceUUID string `json:"instance_uuid"`
		Host         string `json:"host"`
		Node         string `json:"node"`
	} `json:"placements"`
	Error *struct {
		Kind string `json:"kind"`
	} `json:"error"`
}

func (s *soak) place(r *rand.Rand) {
	fi := r.IntN(len(flavors))
	n := 1 + r.IntN(4)
	g := ""
	if r.IntN(8) == 0 {
		s.st.mu.Lock()
		if len(s.st.groups) == 0 || r.IntN(3) == 0 {
			s.st.groups = append(s.st.groups, fmt.Sprintf("soak-group-%s-%d", s.tag, s.seq.Add(1)))
		}
		g = s.st.groups[r.IntN(len(s.st.groups))]
		s.st.mu.Unlock()
	}
	partial := r.IntN(10) == 0
	code, b, err := s.do("place", http.MethodPost, "/v1/place", placeBody(n, flavors[fi], nil, g, partial),
		http.StatusOK, http.StatusConflict, http.StatusServiceUnavailable)
	if err != nil || code != http.StatusOK {
		return
	}
	var res resultDoc
	if err := json.Unmarshal(b, &res); err != nil || res.Error != nil || (len(res.Placements) != n && !partial) {
		s.problem(BadStatus, "POST /v1/place answered 200 with %s", trim(b))
		return
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for _, p := range res.Placements {
		hn := engine.HostNode{Host: p.Host, Node: p.Node}
		if _, dup := s.st.live[p.InstanceUUID]; dup {
			s.problem(BadStatus, "POST /v1/place answered instance %s, which a client already holds", p.InstanceUUID)
			continue
		}
		s.st.addLive(p.InstanceUUID, inst{host: hn, flavor: fi, group: g})
		s.st.placedOn[hn]++
		s.st.seenNodes[hn] = true
		s.placed.Add(1)
	}
}

func (s *soak) deleteInstance(r *rand.Rand) {
	s.st.mu.Lock()
	if len(s.st.liveList) == 0 {
		s.st.mu.Unlock()
		return
	}
	u := s.st.liveList[r.IntN(len(s.st.liveList))]
	in, _ := s.st.dropLive(u)
	s.st.mu.Unlock()
	code, _, err := s.do("delete", http.MethodDelete, "/v1/instances/"+url.PathEscape(u), nil, http.StatusOK, http.StatusNotFound)
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	switch {
	case err != nil:
		s.st.addLive(u, in) // not known: checked at the end
	case code == http.StatusOK:
		s.repMu.Lock()
		s.rep.Deleted++
		s.repMu.Unlock()
	case code == http.StatusNotFound:
		s.st.suspects[u] = in // fine only if its host was removed
	}
}

// hostDoc and nodeDoc are GET /v1/hosts/{host}'s answer.
type hostDoc struct {
	Nodes []nodeDoc `json:"nodes"`
}

type nodeDoc struct {
	Host                string  `json:"host"`
	Node                string  `json:"node"`
	MemoryMB            int64   `json:"memory_mb"`
	FreeRAMMB           int64   `json:"free_ram_mb"`
	VCPUs               int64   `json:"vcpus"`
	VCPUsUsed           int64   `json:"vcpus_used"`
	LocalGB             int64   `json:"local_gb"`
	FreeDiskMB          int64   `json:"free_disk_mb"`
	NumInstances        int64   `json:"num_instances"`
	NumIOOps            int64   `json:"num_io_ops"`
	RAMAllocationRatio  float64 `json:"ram_allocation_ratio"`
	CPUAllocationRatio  float64 `json:"cpu_allocation_ratio"`
	DiskAllocationRatio float64 `json:"disk_allocation_ratio"`
	MaxIOOps            int64   `json:"max_io_ops"`
	MaxInstances        int64   `json:"max_instances"`
}

func (n *nodeDoc) usage() engine.HostUsage {
	return engine.HostUsage{FreeRAMMB: n.FreeRAMMB, FreeDiskMB: n.FreeDiskMB, VCPUsUsed: n.VCPUsUsed,
		NumInstances: n.NumInstances, NumIOOps: n.NumIOOps}
}

// pickHost draws a host that is not removed, among those with keep.
func (s *soak) pickHost(r *rand.Rand, keep func(*hostInfo) bool) *hostInfo {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for range 8 {
		h := s.st.hosts[r.IntN(len(s.st.hosts))]
		if !h.removed && !h.removing && keep(h) {
			return h
		}
	}
	return nil
}

// report is a compute node's usage report: its usage as read, the I/O
// finished (num_io_ops 0), as placer simulate's updater sends it.
func (s *soak) report(r *rand.Rand) {
	h := s.pickHost(r, func(h *hostInfo) bool { return h.reported })
	if h == nil {
		return
	}
	code, b, err := s.do("report", http.MethodGet, "/v1/hosts/"+url.PathEscape(h.name), nil, http.StatusOK, http.StatusNotFound)
	if err != nil || code != http.StatusOK {
		return
	}
	var doc hostDoc
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Nodes) == 0 {
		s.problem(BadStatus, "GET /v1/hosts/%s answered %s", h.name, trim(b))
		return
	}
	n := doc.Nodes[r.IntN(len(doc.Nodes))]
	body, _ := json.Marshal(map[string]int64{"free_ram_mb": n.FreeRAMMB, "free_disk_gb": n.FreeDiskMB / 1024,
		"vcpus_used": n.VCPUsUsed, "num_instances": n.NumInstances, "num_io_ops": 0})
	s.do("report", http.MethodPut, "/v1/hosts/"+url.PathEscape(n.Host)+"/"+url.PathEscape(n.Node), body,
		http.StatusOK, http.StatusNotFound)
}

func (s *soak) read(r *rand.Rand) {
	if r.IntN(2) == 0 {
		s.do("read", http.MethodGet, "/v1/stats", nil, http.StatusOK)
		return
	}
	if h := s.pickHost(r, func(*hostInfo) bool { return true }); h != nil {
		s.do("read", http.MethodGet, "/v1/hosts/"+url.PathEscape(h.name), nil, http.StatusOK, http.StatusNotFound)
	}
}

func newHost(name string) engine.Host {
	return engine.Host{Host: name, Node: name, MemoryMB: 65536, FreeRAMMB: 65536, VCPUs: 16, LocalGB: 500, FreeDiskGB: 500}
}

func (s *soak) addHost(name string, reported, removable bool) error {
	h := newHost(name)
	body, _ := json.Marshal(map[string]any{"host": h.Host, "memory_mb": h.MemoryMB, "free_ram_mb": h.FreeRAMMB,
		"vcpus": h.VCPUs, "vcpus_used": 0, "local_gb": h.LocalGB, "free_disk_gb": h.FreeDiskGB})
	code, _, err := s.do("add-host", http.MethodPost, "/v1/hosts", body, http.StatusCreated)
	if err != nil {
		return err
	}
	if code != http.StatusCreated {
		return nil
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if s.hosts != nil {
		if err := s.hosts.Add(h); err != nil {
			return err
		}
	}
	hi := &hostInfo{name: name, reported: reported, removable: removable}
	s.st.addInfo(hi)
	s.st.added = append(s.st.added, h)
	s.repMu.Lock()
	s.rep.HostsAdded++
	s.repMu.Unlock()
	return nil
}

// addHostTwice adds one new host from two clients at once: one must get
// 201, the other 409 (the host exists).
func (s *soak) addHostTwice() {
	name := fmt.Sprintf("soak-twice-%s-%d", s.tag, s.seq.Add(1))
	h := newHost(name)
	body, _ := json.Marshal(map[string]any{"host": h.Host, "memory_mb": h.MemoryMB, "free_ram_mb": h.FreeRAMMB,
		"vcpus": h.VCPUs, "vcpus_used": 0, "local_gb": h.LocalGB, "free_disk_gb": h.FreeDiskGB})
	var codes [2]int
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = s.do("add-host-twice", http.MethodPost, "/v1/hosts", body, http.StatusCreated, http.StatusConflict)
		}()
	}
	wg.Wait()
	if codes[0]+codes[1] != http.StatusCreated+http.StatusConflict {
		if codes[0] == http.StatusCreated || codes[1] == http.StatusCreated {
			s.problem(BadStatus, "POST /v1/hosts of %s from two clients at once answered %d and %d (want 201 and 409)", name, codes[0], codes[1])
		}
		if codes[0] != http.StatusCreated && codes[1] != http.StatusCreated {
			return // neither added it (the problems are counted)
		}
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if s.hosts != nil {
		s.hosts.Add(h)
	}
	hi := &hostInfo{name: name, removable: true}
	s.st.addInfo(hi)
	s.st.added = append(s.st.added, h)
	s.repMu.Lock()
	s.rep.HostsAdded++
	s.repMu.Unlock()
}

// removeHost removes a removable host: at most a tenth of the hosts go.
func (s *soak) removeHost(r *rand.Rand) {
	s.st.mu.Lock()
	if s.st.removedN*10 >= len(s.st.hosts) {
		s.st.mu.Unlock()
		return
	}
	s.st.mu.Unlock()
	s.st.mu.Lock()
	var h *hostInfo
	for range 8 {
		if len(s.st.removable) == 0 {
			break
		}
		c := s.st.removable[r.IntN(len(s.st.removable))]
		if !c.removing && !c.removed {
			h = c
			break
		}
	}
	if h == nil {
		s.st.mu.Unlock()
		return
	}
	h.removing = true
	s.st.removedN++
	s.st.mu.Unlock()
	code, _, err := s.do("remove-host", http.MethodDelete, "/v1/hosts/"+url.PathEscape(h.name), nil, http.StatusOK)
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	h.removing = false
	if err != nil || code != http.StatusOK {
		s.st.removedN--
		return
	}
	h.removed = true
	s.repMu.Lock()
	s.rep.HostsRemoved++
	s.repMu.Unlock()
}

// badBodies are bodies the API must answer 400, by path.
var badBodies = []struct{ method, path, body string }{
	{http.MethodPost, "/v1/place", `{`},
	{http.MethodPost, "/v1/place", `[]`},
	{http.MethodPost, "/v1/place", `{"flavor": {"vcpus": "two"}}`},
	{http.MethodPost, "/v1/place", `{"flavor": {"memory_mb": 512}, "colour": "blue"}`},
	{http.MethodPost, "/v1/place", `{"num_instances": 2, "instance_uuids": ["a"], "flavor": {"memory_mb": 512}}`},
	{http.MethodPost, "/v1/place", `{"flavor": {"memory_mb": 512}} trailing`},
	{http.MethodPost, "/v1/place", ""},
	{http.MethodPost, "/v1/hosts", `{"host": ""}`},
	{http.MethodPost, "/v1/hosts", `{"host": "x", "memory_mb": "lots"}`},
	{http.MethodPut, "/v1/hosts/%s", `{"free_ram_mb": 1}`},
	{http.MethodPut, "/v1/hosts/%s", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": -1}`},
	{http.MethodPut, "/v1/hosts/%s", `not json`},
}

func (s *soak) badBody(r *rand.Rand) {
	b := badBodies[r.IntN(len(badBodies))]
	path := b.path
	if strings.Contains(path, "%s") {
		h := s.pickHost(r, func(*hostInfo) bool { return true })
		if h == nil {
			return
		}
		path = fmt.Sprintf(path, url.PathEscape(h.name))
	}
	s.do("bad-body", b.method, path, []byte(b.body), http.StatusBadRequest)
}

// oversized sends a body past the server's limit: 413, or the server
// closing the connection while the body is still being sent.
func (s *soak) oversized(r *rand.Rand) {
	paths := []struct{ method, path string }{{http.MethodPost, "/v1/place"}, {http.MethodPost, "/v1/hosts"}}
	p := paths[r.IntN(len(paths))]
	body := make([]byte, s.o.MaxBodyBytes+1+int64(r.IntN(64<<10)))
	copy(body, `{"flavor": {"memory_mb": 512}, "x": "`)
	for i := 38; i < len(body); i++ {
		body[i] = 'x'
	}
	req, err := http.NewRequestWithContext(s.ctx, p.method, s.o.URL+p.path, bytes.NewReader(body))
	if err != nil {
		return
	}
	resp, err := s.c.Do(req)
	if err != nil {
		if s.ctx.Err() == nil {
			s.count("oversized", "transport-error") // the server may close before reading it all
		}
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	s.count("oversized", strconv.Itoa(resp.StatusCode))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		s.problem(BadStatus, "%s %s with %d bytes answered %d (want 413): %s", p.method, p.path, len(body), resp.StatusCode, trim(b))
	}
}

// hangUp places with given uuids and hangs up: in the middle of sending
// the body, or while waiting for the answer. Whether its instances were
// committed is probed at the end.
func (s *soak) hangUp(r *rand.Rand, sending bool) {
	n := 1 + r.IntN(3)
	uuids := make([]string, n)
	k := s.seq.Add(1)
	for i := range uuids {
		uuids[i] = fmt.Sprintf("soak-hangup-%s-%d-%d", s.tag, k, i)
	}
	s.st.mu.Lock()
	s.st.maybe = append(s.st.maybe, uuids...)
	s.st.mu.Unlock()
	s.repMu.Lock()
	s.rep.HungUp += int64(n)
	s.repMu.Unlock()
	body := placeBody(n, flavors[r.IntN(len(flavors))], uuids, "", false)
	hctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	var rd io.Reader = bytes.NewReader(body)
	op := "hang-up-waiting"
	if sending {
		// Half the body, then nothing until the client gives up.
		op = "hang-up-sending"
		pr, pw := io.Pipe()
		go func() {
			pw.Write(body[:len(body)/2])
			<-hctx.Done()
			pw.CloseWithError(hctx.Err())
		}()
		rd = pr
	}
	req, err := http.NewRequestWithContext(hctx, http.MethodPost, s.o.URL+"/v1/place", rd)
	if err != nil {
		return
	}
	time.AfterFunc(time.Duration(r.IntN(3000))*time.Microsecond, cancel)
	resp, err := s.c.Do(req)
	if err != nil {
		s.count(op, "hung-up")
		return
	}
	// Answered before the client hung up: the uuids are probed at the
	// end all the same.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s.count(op, strconv.Itoa(resp.StatusCode))
}

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
		var doc hostDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			s.problem(BadStatus, "GET /v1/hosts/%s: %v", name, err)
			continue
		}
		if s.o.Cloud != nil || !h.reported {
			nodes += len(doc.Nodes)
		}
		for i := range doc.Nodes {
			n := &doc.Nodes[i]
			hn, u := engine.HostNode{Host: n.Host, Node: n.Node}, n.usage()
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
func (s *soak) checkLimits(hn engine.HostNode, n *nodeDoc, u engine.HostUsage) {
	if s.hosts != nil {
		over, known := s.hosts.OverLimits(hn, u)
		if !known {
			s.problem(HostMissing, "node %s is not one the soak knows", nodeName(hn))
			return
		}
		if len(over) == 0 {
			return
		}
		// A host over a limit from the start may stay so, no further.
		init, _ := s.hosts.Initial(hn)
		was, _ := s.hosts.OverLimits(hn, init)
		over = slices.DeleteFunc(over, func(why string) bool {
			name, _, _ := strings.Cut(why, ":")
			return slices.ContainsFunc(was, func(w string) bool { return strings.HasPrefix(w, name+":") }) &&
				used(name, u) <= used(name, init)
		})
		if len(over) == 0 {
			return
		}
		s.problem(Overcommit, "node %s: %s", nodeName(hn), strings.Join(over, "; "))
		return
	}
	var over []string
	if n.RAMAllocationRatio > 0 && float64(n.MemoryMB-u.FreeRAMMB) > float64(n.MemoryMB)*n.RAMAllocationRatio {
		over = append(over, fmt.Sprintf("RAM %d MB used of %d × %g", n.MemoryMB-u.FreeRAMMB, n.MemoryMB, n.RAMAllocationRatio))
	}
	if n.CPUAllocationRatio > 0 && n.VCPUs > 0 && float64(u.VCPUsUsed) > float64(n.VCPUs)*n.CPUAllocationRatio {
		over = append(over, fmt.Sprintf("vcpus_used %d of %d × %g", u.VCPUsUsed, n.VCPUs, n.CPUAllocationRatio))
	}
	if n.DiskAllocationRatio > 0 && float64(n.LocalGB*1024-u.FreeDiskMB) > float64(n.LocalGB*1024)*n.DiskAllocationRatio {
		over = append(over, fmt.Sprintf("disk %d MB used of %d GB × %g", n.LocalGB*1024-u.FreeDiskMB, n.LocalGB, n.DiskAllocationRatio))
	}
	if n.MaxIOOps >= 0 && u.NumIOOps > n.MaxIOOps {
		over = append(over, fmt.Sprintf("num_io_ops %d > %d", u.NumIOOps, n.MaxIOOps))
	}
	if n.MaxInstances >= 0 && u.NumInstances > n.MaxInstances {
		over = append(over, fmt.Sprintf("num_instances %d > %d", u.NumInstances, n.MaxInstances))
	}
	if len(over) > 0 {
		s.problem(Overcommit, "node %s (the server's own limits): %s", nodeName(hn), strings.Join(over, "; "))
	}
}

// used is the amount of usage u that resource filter name limits.
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
