package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"

	"github.com/prometheus/client_golang/prometheus"
)

// testCloud is n hosts h0..h<n-1> of 8 GB, 4 vCPUs and 100 GB, with
// Nova's default configuration.
func testCloud(n int) engine.Cloud {
	return testCloudWith(n, engine.DefaultConfig())
}

func testCloudWith(n int, cfg engine.Config) engine.Cloud {
	c := engine.Cloud{Config: cfg}
	for i := range n {
		c.Hosts = append(c.Hosts, engine.Host{
			Host: fmt.Sprintf("h%d", i), MemoryMB: 8192, FreeRAMMB: 8192,
			VCPUs: 4, LocalGB: 100, FreeDiskGB: 100,
		})
	}
	return c
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newTestServer(t *testing.T, hosts int, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	return newTestServerOn(t, testCloud(hosts), opts)
}

func newTestServerOn(t *testing.T, cloud engine.Cloud, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	s, err := New(cloud, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

// call sends a request and returns the status and the body.
func call(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func decode[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	return v
}

func wantStatus(t *testing.T, what string, got, want int, body string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d\n%s", what, got, want, body)
	}
}

const smallFlavor = `"flavor": {"name": "m1.small", "memory_mb": 2048, "vcpus": 1, "root_gb": 10}`

func TestPlaceAndRelease(t *testing.T) {
	_, ts := newTestServer(t, 3, Options{})
	code, body := call(t, "POST", ts.URL+"/v1/place", `{"num_instances": 2, `+smallFlavor+`}`)
	wantStatus(t, "place", code, http.StatusOK, body)
	res, err := scenario.DecodeResult(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil || len(res.Placements) != 2 || res.Placements[0].InstanceUUID == "inst-0" {
		t.Fatalf("got %+v", res)
	}
	// The chosen host shows the claim.
	p := res.Placements[0]
	code, body = call(t, "GET", ts.URL+"/v1/hosts/"+p.Host+"/"+p.Node, "")
	wantStatus(t, "get node", code, http.StatusOK, body)
	if n := decode[NodeDoc](t, body); n.FreeRAMMB != 8192-2048 || n.VCPUsUsed != 1 || n.NumInstances != 1 {
		t.Errorf("node after placement: %+v", n)
	}
	// Given uuids are kept; a committed one cannot be placed again.
	code, body = call(t, "POST", ts.URL+"/v1/place", `{"instance_uuids": ["vm-1"], `+smallFlavor+`}`)
	wantStatus(t, "place vm-1", code, http.StatusOK, body)
	code, body = call(t, "POST", ts.URL+"/v1/place", `{"instance_uuids": ["vm-1"], `+smallFlavor+`}`)
	wantStatus(t, "place vm-1 again", code, http.StatusBadRequest, body)
	if doc := decode[ErrorDoc](t, body); doc.Error.Field != "request.instance_uuids[0]" {
		t.Errorf("vm-1 again: field %q, want request.instance_uuids[0]", doc.Error.Field)
	}

	code, body = call(t, "DELETE", ts.URL+"/v1/instances/"+p.InstanceUUID, "")
	wantStatus(t, "release", code, http.StatusOK, body)
	code, body = call(t, "GET", ts.URL+"/v1/hosts/"+p.Host+"/"+p.Node, "")
	wantStatus(t, "get node", code, http.StatusOK, body)
	if n := decode[NodeDoc](t, body); n.FreeRAMMB != 8192 || n.VCPUsUsed != 0 {
		t.Errorf("node after release: %+v", n)
	}
	code, body = call(t, "DELETE", ts.URL+"/v1/instances/"+p.InstanceUUID, "")
	wantStatus(t, "release twice", code, http.StatusNotFound, body)

	code, body = call(t, "GET", ts.URL+"/v1/stats", "")
	wantStatus(t, "stats", code, http.StatusOK, body)
	st := decode[StatsDoc](t, body)
	if st.Hosts != 3 || st.Instances != 2 || st.Placed != 2 || st.Placements != 3 || st.Utilization["ram"] <= 0 {
		t.Errorf("stats: %+v", st)
	}
}

func TestNoValidHost(t *testing.T) {
	_, ts := newTestServer(t, 2, Options{})
	code, body := call(t, "POST", ts.URL+"/v1/place", `{"num_instances": 3, "flavor": {"memory_mb": 7000}}`)
	wantStatus(t, "place", code, http.StatusConflict, body)
	res, err := scenario.DecodeResult(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Error; e == nil || e.Kind != scenario.KindNoValidHost || e.InstanceIndex != 2 ||
		!strings.Contains(e.Message, "RamFilter") || len(e.Filters) == 0 {
		t.Errorf("got %+v", res)
	}
}

func TestBadBodies(t *testing.T) {
	_, ts := newTestServer(t, 1, Options{MaxBodyBytes: 256})
	for _, tc := range []struct {
		method, path, body string
		want               int
		field              string
	}{
		{"POST", "/v1/place", `{"flavor": {"vcpus": "two"}}`, 400, "request.flavor.vcpus"},
		{"POST", "/v1/place", `{"num_instances": 1}`, 400, "request.flavor"},
		{"POST", "/v1/place", `{"flavor": {}, "bogus": 1}`, 400, "request.bogus"},
		{"POST", "/v1/place", `{"flavor": {}, "partial": "yes"}`, 400, "request.partial"},
		{"POST", "/v1/place", `{"flavor": `, 400, ""},
		{"POST", "/v1/place", `{"flavor": {}, "image": {"id": "` + strings.Repeat("x", 300) + `"}}`, 413, ""},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": "lots", "free_disk_gb": 1, "vcpus_used": 0}`, 400, "usage.free_ram_mb"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1}`, 400, "usage.vcpus_used"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0, "x": 1}`, 400, "usage.x"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0, "num_io_ops": -1}`, 400, "usage.num_io_ops"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1099511627776, "vcpus_used": 0}`, 400, "usage.free_disk_gb"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": -1099511627777, "free_disk_gb": 1, "vcpus_used": 0}`, 400, "usage.free_ram_mb"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": null, "free_disk_gb": 1, "vcpus_used": 0}`, 400, "usage.free_ram_mb"},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0}}`, 400, ""},
		{"PUT", "/v1/hosts/h0", `{"free_ram_mb": 1, "free_ram_mb": 2, "free_disk_gb": 1, "vcpus_used": 0}`, 400, ""},
		{"PUT", "/v1/hosts/nope", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0}`, 404, ""},
		{"POST", "/v1/hosts", `{"host": "h9", "memory_mb": -1}`, 400, "host.memory_mb"},
		// Checks only the store makes name the body's host as the decoder does.
		{"POST", "/v1/hosts", `{"host": "h9", "memory_mb": 2199023255552, "free_ram_mb": 1, "vcpus": 1, "vcpus_used": 0, "local_gb": 1, "free_disk_gb": 1}`, 400, "host.memory_mb"},
		{"POST", "/v1/hosts", `{"host": "h9", "memory_mb": 1, "free_ram_mb": 1, "vcpus": 1, "vcpus_used": 0, "local_gb": 1, "free_disk_gb": 1, "host_ip": "x"}`, 400, "host.host_ip"},
		{"POST", "/v1/hosts", `{"host": "h0", "memory_mb": 1, "free_ram_mb": 1, "vcpus": 1, "vcpus_used": 0, "local_gb": 1, "free_disk_gb": 1}`, 409, ""},
		{"GET", "/v1/hosts/nope", "", 404, ""},
		{"DELETE", "/v1/hosts/h0/nope", "", 404, ""},
		{"DELETE", "/v1/instances/nope", "", 404, "instance_uuid"},
		{"GET", "/v1/place", "", 405, ""},
		{"GET", "/v1/nowhere", "", 404, ""},
		{"DELETE", "/v1/stats", "", 405, ""},
	} {
		code, body := call(t, tc.method, ts.URL+tc.path, tc.body)
		if code != tc.want {
			t.Errorf("%s %s %s: status %d, want %d\n%s", tc.method, tc.path, tc.body, code, tc.want, body)
			continue
		}
		doc := decode[ErrorDoc](t, body) // unrouted requests too: no plain-text answer
		if kind := map[int]string{404: "NotFound", 405: "MethodNotAllowed"}[code]; kind != "" && doc.Error.Kind != kind {
			t.Errorf("%s %s: kind %q, want %q", tc.method, tc.path, doc.Error.Kind, kind)
		}
		if doc.Error.Field != tc.field || doc.Error.Message == "" ||
			(tc.field != "" && !strings.HasPrefix(doc.Error.Message, tc.field+": ")) {
			t.Errorf("%s %s %s: got %+v, want field %q", tc.method, tc.path, tc.body, doc.Error, tc.field)
		}
	}
}

