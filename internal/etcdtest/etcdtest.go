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
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
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

// NewClient is a client of the members given (all of them by default);
// the caller closes it.
func (c *Cluster) NewClient(members ...int) (*clientv3.Client, error) {
	return clientv3.New(c.ClientConfig(members...))
}

// Client is NewClient, closed when t ends.
func (c *Cluster) Client(t testing.TB, members ...int) *clientv3.Client {
	t.Helper()
	cli, err := c.NewClient(members...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// StopMember stops member i gracefully: a leader hands its leadership
// to a follower first. Its data directory stays for RestartMember.
func (c *Cluster) StopMember(i int) error { return c.stop(i, false) }

// KillMember stops member i without coordination, as a crash would: a
// leader does not hand off, the others elect a new one after the
// election timeout. Its data directory stays for RestartMember.
func (c *Cluster) KillMember(i int) error { return c.stop(i, true) }

func (c *Cluster) stop(i int, hard bool) error {
	c.mu.Lock()
	m := c.members[i]
	e := m.etcd
	m.etcd = nil
	c.mu.Unlock()
	if e == nil {
		return fmt.Errorf("etcdtest: %s is not running", m.Name)
	}
	if hard {
		e.Server.HardStop()
	}
	e.Close()
	return nil
}

// RestartMember starts the stopped member i again on its data directory
// and ports, and waits until it serves (it has rejoined the cluster).
func (c *Cluster) RestartMember(i int) error {
	c.mu.Lock()
	m := c.members[i]
	running := m.etcd != nil
	var initial []string
	for _, o := range c.members {
		initial = append(initial, o.Name+"="+o.PeerURL.String())
	}
	c.mu.Unlock()
	if running {
		return fmt.Errorf("etcdtest: %s is running", m.Name)
	}
	var e *embed.Etcd
	var err error
	deadline := time.Now().Add(c.opts.StartTimeout)
	for {
		// Its ports were free when it stopped; someone may hold them a
		// moment (a client's ephemeral port): retry until the deadline.
		e, err = embed.StartEtcd(c.config(m, strings.Join(initial, ",")))
		if err == nil || !isAddrInUse(err) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("etcdtest: restart %s: %w", m.Name, err)
	}
	c.mu.Lock()
	m.etcd = e
	c.mu.Unlock()
	return c.waitReady(m)
}

// LeaderIndex waits until the running members agree on a leader among
// them and returns its index.
func (c *Cluster) LeaderIndex(ctx context.Context) (int, error) {
	for {
		if i, ok := c.leader(); ok {
			return i, nil
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("etcdtest: no leader: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// leader is the index of the member every running member takes for the
// leader, if they agree and it runs.
func (c *Cluster) leader() (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	lead, idx := uint64(0), -1
	for i, m := range c.members {
		if m.etcd == nil {
			continue
		}
		l := m.etcd.Server.Lead()
		if l == 0 || (lead != 0 && l != lead) {
			return -1, false
		}
		lead = l
		if uint64(m.etcd.Server.MemberID()) == l {
			idx = i
		}
	}
	return idx, idx >= 0
}

// CompactAt compacts the key space at rev (0: the current revision),
// physically (the members have dropped the old revisions when it
// returns), and returns the revision compacted.
func (c *Cluster) CompactAt(ctx context.Context, rev int64) (int64, error) {
	cli, err := c.NewClient(c.running()...)
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	if rev <= 0 {
		resp, err := cli.Get(ctx, "\x00", clientv3.WithCountOnly())
		if err != nil {
			return 0, err
		}
		rev = resp.Header.Revision
	}
	if _, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return 0, err
	}
	return rev, nil
}

// running are the indexes of the running members.
func (c *Cluster) running() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var r []int
	for i, m := range c.members {
		if m.etcd != nil {
			r = append(r, i)
		}
	}
	return r
}

// Close stops every member and removes the temporary directory Start
// made (not Options.Dir).
func (c *Cluster) Close() {
	c.stopAll()
	if c.tempDir {
		os.RemoveAll(c.dir)
	}
}

func (c *Cluster) stopAll() {
	// Stop concurrently: a member stopping waits for its peers a moment.
	var wg sync.WaitGroup
	for _, m := range c.Members() {
		c.mu.Lock()
		e := m.etcd
		m.etcd = nil
		c.mu.Unlock()
		if e != nil {
			wg.Go(func() {
				e.Server.HardStop()
				e.Close()
			})
		}
	}
	wg.Wait()
}

// The testing.TB forms: they fail t on an error.

// Stop is StopMember(i), failing t on an error.
func (c *Cluster) Stop(t testing.TB, i int) {
	t.Helper()
	if err := c.StopMember(i); err != nil {
		t.Fatal(err)
	}
}

// Kill is KillMember(i), failing t on an error.
func (c *Cluster) Kill(t testing.TB, i int) {
	t.Helper()
	if err := c.KillMember(i); err != nil {
		t.Fatal(err)
	}
}

// Restart is RestartMember(i), failing t on an error.
func (c *Cluster) Restart(t testing.TB, i int) {
	t.Helper()
	if err := c.RestartMember(i); err != nil {
		t.Fatal(err)
	}
}

// Leader is LeaderIndex within Options.StartTimeout, failing t on an
// error.
func (c *Cluster) Leader(t testing.TB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.StartTimeout)
	defer cancel()
	i, err := c.LeaderIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// Compact is CompactAt(rev) within Options.StartTimeout, failing t on an
// error.
func (c *Cluster) Compact(t testing.TB, rev int64) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.StartTimeout)
	defer cancel()
	rev, err := c.CompactAt(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// freePorts are n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
