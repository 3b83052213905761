package etcdstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/engine"
)

// ReasonContention is the ConflictError reason of a plan whose
// transaction kept failing its compares (Options.Rebases times) although
// the plan still fitted the mirror: other processes kept changing its
// hosts or its group first. The Scheduler places such a request again.
const ReasonContention = "EtcdContention"

// txn is one plan's transaction, as prepare built it.
type txn struct {
	cmps  []clientv3.Cmp
	thens []clientv3.Op
	hosts []engine.HostNode // the usage keys compared, in cmps order
	revs  []int64
	insts []string // accepted instance uuids
	host  []engine.HostNode
	group string
	grev  int64
	// resent: an earlier send's outcome is unknown.
	resent bool
	// nonce is written into each instance record (instRecord.Txn): a
	// resend's failure finding the records tells by it whether they are
	// its earlier send's or another commit's of the same uuids.
	nonce string
}

func (t *txn) ops() int { return max(len(t.cmps), len(t.thens)) }

// CommitPlan commits plan (made on a snapshot of Local()) through etcd,
// with engine.Store.Commit's contract: the same checks (on the mirror,
// with engine.DryRun), all or nothing unless engine.Partial(), a
// *engine.ConflictError when a placement no longer fits (or, after
// Options.Rebases failed transactions, ReasonContention), an
// *engine.ValidationError for an instance already committed or a gang
// plan past etcd's --max-txn-ops (a partial one is committed in pieces
// that fit, each all or nothing by itself), and an error matching engine.ErrUnavailable
// when etcd did not answer. ctx bounds the waits before a transaction is
// sent (behind this process's commits on the same hosts, and between
// rebases): once it is done, nothing more is sent and its error is
// returned, with nothing of the plan committed (for a partial plan in
// pieces, the pieces committed before are reported). Once sent, a commit
// is seen through to a known outcome within Options.CommitTimeout (past
// it, an ErrUnavailable whose outcome is unknown; for a partial plan in
// pieces, the error names the pieces committed before, and the result's
// Accepted holds their placements). It
// returns once the mirror has applied the commit (CommitResult.Version
// is the mirror's version then), or, when the watch lags past
// CommitTimeout, with the commit standing in etcd and the mirror behind
// it: plans then made on the mirror fail their compares and are checked
// again on its newer state.
func (s *Store) CommitPlan(ctx context.Context, plan engine.Plan, opts ...engine.CommitOption) (engine.CommitResult, error) {
	if err := ctx.Err(); err != nil {
		return engine.CommitResult{}, err
	}
	if s.closed.Load() {
		return engine.CommitResult{}, ErrClosed
	}
	start := time.Now()
	var res engine.CommitResult
	var err error
	if chunks := s.chunks(&plan); len(chunks) > 1 && engine.IsPartial(opts...) {
		res, err = s.commitChunks(ctx, plan, chunks, opts)
	} else {
		res, err = s.commit(ctx, plan, opts)
	}
	if m := s.opts.Metrics; m != nil {
		m.commitSeconds.Observe(time.Since(start).Seconds())
	}
	if lm := s.opts.Local.Metrics; lm != nil {
		lm.ObserveCommit(res, err)
	}
	return res, err
}

