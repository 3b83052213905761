package soak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/server"
	"github.com/placer/placer/internal/soak"
	"github.com/placer/placer/internal/synth"
)

// start serves cloud on a loopback port: with the server's own Serve, or,
// when wrap is given, its handler wrapped (to plant a fault) in a plain
// http.Server.
func start(t *testing.T, cloud engine.Cloud, wrap func(*server.Server, http.Handler) http.Handler) (string, *server.Server) {
	t.Helper()
	srv, err := server.New(cloud, server.Options{Workers: 2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if wrap == nil {
		go func() { done <- srv.Serve(ctx, ln) }()
	} else {
		hs := &http.Server{Handler: wrap(srv, srv.Handler())}
		go func() { done <- hs.Serve(ln) }()
		go func() { <-ctx.Done(); hs.Close(); srv.Close() }()
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String(), srv
}

// inProcess reads the goroutines and heap of this process (the server's
// and the clients'), after a GC; baseline is set once it has been called.
func inProcess(baseline *atomic.Bool) func(context.Context) (soak.Resources, error) {
	return func(context.Context) (soak.Resources, error) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if baseline != nil {
			baseline.Store(true)
		}
		return soak.Resources{Goroutines: runtime.NumGoroutine(), HeapBytes: m.HeapAlloc}, nil
	}
}

func options(url string, cloud *engine.Cloud, d time.Duration, baseline *atomic.Bool) soak.Options {
	// The heap slack is the command's but 4 MiB rather than 16 (a test's
	// soak is short): a clean run ends within 1 MiB of its baseline.
	return soak.Options{URL: url, Cloud: cloud, Duration: d, Warmup: d / 3, Clients: 6, Seed: 1, Probe: inProcess(baseline),
		HeapSlackBytes: 4 << 20}
}

func testCloud() engine.Cloud {
	return synth.Cloud(synth.Options{Hosts: 150, Seed: 1, Profile: synth.Basic})
}

// TestSoak: a clean server passes, having been through every kind of
// request.
func TestSoak(t *testing.T) {
	cloud := testCloud()
	url, _ := start(t, cloud, nil)
	rep, err := soak.Run(context.Background(), options(url, &cloud, 1200*time.Millisecond, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if !rep.OK {
		t.Fatalf("the soak failed:\n%s", b)
	}
	t.Logf("%s", b)
	for _, k := range []string{"place 200", "delete 200", "report 200", "bad-body 400", "oversized 413",
		"hang-up-sending hung-up", "add-host 201", "add-host-twice 409", "remove-host 200", "final-delete 200"} {
		if rep.Statuses[k] == 0 {
			t.Errorf("no %q in the soak", k)
		}
	}
	if rep.Placed == 0 || rep.HungUp == 0 || rep.ExactHosts == 0 || rep.HeldAtEnd == 0 {
		t.Errorf("placed %d, hung up %d, exact hosts %d, held at the end %d", rep.Placed, rep.HungUp, rep.ExactHosts, rep.HeldAtEnd)
	}
}

// wantProblem asserts that the soak failed with a problem of kind.
func wantProblem(t *testing.T, rep *soak.Report, kind string) {
	t.Helper()
	for _, p := range rep.Problems {
		t.Log(p)
	}
	if rep.OK || rep.Counts[kind] == 0 {
		t.Fatalf("the planted fault went unnoticed: ok %v, problems %v", rep.OK, rep.Counts)
	}
}

func TestSoakPlantedFaults(t *testing.T) {
	const d = 600 * time.Millisecond

	t.Run("goroutine leak", func(t *testing.T) {
		// One goroutine left behind every 25 requests.
		stop := make(chan struct{})
		defer close(stop)
		var n atomic.Int64
		cloud := testCloud()
		url, _ := start(t, cloud, func(_ *server.Server, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1)%25 == 0 {
					go func() { <-stop }()
				}
				h.ServeHTTP(w, r)
			})
		})
		rep, err := soak.Run(context.Background(), options(url, &cloud, d, nil))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, rep, soak.LeakGoroutines)
	})

	t.Run("heap growth", func(t *testing.T) {
		// 32 KiB kept per request once the baseline is taken.
		var kept [][]byte
		var mu sync.Mutex
		var baseline atomic.Bool
		cloud := testCloud()
		url, _ := start(t, cloud, func(_ *server.Server, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if baseline.Load() {
					mu.Lock()
					kept = append(kept, make([]byte, 32<<10))
					mu.Unlock()
				}
				h.ServeHTTP(w, r)
			})
		})
		rep, err := soak.Run(context.Background(), options(url, &cloud, d, &baseline))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, rep, soak.LeakHeap)
		mu.Lock()
		kept = nil
		mu.Unlock()
	})

	t.Run("overcommit", func(t *testing.T) {
		// A plan no filter checks goes through the store (a forced one,
		// which the commit does not re-check), as a bug of the placement
		// would: 1 TB of RAM on one host, in the middle of the soak.
		cloud := testCloud()
		url, srv := start(t, cloud, nil)
		go func() {
			time.Sleep(d / 2)
			store := srv.Store()
			snap := store.Snapshot()
			id := uint32(1)
			hn := snap.HostNode(id)
			plan := engine.Plan{BaseVersion: snap.Version(), Claim: engine.Claim{MemoryMB: 1 << 20, VCPUs: 1}, Forced: true,
				Placements: []engine.Placement{{InstanceUUID: "planted-too-big", HostID: id, Host: hn.Host, Node: hn.Node}}}
			for { // retried until no client changed the host meanwhile
				if _, err := store.Commit(plan); err == nil || !errors.Is(err, engine.ErrConflict) {
					return
				}
				snap = store.Snapshot()
				plan.BaseVersion = snap.Version()
			}
		}()
		rep, err := soak.Run(context.Background(), options(url, &cloud, d, nil))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, rep, soak.Overcommit)
		if rep.Counts[soak.Unknown] == 0 {
			t.Errorf("the planted instance is not reported as unknown: %v", rep.Counts)
		}
	})

	t.Run("wrong usage", func(t *testing.T) {
		// A node's usage changed behind the clients' backs (1 GiB of RAM
		// gone), as a bug of the store's consumption would: host 1 gets
		// no usage report from the soak, so its usage must be exact.
		cloud := testCloud()
		url, srv := start(t, cloud, nil)
		go func() {
			time.Sleep(d / 2)
			store := srv.Store()
			snap := store.Snapshot()
			id := uint32(1) // the cloud's host 1: hosts 0 and 1 are never removed
			hn, u := snap.HostNode(id), snap.Usage(id)
			u.FreeRAMMB -= 1024
			if _, err := store.UpdateHost(hn, u); err != nil {
				t.Error(err)
			}
		}()
		rep, err := soak.Run(context.Background(), options(url, &cloud, d, nil))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, rep, soak.WrongUsage)
	})

	t.Run("anti-affinity", func(t *testing.T) {
		// The server answers a group's second instance on the first's
		// host, as a placement ignoring the group would: the soak's
		// record of its clients' instances breaks the rule.
		cloud := testCloud()
		url, _ := start(t, cloud, func(_ *server.Server, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if r.URL.Path != "/v1/place" || !bytes.Contains(body, []byte("anti-affinity")) {
					h.ServeHTTP(w, r)
					return
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				var res map[string]any
				if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &res) == nil {
					if ps, _ := res["placements"].([]any); len(ps) >= 2 {
						first, second := ps[0].(map[string]any), ps[1].(map[string]any)
						second["host"], second["node"] = first["host"], first["node"]
						b, _ := json.Marshal(res)
						rec.Body = bytes.NewBuffer(b)
					}
				}
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Del("Content-Length")
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
			})
		})
		rep, err := soak.Run(context.Background(), options(url, &cloud, d, nil))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, rep, soak.AntiAffinity)
	})

	t.Run("lost instance", func(t *testing.T) {
		// The server releases an instance it has just told a client of.
		var once sync.Once
		cloud := testCloud()
		url, _ := start(t, cloud, func(srv *server.Server, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/place" {
					h.ServeHTTP(w, r)
					return
				}
				rec := &recorder{ResponseWriter: w}
				h.ServeHTTP(rec, r)
				if rec.status != http.StatusOK {
					return
				}
				var res struct {
					Placements []struct {
						InstanceUUID string `json:"instance_uuid"`
					} `json:"placements"`
				}
				if json.Unmarshal(rec.body.Bytes(), &res) == nil && len(res.Placements) > 0 &&
					!strings.HasPrefix(res.Placements[0].InstanceUUID, "soak-hangup-") { // a client that did not hang up
					once.Do(func() { srv.Store().DeleteInstance(res.Placements[0].InstanceUUID) })
				}
			})
		})
		rep, err := soak.Run(context.Background(), options(url, &cloud, d, nil))
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, rep, soak.LostInstance)
	})
}

// recorder keeps a copy of what a handler writes.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
