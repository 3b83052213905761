package etcdtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

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
