package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/engine/etcdstore"
	"github.com/placer/placer/internal/synth"
)

const etcdUsage = `placer etcd load --etcd ENDPOINTS [etcd flags] (--cloud FILE | --synthetic N) [--seed S]
      Write a cloud into etcd (docs/etcd.md), replacing what is under the
      prefix, for "placer serve --etcd" processes to share: the hosts,
      aggregates and config of the scenario FILE, or a synthetic basic cloud
      of N hosts. The etcd flags (also of placer serve):
        --etcd E          comma-separated client URLs of the etcd members
        --etcd-prefix P   the key prefix (default /placer/)
        --etcd-cacert F   trust etcd's server certificates signed by PEM file F
        --etcd-cert F     present the client certificate of PEM file F
        --etcd-key F      and its private key (PEM file F)
        --etcd-max-txn-ops N
                          etcd's --max-txn-ops (default 128)
      Plain http:// endpoints are accepted on loopback only; beyond it, use
      https:// with --etcd-cacert (and client certificates when etcd asks).
`

// etcdFlags are the flags naming an etcd cluster and how to reach it.
type etcdFlags struct {
	fs                                   *flag.FlagSet
	endpoints, prefix, cacert, cert, key *string
	maxTxnOps                            *int
}

func addEtcdFlags(fs *flag.FlagSet) etcdFlags {
	return etcdFlags{
		fs:        fs,
		endpoints: fs.String("etcd", "", ""),
		prefix:    fs.String("etcd-prefix", etcdstore.DefaultPrefix, ""),
		cacert:    fs.String("etcd-cacert", "", ""),
		cert:      fs.String("etcd-cert", "", ""),
		key:       fs.String("etcd-key", "", ""),
		maxTxnOps: fs.Int("etcd-max-txn-ops", 128, ""),
	}
}

// check validates the flags (an etcd cluster named or not: none set).
func (f etcdFlags) check() error {
	if *f.endpoints == "" {
		// Refused rather than ignored, as every flag another makes void.
		if g := given(f.fs, "etcd-prefix", "etcd-cacert", "etcd-cert", "etcd-key", "etcd-max-txn-ops"); len(g) > 0 {
			return fmt.Errorf("%s need --etcd", strings.Join(g, ", "))
		}
		return nil
	}
	if (*f.cert == "") != (*f.key == "") {
		return errors.New("want both --etcd-cert and --etcd-key, or neither")
	}
	if *f.maxTxnOps < 4 {
		return errors.New("want --etcd-max-txn-ops >= 4")
	}
	tls := false
	for _, ep := range strings.Split(*f.endpoints, ",") {
		tls = tls || strings.HasPrefix(ep, "https://")
		if u, ok := strings.CutPrefix(ep, "http://"); ok {
			host := u
			if i := strings.IndexByte(u, '/'); i >= 0 {
				host = u[:i]
			}
			if !loopbackAddr(host) {
				return fmt.Errorf("--etcd endpoint %s is plain http beyond loopback: use https:// with --etcd-cacert", ep)
			}
		} else if !strings.HasPrefix(ep, "https://") {
			return fmt.Errorf("--etcd endpoint %q: want http://host:port (loopback) or https://host:port", ep)
		}
	}
	for _, file := range []struct{ flag, path string }{{"--etcd-cacert", *f.cacert}, {"--etcd-cert", *f.cert}, {"--etcd-key", *f.key}} {
		if file.path == "" {
			continue
		}
		if !tls {
			return fmt.Errorf("%s: no --etcd endpoint is https://, so it would go unused", file.flag)
		}
		if _, err := os.Stat(file.path); err != nil {
			return fmt.Errorf("%s: %w", file.flag, err)
		}
	}
	return nil
}

