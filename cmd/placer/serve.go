package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/server"
	"github.com/placer/placer/internal/synth"
)

const serveUsage = `placer serve [--addr 127.0.0.1:8080] (--cloud FILE | --synthetic N | --etcd ENDPOINTS) [--seed S]
             [--workers N] [--queue N] [--max-body BYTES] [--max-instances N] [--timeout D]
             [--cache-interval D] [--log text|json]
             [--tls-cert FILE --tls-key FILE [--client-ca FILE]] [--token-file FILE]
             [--insecure-plain-http]
      Serve the placement API (README, "placer serve") over a cloud: the hosts,
      aggregates and config of the scenario FILE (its request, required, is ignored), or
      a synthetic basic cloud of N hosts (internal/synth, --seed), or the
      cloud in etcd that placer etcd load wrote, shared with every other
      placer serve --etcd on the same prefix (docs/etcd.md; the etcd flags
      are placer etcd load's). SIGINT or SIGTERM stop it gracefully:
      requests in flight finish first.
        --addr A        listen address (default 127.0.0.1:8080); without TLS
                        only a loopback one (127.0.0.0/8, [::1], localhost)
        --workers N     scheduler workers (default GOMAXPROCS)
        --queue N       requests waiting for a worker (default 4 x workers);
                        beyond workers + queue, POST /v1/place answers 503
        --max-body B    request body limit in bytes (default 1048576; 413)
        --max-instances N
                        a placement request's num_instances limit (default
                        1000; 400 beyond it)
        --timeout D     one placement's time limit (default 30s)
        --cache-interval D
                        the caching mode (Nova's CachingScheduler): each
                        worker places on its own view of the hosts,
                        refreshed when it is D old or after a conflict,
                        rather than on the newest state; commits are still
                        re-checked (no overcommitment), staleness costs
                        retries. Default 0: off (docs/concurrency.md)
        --log F         log format: text (default) or json, on stderr
        --tls-cert F    serve HTTPS with the certificate (chain) of PEM file F
        --tls-key F     and the private key of PEM file F
        --client-ca F   require a client certificate signed by a CA of PEM
                        file F (refused in the TLS handshake otherwise)
        --token-file F  require "Authorization: Bearer T" for a token T of
                        file F (one a line, # comments); 401 otherwise.
                        /healthz and /readyz stay open; /metrics and
                        /debug/pprof do not
        --insecure-plain-http
                        serve plain HTTP on a non-loopback address anyway
                        (traffic and tokens unencrypted, anyone may connect)
`

// serve is "placer serve": serveContext until SIGINT or SIGTERM.
func serve(args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveContext(ctx, args, stderr, nil)
}

