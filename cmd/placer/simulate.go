package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
	"github.com/placer/placer/internal/verify"
)

const simulateUsage = `placer simulate [--hosts N] [--requests N] [--workers N] [--seed N] [--json] [--cpuprofile FILE]
                [--ironic-nodes P] [--driver NAME]
                [--report FILE.html | --etcd-members N [--placers P] [--faults]]
      Run a synthetic cloud (basic profile) and a stream of requests of 1-20
      instances through the Scheduler, with a background stream of external
      updates (usage reports, deletions, dead and new nodes, an aggregate
      change); then verify the run from what the callers saw (internal/verify:
      every host's usage recomputed from the plans returned and the updates
      made, in commit order, judged by the reference's resource filters,
      every plan matched against the store's commits, the result against the
      store's final state), and print a report. Exit status 1 when the
      verification fails.
        --hosts N      compute nodes (default 50000)
        --requests N   requests (default 20000)
        --workers N    scheduler workers (default GOMAXPROCS)
        --seed N       seed of the cloud and the requests (default 1)
        --json         print the report as one JSON object
        --cpuprofile F write a CPU profile of the run to F (go tool pprof)
        --ironic-nodes P
                       make each node an ironic node with probability P (0
                       to 1), under the ironic host manager: an instance
                       takes its node whole, and its deletion gives back
                       what it took (default 0)
        --driver NAME  filter_scheduler (default) or chance_scheduler (Nova's
                       old ChanceScheduler: no filter, no weigher; its
                       placements are judged as forced ones)
        --report F     write an HTML page of SVG charts to F: utilization,
                       latency and throughput over the run, and how many more
                       of the first request's flavor fit after it, as hosts
                       filling (docs/simulate.md)
        --etcd-members N
                       run against an embedded etcd cluster of N members on
                       loopback (docs/etcd.md) instead of one in-process
                       store: P placer stores (--placers, default 1) of
                       --workers workers each share the request stream, the
                       outside changes go through etcd, and the run is
                       verified from etcd's final state alone
        --faults       with --etcd-members: kill the etcd leader a third of
                       the way, restart it at half, and replace the last
                       placer by a fresh one (catching up from etcd) at two
                       thirds
`