// client connects to the cluster (TLS from the flags for https://).
func (f etcdFlags) client() (*clientv3.Client, error) {
	cfg := clientv3.Config{
		Endpoints:   strings.Split(*f.endpoints, ","),
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	}
	if strings.Contains(*f.endpoints, "https://") {
		info := transport.TLSInfo{CertFile: *f.cert, KeyFile: *f.key, TrustedCAFile: *f.cacert}
		var tc *tls.Config
		var err error
		if *f.cert == "" {
			tc = &tls.Config{MinVersion: tls.VersionTLS12}
			if *f.cacert != "" {
				tc, err = info.ClientConfig()
			}
		} else {
			tc, err = info.ClientConfig()
		}
		if err != nil {
			return nil, fmt.Errorf("etcd TLS: %w", err)
		}
		cfg.TLS = tc
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, err
	}
	// The client connects in the background and its calls wait for it:
	// a cluster that cannot be reached (or refuses us) is said at once.
	ctx, cancel := context.WithTimeout(context.Background(), etcdProbeTimeout)
	defer cancel()
	if _, err := cli.Get(ctx, *f.prefix+"config", clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, fmt.Errorf("cannot reach etcd at %s within %v: %w", *f.endpoints, etcdProbeTimeout, err)
	}
	return cli, nil
}

// etcdProbeTimeout bounds the first call to etcd (a variable for tests).
var etcdProbeTimeout = 10 * time.Second

// options are the etcdstore options of the flags.
func (f etcdFlags) options() etcdstore.Options {
	return etcdstore.Options{Prefix: *f.prefix, MaxTxnOps: *f.maxTxnOps}
}

// etcdCmd is "placer etcd SUBCOMMAND".
func etcdCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stderr, etcdUsage)
		return exitOK
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, etcdUsage)
		return exitBadInput
	}
	if args[0] != "load" {
		fmt.Fprintf(stderr, "placer etcd: unexpected argument %q (the subcommand is load)\n", args[0])
		return exitBadInput
	}
	fs := flag.NewFlagSet("placer etcd load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, etcdUsage) }
	ef := addEtcdFlags(fs)
	cloudFile := fs.String("cloud", "", "")
	synthetic := fs.Int("synthetic", 0, "")
	seed := fs.Uint64("seed", 1, "")
	if status, ok := parseArgs(fs, args[1:], stderr, ""); !ok {
		return status
	}
	switch {
	case *ef.endpoints == "":
		fmt.Fprintln(stderr, "placer etcd load: want --etcd ENDPOINTS")
		return exitBadInput
	case (*cloudFile == "") == (*synthetic == 0):
		fmt.Fprintln(stderr, "placer etcd load: want exactly one of --cloud FILE and --synthetic N (N > 0)")
		return exitBadInput
	case *synthetic < 0 || *synthetic > synth.MaxHosts:
		fmt.Fprintf(stderr, "placer etcd load: want --synthetic from 1 to %d, got %d\n", synth.MaxHosts, *synthetic)
		return exitBadInput
	case *synthetic == 0 && len(given(fs, "seed")) > 0:
		fmt.Fprintln(stderr, "placer etcd load: --seed draws a --synthetic cloud; --cloud has its own")
		return exitBadInput
	}
	if err := ef.check(); err != nil {
		fmt.Fprintln(stderr, "placer etcd load:", err)
		return exitBadInput
	}
	var cloud engine.Cloud
	if *cloudFile != "" {
		s, err := readScenario(*cloudFile, os.Stdin)
		if err != nil {
			return fail(stderr, "etcd load", err)
		}
		cloud = s.Cloud
	} else {
		cloud = synth.Cloud(synth.Options{Hosts: *synthetic, Seed: *seed, Profile: synth.Basic})
	}
	cli, err := ef.client()
	if err != nil {
		fmt.Fprintln(stderr, "placer etcd load:", err)
		return exitFailure
	}
	defer cli.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	start := time.Now()
	rev, err := etcdstore.Load(ctx, cli, *ef.prefix, cloud, *ef.maxTxnOps)
	if err != nil {
		if errors.Is(err, engine.ErrInvalid) {
			return fail(stderr, "etcd load", err)
		}
		fmt.Fprintln(stderr, "placer etcd load:", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "loaded %d hosts and %d aggregates under %s at revision %d in %.2fs\n",
		len(cloud.Hosts), len(cloud.Aggregates), *ef.prefix, rev, time.Since(start).Seconds())
	return exitOK
}
