package etcdstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/placer/placer/engine"
)

// Options configure a Store.
type Options struct {
	// Prefix is the key prefix ("" means DefaultPrefix).
	Prefix string
	// MaxTxnOps is the etcd members' --max-txn-ops (0 means 128): a plan
	// whose transaction needs more is refused.
	MaxTxnOps int
	// Rebases bounds how many times a commit whose compares failed is
	// checked again on the newer mirror before it is reported as a
	// conflict (0 means 8).
	Rebases int
	// CommitTimeout bounds one commit's round trips, from the first send
	// to a known outcome (0 means 30s); the wait before the first send
	// (behind this process's commits on the same hosts) is bounded by the
	// caller's context and by CommitTimeout from the call (ErrUnavailable,
	// nothing sent). It also bounds a change (UpdateHost, AddHosts...)
	// whole, with the caller's context.
	CommitTimeout time.Duration
	// Local are the mirror's options (engine metrics; Journal is ignored:
	// etcd keeps the record).
	Local engine.StoreOptions
	// Metrics, when set, receives the etcd metrics (NewMetrics).
	Metrics *Metrics
}

// Store is a cloud shared through etcd: a local engine.Store kept current
// from a watch (the mirror), and commits as etcd transactions. It is an
// engine.Backend and is safe for concurrent use. Close stops its watch.
type Store struct {
	cli    *clientv3.Client
	k      keys
	opts   Options
	local  *engine.Store
	cancel context.CancelFunc
	done   chan struct{}

	// afterSend, when set (tests), sees every answer to a commit
	// transaction and may replace it (to lose an answer).
	afterSend func(*clientv3.TxnResponse, error) (*clientv3.TxnResponse, error)

	commits, failed, resends atomic.Int64
	lagMax                   atomic.Int64  // nanoseconds
	closed                   atomic.Bool   // Close was called (ErrClosed)
	closedCh                 chan struct{} // closed by Close: waits for the mirror end

	mu sync.Mutex // the mirror's state below, and applying to local
	// The cloud as etcd has it.
	config     engine.Config
	hosts      map[engine.HostNode]hostRecord
	aggregates map[string]engine.Aggregate
	aggRevs    map[string]int64
	usage      map[engine.HostNode]usageRecord
	revs       map[engine.HostNode]int64 // usage key mod revisions
	insts      map[string]instRecord
	groups     map[string]groupRecord
	groupRevs  map[string]int64
	// inflight counts, per host, this process's commits sent and not yet
	// answered and applied; inflightCh is closed (and replaced) when one
	// ends.
	inflight   map[engine.HostNode]int
	inflightCh chan struct{}
	applied    int64 // the last revision applied to local, by an event or a re-list
	// reached is applied, or a later revision a progress notification
	// reported (no event of the prefix below it is still to come): the
	// watermark waitApplied reads. The watch skips and resumes by
	// applied alone, so that a premature notification (etcd before the
	// fix of etcd-io/etcd#15220 answered a requested one with its
	// current revision while the watch was still catching up) cannot
	// make it drop the events still on their way.
	reached   int64
	appliedCh chan struct{} // closed (and replaced) when reached moves
	relists   int64
	// stale is why the mirror's state above is not local's (a watch
	// batch or a re-list that could not be applied, whose revisions the
	// maps may hold already), nil while they agree. Commits and changes
	// are refused while it is set: a compare on a revision local has
	// not applied would pass with local's older usage, and overcommit.
	// The watch re-lists until one succeeds.
	stale error
}

// Open reads the cloud under the prefix (it must have been loaded: Load),
// builds the mirror and starts the watch that keeps it current. The
// client stays the caller's (Close does not close it).
func Open(ctx context.Context, cli *clientv3.Client, opts Options) (*Store, error) {
	if opts.MaxTxnOps <= 0 {
		opts.MaxTxnOps = 128
	}
	if opts.Rebases <= 0 {
		opts.Rebases = 8
	}
	if opts.CommitTimeout <= 0 {
		opts.CommitTimeout = 30 * time.Second
	}
	opts.Local.Journal = false
	s := &Store{cli: cli, k: newKeys(opts.Prefix), opts: opts, appliedCh: make(chan struct{}), closedCh: make(chan struct{}),
		inflight: map[engine.HostNode]int{}, inflightCh: make(chan struct{})}
	if err := s.relist(ctx); err != nil {
		return nil, err
	}
	s.start()
	return s, nil
}