// simReport is the report of placer simulate; its JSON form is --json.
type simReport struct {
	Hosts               int     `json:"hosts"`
	Workers             int     `json:"workers"`
	Requests            int     `json:"requests"`
	IronicNodes         float64 `json:"ironic_nodes,omitempty"`
	Driver              string  `json:"driver,omitempty"` // only when not the filter scheduler
	Placed              int64   `json:"placed_requests"`
	Placements          int64   `json:"placements"`
	Seconds             float64 `json:"seconds"`
	PlacementsPerSecond float64 `json:"placements_per_second"`
	NoValidHost         int64   `json:"no_valid_host"`
	ConflictRetries     int64   `json:"conflict_retries"`
	WarmStarts          int64   `json:"warm_starts"`
	ConflictFailures    int64   `json:"conflict_failures"`
	OtherErrors         int64   `json:"other_errors"`
	// UpdateErrors are the background updates the store refused (made on
	// the state they read, none should be; the first are in Problems).
	UpdateErrors       int                `json:"update_errors"`
	LatencyP50         float64            `json:"latency_p50_seconds"`
	LatencyP95         float64            `json:"latency_p95_seconds"`
	LatencyP99         float64            `json:"latency_p99_seconds"`
	ExternalUpdates    int64              `json:"external_updates"`
	FilterRemoved      map[string]int64   `json:"filter_removed_hosts"`
	UtilizationBefore  map[string]float64 `json:"utilization_before"`
	UtilizationAfter   map[string]float64 `json:"utilization_after"`
	JournalEntries     int                `json:"journal_entries"`
	OvercommittedHosts int                `json:"overcommitted_hosts"`
	UsageMismatches    int                `json:"usage_mismatches"`
	ForcedOverLimits   int                `json:"forced_placements_over_limits"`
	// LostClaims are plans returned to callers whose instances the store
	// never committed; DoubledClaims instances committed more often than
	// callers were told of them (or told to two callers);
	// UnclaimedCommits instances committed that no caller was told of;
	// MisplacedClaims instances committed elsewhere than their caller was
	// told; BrokenRules placements on a host their request ignored, off
	// its destination or against its server group's policy; BadEvents
	// external updates the store answered that cannot have happened. See
	// internal/verify.
	LostClaims       int `json:"lost_claims"`
	DoubledClaims    int `json:"doubled_claims"`
	UnclaimedCommits int `json:"unclaimed_commits"`
	MisplacedClaims  int `json:"misplaced_claims"`
	BrokenRules      int `json:"broken_rules"`
	BadEvents        int `json:"bad_events"`
	// VerifiedPlacements and VerifiedEvents are what the verification
	// replayed; VerifySeconds how long it took.
	VerifiedPlacements int     `json:"verified_placements"`
	VerifiedEvents     int     `json:"verified_events"`
	VerifySeconds      float64 `json:"verify_seconds"`
	// With --etcd-members: the cluster's size, the placer stores, the
	// requests answered "unavailable" (retryable), the transactions
	// applied, failed on their compares and sent again after no answer,
	// the mirrors' re-lists, the longest wait for a mirror to apply its
	// own commit, and the faults injected.
	EtcdMembers int   `json:"etcd_members,omitempty"`
	Placers     int   `json:"placers,omitempty"`
	Unavailable int64 `json:"unavailable,omitempty"`
	// UnknownCommitted counts the instances of requests answered
	// "unavailable" that etcd holds all the same (their commit applied
	// but its answer was lost): the verification tells them to their
	// callers, as a caller reading the instances' keys learns them.
	UnknownCommitted int `json:"unknown_committed,omitempty"`
	// UnknownUpdatesApplied counts the outside changes (deletions, a host
	// removed or added) whose calls failed but which etcd holds all the
	// same: the verification counts them as made, as the updater would
	// learn by reading the keys.
	UnknownUpdatesApplied int      `json:"unknown_updates_applied,omitempty"`
	EtcdCommits           int64    `json:"etcd_commits,omitempty"`
	EtcdFailedTxns        int64    `json:"etcd_failed_txns,omitempty"`
	EtcdResends           int64    `json:"etcd_resends,omitempty"`
	EtcdRelists           int64    `json:"etcd_relists,omitempty"`
	WatchLagMaxSeconds    float64  `json:"watch_lag_max_seconds,omitempty"`
	Faults                []string `json:"faults,omitempty"`
	// Problems are the verification's first findings (up to 20 per kind).
	Problems []string `json:"problems,omitempty"`
	Verified bool     `json:"verified"`
}

// plantFault, when set (tests), changes the run before it is verified.
var plantFault func(*verify.Input)

