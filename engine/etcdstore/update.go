package etcdstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/engine"
)

// Load writes cloud under prefix (DefaultPrefix when ""), replacing what
// was there: its configuration, aggregates, hosts and their usage, in
// transactions of at most maxTxnOps operations (0 means 128) and about
// 1 MiB. It is for seeding a cluster, and it is not atomic: it deletes
// the prefix, then writes the cloud transaction by transaction, its
// configuration last. Stopped midway (ctx, etcd unavailable), it leaves
// part of the cloud and no configuration, which Open refuses ("no cloud
// under ..."): load again. Processes already watching the prefix see it as
// a sequence of changes. It returns the last revision written.
func Load(ctx context.Context, cli *clientv3.Client, prefix string, cloud engine.Cloud, maxTxnOps int) (int64, error) {
	if _, err := engine.NewSnapshot(cloud); err != nil {
		return 0, err // the cloud is validated before anything is written
	}
	if maxTxnOps <= 0 {
		maxTxnOps = 128
	}
	k := newKeys(prefix)
	const maxBytes = 1 << 20
	// Every record is sent in a request of its own at most: one past
	// maxBytes (an aggregate of ~90,000 hosts, a host of ~20,000
	// instances) would be refused midway, the prefix deleted.
	tooBig := func(field, key, val string) error {
		if n := len(key) + len(val); n > maxBytes {
			return &engine.ValidationError{Field: field, Msg: fmt.Sprintf("its etcd record is %d bytes, over the %d a request carries here", n, maxBytes)}
		}
		return nil
	}
	for i, a := range cloud.Aggregates {
		if err := tooBig(fmt.Sprintf("aggregates[%d]", i), k.aggregate(a.Name), mustJSON(a)); err != nil {
			return 0, err
		}
	}
	for i := range cloud.Hosts {
		h := &cloud.Hosts[i]
		if err := tooBig(fmt.Sprintf("hosts[%d]", i), k.host(nodeOf(h)), mustJSON(hostRecord{Order: int64(i), Host: *h})); err != nil {
			return 0, err
		}
	}
	if _, err := cli.Delete(ctx, k.p, clientv3.WithPrefix()); err != nil {
		return 0, unavailable(err)
	}
	var ops []clientv3.Op
	size := 0
	var rev int64
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		resp, err := cli.Txn(ctx).Then(ops...).Commit()
		if err != nil {
			return unavailable(err)
		}
		rev = resp.Header.Revision
		ops, size = ops[:0], 0
		return nil
	}
	put := func(key, val string) error {
		if len(ops) == maxTxnOps || size+len(key)+len(val) > maxBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		ops = append(ops, clientv3.OpPut(key, val))
		size += len(key) + len(val)
		return nil
	}
	for _, a := range cloud.Aggregates {
		if err := put(k.aggregate(a.Name), mustJSON(a)); err != nil {
			return 0, err
		}
	}
	for i := range cloud.Hosts {
		h := &cloud.Hosts[i]
		hn := nodeOf(h)
		if err := put(k.host(hn), mustJSON(hostRecord{Order: int64(i), Host: *h})); err != nil {
			return 0, err
		}
		if err := put(k.usage(hn), mustJSON(toRecord(hostUsage(h)))); err != nil {
			return 0, err
		}
	}
	// The configuration last: a Store opened before it finds no cloud
	// rather than half of one.
	if err := put(k.config(), mustJSON(cloud.Config)); err != nil {
		return 0, err
	}
	return rev, flush()
}

