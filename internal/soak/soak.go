package soak

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
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
	if err := ctx.Err(); err != nil { // interrupted: the checks would read a half-stopped run
		return nil, fmt.Errorf("soak: interrupted: %w", err)
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
