package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/engine/etcdstore"
	"github.com/placer/placer/internal/etcdtest"
)

// BenchmarkEtcdScheduler runs the uniform stream through placer stores
// sharing the 50,000-host cloud through an embedded etcd cluster of 3
// members on loopback (docs/etcd.md): 1 or 3 stores, each with its own
// etcd client, mirror and Scheduler of 8 workers, the requests dealt in
// turn. One op is one request. It reports placements/s (instances
// committed per second of wall time), commit-p99-ms (CommitPlan, from
// the call to the mirror applying the commit), retries/req (conflict
// re-placements), failedtxn/req (transactions whose compares failed
// and were checked again), conflictfail/req (requests whose retry budget
// ran out, counted as answered) and cpu-ms/req (the process's CPU time, members
// and stores together, per request: on a machine shared with others it
// moves less than placements/s, so A/B comparisons read it first). PLACER_ETCD_BENCH_HOSTS changes the cloud's
// size (a quick run on a small machine).
func BenchmarkEtcdScheduler(b *testing.B) {
	hosts := 50000
	if v, err := strconv.Atoi(os.Getenv("PLACER_ETCD_BENCH_HOSTS")); err == nil && v > 0 {
		hosts = v
	}
	for _, placers := range []int{1, 3} {
		b.Run(fmt.Sprintf("members=3/placers=%d", placers), func(b *testing.B) {
			runEtcdStream(b, etcdBenchCluster(b, 3, hosts), placers, 8)
		})
	}
}

// etcdBench is a running cluster with the cloud loaded, shared by the
// benchmark's runs (loading 50,000 hosts takes a while).
type etcdBench struct {
	cl    *etcdtest.Cluster
	hosts int
	runs  atomic.Int64 // gives each run's uuids their own prefix
}

var (
	etcdBenchMu       sync.Mutex
	etcdBenchClusters = map[string]*etcdBench{}
)

func etcdBenchCluster(b *testing.B, members, hosts int) *etcdBench {
	etcdBenchMu.Lock()
	defer etcdBenchMu.Unlock()
	key := fmt.Sprint(members, hosts)
	if e := etcdBenchClusters[key]; e != nil {
		return e
	}
	cl, err := etcdtest.Start(etcdtest.Options{Members: members, LogOutput: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	cli, err := cl.NewClient()
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := etcdstore.Load(ctx, cli, "", Cloud(hosts, FiltersDefault), 0); err != nil {
		b.Fatal(err)
	}
	e := &etcdBench{cl: cl, hosts: hosts}
	etcdBenchClusters[key] = e
	return e
}

// closeEtcdBenchClusters stops the clusters etcdBenchCluster started and
// removes their directories (TestMain, once every benchmark has run).
func closeEtcdBenchClusters() {
	etcdBenchMu.Lock()
	defer etcdBenchMu.Unlock()
	for key, e := range etcdBenchClusters {
		e.cl.Close()
		delete(etcdBenchClusters, key)
	}
}

// timedBackend times the commits of a Backend.
type timedBackend struct {
	engine.Backend
	mu    sync.Mutex
	times []float64
}

func (t *timedBackend) CommitPlan(ctx context.Context, p engine.Plan, opts ...engine.CommitOption) (engine.CommitResult, error) {
	t0 := time.Now()
	res, err := t.Backend.CommitPlan(ctx, p, opts...)
	d := time.Since(t0).Seconds()
	t.mu.Lock()
	t.times = append(t.times, d)
	t.mu.Unlock()
	return res, err
}

func runEtcdStream(b *testing.B, e *etcdBench, placers, workers int) {
	ctx := context.Background()
	run := e.runs.Add(1)
	var stores []*etcdstore.Store
	var timed []*timedBackend
	var scheds []*engine.Scheduler
	for range placers {
		cli, err := e.cl.NewClient()
		if err != nil {
			b.Fatal(err)
		}
		defer cli.Close()
		st, err := etcdstore.Open(ctx, cli, etcdstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		tb := &timedBackend{Backend: st}
		sc := engine.NewSchedulerOn(tb, engine.SchedulerOptions{Workers: workers})
		defer sc.Close()
		stores, timed, scheds = append(stores, st), append(timed, tb), append(scheds, sc)
	}
	request := func(k int64) engine.Request {
		r := Request(10, FiltersDefault)
		for i := range 10 {
			r.InstanceUUIDs = append(r.InstanceUUIDs, fmt.Sprintf("bench-%d-%d-%d", run, k, i))
		}
		return r
	}
	// Warm-up, untimed: one request per store.
	for i, sc := range scheds {
		if _, err := sc.Place(ctx, request(-int64(i)-1)); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	var before engine.SchedulerStats
	var failedBefore int64
	for i, sc := range scheds {
		st := sc.Stats()
		before.Instances += st.Instances
		before.ConflictRetries += st.ConflictRetries
		failedBefore += stores[i].Stats().FailedTxns
		timed[i].times = timed[i].times[:0]
	}
	b.ResetTimer()
	cpu0, cpuKnown := processCPU()
	start := time.Now()
	var next, conflicts atomic.Int64
	var wg sync.WaitGroup
	for range 2 * workers * placers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1)
				if k > int64(b.N) {
					return
				}
				_, err := scheds[int(k)%placers].Place(ctx, request(k))
				switch {
				case errors.Is(err, engine.ErrConflict):
					conflicts.Add(1) // the retry budget ran out: an answer, as in BenchmarkScheduler
				case err != nil && !errors.Is(err, engine.ErrNoValidHost):
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, _ := processCPU()
	b.StopTimer()
	var placed, retries, failed int64
	var times []float64
	for i, sc := range scheds {
		st := sc.Stats()
		placed += st.Instances
		retries += st.ConflictRetries
		failed += stores[i].Stats().FailedTxns
		times = append(times, timed[i].times...)
	}
	placed -= before.Instances
	if placed == 0 {
		b.Fatal("the timed requests placed nothing")
	}
	slices.Sort(times)
	b.ReportMetric(float64(placed)/elapsed.Seconds(), "placements/s")
	if cpuKnown {
		b.ReportMetric(1e3*(cpu1-cpu0).Seconds()/float64(b.N), "cpu-ms/req")
	}
	b.ReportMetric(1e3*times[min(len(times)-1, len(times)*99/100)], "commit-p99-ms")
	b.ReportMetric(float64(retries-before.ConflictRetries)/float64(b.N), "retries/req")
	b.ReportMetric(float64(failed-failedBefore)/float64(b.N), "failedtxn/req")
	b.ReportMetric(float64(conflicts.Load())/float64(b.N), "conflictfail/req")
}