// blockPlace makes s's placements wait in the handler, once admitted,
// until release is closed; entered receives one value per request that
// got there.
func blockPlace(s *Server) (entered chan struct{}, release chan struct{}) {
	entered, release = make(chan struct{}, 16), make(chan struct{})
	s.beforePlace = func(ctx context.Context) {
		entered <- struct{}{}
		<-release
	}
	return entered, release
}

// TestPlacementPanicAnswered: a panic of the Scheduler's worker, raised
// on the handler as a *engine.PlacementPanic, is answered 500 and
// logged rather than the connection dropped; the service places the
// next request.
func TestPlacementPanicAnswered(t *testing.T) {
	s, ts := newTestServer(t, 2, Options{})
	var panicked atomic.Bool
	s.beforePlace = func(context.Context) {
		if !panicked.Swap(true) {
			panic(&engine.PlacementPanic{Value: "a bug", Stack: []byte("stack")})
		}
	}
	code, out := call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 512, "vcpus": 1, "root_gb": 1}}`)
	wantStatus(t, "a placement that panicked", code, http.StatusInternalServerError, out)
	if !strings.Contains(out, "a bug") {
		t.Errorf("the answer does not say what panicked: %s", out)
	}
	code, out = call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 512, "vcpus": 1, "root_gb": 1}}`)
	wantStatus(t, "the next placement", code, http.StatusOK, out)
}

