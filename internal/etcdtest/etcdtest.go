// Package etcdtest starts real etcd members in-process (etcd's embed
// package) for tests and the simulator: one member or an N-member
// cluster on loopback ports in temporary directories, plain or with TLS
// (client and peer certificates from internal/testcerts, client
// certificates required), with the faults a store must survive: stop or
// kill a member and restart it on the same data directory, find the
// leader, compact.
//
//	c := etcdtest.New(t, etcdtest.Options{Members: 3})
//	cli := c.Client(t)                  // all endpoints, closed at cleanup
//	lead := c.Leader(t)                 // index of the member leading
//	c.Kill(t, lead)                     // no leadership hand-off
//	c.Restart(t, lead)                  // same data dir, ports, identity
//	c.Compact(t, 0)                     // at the current revision
//
// Members are tuned for tests: heartbeat and election ticks of tens of
// milliseconds, and no fsync (UnsafeNoFsync: a killed member is a stopped
// goroutine, not a lost page cache, so nothing is lost that a test can
// see). Their logs go to stderr at error level unless Options.Verbose.
//
// Start and its methods without a t return errors, for callers outside
// tests (placer simulate); New and the methods taking a testing.TB fail
// the test instead.
package etcdtest

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/placer/placer/internal/testcerts"
)

// Options configure a cluster. The zero value is one plain member.
type Options struct {
	// Members is the cluster's size (0 means 1).
	Members int
	// TLS serves clients and peers over TLS with certificates of Certs
	// (made in Dir when nil) and requires client certificates of its CA
	// on both.
	TLS   bool
	Certs *testcerts.Set
	// TickMs and ElectionMs are etcd's heartbeat interval and election
	// timeout (0 means 25 and 250: elections in a fraction of a second,
	// with room for a loaded machine).
	TickMs, ElectionMs uint
	// MaxTxnOps and MaxRequestBytes are etcd's --max-txn-ops and
	// --max-request-bytes (0 means etcd's defaults, 128 and 1.5 MiB), for
	// tests of a store's behaviour at those limits.
	MaxTxnOps, MaxRequestBytes uint
	// Fsync turns etcd's fsync back on (off by default: tests are faster
	// without it and a test's "crash" does not lose the page cache).
	Fsync bool
	// Verbose logs the members and clients at info level (default:
	// errors only, less the ones every shutdown logs).
	Verbose bool
	// LogOutput receives the logs (nil means os.Stderr).
	LogOutput io.Writer
	// Dir holds the members' data directories (and the certificates);
	// empty means a new temporary directory that Close removes.
	Dir string
	// StartTimeout bounds starting (or restarting) members until they
	// serve (0 means 30s).
	StartTimeout time.Duration
}

// Member is one etcd member of a Cluster.
type Member struct {
	Name      string
	Dir       string  // data directory, kept across Stop and Restart
	ClientURL url.URL // http(s)://127.0.0.1:port
	PeerURL   url.URL
	etcd      *embed.Etcd // nil while stopped
}

// Etcd is the running member's embedded server (nil while stopped).
func (m *Member) Etcd() *embed.Etcd { return m.etcd }

// Running reports whether the member is started.
func (m *Member) Running() bool { return m.etcd != nil }

// Cluster is a running etcd cluster of Options.Members members.
type Cluster struct {
	opts    Options
	token   string
	dir     string
	tempDir bool
	certs   *testcerts.Set

	mu      sync.Mutex
	members []*Member
}

