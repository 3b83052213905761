package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/internal/testcerts"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// get is the value of key read from the member cli talks to alone
// (serializable: that member's own state, no round to the leader), or ""
// if it does not hold the key.
func get(ctx context.Context, t *testing.T, cli *clientv3.Client, key string) string {
	t.Helper()
	resp, err := cli.Get(ctx, key, clientv3.WithSerializable())
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	if len(resp.Kvs) == 0 {
		return ""
	}
	return string(resp.Kvs[0].Value)
}

// eventually polls f until it is true, failing t after d.
func eventually(t *testing.T, d time.Duration, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCluster walks a 3-member cluster through a leader's crash: writes
// on one member are read on another, a new leader is elected and writes
// go on, the old leader restarts on its data and catches up.
func TestCluster(t *testing.T) {
	start := time.Now()
	c := New(t, Options{Members: 3})
	t.Logf("3 members up in %v", time.Since(start))
	ctx := ctxT(t, 60*time.Second)

	m0, m2 := c.Client(t, 0), c.Client(t, 2)
	if _, err := m0.Put(ctx, "k1", "v1"); err != nil {
		t.Fatal(err)
	}
	// A linearizable read on another member sees the write at once.
	resp, err := m2.Get(ctx, "k1")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v1" {
		t.Fatalf("k1 on m2: %v %v, want v1", resp, err)
	}

	lead := c.Leader(t)
	term := c.Member(lead).Etcd().Server.Term()
	killed := time.Now()
	c.Kill(t, lead)
	next := c.Leader(t)
	t.Logf("m%d killed; m%d leads after %v", lead, next, time.Since(killed))
	if next == lead || c.Member(next).Etcd().Server.Term() <= term {
		t.Fatalf("leader m%d (term %d) after killing m%d (term %d): want a new one in a later term",
			next, c.Member(next).Etcd().Server.Term(), lead, term)
	}
	var others []int
	for i := range 3 {
		if i != lead {
			others = append(others, i)
		}
	}
	survivors := c.Client(t, others...)
	for i := range 20 {
		if _, err := survivors.Put(ctx, fmt.Sprintf("after/%02d", i), "x"); err != nil {
			t.Fatalf("put after the leader's crash: %v", err)
		}
	}
	if _, err := survivors.Put(ctx, "k1", "v2"); err != nil {
		t.Fatal(err)
	}
	head, err := survivors.Get(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}

	c.Restart(t, lead)
	back := c.Client(t, lead)
	eventually(t, 10*time.Second, "the restarted member catching up", func() bool {
		return get(ctx, t, back, "k1") == "v2"
	})
	r, err := back.Get(ctx, "after/", clientv3.WithPrefix(), clientv3.WithSerializable())
	if err != nil || len(r.Kvs) != 20 || r.Header.Revision < head.Header.Revision {
		t.Fatalf("after/ on the restarted member: %d keys at revision %d (%v), want 20 at >= %d",
			len(r.Kvs), r.Header.Revision, err, head.Header.Revision)
	}
	// The whole cluster takes writes again, through any member.
	all := c.Client(t)
	if _, err := all.Put(ctx, "k2", "v"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "k2 on the restarted member", func() bool { return get(ctx, t, back, "k2") == "v" })

	// A graceful stop hands leadership over; the cluster keeps going.
	lead = c.Leader(t)
	c.Stop(t, lead)
	if next := c.Leader(t); next == lead {
		t.Fatalf("m%d still leads after it stopped", next)
	}
	c.Restart(t, lead)
	t.Logf("done in %v", time.Since(start))
}