// retry runs a read-modify-write f (built on the mirror's state, under
// s.mu) until its transaction succeeds, waiting for the watch to catch up
// after each failure. It returns the mirror's version once the mirror has
// applied the change (Revision gives etcd's).
//
// A change whose transaction would pass Options.MaxTxnOps (etcd counts the
// longer of its compares and its operations: removing a host takes one
// operation per instance on it) is a *engine.ValidationError before
// anything is sent, as is one etcd refuses as too large: no retry could
// send it. A change written to etcd whose mirror update ctx did not wait
// for is an error that says it was written (wrapping ctx's error). The
// whole of it, sends and waits, is bounded by Options.CommitTimeout as
// well as by ctx: an etcd out of reach or a mirror that cannot follow
// fails it rather than hold the caller for good.
func (s *Store) retry(ctx context.Context, f func() ([]clientv3.Cmp, []clientv3.Op, error)) (uint64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CommitTimeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		err := s.staleLocked()
		var cmps []clientv3.Cmp
		var ops []clientv3.Op
		if err == nil {
			cmps, ops, err = f()
		}
		s.mu.Unlock()
		if err != nil {
			return 0, err
		}
		if n := max(len(cmps), len(ops)); n > s.opts.MaxTxnOps {
			return 0, &engine.ValidationError{Msg: fmt.Sprintf("the change needs an etcd transaction of %d operations "+
				"(two per host, one per instance a removed host holds and per group it leaves); etcd allows %d (Options.MaxTxnOps, --etcd-max-txn-ops): "+
				"make it in smaller steps, or raise the members' --max-txn-ops", n, s.opts.MaxTxnOps)}
		}
		resp, err := s.cli.Txn(clientv3.WithRequireLeader(ctx)).If(cmps...).Then(ops...).Commit()
		if tooLarge(err) {
			return 0, &engine.ValidationError{Msg: "etcd refused the change's transaction: " + err.Error()}
		}
		if noSpace(err) {
			return 0, unavailable(fmt.Errorf("etcdstore: etcd's space quota alarm refuses writes, nothing written: %w", err))
		}
		if refused(err) {
			return 0, fmt.Errorf("etcdstore: etcd refused the change, nothing written: %w", err)
		}
		if err != nil {
			// Sent or not: a timeout may have been applied (a change is
			// not resent and read back as a commit is).
			return 0, unavailable(fmt.Errorf("etcdstore: the change's transaction failed, its outcome unknown (read the keys to tell): %w", err))
		}
		if resp.Succeeded {
			if err := s.waitApplied(ctx, resp.Header.Revision); err != nil {
				// Written: a caller must not read the error as "nothing
				// changed".
				return 0, fmt.Errorf("etcdstore: the change was written to etcd (revision %d), but this process's mirror had not applied it: %w",
					resp.Header.Revision, err)
			}
			return s.local.Version(), nil
		}
		if attempt >= 100 {
			return 0, unavailable(fmt.Errorf("etcdstore: update kept conflicting"))
		}
		if err := s.waitApplied(ctx, resp.Header.Revision); err != nil {
			return 0, unavailable(err)
		}
	}
}

func noHost(hn engine.HostNode) error {
	return engine.NotFoundError("host", "no host %q node %q", hn.Host, hn.Node)
}

// The changes below return the mirror's version once it has applied them.

// UpdateHost records a compute node's usage report: its usage becomes u
// (replacing what commits left, as engine.Store.UpdateHost does). A
// commit racing it fails its compare and is checked again on u. A node the
// mirror lacks is a *engine.ValidationError matching engine.ErrNotFound.
func (s *Store) UpdateHost(ctx context.Context, hn engine.HostNode, u engine.HostUsage) (uint64, error) {
	if err := engine.ValidateUsage(u); err != nil {
		return 0, err
	}
	return s.retry(ctx, func() ([]clientv3.Cmp, []clientv3.Op, error) {
		if _, ok := s.hosts[hn]; !ok {
			return nil, nil, noHost(hn)
		}
		return []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(s.k.host(hn)), ">", 0)},
			[]clientv3.Op{clientv3.OpPut(s.k.usage(hn), mustJSON(toRecord(u)))}, nil
	})
}

// AddHosts adds compute nodes (their usage from their records). The hosts
// are checked as engine.Store.AddHosts checks them, against the cloud as
// the mirror has it (engine.ValidateAddHosts): a bad field, a node already
// there or given twice is a *engine.ValidationError naming the host by its
// index in hosts, and nothing is written. (Written, a host every mirror's
// rebuild refuses would stop every process on the prefix.) The
// transaction holds only while no host key changed past the mirror's
// revision, so a host another process added meanwhile is checked too.
func (s *Store) AddHosts(ctx context.Context, hosts ...engine.Host) (uint64, error) {
	return s.retry(ctx, func() ([]clientv3.Cmp, []clientv3.Op, error) {
		c := s.cloudLocked()
		if err := engine.ValidateAddHosts(&c, hosts); err != nil {
			return nil, nil, err
		}
		var order int64
		for _, r := range s.hosts {
			order = max(order, r.Order+1)
		}
		// The check above read the mirror's hosts: no host key may have
		// changed since the revision it applied (another process's
		// addition could break a rule across hosts, a uuid or a service).
		cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(s.k.p+"hosts/"), "<", s.applied+1).WithPrefix()}
		var ops []clientv3.Op
		for i := range hosts {
			h := &hosts[i]
			hn := nodeOf(h)
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.k.host(hn)), "=", 0))
			ops = append(ops, clientv3.OpPut(s.k.host(hn), mustJSON(hostRecord{Order: order + int64(i), Host: *h})),
				clientv3.OpPut(s.k.usage(hn), mustJSON(toRecord(hostUsage(h)))))
		}
		return cmps, ops, nil
	})
}