// New starts a cluster (Start) and closes it when t ends.
func New(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	c, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Start starts the members and returns once every one serves clients and
// a leader is elected. Close stops them.
func Start(opts Options) (*Cluster, error) {
	if opts.Members <= 0 {
		opts.Members = 1
	}
	if opts.TickMs == 0 {
		opts.TickMs = 25
	}
	if opts.ElectionMs == 0 {
		opts.ElectionMs = 10 * opts.TickMs
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	c := &Cluster{opts: opts, dir: opts.Dir}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "placer-etcdtest-")
		if err != nil {
			return nil, err
		}
		c.dir, c.tempDir = d, true
	}
	if opts.TLS {
		c.certs = opts.Certs
		if c.certs == nil {
			dir := filepath.Join(c.dir, "certs")
			err := os.MkdirAll(dir, 0o700)
			if err == nil {
				c.certs, err = testcerts.NewSet(dir)
			}
			if err != nil {
				c.Close()
				return nil, err
			}
		}
	}
	var b [8]byte
	rand.Read(b[:])
	c.token = "placer-etcdtest-" + hex.EncodeToString(b[:])

	// The ports are found free, closed, and taken by etcd a moment later;
	// another process may slip in between, so try a few times.
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = c.startAll(attempt); err == nil || !errors.Is(err, errAddrInUse) {
			break
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

var errAddrInUse = errors.New("etcdtest: address already in use")

// startAll picks ports and starts every member of a new cluster.
func (c *Cluster) startAll(attempt int) error {
	ports, err := freePorts(2 * c.opts.Members)
	if err != nil {
		return err
	}
	scheme := "http"
	if c.opts.TLS {
		scheme = "https"
	}
	c.members = nil
	var initial []string
	for i := 0; i < c.opts.Members; i++ {
		m := &Member{
			Name:      fmt.Sprintf("m%d", i),
			Dir:       filepath.Join(c.dir, fmt.Sprintf("m%d.%d", i, attempt)),
			ClientURL: url.URL{Scheme: scheme, Host: fmt.Sprintf("127.0.0.1:%d", ports[2*i])},
			PeerURL:   url.URL{Scheme: scheme, Host: fmt.Sprintf("127.0.0.1:%d", ports[2*i+1])},
		}
		c.members = append(c.members, m)
		initial = append(initial, m.Name+"="+m.PeerURL.String())
	}
	initialCluster := strings.Join(initial, ",")
	for _, m := range c.members {
		e, err := embed.StartEtcd(c.config(m, initialCluster))
		if err != nil {
			c.stopAll()
			if isAddrInUse(err) {
				return fmt.Errorf("%w: %v", errAddrInUse, err)
			}
			return fmt.Errorf("etcdtest: start %s: %w", m.Name, err)
		}
		m.etcd = e
	}
	for _, m := range c.members {
		if err := c.waitReady(m); err != nil {
			c.stopAll()
			return err
		}
	}
	return nil
}

func isAddrInUse(err error) bool {
	return err != nil && strings.Contains(err.Error(), "address already in use")
}

// config is the embed configuration of member m.
func (c *Cluster) config(m *Member, initialCluster string) *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name = m.Name
	cfg.Dir = m.Dir
	cfg.ListenClientUrls = []url.URL{m.ClientURL}
	cfg.AdvertiseClientUrls = []url.URL{m.ClientURL}
	cfg.ListenPeerUrls = []url.URL{m.PeerURL}
	cfg.AdvertisePeerUrls = []url.URL{m.PeerURL}
	cfg.InitialCluster = initialCluster
	cfg.InitialClusterToken = c.token
	cfg.ClusterState = embed.ClusterStateFlagNew // ignored once the data dir holds a member
	cfg.TickMs = c.opts.TickMs
	cfg.ElectionMs = c.opts.ElectionMs
	cfg.UnsafeNoFsync = !c.opts.Fsync
	if c.opts.MaxTxnOps > 0 {
		cfg.MaxTxnOps = c.opts.MaxTxnOps
	}
	if c.opts.MaxRequestBytes > 0 {
		cfg.MaxRequestBytes = c.opts.MaxRequestBytes
	}
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	if c.opts.Verbose {
		cfg.LogLevel = "info"
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(c.logger().With(zap.String("member", m.Name)))
	if c.certs != nil {
		info := transport.TLSInfo{
			CertFile:       c.certs.ServerCertFile,
			KeyFile:        c.certs.ServerKeyFile,
			TrustedCAFile:  c.certs.CAFile,
			ClientCertAuth: true,
		}
		cfg.ClientTLSInfo = info
		cfg.PeerTLSInfo = info
	}
	return cfg
}

// waitReady waits until m serves clients (it has joined the cluster and
// published itself, which takes a leader).
func (c *Cluster) waitReady(m *Member) error {
	select {
	case <-m.etcd.Server.ReadyNotify():
		return nil
	case err := <-m.etcd.Err():
		return fmt.Errorf("etcdtest: %s: %w", m.Name, err)
	case <-time.After(c.opts.StartTimeout):
		return fmt.Errorf("etcdtest: %s not ready after %v", m.Name, c.opts.StartTimeout)
	}
}

// Members are the cluster's members, by index.
func (c *Cluster) Members() []*Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Member(nil), c.members...)
}