// start starts the watch (again, after Close: tests of a resumed watch).
func (s *Store) start() {
	wctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	if s.closed.Load() { // started again after Close (tests)
		s.closedCh = make(chan struct{})
		s.closed.Store(false)
	}
	go s.watchLoop(wctx)
}

// Close stops the watch. The mirror stays readable; commits and changes
// fail with ErrClosed from then on (sent, they would wait their whole
// timeout for a mirror that no longer follows etcd).
func (s *Store) Close() {
	if !s.closed.Swap(true) {
		close(s.closedCh)
	}
	s.stopWatch()
}

// stopWatch stops the watch and waits for its end (tests stop it alone
// to stall a mirror, and resume it with start).
func (s *Store) stopWatch() {
	s.cancel()
	<-s.done
}

// ErrClosed is the error of a commit or change after Close. It matches
// engine.ErrClosed (errors.Is), as a closed Scheduler's does.
var ErrClosed error = closedError{}

type closedError struct{}

func (closedError) Error() string        { return "etcdstore: store closed" }
func (closedError) Is(target error) bool { return target == engine.ErrClosed }

// Local returns the mirror: plans are made on its snapshots.
func (s *Store) Local() *engine.Store { return s.local }

// Revision returns the last etcd revision the mirror has applied.
func (s *Store) Revision() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}

// Relists returns how many times the mirror was re-read whole after the
// watch's start revision was compacted.
func (s *Store) Relists() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.relists
}

// Stats returns the Store's counts since Open.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.commits.Load(), FailedTxns: s.failed.Load(), Resends: s.resends.Load(),
		Relists: s.Relists(), WatchLagMaxSeconds: time.Duration(s.lagMax.Load()).Seconds()}
}