func simulate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, simulateUsage) }
	hosts := fs.Int("hosts", 50000, "")
	requests := fs.Int("requests", 20000, "")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "")
	seed := fs.Uint64("seed", 1, "")
	asJSON := fs.Bool("json", false, "")
	cpuProfile := fs.String("cpuprofile", "", "")
	members := fs.Int("etcd-members", 0, "")
	placers := fs.Int("placers", 1, "")
	faults := fs.Bool("faults", false, "")
	report := fs.String("report", "", "")
	ironic := fs.Float64("ironic-nodes", 0, "")
	driver := fs.String("driver", engine.DriverFilterScheduler, "")
	if status, ok := parseArgs(fs, args, stderr, ""); !ok {
		return status
	}
	if !(*ironic >= 0 && *ironic <= 1) {
		fmt.Fprintf(stderr, "placer simulate: want --ironic-nodes from 0 to 1, got %v\n", *ironic)
		return exitBadInput
	}
	if *driver != engine.DriverFilterScheduler && *driver != engine.DriverChanceScheduler {
		fmt.Fprintf(stderr, "placer simulate: want --driver %s or %s, got %q\n", engine.DriverFilterScheduler, engine.DriverChanceScheduler, *driver)
		return exitBadInput
	}
	if *members > 0 && (*ironic > 0 || *driver != engine.DriverFilterScheduler) {
		fmt.Fprintln(stderr, "placer simulate: --ironic-nodes and --driver are not available with --etcd-members yet")
		return exitBadInput
	}
	if !inSpans(stderr, "placer simulate", span{"hosts", int64(*hosts), 1, synth.MaxHosts},
		span{"requests", int64(*requests), 0, maxRequests}, span{"workers", int64(*workers), 1, maxWorkers},
		span{"etcd-members", int64(*members), 0, maxMembers}, span{"placers", int64(*placers), 1, maxPlacers}) {
		return exitBadInput
	}
	if *members == 0 && (*placers != 1 || *faults) {
		fmt.Fprintln(stderr, "placer simulate: --placers and --faults need --etcd-members")
		return exitBadInput
	}
	if *faults && *placers < 2 {
		// The crash replaces a placer while the others go on placing.
		fmt.Fprintln(stderr, "placer simulate: --faults crashes a placer while another goes on: want --placers 2 or more")
		return exitBadInput
	}
	// SIGTERM too (a timeout, a supervisor): with --etcd-members the run
	// owns a temporary directory of the cluster's data, hundreds of
	// megabytes, which only an orderly end removes.
	if *report != "" {
		// Refused before the run, not after it: the flags, then the folder.
		if *members > 0 {
			fmt.Fprintln(stderr, "placer simulate: --report is not available with --etcd-members yet")
			return exitBadInput
		}
		if st, err := os.Stat(filepath.Dir(*report)); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "placer simulate: --report %s: no such folder %s\n", *report, filepath.Dir(*report))
			return exitBadInput
		}
		// Opened now, so that a path no file can have (a folder, a folder
		// one cannot write in) is refused before the run; not truncated
		// (a report there stays until this one is written), and removed
		// again if this run made it and ends without a report.
		_, statErr := os.Stat(*report)
		f, err := os.OpenFile(*report, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "placer simulate: --report:", err)
			return exitBadInput
		}
		f.Close()
		if os.IsNotExist(statErr) {
			made := *report
			defer func() {
				if st, err := os.Stat(made); err == nil && st.Size() == 0 {
					os.Remove(made)
				}
			}()
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal ends the run in order (the etcd cluster's data
	// removed); a second ends the process at once, as without the handler.
	go func() { <-ctx.Done(); stop() }()
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
	var rep *simReport
	var err error
	var trace *simTrace
	if *report != "" {
		trace = newSimTrace(*requests)
	}
	if *members > 0 {
		rep, err = runEtcdSimulation(ctx, *hosts, *requests, *workers, *seed, etcdSim{members: *members, placers: *placers, faults: *faults}, stderr)
	} else {
		shape := synth.Options{Hosts: *hosts, Seed: *seed, Profile: synth.Basic, IronicNodes: *ironic, SchedulerDriver: *driver}
		rep, err = runSimulation(ctx, shape, *requests, *workers, stderr, trace)
	}
	if err != nil {
		fmt.Fprintln(stderr, "placer simulate:", err)
		return exitFailure
	}
	var reportErr error
	if trace != nil {
		// A report that cannot be written leaves the run's own report and
		// verdict to print; the command then fails.
		reportErr = writeSimReport(*report, rep, trace)
	}
	defer func() {
		if reportErr != nil {
			fmt.Fprintln(stderr, "placer simulate: --report:", reportErr)
		}
	}()
	out := &errWriter{w: stdout}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		printReport(out, rep)
	}
	if out.err != nil { // the report lost (a full disk, a closed pipe)
		fmt.Fprintln(stderr, "placer simulate: writing the report:", out.err)
		return exitFailure
	}
	if !rep.Verified || reportErr != nil {
		return exitFailure
	}
	return exitOK
}

