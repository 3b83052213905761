package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/server"
	"github.com/placer/placer/internal/soak"
	"github.com/placer/placer/internal/synth"
)

const soakUsage = `placer soak [--addr URL] [--duration 60s] [--clients 32] [--hosts 2000] [--seed N]
           [--workers N] [--max-body BYTES] [--json]
      Soak the placement service: concurrent clients place, delete, report
      usage, read, add and remove hosts, send bad and oversized bodies and
      hang up mid-request for --duration (after a warm-up of a tenth of it, at
      most 5s); then verify through the API: no host over its limits, the
      exact usage on the hosts no client reported for, every instance placed
      and not deleted still held and none unknown, anti-affinity kept, every
      answer a documented one, and goroutines and heap back to the warm-up's
      (slack: 8 goroutines, heap x1.5 + 16 MiB). Exit status 1 when the
      verification fails.
        --addr URL     soak the server at URL (one no one else uses): the
                       soak adds hosts of its own to report on and remove,
                       and takes the limits the server reports; without it,
                       placer soak serves a synthetic basic cloud of --hosts
                       hosts on a loopback port itself and checks the limits
                       by internal/verify's own account of that cloud
        --clients N    concurrent clients (default 32)
        --hosts N      hosts of the cloud it serves (default 2000)
        --workers N    scheduler workers of the cloud it serves (default GOMAXPROCS)
                       (--hosts and --workers configure the service soak
                       starts: refused with --addr)
        --seed N       the seed of the cloud it serves and of the clients'
                       requests (default 1)
        --max-body B   the server's body limit (default 1048576)
        --json         print the report as one JSON object
`

func soakCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, soakUsage) }
	addr := fs.String("addr", "", "")
	duration := fs.Duration("duration", 60*time.Second, "")
	clients := fs.Int("clients", 32, "")
	hosts := fs.Int("hosts", 2000, "")
	seed := fs.Uint64("seed", 1, "")
	workers := fs.Int("workers", 0, "")
	maxBody := fs.Int64("max-body", server.DefaultMaxBodyBytes, "")
	asJSON := fs.Bool("json", false, "")
	if status, ok := parseArgs(fs, args, stderr, ""); !ok {
		return status
	}
	if !inSpans(stderr, "placer soak", span{"clients", int64(*clients), 1, maxClients},
		span{"hosts", int64(*hosts), 1, synth.MaxHosts}, span{"workers", int64(*workers), 0, maxWorkers},
		span{"max-body", *maxBody, 1, math.MaxInt64}) {
		return exitBadInput
	}
	if *duration <= 0 {
		fmt.Fprintf(stderr, "placer soak: want --duration > 0, got %v\n", *duration)
		return exitBadInput
	}
	if g := given(fs, "hosts", "workers"); *addr != "" && len(g) > 0 {
		fmt.Fprintf(stderr, "placer soak: %s configure the service soak starts; with --addr it soaks a running one\n", strings.Join(g, " and "))
		return exitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := soak.Options{Duration: *duration, Clients: *clients, Seed: *seed, MaxBodyBytes: *maxBody, Progress: stderr}
	if *addr != "" {
		o.URL = *addr
		if !strings.Contains(o.URL, "://") {
			o.URL = "http://" + o.URL
		}
	} else {
		cloud := synth.Cloud(synth.Options{Hosts: *hosts, Seed: *seed, Profile: synth.Basic})
		url, done, err := serveLoopback(ctx, cloud, server.Options{Workers: *workers, MaxBodyBytes: *maxBody})
		if err != nil {
			fmt.Fprintln(stderr, "placer soak:", err)
			return exitFailure
		}
		defer func() {
			if err := done(); err != nil {
				fmt.Fprintln(stderr, "placer soak: the server:", err)
			}
		}()
		o.URL, o.Cloud = url, &cloud
	}
	rep, err := soak.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "placer soak:", err)
		return exitFailure
	}
	out := &errWriter{w: stdout}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		printSoak(out, o.URL, rep)
	}
	if out.err != nil { // the report lost (a full disk, a closed pipe)
		fmt.Fprintln(stderr, "placer soak: writing the report:", out.err)
		return exitFailure
	}
	if !rep.OK {
		return exitFailure
	}
	return exitOK
}

// serveLoopback serves cloud on a loopback port in this process; done
// stops the server gracefully and returns its error.
func serveLoopback(ctx context.Context, cloud engine.Cloud, opts server.Options) (url string, done func() error, err error) {
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(cloud, opts)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return "", nil, err
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(sctx, ln) }()
	return "http://" + ln.Addr().String(), func() error { cancel(); return <-errc }, nil
}

func printSoak(w io.Writer, url string, r *soak.Report) {
	fmt.Fprintf(w, "placer soak: %s, %d clients, %.1fs\n", url, r.Clients, r.Seconds)
	ops := make([]string, 0, len(r.Requests))
	for op := range r.Requests {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		var st []string
		for k, n := range r.Statuses {
			if s, ok := strings.CutPrefix(k, op+" "); ok {
				st = append(st, fmt.Sprintf("%s x%d", s, n))
			}
		}
		sort.Strings(st)
		fmt.Fprintf(w, "  %-16s %7d  %s\n", op, r.Requests[op], strings.Join(st, ", "))
	}
	fmt.Fprintf(w, "  instances        %d placed, %d deleted, %d forgotten with removed hosts, %d held at the end\n",
		r.Placed, r.Deleted, r.Forgotten, r.HeldAtEnd)
	fmt.Fprintf(w, "  hung up          %d instances asked for, %d of them committed (released by the check)\n", r.HungUp, r.HungUpCommitted)
	fmt.Fprintf(w, "  hosts            %d added, %d removed; %d nodes checked, %d of them to the exact usage\n",
		r.HostsAdded, r.HostsRemoved, r.HostsChecked, r.ExactHosts)
	fmt.Fprintf(w, "  goroutines       %d after the warm-up, %d at the end\n", r.Baseline.Goroutines, r.End.Goroutines)
	fmt.Fprintf(w, "  heap             %.1f MiB after the warm-up, %.1f MiB at the end\n",
		float64(r.Baseline.HeapBytes)/(1<<20), float64(r.End.HeapBytes)/(1<<20))
	if r.OK {
		fmt.Fprintln(w, "  verification     verified")
		return
	}
	kinds := make([]string, 0, len(r.Counts))
	for k, n := range r.Counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "  verification     FAILED: %s\n", strings.Join(kinds, ", "))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  ! %s\n", p)
	}
}
