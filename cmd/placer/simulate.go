package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

const simulateUsage = `placer simulate [--hosts N] [--requests N] [--workers N] [--seed N] [--json] [--cpuprofile FILE]
      Run a synthetic cloud (basic profile) and a stream of requests of 1-20
      instances through the Scheduler, with a background stream of external
      updates (usage reports, deletions, dead and new nodes, an aggregate
      change); then recompute every host's usage from the commit journal,
      check it against the store and the hosts' limits, and print a report.
        --hosts N      compute nodes (default 50000)
        --requests N   requests (default 20000)
        --workers N    scheduler workers (default GOMAXPROCS)
        --seed N       seed of the cloud and the requests (default 1)
        --json         print the report as one JSON object
        --cpuprofile F write a CPU profile of the run to F (go tool pprof)
`

// simReport is the report of placer simulate; its JSON form is --json.
type simReport struct {
	Hosts               int                `json:"hosts"`
	Workers             int                `json:"workers"`
	Requests            int                `json:"requests"`
	Placed              int64              `json:"placed_requests"`
	Placements          int64              `json:"placements"`
	Seconds             float64            `json:"seconds"`
	PlacementsPerSecond float64            `json:"placements_per_second"`
	NoValidHost         int64              `json:"no_valid_host"`
	ConflictRetries     int64              `json:"conflict_retries"`
	WarmStarts          int64              `json:"warm_starts"`
	ConflictFailures    int64              `json:"conflict_failures"`
	OtherErrors         int64              `json:"other_errors"`
	LatencyP50          float64            `json:"latency_p50_seconds"`
	LatencyP95          float64            `json:"latency_p95_seconds"`
	LatencyP99          float64            `json:"latency_p99_seconds"`
	ExternalUpdates     int64              `json:"external_updates"`
	FilterRemoved       map[string]int64   `json:"filter_removed_hosts"`
	UtilizationBefore   map[string]float64 `json:"utilization_before"`
	UtilizationAfter    map[string]float64 `json:"utilization_after"`
	JournalEntries      int                `json:"journal_entries"`
	OvercommittedHosts  int                `json:"overcommitted_hosts"`
	UsageMismatches     int                `json:"usage_mismatches"`
	ForcedOverLimits    int                `json:"forced_placements_over_limits"`
	Verified            bool               `json:"verified"`
}

func simulate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, simulateUsage) }
	hosts := fs.Int("hosts", 50000, "")
	requests := fs.Int("requests", 20000, "")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "")
	seed := fs.Uint64("seed", 1, "")
	asJSON := fs.Bool("json", false, "")
	cpuProfile := fs.String("cpuprofile", "", "")
	if err := fs.Parse(args); err != nil {
		return exitBadInput
	}
	if fs.NArg() > 0 || *hosts < 1 || *requests < 0 || *workers < 1 {
		fmt.Fprintln(stderr, "placer simulate: want --hosts >= 1, --requests >= 0, --workers >= 1 and no arguments")
		return exitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "placer simulate:", err)
			return exitBadInput
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "placer simulate:", err)
			return exitFailure
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := runSimulation(ctx, *hosts, *requests, *workers, *seed, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "placer simulate:", err)
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		printReport(stdout, rep)
	}
	if !rep.Verified {
		return exitFailure
	}
	return exitOK
}

func runSimulation(ctx context.Context, nHosts, nReq, workers int, seed uint64, progress io.Writer) (*simReport, error) {
	gen := synth.New(synth.Options{Hosts: nHosts, Seed: seed, Profile: synth.Basic})
	cloud := gen.Cloud()
	reqs := gen.Requests(nReq)
	store, err := engine.NewStore(cloud, engine.StoreOptions{Journal: true})
	if err != nil {
		return nil, err
	}
	rep := &simReport{Hosts: nHosts, Workers: workers, Requests: nReq, FilterRemoved: map[string]int64{}}
	rep.UtilizationBefore = store.Snapshot().Utilization().Map()
	sc := engine.NewScheduler(store, engine.SchedulerOptions{Workers: workers})

	var (
		mu        sync.Mutex
		committed []string
		done      atomic.Int64
		other     atomic.Int64
		latency   = make([]float64, nReq)
	)
	updCtx, stopUpd := context.WithCancel(ctx)
	var bg sync.WaitGroup
	bg.Add(2)
	go func() {
		defer bg.Done()
		rep.ExternalUpdates = externalUpdates(updCtx, store, seed, &mu, &committed, &done, nReq)
	}()
	go func() { defer bg.Done(); showProgress(updCtx, progress, &done, nReq, sc) }()

	start := time.Now()
	next := make(chan int)
	var wg sync.WaitGroup
	for range 2 * workers { // submitters keep the queue full
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				plan, err := sc.Place(ctx, reqs[i])
				latency[i] = time.Since(t0).Seconds()
				var nvh *engine.NoValidHostError
				switch {
				case err == nil:
					mu.Lock()
					for _, p := range plan.Placements {
						committed = append(committed, p.InstanceUUID)
					}
					mu.Unlock()
				case errors.As(err, &nvh):
					mu.Lock()
					for _, f := range nvh.Filters {
						rep.FilterRemoved[f.Name] += int64(f.Start - f.End)
					}
					mu.Unlock()
				case errors.Is(err, engine.ErrConflict):
				default:
					other.Add(1)
				}
				done.Add(1)
			}
		}()
	}