func TestQueueFull(t *testing.T) {
	s, ts := newTestServer(t, 2, Options{Workers: 1, QueueSize: 1, MaxPending: 1})
	entered, release := blockPlace(s)
	done := make(chan int)
	go func() {
		code, _ := call(t, "POST", ts.URL+"/v1/place", `{`+smallFlavor+`}`)
		done <- code
	}()
	<-entered
	code, body := call(t, "POST", ts.URL+"/v1/place", `{`+smallFlavor+`}`)
	wantStatus(t, "second request", code, http.StatusServiceUnavailable, body)
	if doc := decode[ErrorDoc](t, body); doc.Error.Kind != "QueueFull" {
		t.Errorf("got %+v", doc)
	}
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("first request: status %d", code)
	}
	// Admitted again once the first is done.
	code, body = call(t, "POST", ts.URL+"/v1/place", `{`+smallFlavor+`}`)
	wantStatus(t, "third request", code, http.StatusOK, body)
}

func TestHosts(t *testing.T) {
	_, ts := newTestServer(t, 2, Options{})
	code, body := call(t, "GET", ts.URL+"/v1/hosts/h1", "")
	wantStatus(t, "get", code, http.StatusOK, body)
	if h := decode[HostDoc](t, body); h.Host != "h1" || len(h.Nodes) != 1 || h.Nodes[0].MemoryMB != 8192 ||
		h.Nodes[0].RAMAllocationRatio == nil || *h.Nodes[0].RAMAllocationRatio != 1.5 {
		t.Errorf("got %+v", h)
	}

	code, body = call(t, "PUT", ts.URL+"/v1/hosts/h1", `{"free_ram_mb": 1024, "free_disk_gb": 50, "vcpus_used": 3, "num_instances": 2}`)
	wantStatus(t, "put", code, http.StatusOK, body)
	code, body = call(t, "GET", ts.URL+"/v1/hosts/h1/h1", "")
	wantStatus(t, "get after put", code, http.StatusOK, body)
	if n := decode[NodeDoc](t, body); n.FreeRAMMB != 1024 || n.FreeDiskMB != 50*1024 || n.VCPUsUsed != 3 || n.NumInstances != 2 {
		t.Errorf("got %+v", n)
	}

	code, body = call(t, "POST", ts.URL+"/v1/hosts", `{"host": "big", "memory_mb": 65536, "free_ram_mb": 65536,
		"vcpus": 32, "vcpus_used": 0, "local_gb": 1000, "free_disk_gb": 1000}`)
	wantStatus(t, "add", code, http.StatusCreated, body)
	// The new host is the only one with room.
	code, body = call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 30000}}`)
	wantStatus(t, "place on the new host", code, http.StatusOK, body)
	if res, _ := scenario.DecodeResult(strings.NewReader(body)); len(res.Placements) != 1 || res.Placements[0].Host != "big" {
		t.Errorf("got %s", body)
	}

	code, body = call(t, "DELETE", ts.URL+"/v1/hosts/big", "")
	wantStatus(t, "delete", code, http.StatusOK, body)
	code, body = call(t, "GET", ts.URL+"/v1/hosts/big", "")
	wantStatus(t, "get deleted", code, http.StatusNotFound, body)
	code, body = call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 30000}}`)
	wantStatus(t, "place without it", code, http.StatusConflict, body)
	code, body = call(t, "GET", ts.URL+"/v1/stats", "")
	if st := decode[StatsDoc](t, body); st.Hosts != 2 || st.Instances != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestConcurrentClients has many clients place on a cloud with room for
// exactly the instances they ask for: every one is placed, none is
// double-booked.
func TestConcurrentClients(t *testing.T) {
	const hosts, clients = 4, 16 // 4 instances of 2 GB fit each 8 GB host
	cfg := engine.DefaultConfig()
	cfg.RAMAllocationRatio = 1
	s, ts := newTestServerOn(t, testCloudWith(hosts, cfg), Options{Workers: 2, QueueSize: clients, MaxPending: clients})
	var wg sync.WaitGroup
	codes := make([]int, clients)
	for i := range clients {
		wg.Go(func() {
			codes[i], _ = call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 2048, "vcpus": 1}}`)
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("client %d: status %d", i, c)
		}
	}
	snap := s.Store().Snapshot()
	for id := range uint32(snap.Len()) {
		if u := snap.Usage(id); u.FreeRAMMB != 0 || u.NumInstances != 4 {
			t.Errorf("host %v: %+v", snap.HostNode(id), u)
		}
	}
	code, body := call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 2048, "vcpus": 1}}`)
	wantStatus(t, "one too many", code, http.StatusConflict, body)
}