// commit is CommitPlan for a plan of one transaction; caller is the
// caller's context, which bounds the waits before each send.
func (s *Store) commit(caller context.Context, plan engine.Plan, opts []engine.CommitOption) (engine.CommitResult, error) {
	// ctx bounds the waits behind this process's commits before the
	// first send, then, from the first send, everything until the
	// outcome is known: a commit that waited its turn still gets its
	// whole CommitTimeout once sent.
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	clock := time.AfterFunc(s.opts.CommitTimeout, func() { stop(context.DeadlineExceeded) })
	defer clock.Stop()
	sent := false
	for round := 0; ; round++ {
		t, res, busy, err := s.prepare(&plan, opts)
		if busy != nil {
			// A commit of this process on one of the hosts is under way:
			// sent now, this one would fail its compare. Wait for it and
			// check again (not a rebase: nothing was sent).
			select {
			case <-busy:
				round--
				continue
			case <-caller.Done(): // nothing of this plan was sent, or its sends failed
				return engine.CommitResult{}, caller.Err()
			case <-ctx.Done():
				return engine.CommitResult{}, unavailable(fmt.Errorf("etcdstore: waiting for this process's commits on the plan's hosts: %w", context.Cause(ctx)))
			}
		}
		if err != nil || t == nil {
			return res, err
		}
		if err := caller.Err(); err != nil {
			s.release(t)
			return engine.CommitResult{}, err
		}
		if m := s.opts.Metrics; m != nil {
			m.txnOps.Observe(float64(t.ops()))
		}
		if !sent {
			if !clock.Stop() { // the waits before it used the timeout up
				s.release(t)
				return engine.CommitResult{}, unavailable(fmt.Errorf("etcdstore: waiting for this process's commits on the plan's hosts, nothing sent: %w", context.DeadlineExceeded))
			}
			sent = true
			clock.Reset(s.opts.CommitTimeout)
		}
		resp, err := s.send(ctx, t)
		if err != nil {
			s.release(t)
			return engine.CommitResult{}, err
		}
		if !resp.Succeeded && t.resent && s.appliedEarlier(resp, t) {
			resp.Succeeded = true
		}
		if resp.Succeeded {
			s.commits.Add(1)
			sent := time.Now()
			err := s.waitApplied(ctx, resp.Header.Revision)
			s.release(t)
			if err == nil {
				lag := time.Since(sent)
				for old := s.lagMax.Load(); int64(lag) > old && !s.lagMax.CompareAndSwap(old, int64(lag)); old = s.lagMax.Load() {
				}
				if m := s.opts.Metrics; m != nil {
					m.watchLag.Observe(lag.Seconds())
				}
			}
			res.Version = s.local.Version()
			return res, nil
		}
		s.release(t)
		s.failed.Add(1)
		if round >= s.opts.Rebases {
			// Given up: with metrics, the cause is counted from the mirror
			// once it shows the failure, but the caller's ConflictError
			// waits at most a second for a slow watch.
			if s.opts.Metrics != nil {
				wctx, cancel := context.WithTimeout(ctx, time.Second)
				_ = s.waitApplied(wctx, resp.Header.Revision) // late: counted as the mirror is
				cancel()
				s.countConflict(t)
			}
			ce := &engine.ConflictError{Version: s.local.Version()}
			for _, i := range res.Accepted {
				ce.Rejected = append(ce.Rejected, i)
				ce.Reasons = append(ce.Reasons, ReasonContention)
			}
			return engine.CommitResult{Version: ce.Version}, ce
		}
		// The compare failed: nothing of the plan is committed, and the
		// caller may give up while the mirror catches up.
		wctx, stopWait := context.WithCancel(ctx)
		unhook := context.AfterFunc(caller, stopWait)
		err = s.waitApplied(wctx, resp.Header.Revision)
		unhook()
		stopWait()
		if err != nil {
			if cerr := caller.Err(); cerr != nil {
				return engine.CommitResult{}, cerr
			}
			if errors.Is(err, ErrClosed) {
				return engine.CommitResult{}, err
			}
			return engine.CommitResult{}, unavailable(fmt.Errorf("etcdstore: the watch did not reach revision %d: %w", resp.Header.Revision, err))
		}
		s.countConflict(t)
		if m := s.opts.Metrics; m != nil {
			m.rebases.Inc()
		}
	}
}