feed:
	for i := range reqs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	sc.Close()
	stopUpd()
	bg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	st := sc.Stats()
	rep.Placed, rep.Placements = st.Placed, st.Instances
	rep.NoValidHost, rep.ConflictRetries, rep.ConflictFailures = st.NoValidHost, st.ConflictRetries, st.ConflictFailures
	rep.WarmStarts = st.WarmStarts
	rep.OtherErrors = other.Load()
	rep.Seconds = elapsed.Seconds()
	rep.PlacementsPerSecond = float64(st.Instances) / elapsed.Seconds()
	slices.Sort(latency)
	rep.LatencyP50, rep.LatencyP95, rep.LatencyP99 = quantile(latency, 0.50), quantile(latency, 0.95), quantile(latency, 0.99)
	final := store.Snapshot()
	rep.UtilizationAfter = final.Utilization().Map()
	journal := store.Journal()
	rep.JournalEntries = len(journal)
	rep.OvercommittedHosts, rep.UsageMismatches, rep.ForcedOverLimits = verify(cloud, journal, final)
	rep.Verified = rep.OvercommittedHosts == 0 && rep.UsageMismatches == 0 && rep.OtherErrors == 0
	return rep, nil
}

// externalUpdates is the background stream of outside changes until ctx
// ends: compute node reports (usage unchanged but for finished I/O: the
// host's generation moves, so concurrent plans on it are re-checked),
// deletions of committed instances, and once each a dead node, a new node
// and an aggregate metadata change (whole-snapshot rebuilds).
func externalUpdates(ctx context.Context, s *engine.Store, seed uint64, mu *sync.Mutex, committed *[]string, done *atomic.Int64, total int) int64 {
	r := rand.New(rand.NewPCG(seed, 99))
	var n int64
	removed, added, aggregated := false, false, false
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
		var err error
		stop := false
		// A lease, not Snapshot(): the store may then reuse the memory
		// its compactions free.
		s.View(func(snap *engine.Snapshot) {
			progress := float64(done.Load()) / float64(max(total, 1))
			switch {
			case !removed && progress > 0.25 && snap.Len() > 3:
				removed = true
				_, err = s.RemoveHosts(snap.HostNode(uint32(r.IntN(snap.Len()))))
			case !added && progress > 0.5:
				added = true
				_, err = s.AddHosts(engine.Host{Host: "simulate-late-node", MemoryMB: 262144, FreeRAMMB: 262144,
					VCPUs: 64, LocalGB: 2000, FreeDiskGB: 2000})
			case !aggregated && progress > 0.75:
				aggregated = true
				_, err = s.SetAggregateMetadata("simulate-maintenance", map[string]string{"note": "window"}, nil)
			case r.IntN(3) == 0:
				mu.Lock()
				var u string
				if k := len(*committed); k > 0 {
					i := r.IntN(k)
					u = (*committed)[i]
					(*committed)[i] = (*committed)[k-1]
					*committed = (*committed)[:k-1]
				}
				mu.Unlock()
				if u != "" {
					if _, err := s.DeleteInstance(u); err != nil && !errors.Is(err, engine.ErrInvalid) {
						stop = true // gone with a removed node: ErrInvalid, fine
					}
				}
			default:
				id := uint32(r.IntN(snap.Len()))
				u := snap.Usage(id)
				u.NumIOOps = 0
				_, err = s.UpdateHost(snap.HostNode(id), u)
			}
		})
		if stop {
			return n
		}
		if err == nil {
			n++
		}
	}
}