// runSimulation runs the simulation on the cloud shape describes (its
// hosts, seed, profile, ironic nodes and driver); trace, when not nil,
// records what --report draws.
func runSimulation(ctx context.Context, shape synth.Options, nReq, workers int, progress io.Writer, trace *simTrace) (*simReport, error) {
	nHosts, seed := shape.Hosts, shape.Seed
	gen := synth.New(shape)
	cloud := gen.Cloud()
	reqs := gen.Requests(nReq)
	store, err := engine.NewStore(cloud, engine.StoreOptions{Journal: true})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // interrupted while the cloud was drawn
		return nil, err
	}
	rep := &simReport{Hosts: nHosts, Workers: workers, Requests: nReq, FilterRemoved: map[string]int64{}, IronicNodes: shape.IronicNodes}
	if shape.SchedulerDriver != "" && shape.SchedulerDriver != engine.DriverFilterScheduler {
		rep.Driver = shape.SchedulerDriver
	}
	rep.UtilizationBefore = store.Snapshot().Utilization().Map()
	sc := engine.NewScheduler(store, engine.SchedulerOptions{Workers: workers})

	var (
		mu        sync.Mutex
		committed []string
		done      atomic.Int64
		other     atomic.Int64
		latency   = make([]float64, nReq)
		// calls are what each caller of Place saw: the verification's
		// input, with events (what the updater did).
		calls  = make([]verify.Request, nReq)
		events []verify.Event
	)
	updCtx, stopUpd := context.WithCancel(ctx)
	var bg sync.WaitGroup
	bg.Add(2)
	go func() {
		defer bg.Done()
		var errs []string
		events, errs = externalUpdates(updCtx, store, seed, &mu, &committed, &done, nReq)
		rep.ExternalUpdates, rep.UpdateErrors = int64(len(events)), len(errs)
		for _, e := range errs[:min(len(errs), 10)] {
			rep.Problems = append(rep.Problems, "update_error: "+e)
		}
	}()
	go func() { defer bg.Done(); showProgress(updCtx, progress, &done, nReq, sc) }()

	start := time.Now()
	if trace != nil {
		trace.start = start
		bg.Add(1)
		go func() { defer bg.Done(); trace.sample(updCtx, store, sc) }()
	}
	// The submitters keep every worker busy and the queue full: the
	// Scheduler holds Workers jobs in progress and 4 x Workers queued, so
	// fewer callers than 5 x Workers leave it short. With 2 x Workers, as
	// until 2026-11-29, the workers found the queue empty whenever the
	// callers waited for a processor, and the runtime spun between them:
	// 17-19k placements/s at the defaults, 22k with 6 x Workers, the
	// engine unchanged. Each takes its next request from a counter, not
	// from a goroutine feeding a channel, which a caller had to wait for
	// to be scheduled between two requests: 1.04 times the placements/s
	// at the median of ten alternated runs (0.95-1.08), the engine
	// unchanged.
	var next atomic.Int64 // the next request to place
	var wg sync.WaitGroup
	for range 6 * workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= nReq {
					return
				}
				t0 := time.Now()
				plan, err := sc.Place(ctx, reqs[i])
				latency[i] = time.Since(t0).Seconds()
				if trace != nil {
					trace.finished[i], trace.latency[i] = time.Since(start).Seconds(), latency[i]
				}
				calls[i] = verify.FromPlace(reqs[i], plan, err)
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
	if trace != nil && len(reqs) > 0 {
		trace.final, trace.req = final, reqs[0]
	}
	rep.UtilizationAfter = final.Utilization().Map()
	journal := store.Journal()
	rep.JournalEntries = len(journal)
	in := verify.Input{Cloud: cloud, Requests: calls, Events: events,
		Commits: verify.CommitsOf(journal), Final: verify.FinalOf(final, store.Instances())}
	if plantFault != nil {
		plantFault(&in)
	}
	t0 := time.Now()
	res, err := verify.Run(in)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // interrupted while verifying: no verdict
		return nil, err
	}
	rep.VerifySeconds = time.Since(t0).Seconds()
	rep.VerifiedPlacements, rep.VerifiedEvents = res.Placements, res.Events
	rep.OvercommittedHosts, rep.ForcedOverLimits = res.OvercommittedHosts, res.ForcedOverLimits
	rep.UsageMismatches = res.Count(verify.UsageMismatch)
	rep.LostClaims, rep.DoubledClaims = res.Count(verify.LostClaim), res.Count(verify.DoubledClaim)
	rep.UnclaimedCommits, rep.MisplacedClaims = res.Count(verify.UnclaimedCommit), res.Count(verify.Misplaced)
	rep.BadEvents, rep.BrokenRules = res.Count(verify.BadEvent), res.Count(verify.BrokenRule)
	for _, p := range res.Problems {
		rep.Problems = append(rep.Problems, p.String())
	}
	rep.Verified = res.OK() && rep.OtherErrors == 0 && rep.UpdateErrors == 0
	return rep, nil
}