// Member is member i.
func (c *Cluster) Member(i int) *Member { return c.Members()[i] }

// Certs are the certificates of a TLS cluster (nil otherwise): clients
// present Certs.Client (Certs.ClientTLS()).
func (c *Cluster) Certs() *testcerts.Set { return c.certs }

// Endpoints are the client URLs of the members (all of them, or those
// of the indexes given), running or not.
func (c *Cluster) Endpoints(members ...int) []string {
	ms := c.Members()
	if len(members) == 0 {
		for i := range ms {
			members = append(members, i)
		}
	}
	var eps []string
	for _, i := range members {
		eps = append(eps, ms[i].ClientURL.String())
	}
	return eps
}

// ClientTLS is the TLS configuration of a client of a TLS cluster (its
// CA and client certificate), nil for a plain one.
func (c *Cluster) ClientTLS() *tls.Config {
	if c.certs == nil {
		return nil
	}
	return c.certs.ClientTLS()
}

// ClientConfig is a client configuration for the members given (all of
// them by default), with the cluster's TLS, and the client's logs at
// error level unless Options.Verbose.
func (c *Cluster) ClientConfig(members ...int) clientv3.Config {
	return clientv3.Config{
		Endpoints:   c.Endpoints(members...),
		DialTimeout: 5 * time.Second,
		TLS:         c.ClientTLS(),
		Logger:      c.logger().With(zap.String("client", "etcdtest")),
	}
}

// logger is the members' and clients' logger: Options.LogOutput at error
// level (info if Options.Verbose), less the shutdown noise unless
// Verbose.
func (c *Cluster) logger() *zap.Logger {
	level := zapcore.ErrorLevel
	if c.opts.Verbose {
		level = zapcore.InfoLevel
	}
	out := c.opts.LogOutput
	if out == nil {
		out = os.Stderr
	}
	var core zapcore.Core = zapcore.NewCore(
		zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.Lock(zapcore.AddSync(out)), level)
	if !c.opts.Verbose {
		core = quiet{core}
	}
	return zap.New(core)
}

// quiet drops the errors a member logs on every stop (its listeners
// closing under its serving goroutines) and one of a fresh single member
// (its storage version checked before its first term is written): they
// are not faults, and a test's output should show the faults alone.
type quiet struct{ zapcore.Core }

func (q quiet) With(fields []zapcore.Field) zapcore.Core { return quiet{q.Core.With(fields)} }

func (q quiet) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if q.Enabled(e.Level) {
		return ce.AddCore(e, q)
	}
	return ce
}

func (q quiet) Write(e zapcore.Entry, fields []zapcore.Field) error {
	var err string
	for _, f := range fields {
		if e, ok := f.Interface.(error); ok && f.Type == zapcore.ErrorType {
			err = e.Error()
		}
	}
	switch {
	case e.Message == "setting up serving from embedded etcd failed." && strings.Contains(err, "closed"):
		return nil
	case e.Message == "failed to update storage version" && strings.Contains(err, "missing term information"):
		return nil
	}
	return q.Core.Write(e, fields)
}