// RemoveHosts removes compute nodes and the instances committed on them,
// and those instances from their groups' records. A node the mirror lacks
// is a *engine.ValidationError matching engine.ErrNotFound, and nothing is
// removed.
func (s *Store) RemoveHosts(ctx context.Context, nodes ...engine.HostNode) (uint64, error) {
	return s.retry(ctx, func() ([]clientv3.Cmp, []clientv3.Op, error) {
		var cmps []clientv3.Cmp
		var ops []clientv3.Op
		drop := map[engine.HostNode]bool{}
		for _, hn := range nodes {
			if _, ok := s.hosts[hn]; !ok {
				return nil, nil, noHost(hn)
			}
			drop[hn] = true
			// The usage compare makes the mirror's instances on the node
			// all of etcd's: a commit it has not seen fails the removal.
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.k.host(hn)), ">", 0),
				clientv3.Compare(clientv3.ModRevision(s.k.usage(hn)), "=", s.revs[hn]))
			ops = append(ops, clientv3.OpDelete(s.k.usage(hn)), clientv3.OpDelete(s.k.host(hn)))
		}
		// The instances on the nodes go, and with them their groups'
		// memberships (as DeleteInstance does): a group record keeping
		// them would count them on a host of the same name added later,
		// and grow without bound.
		left := map[string]map[string]string{} // group -> members after
		for uuid, in := range s.insts {
			if !drop[engine.HostNode{Host: in.Host, Node: in.Node}] {
				continue
			}
			ops = append(ops, clientv3.OpDelete(s.k.inst(uuid)))
			if g, ok := s.groups[in.Group]; ok && in.Group != "" {
				if left[in.Group] == nil {
					left[in.Group] = maps.Clone(g.Members)
				}
				delete(left[in.Group], uuid)
			}
		}
		for _, group := range slices.Sorted(maps.Keys(left)) {
			c, o := s.groupRewriteLocked(group, left[group])
			cmps, ops = append(cmps, c), append(ops, o)
		}
		return cmps, ops, nil
	})
}

// DeleteInstance releases an instance committed through placer (as
// engine.Store.DeleteInstance does: num_io_ops excepted) and removes its
// key; other instances are a *engine.ValidationError matching
// engine.ErrNotFound.
func (s *Store) DeleteInstance(ctx context.Context, uuid string) (uint64, error) {
	return s.retry(ctx, func() ([]clientv3.Cmp, []clientv3.Op, error) {
		in, ok := s.insts[uuid]
		if !ok {
			return nil, nil, engine.NotFoundError("instance_uuid", "instance %q was not committed through placer", uuid)
		}
		hn := engine.HostNode{Host: in.Host, Node: in.Node}
		ik, uk := s.k.inst(uuid), s.k.usage(hn)
		cmps := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(ik), ">", 0)}
		ops := []clientv3.Op{clientv3.OpDelete(ik)}
		if u, ok := s.usage[hn]; ok {
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(uk), "=", s.revs[hn]))
			after := u.usage().Release(in.Claim)
			if in.Whole {
				after = u.usage().ReleaseWhole(in.Claim)
			}
			ops = append(ops, clientv3.OpPut(uk, mustJSON(toRecord(after))))
		}
		if g, ok := s.groups[in.Group]; ok && in.Group != "" {
			members := maps.Clone(g.Members)
			delete(members, uuid)
			c, o := s.groupRewriteLocked(in.Group, members)
			cmps, ops = append(cmps, c), append(ops, o)
		}
		return cmps, ops, nil
	})
}

// SetAggregateMetadata changes aggregate name's metadata (keys of set set,
// keys of del removed), creating it without hosts when it does not exist.
// The aggregate it would write is checked first (engine.ValidateAggregate):
// an empty name or a multiplier no weight can carry is a
// *engine.ValidationError, and nothing is written.
func (s *Store) SetAggregateMetadata(ctx context.Context, name string, set map[string]string, del []string) (uint64, error) {
	return s.retry(ctx, func() ([]clientv3.Cmp, []clientv3.Op, error) {
		key := s.k.aggregate(name)
		a, ok := s.aggregates[name]
		a.Name = name
		a.Metadata = maps.Clone(a.Metadata)
		if a.Metadata == nil {
			a.Metadata = map[string]string{}
		}
		maps.Copy(a.Metadata, set)
		for _, d := range del {
			delete(a.Metadata, d)
		}
		if err := engine.ValidateAggregate(a); err != nil {
			return nil, nil, err
		}
		var cmp clientv3.Cmp
		if ok {
			cmp = clientv3.Compare(clientv3.ModRevision(key), "=", s.aggRevs[name])
		} else {
			cmp = clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
		}
		return []clientv3.Cmp{cmp}, []clientv3.Op{clientv3.OpPut(key, mustJSON(a))}, nil
	})
}

// Instances is the instances committed through placer, as the mirror
// has them: uuid -> host and node.
func (s *Store) Instances() map[string]engine.HostNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]engine.HostNode, len(s.insts))
	for u, in := range s.insts {
		out[u] = engine.HostNode{Host: in.Host, Node: in.Node}
	}
	return out
}

// groupRewriteLocked is the compare and the put that replace group's
// record by one of members (its policy kept), on the revision the mirror
// holds: the members a change leaves (a release, a node's removal).
func (s *Store) groupRewriteLocked(group string, members map[string]string) (clientv3.Cmp, clientv3.Op) {
	gk := s.k.group(group)
	return clientv3.Compare(clientv3.ModRevision(gk), "=", s.groupRevs[group]),
		clientv3.OpPut(gk, mustJSON(groupRecord{Policy: s.groups[group].Policy, Members: members}))
}