// cloudShape names r's driver and, when there are some, the chance of a
// node being ironic.
func cloudShape(r *simReport) string {
	driver := r.Driver
	if driver == "" {
		driver = engine.DriverFilterScheduler
	}
	if r.IronicNodes > 0 {
		return fmt.Sprintf("%s; each node ironic with probability %g", driver, r.IronicNodes)
	}
	return driver
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
	if r.IronicNodes > 0 || r.Driver != "" {
		fmt.Fprintf(w, "  cloud             %s\n", cloudShape(r))
	}
	if r.EtcdMembers > 0 {
		fmt.Fprintf(w, "  etcd              %d members, %d placer stores x %d workers; %d transactions applied, %d failed their compares, %d resent\n",
			r.EtcdMembers, r.Placers, r.Workers, r.EtcdCommits, r.EtcdFailedTxns, r.EtcdResends)
		fmt.Fprintf(w, "  watch             longest wait for a mirror to apply its own commit %.2fms, %d re-lists\n", r.WatchLagMaxSeconds*1e3, r.EtcdRelists)
		for _, f := range r.Faults {
			fmt.Fprintf(w, "  fault             %s\n", f)
		}
		if r.Unavailable > 0 {
			fmt.Fprintf(w, "  unavailable       %d requests (etcd did not answer, or the placer crashed); %d of their instances are in etcd all the same, told from there\n", r.Unavailable, r.UnknownCommitted)
		}
		if r.UnknownUpdatesApplied > 0 {
			fmt.Fprintf(w, "  unknown updates   %d outside changes whose calls failed are in etcd all the same, counted as made\n", r.UnknownUpdatesApplied)
		}
	}
	fmt.Fprintf(w, "  placed            %d requests, %d instances in %.2fs: %.0f placements/s\n", r.Placed, r.Placements, r.Seconds, r.PlacementsPerSecond)
	fmt.Fprintf(w, "  latency           p50 %.2fms  p95 %.2fms  p99 %.2fms\n", r.LatencyP50*1e3, r.LatencyP95*1e3, r.LatencyP99*1e3)
	fmt.Fprintf(w, "  conflicts         %d retries, %d requests gave up (ErrConflict)\n", r.ConflictRetries, r.ConflictFailures)
	fmt.Fprintf(w, "  warm starts       %d placements from the worker's previous batch\n", r.WarmStarts)
	fmt.Fprintf(w, "  NoValidHost       %d requests\n", r.NoValidHost)
	if r.UpdateErrors > 0 {
		fmt.Fprintf(w, "  update errors     %d background updates refused\n", r.UpdateErrors)
	}
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
	fmt.Fprintf(w, "  verification      %d placements and %d external updates replayed from the callers' side in %.2fs\n",
		r.VerifiedPlacements, r.VerifiedEvents, r.VerifySeconds)
	fmt.Fprintf(w, "                    overcommitted_hosts %d, usage_mismatches %d, lost_claims %d, doubled_claims %d,\n",
		r.OvercommittedHosts, r.UsageMismatches, r.LostClaims, r.DoubledClaims)
	fmt.Fprintf(w, "                    unclaimed_commits %d, misplaced_claims %d, broken_rules %d, bad_events %d: ",
		r.UnclaimedCommits, r.MisplacedClaims, r.BrokenRules, r.BadEvents)
	if r.Verified {
		fmt.Fprintln(w, "verified")
	} else {
		fmt.Fprintln(w, "FAILED")
	}
	if r.ForcedOverLimits > 0 {
		if r.Driver == engine.DriverChanceScheduler {
			fmt.Fprintf(w, "                    (%d placements went over limits: the chance scheduler reads no filter, as in Nova)\n", r.ForcedOverLimits)
		} else {
			fmt.Fprintf(w, "                    (%d forced placements went over limits: force_hosts skips every filter, as in Nova)\n", r.ForcedOverLimits)
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  ! %s\n", p)
	}
}
