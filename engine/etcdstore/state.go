package etcdstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/engine"
)

// State is the cloud as etcd holds it at one revision, for checking a
// run from etcd alone (placer simulate's verification).
type State struct {
	Revision int64
	// Hosts are the compute nodes' records (their usage fields as loaded
	// or added).
	Hosts map[engine.HostNode]engine.Host
	// Usage is every node's usage now.
	Usage map[engine.HostNode]engine.HostUsage
	// Instances are the instances committed through placer.
	Instances map[string]StateInstance
}

// StateInstance is one committed instance: where, what it claimed, and
// whether it was forced there (force_hosts, no filter).
type StateInstance struct {
	Host   engine.HostNode
	Claim  engine.Claim
	Group  string
	Forced bool
	// Whole: the instance took its ironic node whole; Claim is what it
	// took (engine.HostUsage.ConsumeWhole).
	Whole bool
}

// ReadState reads the cloud under prefix ("" means DefaultPrefix) at
// the current revision.
func ReadState(ctx context.Context, cli *clientv3.Client, prefix string) (*State, error) {
	s := &Store{cli: cli, k: newKeys(prefix)}
	kvs, rev, err := s.getAll(ctx)
	if err != nil {
		return nil, err
	}
	st := &State{Revision: rev, Hosts: map[engine.HostNode]engine.Host{}, Usage: map[engine.HostNode]engine.HostUsage{},
		Instances: map[string]StateInstance{}}
	for _, kv := range kvs {
		kind, names := s.k.parse(string(kv.Key))
		var err error
		switch kind {
		case kindHost:
			var r hostRecord
			err = json.Unmarshal(kv.Value, &r)
			st.Hosts[engine.HostNode{Host: names[0], Node: names[1]}] = r.Host
		case kindUsage:
			var r usageRecord
			err = json.Unmarshal(kv.Value, &r)
			st.Usage[engine.HostNode{Host: names[0], Node: names[1]}] = r.usage()
		case kindInst:
			var r instRecord
			err = json.Unmarshal(kv.Value, &r)
			st.Instances[names[0]] = StateInstance{Host: engine.HostNode{Host: r.Host, Node: r.Node}, Claim: r.Claim, Group: r.Group, Forced: r.Forced, Whole: r.Whole}
		}
		if err != nil {
			return nil, fmt.Errorf("etcdstore: key %s: %w", kv.Key, err)
		}
	}
	return st, nil
}

// InitialUsage is a node's usage as its record gives it (before any
// instance committed through placer).
func InitialUsage(h engine.Host) engine.HostUsage { return hostUsage(&h) }

// Stats are a Store's counts since Open.
type Stats struct {
	// Commits are the transactions that applied a plan; FailedTxns those
	// whose compares failed; Resends the sends repeated after no answer.
	Commits, FailedTxns, Resends int64
	// Relists are the whole re-reads after a compaction.
	Relists int64
	// WatchLagMax is the longest wait, after a commit's answer, for the
	// mirror to apply it.
	WatchLagMaxSeconds float64
}

// UsageAt is a node's usage and the mod revision of its key.
type UsageAt struct {
	Usage       engine.HostUsage
	ModRevision int64
}

// ReadUsage reads node hn's usage under prefix ("" means DefaultPrefix).
func ReadUsage(ctx context.Context, cli *clientv3.Client, prefix string, hn engine.HostNode) (UsageAt, error) {
	resp, err := cli.Get(ctx, newKeys(prefix).usage(hn))
	if err != nil {
		return UsageAt{}, unavailable(err)
	}
	if len(resp.Kvs) == 0 {
		return UsageAt{}, noHost(hn)
	}
	var r usageRecord
	if err := json.Unmarshal(resp.Kvs[0].Value, &r); err != nil {
		return UsageAt{}, err
	}
	return UsageAt{r.usage(), resp.Kvs[0].ModRevision}, nil
}

// ErrStale is CompareAndSetUsage's error when the usage changed since
// the revision given: nothing was written.
var ErrStale = errors.New("etcdstore: usage changed since it was read")

// CompareAndSetUsage writes node hn's usage u if its key's mod revision
// is still rev (a compute node report computed from what it read).
func CompareAndSetUsage(ctx context.Context, cli *clientv3.Client, prefix string, hn engine.HostNode, rev int64, u engine.HostUsage) error {
	key := newKeys(prefix).usage(hn)
	resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpPut(key, mustJSON(toRecord(u)))).Commit()
	if err != nil {
		return unavailable(err)
	}
	if !resp.Succeeded {
		return ErrStale
	}
	return nil
}