// prepare checks plan on the mirror and builds the transaction of what it
// accepts (nil when nothing is, or on an error).
func (s *Store) prepare(plan *engine.Plan, opts []engine.CommitOption) (*txn, engine.CommitResult, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.staleLocked(); err != nil {
		return nil, engine.CommitResult{}, nil, err
	}
	var pend engine.PendingUsage
	res, err := s.local.Commit(*plan, append(opts[:len(opts):len(opts)], engine.DryRun(&pend))...)
	if err != nil || len(res.Accepted) == 0 {
		return nil, res, nil, err
	}
	for _, h := range pend.Hosts {
		if s.inflight[h] > 0 {
			return nil, res, s.inflightCh, nil
		}
	}
	nh, ni := len(pend.Hosts), len(res.Accepted)
	n := nh + ni + 1 // hosts, instances, the group
	t := &txn{
		cmps: make([]clientv3.Cmp, 0, n), thens: make([]clientv3.Op, 0, n),
		hosts: make([]engine.HostNode, 0, nh), revs: make([]int64, 0, nh),
		insts: make([]string, 0, ni), host: make([]engine.HostNode, 0, ni),
	}
	for i, h := range pend.Hosts {
		rev := s.revs[h]
		t.hosts, t.revs = append(t.hosts, h), append(t.revs, rev)
		key := s.k.usage(h)
		t.cmps = append(t.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", rev))
		t.thens = append(t.thens, clientv3.OpPut(key, mustJSON(toRecord(pend.Usage[i]))))
	}
	var group string
	if plan.Group != nil {
		group = plan.Group.UUID
	}
	for j, i := range res.Accepted {
		p := &plan.Placements[i]
		key := s.k.inst(p.InstanceUUID)
		hn := engine.HostNode{Host: p.Host, Node: p.Node}
		t.insts, t.host = append(t.insts, p.InstanceUUID), append(t.host, hn)
		t.cmps = append(t.cmps, clientv3.Compare(clientv3.CreateRevision(key), "=", 0))
		if t.nonce == "" {
			t.nonce = rand.Text()
		}
		rec := instRecord{Host: p.Host, Node: p.Node, Claim: pend.Claims[j], Group: group, Forced: plan.Forced, Whole: pend.Whole[j], Txn: t.nonce}
		t.thens = append(t.thens, clientv3.OpPut(key, mustJSON(rec)))
	}
	if plan.Group != nil {
		g := s.groups[group]
		members := maps.Clone(g.Members)
		if members == nil {
			members = map[string]string{}
		}
		for j, u := range t.insts {
			members[u] = t.host[j].Host
		}
		key := s.k.group(group)
		t.group, t.grev = group, s.groupRevs[group]
		t.cmps = append(t.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", t.grev))
		t.thens = append(t.thens, clientv3.OpPut(key, mustJSON(groupRecord{Policy: plan.Group.Policy, Members: members})))
	}
	if n := t.ops(); n > s.opts.MaxTxnOps {
		return nil, engine.CommitResult{Version: res.Version}, nil, &engine.ValidationError{Field: "plan.placements",
			Msg: fmt.Sprintf("the commit needs %d etcd transaction operations (one per host, instance and group); etcd allows %d (--max-txn-ops)", n, s.opts.MaxTxnOps)}
	}
	for _, h := range t.hosts {
		s.inflight[h]++
	}
	return t, res, nil, nil
}

// release ends t's claim on its hosts (prepare's in-flight marks) and wakes
// the commits waiting for them.
func (s *Store) release(t *txn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range t.hosts {
		if s.inflight[h]--; s.inflight[h] <= 0 {
			delete(s.inflight, h)
		}
	}
	close(s.inflightCh)
	s.inflightCh = make(chan struct{})
}

// send sends t until etcd answers. A send that failed without an answer
// (a timeout, a lost leader) may still have applied: t.resent records it,
// and from then on the transaction reads its instances' keys when its
// compares fail (appliedEarlier). A first send reads nothing back: a
// failed compare is read from the mirror, once it has caught up
// (countConflict), which keeps every transaction's request small.
// Errors that say the request itself is refused are returned at once
// (refused: a permission, say, that no resend would change); after ctx
// ends the error matches engine.ErrUnavailable.
func (s *Store) send(ctx context.Context, t *txn) (*clientv3.TxnResponse, error) {
	backoff := 10 * time.Millisecond
	var elses []clientv3.Op
	for {
		if t.resent && elses == nil {
			elses = make([]clientv3.Op, len(t.insts))
			for j, u := range t.insts {
				elses[j] = clientv3.OpGet(s.k.inst(u))
			}
		}
		rctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), 5*time.Second)
		resp, err := s.cli.Txn(rctx).If(t.cmps...).Then(t.thens...).Else(elses...).Commit()
		cancel()
		if s.afterSend != nil {
			resp, err = s.afterSend(resp, err)
		}
		if err == nil {
			return resp, nil
		}
		if tooLarge(err) {
			return nil, &engine.ValidationError{Field: "plan.placements", Msg: err.Error()}
		}
		if noSpace(err) {
			if t.resent {
				return nil, unknownOutcome(fmt.Errorf("etcdstore: etcd's space quota alarm refused a resent commit; the earlier send's outcome is unknown (the instances' keys tell): %w", err))
			}
			return nil, unavailable(fmt.Errorf("etcdstore: etcd's space quota alarm refuses writes, nothing committed: %w", err))
		}
		if refused(err) {
			if t.resent {
				return nil, unknownOutcome(fmt.Errorf("etcdstore: etcd refused a resent commit; the earlier send's outcome is unknown (the instances' keys tell): %w", err))
			}
			return nil, fmt.Errorf("etcdstore: etcd refused the commit, nothing committed: %w", err)
		}
		if s.cli.Ctx().Err() != nil {
			// The client is closed (its process going down): no send can
			// succeed, and this one may have been applied.
			return nil, unknownOutcome(fmt.Errorf("etcdstore: the etcd client is closed; commit outcome unknown (the instances' keys tell): %w", err))
		}
		t.resent = true
		s.resends.Add(1)
		if m := s.opts.Metrics; m != nil {
			m.resends.Inc()
		}
		select {
		case <-ctx.Done():
			return nil, unknownOutcome(fmt.Errorf("etcdstore: commit outcome unknown (the instances' keys tell): %w", err))
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// appliedEarlier reports whether a failed answer to a resent transaction
// (its Else branch reads the instances' keys) shows that an earlier send
// applied it: every instance key is there, written by this transaction
// (its nonce: another process committing the same uuids on the same
// host, as a deterministic placement would, is not this commit).
func (s *Store) appliedEarlier(resp *clientv3.TxnResponse, t *txn) bool {
	if len(resp.Responses) != len(t.insts) {
		return false
	}
	for j := range t.insts {
		r := resp.Responses[j].GetResponseRange()
		if r == nil || len(r.Kvs) != 1 {
			return false
		}
		var in instRecord
		if json.Unmarshal(r.Kvs[0].Value, &in) != nil || in.Txn != t.nonce || in.Host != t.host[j].Host || in.Node != t.host[j].Node {
			return false
		}
	}
	return true
}

// countConflict counts a failed transaction by cause, as the mirror
// shows it once it has applied the revision of the failure (or later: a
// change after the failure may then be counted as its cause; "usage" when
// the mirror shows none): an instance already there, a removed host, a
// host's usage or the group changed.
func (s *Store) countConflict(t *txn) {
	m := s.opts.Metrics
	if m == nil {
		return
	}
	s.mu.Lock()
	cause := ""
	for j, h := range t.hosts {
		switch rev, ok := s.revs[h]; {
		case !ok:
			cause = "host_removed"
		case rev != t.revs[j] && cause == "":
			cause = "usage"
		}
	}
	for _, u := range t.insts {
		if _, ok := s.insts[u]; ok {
			cause = "instance"
		}
	}
	if cause == "" && t.group != "" && s.groupRevs[t.group] != t.grev {
		cause = "group"
	}
	s.mu.Unlock()
	if cause == "" {
		cause = "usage"
	}
	m.conflicts.WithLabelValues(cause).Inc()
}

// chunks splits plan's placements (their indexes) into pieces whose
// transactions stay within Options.MaxTxnOps: one operation per host, per
// instance and for the group. A plan that fits is one piece.
func (s *Store) chunks(plan *engine.Plan) [][]int {
	budget := s.opts.MaxTxnOps
	if plan.Group != nil {
		budget--
	}
	var out [][]int
	var cur []int
	hosts := map[engine.HostNode]bool{}
	for i, p := range plan.Placements {
		hn := engine.HostNode{Host: p.Host, Node: p.Node}
		need := 1
		if !hosts[hn] {
			need++
		}
		if len(cur)+len(hosts)+need > budget && len(cur) > 0 {
			out = append(out, cur)
			cur, hosts = nil, map[engine.HostNode]bool{}
		}
		cur = append(cur, i)
		hosts[hn] = true
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// commitChunks commits a partial plan too large for one transaction in
// pieces, each a partial commit of its own, and merges their results
// (indexes into plan.Placements). A piece failing with an error after
// others were committed has its placements, and those of the later
// pieces, rejected with the error's text as the reason, when nothing of
// it was committed; when its outcome is unknown (it may be), the error is
// returned, naming the pieces committed, with their placements in the
// result's Accepted.
func (s *Store) commitChunks(ctx context.Context, plan engine.Plan, chunks [][]int, opts []engine.CommitOption) (engine.CommitResult, error) {
	var res engine.CommitResult
	for c, idx := range chunks {
		sub := plan
		sub.Placements = make([]engine.Placement, len(idx))
		for j, i := range idx {
			sub.Placements[j] = plan.Placements[i]
		}
		r, err := s.commit(ctx, sub, opts)
		if err != nil {
			if len(res.Accepted) == 0 {
				return res, err
			}
			if errors.Is(err, errUnknownOutcome) {
				return res, fmt.Errorf("etcdstore: a partial commit in %d pieces: pieces 1-%d committed %d placement(s), plan indexes %v; piece %d: %w",
					len(chunks), c, len(res.Accepted), res.Accepted, c+1, err)
			}
			// Earlier pieces are committed: report them, and this
			// piece and the later ones as rejected, with the error.
			for _, rest := range chunks[c:] {
				for _, i := range rest {
					res.Rejected = append(res.Rejected, i)
					res.Reasons = append(res.Reasons, err.Error())
				}
			}
			return res, nil
		}
		for _, j := range r.Accepted {
			res.Accepted = append(res.Accepted, idx[j])
		}
		for k, j := range r.Rejected {
			res.Rejected = append(res.Rejected, idx[j])
			res.Reasons = append(res.Reasons, r.Reasons[k])
		}
		res.Rechecked += r.Rechecked
		res.Version = r.Version
	}
	return res, nil
}