func TestMetricsAndProbes(t *testing.T) {
	_, ts := newTestServer(t, 2, Options{})
	call(t, "POST", ts.URL+"/v1/place", `{`+smallFlavor+`}`)
	call(t, "POST", ts.URL+"/v1/place", `{"flavor": {"memory_mb": 99999}}`)
	code, body := call(t, "GET", ts.URL+"/metrics", "")
	wantStatus(t, "metrics", code, http.StatusOK, body)
	for _, want := range []string{
		`placer_requests_total{outcome="placed"} 1`,
		`placer_requests_total{outcome="no_valid_host"} 1`,
		`placer_placements_total 1`,
		`placer_commits_total{result="accepted"} 1`,
		`placer_filter_removed_hosts_total{filter="RamFilter"} 2`,
		`placer_request_duration_seconds_count 2`,
		`placer_queue_depth 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, path := range []string{"/healthz", "/readyz", "/debug/pprof/"} {
		if code, body := call(t, "GET", ts.URL+path, ""); code != http.StatusOK {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
}

// serveLoopback runs s.Serve on a loopback listener: its URL, the
// cancel that starts the shutdown, and Serve's result once it returns.
func serveLoopback(t *testing.T, s *Server) (url string, cancel func(), served <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), cancel, done
}

// TestGracefulShutdown stops a server on a real loopback listener with a
// request in flight: the request is answered, and committed.
func TestGracefulShutdown(t *testing.T) {
	s, err := New(testCloud(2), Options{Workers: 1, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := blockPlace(s)
	url, cancel, served := serveLoopback(t, s)

	type answer struct {
		code int
		body string
	}
	inFlight := make(chan answer, 1)
	go func() {
		code, body := call(t, "POST", url+"/v1/place", `{"instance_uuids": ["vm-shutdown"], `+smallFlavor+`}`)
		inFlight <- answer{code, body}
	}()
	<-entered
	cancel()
	// The listener closes: new connections are refused.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 100*time.Millisecond)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("listener still open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s.ready.Load() {
		t.Error("still ready while shutting down")
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	default:
	}
	close(release)
	a := <-inFlight
	if a.code != http.StatusOK || !strings.Contains(a.body, "vm-shutdown") {
		t.Errorf("in-flight request: %d %s", a.code, a.body)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if n := s.Store().Instances(); n != 1 {
		t.Errorf("%d instances committed, want 1", n)
	}
	if _, err := s.Scheduler().Place(context.Background(), engine.Request{}); err != engine.ErrClosed {
		t.Errorf("scheduler after shutdown: %v", err)
	}
}

// TestPartial places with "partial": true through the service: all or
// nothing until the retry budget runs out (none here), then placed once
// more on the newest snapshot and what still fits committed, counted by
// the Scheduler as placed. Two instances of 4 GB on two hosts of 8 GB:
// the first commit finds the host of the plan's first placement full, so
// the last attempt puts both on the other host, whose second commit
// finds room for one (or none).
func TestPartial(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.RAMAllocationRatio = 1
	var store *engine.Store
	var hook func(commit int, p engine.Plan)
	commits := 0
	s, err := newServer(Options{Workers: 1, RetryBudget: -1, Logger: quietLogger()}, func(m *engine.Metrics, _ prometheus.Registerer) (Backend, func(), error) {
		st, err := engine.NewStore(testCloudWith(2, cfg), engine.StoreOptions{Metrics: m})
		store = st
		return commitHook{localBackend{st}, func(p engine.Plan) { commits++; hook(commits, p) }}, func() {}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer func() { ts.Close(); s.Close() }()
	setRAM := func(host string, free int64) {
		if _, err := store.UpdateHost(engine.HostNode{Host: host, Node: host}, engine.HostUsage{FreeRAMMB: free, FreeDiskMB: 100 << 10}); err != nil {
			t.Error(err)
		}
	}
	for _, c := range []struct {
		name    string
		body    string
		last    int64 // the free RAM the second commit finds on its host
		status  int
		placed  int
		commits int
	}{
		{"one fits", `{"partial": true, "num_instances": 2, "flavor": {"memory_mb": 4096}}`, 4096, http.StatusOK, 1, 2},
		{"none fits", `{"partial": true, "num_instances": 2, "flavor": {"memory_mb": 4096}}`, 0, http.StatusConflict, 0, 2},
		{"all or nothing", `{"num_instances": 2, "flavor": {"memory_mb": 4096}}`, 4096, http.StatusConflict, 0, 1},
	} {
		setRAM("h0", 8192)
		setRAM("h1", 8192)
		commits = 0
		hook = func(commit int, p engine.Plan) {
			free := c.last
			if commit == 1 {
				free = 0
			}
			setRAM(p.Placements[0].Host, free)
		}
		before := store.Instances()
		code, body := call(t, "POST", ts.URL+"/v1/place", c.body)
		wantStatus(t, c.name, code, c.status, body)
		if commits != c.commits || store.Instances()-before != c.placed {
			t.Errorf("%s: %d commits, %d instances committed; want %d, %d", c.name, commits, store.Instances()-before, c.commits, c.placed)
		}
		if code == http.StatusOK {
			res, err := scenario.DecodeResult(strings.NewReader(body))
			if err != nil || len(res.Placements) != c.placed || res.Placements[0].InstanceUUID == "" {
				t.Errorf("%s: %+v, %v", c.name, res, err)
			}
		} else if doc := decode[ErrorDoc](t, body); doc.Error.Kind != "Conflict" {
			t.Errorf("%s: %+v", c.name, doc)
		}
	}
	code, body := call(t, "GET", ts.URL+"/v1/stats", "")
	wantStatus(t, "stats", code, http.StatusOK, body)
	if st := decode[StatsDoc](t, body); st.Placed != 1 || st.Placements != 1 || st.PartialPlaced != 1 || st.ConflictFailures != 2 {
		t.Errorf("stats: %+v; want 1 request placed, in part, 1 placement, 2 conflict failures", st)
	}
}

// commitHook is a Backend that runs before ahead of each CommitPlan.
type commitHook struct {
	Backend
	before func(engine.Plan)
}

func (b commitHook) CommitPlan(ctx context.Context, plan engine.Plan, opts ...engine.CommitOption) (engine.CommitResult, error) {
	b.before(plan)
	return b.Backend.CommitPlan(ctx, plan, opts...)
}

// TestAddHostConcurrently: clients adding one new host at once get one 201
// and 409s. The existence check and the addition were two steps, so a
// second client passed the check and the store refused the duplicate:
// 400 with a message naming the store's host indexes (found by placer
// soak).
func TestAddHostConcurrently(t *testing.T) {
	_, ts := newTestServer(t, 3, Options{})
	for round := range 20 {
		body := fmt.Sprintf(`{"host": "new-%d", "memory_mb": 1024, "free_ram_mb": 1024, "vcpus": 2, "vcpus_used": 0, "local_gb": 10, "free_disk_gb": 10}`, round)
		codes := make([]int, 6)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(ts.URL+"/v1/hosts", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes[i] = resp.StatusCode
			}()
		}
		wg.Wait()
		created := 0
		for _, c := range codes {
			switch c {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("round %d: answers %v, want one 201 and 409s", round, codes)
			}
		}
		if created != 1 {
			t.Fatalf("round %d: answers %v, want one 201 and 409s", round, codes)
		}
	}
}

// TestCachingMode: Options.CacheInterval runs the Scheduler in its caching
// mode: the one worker's view is refreshed once for two placements within
// the interval, and the second sees the first (no conflict).
func TestCachingMode(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Hour} {
		s, ts := newTestServer(t, 3, Options{Workers: 1, CacheInterval: interval})
		for range 2 {
			code, body := call(t, "POST", ts.URL+"/v1/place", `{"num_instances": 1, `+smallFlavor+`}`)
			wantStatus(t, "place", code, http.StatusOK, body)
		}
		want := map[time.Duration]int64{0: 0, time.Hour: 1}[interval]
		if st := s.Scheduler().Stats(); st.CacheRefreshes != want || st.ConflictRetries != 0 || st.Placed != 2 {
			t.Errorf("interval %v: stats %+v, want %d refreshes, no conflict", interval, st, want)
		}
		code, body := call(t, "GET", ts.URL+"/v1/stats", "")
		wantStatus(t, "stats", code, http.StatusOK, body)
		if st := decode[StatsDoc](t, body); st.CacheRefreshes != want {
			t.Errorf("interval %v: /v1/stats says %d refreshes, want %d", interval, st.CacheRefreshes, want)
		}
	}
}

// TestAddedHostsLocation: the Location of an added host is escaped, so
// that a name holding "/", " " or "?" is still the one path that reads it.
func TestAddedHostsLocation(t *testing.T) {
	_, ts := newTestServer(t, 1, Options{})
	resp, err := http.Post(ts.URL+"/v1/hosts", "application/json", strings.NewReader(
		`{"host": "rack/1 a?b", "memory_mb": 8192, "free_ram_mb": 8192, "vcpus": 4, "vcpus_used": 0, "local_gb": 100, "free_disk_gb": 100}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusCreated || loc != "/v1/hosts/rack%2F1%20a%3Fb/rack%2F1%20a%3Fb" {
		t.Fatalf("status %d, Location %q", resp.StatusCode, loc)
	}
	code, body := call(t, "GET", ts.URL+loc, "")
	wantStatus(t, "get at Location", code, http.StatusOK, body)
	if n := decode[NodeDoc](t, body); n.Host != "rack/1 a?b" || n.Node != "rack/1 a?b" {
		t.Errorf("the node at Location: %+v", n)
	}
}

// TestAsHostBodyError: the joining host's index becomes the body's
// "host"; the cloud's hosts keep theirs, and the error stays what it is.
func TestAsHostBodyError(t *testing.T) {
	err := asHostBodyError(&engine.ValidationError{Field: "hosts[0].uuid", Msg: `duplicate uuid "u" (also the cloud's hosts[0]); hosts[0] again`})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalid) || ve.Field != "host.uuid" ||
		ve.Msg != `duplicate uuid "u" (also the cloud's hosts[0]); host again` {
		t.Errorf("got %#v", err)
	}
	if other := errors.New("x"); asHostBodyError(other) != other {
		t.Error("an error other than a *ValidationError changed")
	}
}