// getAll reads every key under the prefix at one revision, page by page,
// and returns them with that revision.
func (s *Store) getAll(ctx context.Context) ([]*mvccpb.KeyValue, int64, error) {
	const page = 5000
	end := clientv3.GetPrefixRangeEnd(s.k.p)
	var kvs []*mvccpb.KeyValue
	var rev int64
	from := s.k.p
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(page)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := s.cli.Get(ctx, from, opts...)
		if err != nil {
			return nil, 0, unavailable(err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		kvs = append(kvs, resp.Kvs...)
		if !resp.More || len(resp.Kvs) == 0 {
			return kvs, rev, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// relist reads the whole prefix and replaces the mirror's state with it
// (builds the mirror the first time).
func (s *Store) relist(ctx context.Context) error {
	kvs, rev, err := s.getAll(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.relistLocked(kvs, rev); err != nil {
		s.stale = err // the maps were cleared: they are not local's
		return err
	}
	s.stale = nil
	return nil
}

// relistLocked replaces the mirror's state with kvs, read at rev.
func (s *Store) relistLocked(kvs []*mvccpb.KeyValue, rev int64) error {
	s.hosts = map[engine.HostNode]hostRecord{}
	s.aggregates = map[string]engine.Aggregate{}
	s.aggRevs = map[string]int64{}
	s.usage = map[engine.HostNode]usageRecord{}
	s.revs = map[engine.HostNode]int64{}
	s.insts = map[string]instRecord{}
	s.groups = map[string]groupRecord{}
	s.groupRevs = map[string]int64{}
	var ch engine.ExternalChange
	haveConfig := false
	for _, kv := range kvs {
		cfg, err := s.applyKV(kv, false, &ch)
		if err != nil {
			return err
		}
		haveConfig = haveConfig || cfg
	}
	if !haveConfig {
		return fmt.Errorf("etcdstore: no cloud under %q (placer etcd load writes one)", s.k.p)
	}
	cloud := s.cloudLocked()
	ch.Reset = true
	ch.ChangedHosts = nil // every host listed: the local store compares the records
	if s.local == nil {
		local, err := engine.NewStore(cloud, s.opts.Local)
		if err != nil {
			return err
		}
		s.local = local
	} else {
		ch.Cloud = &cloud
		s.relists++
		if m := s.opts.Metrics; m != nil {
			m.relists.Inc()
		}
	}
	if _, err := s.local.ApplyExternal(ch); err != nil {
		return err
	}
	s.setAppliedLocked(rev)
	return nil
}

// applyKV records one key's value (or deletion) in the mirror's state
// and in ch; it reports whether the cloud itself (hosts, aggregates,
// configuration) changed.
func (s *Store) applyKV(kv *mvccpb.KeyValue, deleted bool, ch *engine.ExternalChange) (bool, error) {
	kind, names := s.k.parse(string(kv.Key))
	bad := func(err error) (bool, error) {
		return false, fmt.Errorf("etcdstore: key %s: %w", kv.Key, err)
	}
	switch kind {
	case kindConfig:
		if deleted {
			return false, nil // keep the last configuration
		}
		var c engine.Config
		if err := json.Unmarshal(kv.Value, &c); err != nil {
			return bad(err)
		}
		s.config = c
		return true, nil
	case kindAggregate:
		if deleted {
			delete(s.aggregates, names[0])
			delete(s.aggRevs, names[0])
			return true, nil
		}
		var a engine.Aggregate
		if err := json.Unmarshal(kv.Value, &a); err != nil {
			return bad(err)
		}
		s.aggregates[names[0]] = a
		s.aggRevs[names[0]] = kv.ModRevision
		return true, nil
	case kindHost:
		hn := engine.HostNode{Host: names[0], Node: names[1]}
		if deleted {
			delete(s.hosts, hn)
			return true, nil
		}
		var r hostRecord
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return bad(err)
		}
		s.hosts[hn] = r
		ch.ChangedHosts = append(ch.ChangedHosts, hn) // another host's data under the name, for plans made before
		return true, nil
	case kindUsage:
		hn := engine.HostNode{Host: names[0], Node: names[1]}
		if deleted {
			delete(s.revs, hn)
			delete(s.usage, hn)
			return false, nil
		}
		var r usageRecord
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return bad(err)
		}
		s.revs[hn] = kv.ModRevision
		s.usage[hn] = r
		ch.Usage = append(ch.Usage, engine.HostUsageOf{Host: hn, Usage: r.usage()})
	case kindInst:
		uuid := names[0]
		if deleted {
			if in, ok := s.insts[uuid]; ok {
				delete(s.insts, uuid)
				if g, ok := s.groups[in.Group]; ok {
					delete(g.Members, uuid)
				}
				// ExternalChange applies its deletions before its
				// placements: an instance put earlier in this watch
				// response (a resumed watch's catch-up holds a commit and
				// its release) must not be placed after its deletion.
				ch.Placed = slices.DeleteFunc(ch.Placed, func(in engine.Instance) bool { return in.UUID == uuid })
				ch.Deleted = append(ch.Deleted, uuid)
			}
			return false, nil
		}
		var r instRecord
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return bad(err)
		}
		if _, again := s.insts[uuid]; again { // never in a re-list, whose maps start empty
			ch.Placed = slices.DeleteFunc(ch.Placed, func(in engine.Instance) bool { return in.UUID == uuid })
		}
		s.insts[uuid] = r
		ch.Placed = append(ch.Placed, engine.Instance{UUID: uuid, Host: engine.HostNode{Host: r.Host, Node: r.Node}, Claim: r.Claim, Group: r.Group, Whole: r.Whole})
	case kindGroup:
		if deleted {
			delete(s.groups, names[0])
			delete(s.groupRevs, names[0])
			return false, nil
		}
		var r groupRecord
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return bad(err)
		}
		if r.Members == nil {
			r.Members = map[string]string{}
		}
		s.groups[names[0]] = r
		s.groupRevs[names[0]] = kv.ModRevision
	}
	return false, nil
}

// cloudLocked is the cloud the mirror's state describes: hosts in their
// order (then by key), aggregates by name.
func (s *Store) cloudLocked() engine.Cloud {
	c := engine.Cloud{Config: s.config}
	recs := make([]hostRecord, 0, len(s.hosts))
	for _, r := range s.hosts {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b hostRecord) int {
		if c := cmp.Compare(a.Order, b.Order); c != 0 {
			return c
		}
		na, nb := nodeOf(&a.Host), nodeOf(&b.Host)
		return cmp.Or(cmp.Compare(na.Host, nb.Host), cmp.Compare(na.Node, nb.Node))
	})
	for _, r := range recs {
		c.Hosts = append(c.Hosts, r.Host)
	}
	for _, a := range s.aggregates {
		c.Aggregates = append(c.Aggregates, a)
	}
	slices.SortFunc(c.Aggregates, func(a, b engine.Aggregate) int { return cmp.Compare(a.Name, b.Name) })
	return c
}