// TestCompactedWatch: after a compaction a watch from an older revision
// fails with ErrCompacted (a store must re-list then), one from the
// compacted revision on works.
func TestCompactedWatch(t *testing.T) {
	c := New(t, Options{})
	cli := c.Client(t)
	ctx := ctxT(t, 30*time.Second)
	first, err := cli.Put(ctx, "usage/h1", "1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 5; i++ {
		if _, err := cli.Put(ctx, "usage/h1", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	rev := c.Compact(t, 0)
	if rev <= first.Header.Revision {
		t.Fatalf("compacted at %d, want past %d", rev, first.Header.Revision)
	}

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wr, ok := <-cli.Watch(wctx, "usage/", clientv3.WithPrefix(), clientv3.WithRev(first.Header.Revision))
	if !ok || !errors.Is(wr.Err(), rpctypes.ErrCompacted) || wr.CompactRevision != rev {
		t.Fatalf("watch from revision %d after compacting at %d: %v, compact revision %d; want ErrCompacted at %d",
			first.Header.Revision, rev, wr.Err(), wr.CompactRevision, rev)
	}

	// From the compacted revision on, the history is there.
	if _, err := cli.Put(ctx, "usage/h1", "6"); err != nil {
		t.Fatal(err)
	}
	wctx2, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	wr, ok = <-cli.Watch(wctx2, "usage/", clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	if !ok || wr.Err() != nil || len(wr.Events) == 0 || string(wr.Events[0].Kv.Value) != "6" {
		t.Fatalf("watch from %d: %v, %d events; want the put of 6", rev+1, wr.Err(), len(wr.Events))
	}
	// The old revision cannot be read either.
	if _, err := cli.Get(ctx, "usage/h1", clientv3.WithRev(first.Header.Revision)); !errors.Is(err, rpctypes.ErrCompacted) {
		t.Fatalf("get at a compacted revision: %v, want ErrCompacted", err)
	}
}

// TestTLSCluster: members talk TLS to their peers and clients and
// require client certificates of the CA.
func TestTLSCluster(t *testing.T) {
	c := New(t, Options{Members: 3, TLS: true})
	ctx := ctxT(t, 30*time.Second)
	for _, ep := range c.Endpoints() {
		if ep[:8] != "https://" {
			t.Fatalf("endpoint %s: want https", ep)
		}
	}
	cli := c.Client(t, 1)
	if _, err := cli.Put(ctx, "k", "v"); err != nil {
		t.Fatalf("put with a client certificate: %v", err)
	}
	if got := get(ctx, t, c.Client(t, 2), "k"); got != "v" {
		// m2 learns of it through its peers (TLS too); a serializable
		// read may be a moment behind.
		eventually(t, 5*time.Second, "k on m2", func() bool { return get(ctx, t, c.Client(t, 2), "k") == "v" })
	}

	noCert := c.ClientConfig()
	noCert.TLS = c.Certs().ClientTLSNoCert()
	foreign := c.ClientConfig() // a client certificate of another CA
	foreign.TLS = testcerts.New(t).ClientTLS()
	foreign.TLS.RootCAs = c.Certs().CA.Pool()
	plain := c.ClientConfig()
	plain.TLS = nil
	for i, ep := range plain.Endpoints {
		plain.Endpoints[i] = "http://" + ep[len("https://"):]
	}
	var wg sync.WaitGroup
	for who, cfg := range map[string]clientv3.Config{
		"a client without a certificate":     noCert,
		"a client certificate of another CA": foreign,
		"a plain client":                     plain,
	} {
		wg.Go(func() { refused(t, cfg, who) })
	}
	// The control: a new client with the right certificate writes within
	// the time the others are given, so theirs is a refusal, not a slow
	// dial.
	wg.Go(func() {
		cli, err := clientv3.New(c.ClientConfig())
		if err != nil {
			t.Errorf("control client: %v", err)
			return
		}
		defer cli.Close()
		ctx, cancel := context.WithTimeout(context.Background(), refusalTimeout)
		defer cancel()
		if _, err := cli.Put(ctx, "control", "x"); err != nil {
			t.Errorf("control: a client with a certificate of the CA: %v", err)
		}
	})
	wg.Wait()
	// None of them wrote.
	if r, err := cli.Get(ctx, "intruder"); err != nil || len(r.Kvs) != 0 {
		t.Errorf("intruder: %v %v, want no such key", r, err)
	}
}

// refusalTimeout is how long a refused client tries to write.
const refusalTimeout = 2 * time.Second

// refused checks that a client of cfg cannot write.
func refused(t *testing.T, cfg clientv3.Config, who string) {
	t.Helper()
	cli, err := clientv3.New(cfg)
	if err != nil {
		return // refused at dial
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), refusalTimeout)
	defer cancel()
	if _, err := cli.Put(ctx, "intruder", "x"); err == nil {
		t.Errorf("%s: put succeeded, want it refused", who)
	}
}

func TestSingleMemberRestart(t *testing.T) {
	c := New(t, Options{})
	ctx := ctxT(t, 30*time.Second)
	put, err := c.Client(t).Put(ctx, "k", "v")
	if err != nil {
		t.Fatal(err)
	}
	c.Kill(t, 0)
	if err := c.KillMember(0); err == nil {
		t.Error("killing a stopped member: want an error")
	}
	c.Restart(t, 0)
	if err := c.RestartMember(0); err == nil {
		t.Error("restarting a running member: want an error")
	}
	resp, err := c.Client(t).Get(ctx, "k")
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].ModRevision != put.Header.Revision {
		t.Fatalf("k after a restart: %v %v, want it at revision %d", resp, err, put.Header.Revision)
	}
	if c.Leader(t) != 0 {
		t.Error("a single member does not lead itself")
	}
}

// TestTxnLimits pins the limits the etcd store plans its transactions
// against: etcd counts the largest of a transaction's compare, then and
// else lists against --max-txn-ops (128 by default), not their sum, and
// refuses a request over --max-request-bytes (1.5 MiB) whole.
func TestTxnLimits(t *testing.T) {
	c := New(t, Options{})
	cli := c.Client(t)
	ctx := ctxT(t, 30*time.Second)
	txn := func(n int) error {
		var cmps []clientv3.Cmp
		var puts, gets []clientv3.Op
		for i := range n {
			k := fmt.Sprintf("usage/h%03d", i)
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", 0))
			puts = append(puts, clientv3.OpPut(k, "1"))
			gets = append(gets, clientv3.OpGet(k))
		}
		_, err := cli.Txn(ctx).If(cmps...).Then(puts...).Else(gets...).Commit()
		return err
	}
	if err := txn(128); err != nil {
		t.Fatalf("128 compares, 128 puts, 128 gets: %v", err)
	}
	if err := txn(129); !errors.Is(err, rpctypes.ErrTooManyOps) {
		t.Fatalf("129 of each: %v, want ErrTooManyOps", err)
	}
	big := make([]byte, 3<<19) // 1.5 MiB of value alone
	if _, err := cli.Put(ctx, "big", string(big)); !errors.Is(err, rpctypes.ErrRequestTooLarge) {
		t.Fatalf("a 1.5 MiB put: %v, want ErrRequestTooLarge", err)
	}
	if _, err := cli.Put(ctx, "big", string(big[:1<<20])); err != nil {
		t.Fatalf("a 1 MiB put: %v", err)
	}

	small := New(t, Options{MaxTxnOps: 4})
	scli := small.Client(t)
	ops := func(n int) []clientv3.Op {
		var o []clientv3.Op
		for i := range n {
			o = append(o, clientv3.OpPut(fmt.Sprint(i), "x"))
		}
		return o
	}
	if _, err := scli.Txn(ctx).Then(ops(4)...).Commit(); err != nil {
		t.Fatalf("4 puts under --max-txn-ops 4: %v", err)
	}
	if _, err := scli.Txn(ctx).Then(ops(5)...).Commit(); !errors.Is(err, rpctypes.ErrTooManyOps) {
		t.Fatalf("5 puts under --max-txn-ops 4: %v, want ErrTooManyOps", err)
	}
}