// TestAddHostRace: a node that another writer adds between the handler's
// check and the store's addition is 409, as the check's would be.
func TestAddHostRace(t *testing.T) {
	s, ts := newTestServer(t, 1, Options{})
	body := `{"host": "h9", "memory_mb": 1024, "free_ram_mb": 1024, "vcpus": 2, "vcpus_used": 0, "local_gb": 10, "free_disk_gb": 10}`
	inner := s.backend
	s.backend = addHook{inner, func(h engine.Host) {
		if _, err := s.Store().AddHosts(h); err != nil { // the other writer
			t.Error(err)
		}
	}}
	defer func() { s.backend = inner }()
	code, out := call(t, "POST", ts.URL+"/v1/hosts", body)
	wantStatus(t, "an addition raced by another", code, http.StatusConflict, out)
}

// addHook is a Backend that runs before ahead of each AddHosts.
type addHook struct {
	Backend
	before func(engine.Host)
}

func (b addHook) AddHosts(ctx context.Context, hosts ...engine.Host) (uint64, error) {
	b.before(hosts[0])
	return b.Backend.AddHosts(ctx, hosts...)
}

// TestDeleteHostRace: a node of the host that a client adds while DELETE
// /v1/hosts/{host} runs is removed with the others or added after the
// removal (a later version); it never survives a removal it preceded.
// The handler listed the nodes from one snapshot and removed those, so
// an addition between the two survived with an earlier version.
func TestDeleteHostRace(t *testing.T) {
	s, ts := newTestServer(t, 2, Options{})
	added := make(chan VersionDoc, 1)
	inner := s.backend
	s.backend = removeHook{inner, func() {
		go func() { // another client adds a node of h0
			code, out := call(t, "POST", ts.URL+"/v1/hosts", `{"host": "h0", "node": "h0-b", "memory_mb": 1024,
				"free_ram_mb": 1024, "vcpus": 2, "vcpus_used": 0, "local_gb": 10, "free_disk_gb": 10}`)
			if code != http.StatusCreated {
				t.Errorf("the addition: %d %s", code, out)
			}
			added <- decode[VersionDoc](t, out)
		}()
		select { // the addition's chance to land before the removal
		case v := <-added:
			added <- v
		case <-time.After(200 * time.Millisecond):
		}
	}}
	defer func() { s.backend = inner }()
	code, out := call(t, "DELETE", ts.URL+"/v1/hosts/h0", "")
	wantStatus(t, "the removal", code, http.StatusOK, out)
	removed := decode[VersionDoc](t, out)
	add := <-added
	code, out = call(t, "GET", ts.URL+"/v1/hosts/h0/h0-b", "")
	switch {
	case code == http.StatusOK && add.Version < removed.Version:
		t.Errorf("h0-b, added at version %d, survived the removal of h0 at version %d", add.Version, removed.Version)
	case code != http.StatusOK && add.Version > removed.Version:
		t.Errorf("h0-b, added at version %d after the removal at %d, is gone: %d %s", add.Version, removed.Version, code, out)
	}
}

