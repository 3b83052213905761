package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/server"
	"github.com/placer/placer/internal/synth"
)

const serveUsage = `placer serve [--addr 127.0.0.1:8080] (--cloud FILE | --synthetic N) [--seed S]
             [--workers N] [--queue N] [--max-body BYTES] [--timeout D] [--log text|json]
      Serve the placement API (README, "placer serve") over a cloud: the hosts,
      aggregates and config of the scenario FILE (its request is ignored), or
      a synthetic basic cloud of N hosts (internal/synth, --seed). SIGINT or
      SIGTERM stop it gracefully: requests in flight finish first.
        --addr A        listen address (default 127.0.0.1:8080, loopback only)
        --workers N     scheduler workers (default GOMAXPROCS)
        --queue N       requests waiting for a worker (default 4 x workers);
                        beyond workers + queue, POST /v1/place answers 503
        --max-body B    request body limit in bytes (default 1048576; 413)
        --timeout D     one placement's time limit (default 30s)
        --log F         log format: text (default) or json, on stderr
`

// serve is "placer serve".
func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage) }
	addr := fs.String("addr", "127.0.0.1:8080", "")
	cloudFile := fs.String("cloud", "", "")
	synthetic := fs.Int("synthetic", 0, "")
	seed := fs.Uint64("seed", 1, "")
	workers := fs.Int("workers", 0, "")
	queue := fs.Int("queue", 0, "")
	maxBody := fs.Int64("max-body", server.DefaultMaxBodyBytes, "")
	timeout := fs.Duration("timeout", server.DefaultRequestTimeout, "")
	logFormat := fs.String("log", "text", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "placer serve: unexpected argument %q\n", fs.Arg(0))
		return exitBadInput
	case (*cloudFile == "") == (*synthetic == 0):
		fmt.Fprintln(stderr, "placer serve: want exactly one of --cloud FILE and --synthetic N")
		return exitBadInput
	case *synthetic < 0 || *workers < 0 || *queue < 0 || *maxBody <= 0 || *timeout <= 0:
		fmt.Fprintln(stderr, "placer serve: want --synthetic, --workers, --queue >= 0 and --max-body, --timeout > 0")
		return exitBadInput
	case *logFormat != "text" && *logFormat != "json":
		fmt.Fprintf(stderr, "placer serve: unknown --log %q (want text or json)\n", *logFormat)
		return exitBadInput
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *logFormat == "json" {
		h = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(h)

	var cloud engine.Cloud
	if *cloudFile != "" {
		s, err := readScenario(*cloudFile, os.Stdin) // --cloud - reads stdin
		if err != nil {
			return fail(stderr, err)
		}
		cloud = s.Cloud
	} else {
		cloud = synth.Cloud(synth.Options{Hosts: *synthetic, Seed: *seed, Profile: synth.Basic})
	}
	start := time.Now()
	srv, err := server.New(cloud, server.Options{
		Workers: *workers, QueueSize: *queue, MaxBodyBytes: *maxBody, RequestTimeout: *timeout, Logger: log,
	})
	if err != nil {
		return fail(stderr, err)
	}
	log.Info("cloud loaded", "hosts", srv.Store().Snapshot().Len(), "seconds", time.Since(start).Seconds())
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		fmt.Fprintln(stderr, "placer serve:", err)
		return exitFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("serve", "err", err)
		return exitFailure
	}
	return exitOK
}