// verify replays the journal over the initial cloud with plain per-host
// arithmetic (no engine code), counting the hosts where a committed
// placement went beyond the host's limits and the hosts whose recomputed
// usage differs from the store's.
//
// A forced placement (force_hosts: every filter skipped, as Nova does) may
// exceed the limits: those are counted apart, in forcedOver.
func verify(c engine.Cloud, journal []engine.JournalEntry, final *engine.Snapshot) (overcommitted, mismatches, forcedOver int) {
	type hn = engine.HostNode
	usage := map[hn]engine.HostUsage{}
	for _, h := range c.Hosts {
		node := h.Node
		if node == "" {
			node = h.Host
		}
		free := h.FreeDiskGB
		if h.DiskAvailableLeast != nil {
			free = min(free, *h.DiskAvailableLeast)
		}
		usage[hn{Host: h.Host, Node: node}] = engine.HostUsage{FreeRAMMB: h.FreeRAMMB, FreeDiskMB: free * 1024,
			VCPUsUsed: h.VCPUsUsed, NumInstances: h.NumInstances, NumIOOps: h.NumIOOps}
	}
	ids := map[hn]uint32{}
	for id := range uint32(final.Len()) {
		ids[final.HostNode(id)] = id
	}
	over := map[hn]bool{}
	for _, e := range journal {
		u := usage[e.Host]
		switch e.Kind {
		case engine.JournalPlace:
			u.FreeRAMMB -= e.Claim.MemoryMB
			u.FreeDiskMB -= e.Claim.DiskMB
			u.VCPUsUsed += e.Claim.VCPUs
			u.NumInstances++
			u.NumIOOps++
			if id, ok := ids[e.Host]; ok && final.Capacity(id).Exceeds(u) {
				if e.Forced {
					forcedOver++
				} else {
					over[e.Host] = true
				}
			}
			usage[e.Host] = u
		case engine.JournalDelete:
			u.FreeRAMMB += e.Claim.MemoryMB
			u.FreeDiskMB += e.Claim.DiskMB
			u.VCPUsUsed -= e.Claim.VCPUs
			u.NumInstances--
			usage[e.Host] = u
		case engine.JournalUpdate, engine.JournalAddHost:
			usage[e.Host] = e.Usage
		case engine.JournalRemoveHost:
			delete(usage, e.Host)
		}
	}
	for h, id := range ids {
		if u, ok := usage[h]; !ok || u != final.Usage(id) {
			mismatches++
		}
	}
	mismatches += max(0, len(usage)-len(ids))
	return len(over), mismatches, forcedOver
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// showProgress draws a bar on a terminal (plain lines every 5 s otherwise)
// until ctx ends.
func showProgress(ctx context.Context, w io.Writer, done *atomic.Int64, total int, sc *engine.Scheduler) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	every := 5 * time.Second
	if tty {
		every = 200 * time.Millisecond
	}
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if tty {
				fmt.Fprintln(w)
			}
			return
		case <-tick.C:
		}
		n, st := done.Load(), sc.Stats()
		rate := float64(st.Instances) / time.Since(start).Seconds()
		if tty {
			const width = 30
			k := int(width * n / int64(max(total, 1)))
			fmt.Fprintf(w, "\r[%s%s] %d/%d requests  %.0f placements/s  %d retries ",
				strings.Repeat("=", k), strings.Repeat(" ", width-k), n, total, rate, st.ConflictRetries)
		} else {
			fmt.Fprintf(w, "simulate: %d/%d requests, %.0f placements/s, %d conflict retries\n", n, total, rate, st.ConflictRetries)
		}
	}
}

func printReport(w io.Writer, r *simReport) {
	fmt.Fprintf(w, "placer simulate: %d hosts, %d requests, %d workers\n", r.Hosts, r.Requests, r.Workers)
	fmt.Fprintf(w, "  placed            %d requests, %d instances in %.2fs: %.0f placements/s\n", r.Placed, r.Placements, r.Seconds, r.PlacementsPerSecond)
	fmt.Fprintf(w, "  latency           p50 %.2fms  p95 %.2fms  p99 %.2fms\n", r.LatencyP50*1e3, r.LatencyP95*1e3, r.LatencyP99*1e3)
	fmt.Fprintf(w, "  conflicts         %d retries, %d requests gave up (ErrConflict)\n", r.ConflictRetries, r.ConflictFailures)
	fmt.Fprintf(w, "  warm starts       %d placements from the worker's previous batch\n", r.WarmStarts)
	fmt.Fprintf(w, "  NoValidHost       %d requests\n", r.NoValidHost)
	if r.OtherErrors > 0 {
		fmt.Fprintf(w, "  other errors      %d requests\n", r.OtherErrors)
	}
	fmt.Fprintf(w, "  external updates  %d\n", r.ExternalUpdates)
	names := make([]string, 0, len(r.FilterRemoved))
	for k := range r.FilterRemoved {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  removed by %-28s %d hosts (NoValidHost explanations)\n", k, r.FilterRemoved[k])
	}
	for _, k := range []string{"ram", "vcpu", "disk"} {
		fmt.Fprintf(w, "  utilization %-5s %.1f%% -> %.1f%%\n", k, 100*r.UtilizationBefore[k], 100*r.UtilizationAfter[k])
	}
	fmt.Fprintf(w, "  verification      %d journal entries replayed: overcommitted_hosts %d, usage_mismatches %d\n",
		r.JournalEntries, r.OvercommittedHosts, r.UsageMismatches)
	if r.ForcedOverLimits > 0 {
		fmt.Fprintf(w, "                    (%d forced placements went over limits: force_hosts skips every filter, as in Nova)\n", r.ForcedOverLimits)
	}
}