// serveContext is "placer serve" until ctx ends; listening, when set
// (tests), is told the listener's address once it is bound.
func serveContext(ctx context.Context, args []string, stderr io.Writer, listening func(net.Addr)) int {
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
	maxInstances := fs.Int("max-instances", server.DefaultMaxInstances, "")
	timeout := fs.Duration("timeout", server.DefaultRequestTimeout, "")
	cacheInterval := fs.Duration("cache-interval", 0, "")
	logFormat := fs.String("log", "text", "")
	tlsCert := fs.String("tls-cert", "", "")
	tlsKey := fs.String("tls-key", "", "")
	clientCA := fs.String("client-ca", "", "")
	tokenFile := fs.String("token-file", "", "")
	insecure := fs.Bool("insecure-plain-http", false, "")
	ef := addEtcdFlags(fs)
	if status, ok := parseArgs(fs, args, stderr, ""); !ok {
		return status
	}
	switch {
	case b2i(*cloudFile != "")+b2i(*synthetic != 0)+b2i(*ef.endpoints != "") != 1:
		fmt.Fprintln(stderr, "placer serve: want exactly one of --cloud FILE, --synthetic N and --etcd ENDPOINTS")
		return exitBadInput
	case !inSpans(stderr, "placer serve", span{"synthetic", int64(*synthetic), 0, synth.MaxHosts},
		span{"workers", int64(*workers), 0, maxWorkers}, span{"queue", int64(*queue), 0, maxQueue},
		span{"max-instances", int64(*maxInstances), 1, engine.MaxInstances}, span{"max-body", *maxBody, 1, math.MaxInt64}):
		return exitBadInput
	case *cacheInterval < 0 || *timeout <= 0:
		fmt.Fprintf(stderr, "placer serve: want --cache-interval >= 0 and --timeout > 0, got %v and %v\n", *cacheInterval, *timeout)
		return exitBadInput
	case *logFormat != "text" && *logFormat != "json":
		fmt.Fprintf(stderr, "placer serve: unknown --log %q (want text or json)\n", *logFormat)
		return exitBadInput
	case (*tlsCert == "") != (*tlsKey == ""):
		fmt.Fprintln(stderr, "placer serve: want both --tls-cert and --tls-key, or neither")
		return exitBadInput
	case *clientCA != "" && *tlsCert == "":
		fmt.Fprintln(stderr, "placer serve: --client-ca needs --tls-cert and --tls-key (client certificates are checked in the TLS handshake)")
		return exitBadInput
	case *synthetic == 0 && len(given(fs, "seed")) > 0:
		fmt.Fprintln(stderr, "placer serve: --seed draws a --synthetic cloud; --cloud and --etcd have their own")
		return exitBadInput
	case *insecure && *tlsCert != "":
		fmt.Fprintln(stderr, "placer serve: --insecure-plain-http contradicts --tls-cert and --tls-key")
		return exitBadInput
	case *tlsCert == "" && !*insecure && !loopbackAddr(*addr):
		fmt.Fprintf(stderr, "placer serve: --addr %s is not a loopback address (127.0.0.0/8, [::1], localhost): "+
			"serving beyond loopback wants TLS (--tls-cert and --tls-key, with --client-ca or --token-file "+
			"to let in only those who belong), or --insecure-plain-http to serve plain HTTP anyway\n", *addr)
		return exitBadInput
	}
	if err := ef.check(); err != nil {
		fmt.Fprintln(stderr, "placer serve:", err)
		return exitBadInput
	}
	var tlsConfig *tls.Config
	if *tlsCert != "" {
		var err error
		if tlsConfig, err = server.TLSConfig(*tlsCert, *tlsKey, *clientCA); err != nil {
			fmt.Fprintln(stderr, "placer serve:", err)
			return exitBadInput
		}
	}
	var tokens []string
	if *tokenFile != "" {
		var err error
		if tokens, err = server.LoadTokens(*tokenFile); err != nil {
			fmt.Fprintln(stderr, "placer serve:", err)
			return exitBadInput
		}
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *logFormat == "json" {
		h = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(h)

	sopts := server.Options{
		Workers: *workers, QueueSize: *queue, MaxBodyBytes: *maxBody, MaxInstances: *maxInstances, RequestTimeout: *timeout, Logger: log,
		Tokens: tokens, CacheInterval: *cacheInterval,
	}
	start := time.Now()
	var srv *server.Server
	if *ef.endpoints != "" {
		cli, err := ef.client()
		if err != nil {
			fmt.Fprintln(stderr, "placer serve:", err)
			return exitFailure
		}
		defer cli.Close()
		octx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		srv, err = server.NewEtcd(octx, cli, ef.options(), sopts)
		cancel()
		if err != nil {
			fmt.Fprintln(stderr, "placer serve:", err)
			return exitFailure
		}
	} else {
		var cloud engine.Cloud
		if *cloudFile != "" {
			s, err := readScenario(*cloudFile, os.Stdin) // --cloud - reads stdin
			if err != nil {
				return fail(stderr, "serve", err)
			}
			cloud = s.Cloud
		} else {
			cloud = synth.Cloud(synth.Options{Hosts: *synthetic, Seed: *seed, Profile: synth.Basic})
		}
		var err error
		if srv, err = server.New(cloud, sopts); err != nil {
			return fail(stderr, "serve", err)
		}
	}
	if ctx.Err() != nil { // a signal while the cloud was loaded: stop before serving
		srv.Close()
		fmt.Fprintln(stderr, "placer serve: interrupted while loading the cloud")
		return exitFailure
	}
	log.Info("cloud loaded", "hosts", srv.Store().Snapshot().Len(), "seconds", time.Since(start).Seconds())
	if *cacheInterval > 0 {
		log.Info("caching mode: host state refreshed per worker on an interval", "interval", cacheInterval.String())
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		fmt.Fprintln(stderr, "placer serve:", err)
		return exitFailure
	}
	// "localhost" is taken at its word above; what it resolved to is
	// checked here, where it counts.
	if tcp, ok := ln.Addr().(*net.TCPAddr); tlsConfig == nil && !*insecure && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		srv.Close()
		fmt.Fprintf(stderr, "placer serve: --addr %s is bound to %s, not a loopback address: "+
			"use --tls-cert and --tls-key, or --insecure-plain-http\n", *addr, ln.Addr())
		return exitBadInput
	}
	switch {
	case tlsConfig != nil:
		ln = tls.NewListener(ln, tlsConfig)
		log.Info("serving HTTPS", "client_certificates", *clientCA != "", "bearer_tokens", len(tokens))
	case *insecure && !loopbackAddr(ln.Addr().String()):
		log.Warn("serving plain HTTP beyond loopback (--insecure-plain-http): traffic is unencrypted", "bearer_tokens", len(tokens))
	}
	if listening != nil {
		listening(ln.Addr())
	}
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("serve", "err", err)
		return exitFailure
	}
	return exitOK
}

// loopbackAddr reports whether the listen address addr (host:port) is on
// loopback alone: an IP address of 127.0.0.0/8 or ::1 (an IPv4-mapped
// one too, a zone allowed), or the name localhost. An empty host or an
// unspecified address (0.0.0.0, ::) listens on every interface, and any
// other name may resolve anywhere: neither is loopback.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