// removeHook is a Backend that runs before ahead of each RemoveHosts.
type removeHook struct {
	Backend
	before func()
}

func (b removeHook) RemoveHosts(ctx context.Context, nodes ...engine.HostNode) (uint64, error) {
	b.before()
	return b.Backend.RemoveHosts(ctx, nodes...)
}

// TestGetHostDuringHostChange: reading a host waits for no host change
// (the mutex that orders additions and removals of hosts).
func TestGetHostDuringHostChange(t *testing.T) {
	s, ts := newTestServer(t, 1, Options{})
	s.hosts <- struct{}{} // a host change under way
	defer func() { <-s.hosts }()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(ts.URL + "/v1/hosts/h0")
	if err != nil {
		t.Fatalf("GET /v1/hosts/h0 during a host change: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/hosts/h0: %d", resp.StatusCode)
	}
}

// failingBackend refuses every change with err; addFirst, when set, runs
// ahead of AddHosts' refusal (the change landing though it was refused:
// an etcd store's write its mirror had not applied).
type failingBackend struct {
	Backend
	err      error
	addFirst func(engine.Host)
}

func (b failingBackend) AddHosts(_ context.Context, hosts ...engine.Host) (uint64, error) {
	if b.addFirst != nil {
		b.addFirst(hosts[0])
	}
	return 0, b.err
}

