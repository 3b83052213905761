package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/placer/placer/engine/etcdstore"
	"github.com/placer/placer/internal/etcdtest"
	"github.com/placer/placer/internal/scenario"
)

// newEtcdServer serves the cloud under /placer/ of c through its own etcd
// client.
func newEtcdServer(t *testing.T, c *etcdtest.Cluster) (*Server, *httptest.Server) {
	t.Helper()
	return newEtcdServerWith(t, c, etcdstore.Options{}, Options{})
}

// newEtcdServerWith is newEtcdServer with the etcd store's options and
// the server's (2 workers and a quiet logger unless set).
func newEtcdServerWith(t *testing.T, c *etcdtest.Cluster, eopts etcdstore.Options, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	s, err := NewEtcd(ctx, c.Client(t), eopts, opts)
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

// TestEtcdTwoServers: two servers on one cloud in etcd see each other's
// placements, releases and host changes, and together place exactly what
// the cloud holds.
func TestEtcdTwoServers(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := etcdstore.Load(ctx, c.Client(t), "", testCloud(2), 0); err != nil {
		t.Fatal(err)
	}
	_, a := newEtcdServer(t, c)
	_, b := newEtcdServer(t, c)

	code, body := call(t, "POST", a.URL+"/v1/place", `{"instance_uuids": ["vm-1"], `+smallFlavor+`}`)
	wantStatus(t, "place on a", code, http.StatusOK, body)
	res, _ := scenario.DecodeResult(strings.NewReader(body))
	p := res.Placements[0]
	// b shows the claim at once (a answered after its own mirror had
	// it; b's watch follows within moments).
	var n NodeDoc
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		code, body = call(t, "GET", b.URL+"/v1/hosts/"+p.Host+"/"+p.Node, "")
		wantStatus(t, "get on b", code, http.StatusOK, body)
		if n = decode[NodeDoc](t, body); n.NumInstances == 1 || time.Now().After(deadline) {
			break
		}
	}
	if n.FreeRAMMB != 8192-2048 || n.VCPUsUsed != 1 {
		t.Fatalf("b's view of a's placement: %+v", n)
	}
	code, body = call(t, "POST", b.URL+"/v1/place", `{"instance_uuids": ["vm-1"], `+smallFlavor+`}`)
	wantStatus(t, "vm-1 again on b", code, http.StatusBadRequest, body)
	code, body = call(t, "DELETE", b.URL+"/v1/instances/vm-1", "")
	wantStatus(t, "release on b", code, http.StatusOK, body)
	code, body = call(t, "POST", b.URL+"/v1/hosts", `{"host": "h9", "memory_mb": 8192, "free_ram_mb": 8192, "vcpus": 4, "vcpus_used": 0, "local_gb": 100, "free_disk_gb": 100}`)
	wantStatus(t, "add on b", code, http.StatusCreated, body)
	code, body = call(t, "DELETE", b.URL+"/v1/hosts/h9", "")
	wantStatus(t, "remove on b", code, http.StatusOK, body)

	// Both mirrors show the release and the removal before the race
	// below, or a server a step behind could answer NoValidHost for the
	// last slot.
	waitStats := func(instances, hosts int) {
		t.Helper()
		for _, ts := range []*httptest.Server{a, b} {
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				_, body := call(t, "GET", ts.URL+"/v1/stats", "")
				st := decode[StatsDoc](t, body)
				if st.Instances == instances && st.Hosts == hosts {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s stats %+v, want %d instances on %d hosts", ts.URL, st, instances, hosts)
				}
			}
		}
	}
	waitStats(0, 2)

	// 3 instances of 4 GiB fit a host (RAM ratio 1.5): 6 on the cloud.
	// Ten clients, half on each server.
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 10 {
		url := a.URL
		if i%2 == 1 {
			url = b.URL
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := call(t, "POST", url+"/v1/place", `{"flavor": {"memory_mb": 4096, "vcpus": 1, "root_gb": 10}}`)
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[http.StatusOK] != 6 || codes[http.StatusConflict] != 4 {
		t.Fatalf("statuses %v, want 6 placed and 4 NoValidHost", codes)
	}
	waitStats(6, 2)
	_, body = call(t, "GET", a.URL+"/metrics", "")
	if !strings.Contains(body, "placer_etcd_commit_seconds_count") || !strings.Contains(body, "placer_commits_total") {
		t.Error("etcd and commit metrics missing from /metrics")
	}
}

// TestEtcdRemovePastTxnLimit: removing a host whose transaction would
// pass the members' --max-txn-ops (two operations for the host, one per
// instance on it) is 400 naming the count, not 404 nor a 503 to retry,
// and the host stays.
func TestEtcdRemovePastTxnLimit(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := etcdstore.Load(ctx, c.Client(t), "", testCloud(1), 0); err != nil {
		t.Fatal(err)
	}
	_, ts := newEtcdServerWith(t, c, etcdstore.Options{MaxTxnOps: 3}, Options{})
	code, body := call(t, "POST", ts.URL+"/v1/place", `{"num_instances": 2, `+smallFlavor+`}`)
	wantStatus(t, "place 2", code, http.StatusOK, body)
	code, body = call(t, "DELETE", ts.URL+"/v1/hosts/h0", "")
	wantStatus(t, "remove h0 (4 operations, the limit 3)", code, http.StatusBadRequest, body)
	if doc := decode[ErrorDoc](t, body); doc.Error.Kind != "BadRequest" || !strings.Contains(doc.Error.Message, "4 operations") {
		t.Errorf("got %+v", doc.Error)
	}
	code, body = call(t, "GET", ts.URL+"/v1/hosts/h0", "")
	wantStatus(t, "h0 after the refusal", code, http.StatusOK, body)
}

// TestEtcdChangeTimesOut: a host change waits for etcd at most
// --timeout, as a placement does: with the cluster down, 503, not a
// request that hangs until the client gives up.
func TestEtcdChangeTimesOut(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := etcdstore.Load(ctx, c.Client(t), "", testCloud(1), 0); err != nil {
		t.Fatal(err)
	}
	_, ts := newEtcdServerWith(t, c, etcdstore.Options{}, Options{RequestTimeout: 300 * time.Millisecond})
	c.Stop(t, 0)
	start := time.Now()
	code, body := call(t, "PUT", ts.URL+"/v1/hosts/h0", `{"free_ram_mb": 1024, "free_disk_gb": 1, "vcpus_used": 0}`)
	wantStatus(t, "a usage report with etcd down", code, http.StatusServiceUnavailable, body)
	took := time.Since(start)
	t.Logf("answered in %v", took)
	if took > 10*time.Second {
		t.Errorf("answered after %v, past the 300ms timeout", took)
	}
}