func (s *Store) setAppliedLocked(rev int64) {
	s.applied = max(s.applied, rev)
	s.setReachedLocked(rev)
}

// progressed records a progress notification of revision rev: no event
// of the prefix at or below it is still to come, as etcd promises (but
// for releases before the fix of etcd-io/etcd#15220).
func (s *Store) progressed(rev int64) {
	s.mu.Lock()
	s.setReachedLocked(rev)
	s.mu.Unlock()
}

// setReachedLocked records that no event of the prefix at or below rev
// is still to come (a progress notification's revision).
func (s *Store) setReachedLocked(rev int64) {
	if rev <= s.reached {
		return
	}
	s.reached = rev
	close(s.appliedCh)
	s.appliedCh = make(chan struct{})
}

// watchLoop keeps the mirror current until ctx ends: it watches from the
// revision after the last one applied, resumes after a broken watch and
// re-lists after a compaction.
func (s *Store) watchLoop(ctx context.Context) {
	defer close(s.done)
	backoff := 10 * time.Millisecond
	for ctx.Err() == nil {
		s.mu.Lock()
		from, stale := s.applied+1, s.stale != nil
		s.mu.Unlock()
		if stale {
			// The maps hold part of what local could not apply: only a
			// re-list makes them one again (a watch replaying from the
			// last revision applied would apply its events over them,
			// and a release of an instance they no longer hold would
			// leave it in local).
			rctx, rcancel := context.WithTimeout(ctx, s.opts.CommitTimeout)
			err := s.relist(rctx)
			rcancel()
			if err == nil {
				backoff = 10 * time.Millisecond
				continue
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second) // each re-list reads the whole prefix
			continue
		}
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		wch := s.cli.Watch(wctx, s.k.p, clientv3.WithPrefix(), clientv3.WithRev(from))
		compacted := false
		for wr := range wch {
			if wr.CompactRevision != 0 {
				compacted = true
				break
			}
			if wr.Err() != nil {
				break
			}
			if wr.IsProgressNotify() {
				s.progressed(wr.Header.Revision)
				continue
			}
			if err := s.applyEvents(wr.Events); err != nil {
				compacted = true // a state we cannot follow: read it whole
				break
			}
			backoff = 10 * time.Millisecond
		}
		cancel()
		if compacted && ctx.Err() == nil {
			rctx, rcancel := context.WithTimeout(ctx, s.opts.CommitTimeout)
			err := s.relist(rctx)
			rcancel()
			if err == nil {
				continue
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// applyEvents applies one watch response's events to the mirror as one
// publication (with a rebuild first when the cloud itself changed).
func (s *Store) applyEvents(evs []*clientv3.Event) error {
	if len(evs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ch engine.ExternalChange
	rebuild := false
	var last int64
	for _, ev := range evs {
		if ev.Kv.ModRevision <= s.applied {
			continue // already applied (a resumed watch)
		}
		changed, err := s.applyKV(ev.Kv, ev.Type == clientv3.EventTypeDelete, &ch)
		if err != nil {
			s.stale = err // the events before it are in the maps, not in local
			return err
		}
		rebuild = rebuild || changed
		last = max(last, ev.Kv.ModRevision)
	}
	if last == 0 {
		return nil
	}
	if rebuild {
		c := s.cloudLocked()
		ch.Cloud = &c
		if ch.ChangedHosts == nil {
			ch.ChangedHosts = []engine.HostNode{} // an aggregate or the configuration: no host's record
		}
	}
	if _, err := s.local.ApplyExternal(ch); err != nil {
		s.stale = err
		return err
	}
	s.setAppliedLocked(last)
	return nil
}

// staleLocked is the error commits and changes are refused with while
// the mirror's state is not local's (stale).
func (s *Store) staleLocked() error {
	if s.stale == nil {
		return nil
	}
	return unavailable(fmt.Errorf("etcdstore: this process could not apply etcd's state (%v); nothing is committed until its watch re-reads it", s.stale))
}

// Sync waits until the mirror has applied every change etcd had when
// Sync was called.
func (s *Store) Sync(ctx context.Context) error {
	resp, err := s.cli.Get(ctx, s.k.config(), clientv3.WithCountOnly())
	if err != nil {
		return unavailable(err)
	}
	return s.waitApplied(ctx, resp.Header.Revision)
}

// waitApplied waits until the mirror has applied revision rev, asking
// the watch for a progress report when no event comes (the revision may
// hold no key of the prefix).
func (s *Store) waitApplied(ctx context.Context, rev int64) error {
	tick := 5 * time.Millisecond
	for {
		s.mu.Lock()
		ok, ch := s.reached >= rev, s.appliedCh
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
			continue
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-s.cli.Ctx().Done():
			return fmt.Errorf("etcdstore: the etcd client is closed before the mirror reached revision %d", rev)
		case <-s.closedCh: // the mirror follows etcd no more
			return ErrClosed
		case <-time.After(tick):
		}
		pctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), time.Second)
		s.cli.RequestProgress(pctx)
		cancel()
		tick = min(2*tick, 200*time.Millisecond)
	}
}

// tooLarge reports whether etcd refused a transaction for its size (more
// operations than its --max-txn-ops, or past its request size): a
// *engine.ValidationError for the caller, as no resend would pass.
func tooLarge(err error) bool {
	if errors.Is(err, rpctypes.ErrTooManyOps) || errors.Is(err, rpctypes.ErrRequestTooLarge) {
		return true
	}
	// gRPC's own limits, the client's or the server's: not sent, or
	// refused on arrival.
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "larger than max")
}

// refused reports whether err is etcd's refusal of a request as such: a
// permission or authentication failure, or a request it cannot take. It
// was not applied, and sending it again would fail the same way: not a
// case for ErrUnavailable's "retry", nor for resending until a timeout.
func refused(err error) bool {
	code := status.Code(err)
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		code = ee.Code()
	}
	switch code {
	case codes.PermissionDenied, codes.Unauthenticated, codes.InvalidArgument:
		return true
	}
	return false
}

// noSpace reports whether etcd refused a write for its space quota's
// alarm: nothing was written, and every write is refused until an
// operator compacts, defragments and disarms it (a later retry may
// pass: ErrUnavailable, not a refusal).
func noSpace(err error) bool {
	return errors.Is(err, rpctypes.ErrNoSpace)
}

// unavailable wraps an etcd client error so that it matches
// engine.ErrUnavailable.
// errUnknownOutcome marks (errors.Is) a commit whose transaction was sent
// and whose answer never came: it may be applied.
var errUnknownOutcome = errors.New("outcome unknown")

// unknownOutcome is unavailable(err), marked errUnknownOutcome.
func unknownOutcome(err error) error {
	return unavailable(markedError{err, errUnknownOutcome})
}

// markedError is err, matching mark too (errors.Is).
type markedError struct{ err, mark error }

func (e markedError) Error() string   { return e.err.Error() }
func (e markedError) Unwrap() []error { return []error{e.err, e.mark} }

func unavailable(err error) error {
	if err == nil || errors.Is(err, engine.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", engine.ErrUnavailable, err)
}