func (b failingBackend) UpdateHost(context.Context, engine.HostNode, engine.HostUsage) (uint64, error) {
	return 0, b.err
}

func (b failingBackend) DeleteInstance(context.Context, string) (uint64, error) { return 0, b.err }

func (b failingBackend) RemoveHosts(context.Context, ...engine.HostNode) (uint64, error) {
	return 0, b.err
}

// TestChangeRefusals: a store's refusal of a change is answered as what it
// is: 503 for an unavailable store even when the host it was adding
// shows up meanwhile (its own addition, not another client's: no 409),
// and 400 for a refusal other than "no such host or instance" (no 404,
// which only engine.ErrNotFound is).
func TestChangeRefusals(t *testing.T) {
	s, ts := newTestServer(t, 1, Options{})
	inner := s.backend
	defer func() { s.backend = inner }()
	s.backend = failingBackend{Backend: inner, err: fmt.Errorf("%w: written, not yet applied", engine.ErrUnavailable),
		addFirst: func(h engine.Host) {
			if _, err := s.Store().AddHosts(h); err != nil {
				t.Error(err)
			}
		}}
	code, out := call(t, "POST", ts.URL+"/v1/hosts", `{"host": "h9", "memory_mb": 1024, "free_ram_mb": 1024, "vcpus": 2, "vcpus_used": 0, "local_gb": 10, "free_disk_gb": 10}`)
	wantStatus(t, "an addition the store could not confirm", code, http.StatusServiceUnavailable, out)

	s.backend = failingBackend{Backend: inner, err: &engine.ValidationError{Field: "group", Msg: "too large a record"}}
	code, out = call(t, "DELETE", ts.URL+"/v1/instances/vm-1", "")
	wantStatus(t, "a deletion refused for another reason", code, http.StatusBadRequest, out)
	code, out = call(t, "PUT", ts.URL+"/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0}`)
	wantStatus(t, "an update refused for another reason", code, http.StatusBadRequest, out)

	code, out = call(t, "DELETE", ts.URL+"/v1/hosts/h0", "")
	wantStatus(t, "a removal refused for another reason", code, http.StatusBadRequest, out)

	// Only what the store says it lacks (engine.ErrNotFound) is a 404,
	// whatever field it names: the local store names a node to remove by
	// its index, hosts[i]; an etcd store's refusal naming a field so is
	// not a 404 by its name.
	s.backend = failingBackend{Backend: inner, err: &engine.ValidationError{Field: "instance_uuid", Msg: "a field so named"}}
	code, out = call(t, "DELETE", ts.URL+"/v1/instances/vm-1", "")
	wantStatus(t, "a refusal naming the uuid, not a lack", code, http.StatusBadRequest, out)
	s.backend = failingBackend{Backend: inner, err: engine.NotFoundError("instance_uuid", "no such instance")}
	code, out = call(t, "DELETE", ts.URL+"/v1/instances/vm-1", "")
	wantStatus(t, "a deletion of an unknown instance", code, http.StatusNotFound, out)
	s.backend = failingBackend{Backend: inner, err: engine.NotFoundError("hosts[0]", "no host")}
	code, out = call(t, "DELETE", ts.URL+"/v1/hosts/h0", "")
	wantStatus(t, "a removal of a node another process removed", code, http.StatusNotFound, out)
	code, out = call(t, "PUT", ts.URL+"/v1/hosts/h0", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0}`)
	wantStatus(t, "a report of a node another process removed", code, http.StatusNotFound, out)
}

// TestLateAnswerWritten: an answer ready after Serve's WriteTimeout (a
// slow body, the queue, an etcd commit seen through to its outcome) is
// still written: it gets answerGrace from the moment it is ready. Here
// the placement waits past its RequestTimeout and the write timeout
// both; the client gets the 503, not a closed connection.
func TestLateAnswerWritten(t *testing.T) {
	defer func(g time.Duration) { answerGrace = g }(answerGrace)
	answerGrace = 300 * time.Millisecond
	s, err := New(testCloud(1), Options{Logger: quietLogger(), Workers: 1, RequestTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s.beforePlace = func(context.Context) { time.Sleep(3 * answerGrace) } // past WriteTimeout, RequestTimeout + answerGrace
	url, cancel, served := serveLoopback(t, s)
	defer func() {
		cancel()
		<-served
	}()
	code, body := call(t, "POST", url+"/v1/place", `{`+smallFlavor+`}`)
	wantStatus(t, "a placement answered after the write timeout", code, http.StatusServiceUnavailable, body)
}

// TestHostLimits: a node's limits are those the enabled filters enforce,
// a ratio of 0 among them (the node takes nothing), and absent when no
// enabled filter enforces them.
func TestHostLimits(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Filters = []string{engine.RamFilter}
	c := testCloudWith(1, cfg)
	zero := 0.0
	c.Hosts[0].RAMAllocationRatio = &zero
	_, ts := newTestServerOn(t, c, Options{})
	code, body := call(t, "GET", ts.URL+"/v1/hosts/h0/h0", "")
	wantStatus(t, "get", code, http.StatusOK, body)
	var doc map[string]any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if r, ok := doc["ram_allocation_ratio"]; !ok || r != 0.0 {
		t.Errorf("ram_allocation_ratio %v (present %v), want 0", r, ok)
	}
	for _, k := range []string{"cpu_allocation_ratio", "disk_allocation_ratio", "max_io_ops", "max_instances"} {
		if v, ok := doc[k]; ok {
			t.Errorf("%s %v, want it absent (no enabled filter enforces it)", k, v)
		}
	}
}

// unknownOutcome is a local Backend whose commits end as an etcd store's
// may: ErrUnavailable, the outcome unknown.
type unknownOutcome struct{ localBackend }

func (unknownOutcome) CommitPlan(context.Context, engine.Plan, ...engine.CommitOption) (engine.CommitResult, error) {
	return engine.CommitResult{}, fmt.Errorf("%w: commit outcome unknown (the instances' keys tell)", engine.ErrUnavailable)
}

// TestPlacementLimitsAndUnknownOutcome: a request past MaxInstances is
// 400 naming num_instances before anything is made for it; a placement
// whose commit's outcome is unknown is 503 naming its instances, the
// service's own uuids when the request gave none (the client could
// neither check nor release them otherwise).
func TestPlacementLimitsAndUnknownOutcome(t *testing.T) {
	s, err := newServer(Options{Logger: quietLogger(), Workers: 1, MaxInstances: 3}, func(m *engine.Metrics, _ prometheus.Registerer) (Backend, func(), error) {
		store, err := engine.NewStore(testCloud(2), engine.StoreOptions{Metrics: m})
		return unknownOutcome{localBackend{store}}, func() {}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer func() {
		ts.Close()
		s.Close()
	}()
	code, body := call(t, "POST", ts.URL+"/v1/place", `{"num_instances": 4, `+smallFlavor+`}`)
	wantStatus(t, "4 instances past a limit of 3", code, http.StatusBadRequest, body)
	if doc := decode[ErrorDoc](t, body); doc.Error.Field != "request.num_instances" {
		t.Errorf("field %q, want request.num_instances", doc.Error.Field)
	}
	code, body = call(t, "POST", ts.URL+"/v1/place", `{"num_instances": 2, `+smallFlavor+`}`)
	wantStatus(t, "a commit of unknown outcome", code, http.StatusServiceUnavailable, body)
	doc := decode[ErrorDoc](t, body)
	if len(doc.Error.InstanceUUIDs) != 2 || doc.Error.InstanceUUIDs[0] == "inst-0" {
		t.Errorf("the 503 names instances %q, want the service's 2 uuids", doc.Error.InstanceUUIDs)
	}
}

// TestHostChangeWaitEnds: a host change waiting behind another gives up
// at its time limit (503) and is not made later.
func TestHostChangeWaitEnds(t *testing.T) {
	s, ts := newTestServer(t, 1, Options{RequestTimeout: 100 * time.Millisecond})
	s.hosts <- struct{}{} // a slow host change under way
	code, body := call(t, "POST", ts.URL+"/v1/hosts", `{"host": "h9", "memory_mb": 1024, "free_ram_mb": 1024, "vcpus": 2, "vcpus_used": 0, "local_gb": 10, "free_disk_gb": 10}`)
	<-s.hosts
	wantStatus(t, "an addition waiting past its time limit", code, http.StatusServiceUnavailable, body)
	code, body = call(t, "GET", ts.URL+"/v1/hosts/h9", "")
	wantStatus(t, "the addition given up", code, http.StatusNotFound, body)
}
