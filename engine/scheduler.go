package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/placer/placer/bitmap"
)

// ErrClosed is returned by Scheduler.Place once Close has been called.
var ErrClosed = errors.New("scheduler closed")

// DefaultRetryBudget is how many times a Scheduler re-places a request
// whose commit conflicted before it gives up with ErrConflict.
const DefaultRetryBudget = 5

// SchedulerOptions configure a Scheduler. The zero value is usable.
type SchedulerOptions struct {
	// Workers is the number of placement workers; 0 means GOMAXPROCS.
	Workers int
	// QueueSize bounds the requests waiting for a worker (Place blocks
	// while the queue is full); 0 means 4 × Workers.
	QueueSize int
	// RetryBudget is how many re-placements a conflicting request gets;
	// 0 means DefaultRetryBudget, a negative value none.
	RetryBudget int
	// Metrics, when set, records requests, latencies, retries and the
	// queue depth (commits and versions are the Store's: give it the same
	// Metrics in StoreOptions).
	Metrics *Metrics
	// ColdStart makes every placement a PlaceBatch from scratch: no
	// worker keeps its last batch to start the next alike request from
	// (see Scheduler). For comparison; the plans are the same.
	ColdStart bool
	// CacheInterval, when positive, is the caching mode (caching.go,
	// Nova's CachingScheduler): each worker places on its own view of
	// the Store, refreshed from it when the view is CacheInterval old or
	// after a conflict, rather than on the newest snapshot; its own
	// commits apply to its view at once. Commits are re-checked as ever:
	// staleness costs conflicts and retries, never an overcommitment.
	CacheInterval time.Duration

	// clock is the caching mode's clock in tests (nil: time.Now), so
	// that a test decides when a view is old instead of racing a timer.
	clock func() time.Time
	// beforePlace, in tests, runs as a worker starts to place a request.
	beforePlace func(*Request)
}

// SchedulerStats are a Scheduler's counters since it started.
type SchedulerStats struct {
	// Requests is how many requests finished (any outcome).
	Requests int64
	// Placed is how many requests were committed; Instances how many
	// instances they held.
	Placed, Instances int64
	// NoValidHost is how many requests found no host for an instance.
	NoValidHost int64
	// ConflictRetries is how many times a request was re-placed after a
	// conflict; ConflictFailures how many requests gave up (ErrConflict).
	ConflictRetries, ConflictFailures int64
	// Partial is how many of the Placed requests committed only some of
	// their instances (PartialAfterConflicts).
	Partial int64
	// WarmStarts is how many placements (retries included) started from
	// their worker's previous batch rather than from scratch.
	WarmStarts int64
	// CacheRefreshes is how many times a worker's view was refreshed
	// from the Store (the caching mode; 0 without it).
	CacheRefreshes int64
}

// Scheduler is an embedded pool of placement workers over a Store.
//
// Place queues a request; a worker places it with PlaceBatch on the
// newest snapshot (no lock), commits the plan (Store.Commit: a short
// serialized check of the hosts it touches), and on a conflict places it
// again on the fresh snapshot, up to the retry budget. Many workers thus
// place in parallel on shared immutable snapshots and never double-book a
// host. A Scheduler is safe for concurrent use. Make one with NewScheduler
// or NewSchedulerOn: the zero Scheduler is not usable.
type Scheduler struct {
	store Backend
	opts  SchedulerOptions
	queue *jobQueue
	// mu guards close and the count of senders: Close waits for the
	// senders to leave before it closes queue, and closing tells a sender
	// waiting for room to give up (no lock is held while it waits).
	mu      sync.Mutex
	close   bool
	closing chan struct{}
	senders sync.WaitGroup
	g       errgroup.Group

	requests, placed, instances, nvh, retries, failures, partial, warm, refreshes atomic.Int64
}

// job states.
const (
	jobQueued int32 = iota
	jobStarted
	jobAbandoned
)

type job struct {
	ctx   context.Context
	req   Request
	opts  placeOpts
	state atomic.Int32
	plan  Plan
	err   error
	// partial says the plan holds only some of the instances (a partial
	// commit): counted with the request's outcome, in finish.
	partial bool
	done    chan struct{}
	// prev, next and queued are the job's place in the queue (jobQueue,
	// under its mutex).
	prev, next *job
	queued     bool
}

// now is the caching mode's clock.
func (s *Scheduler) now() time.Time {
	if s.opts.clock != nil {
		return s.opts.clock()
	}
	return time.Now()
}

// NewScheduler starts the workers of a Scheduler over store. A nil store
// panics here, rather than in a worker at the first request.
func NewScheduler(store *Store, opts SchedulerOptions) *Scheduler {
	if store == nil {
		panic("engine: NewScheduler: nil Store")
	}
	return NewSchedulerOn(store, opts)
}

// NewSchedulerOn starts the workers of a Scheduler over a commit layer:
// plans are made on the snapshots of store.Local() and committed with
// store.CommitPlan (see Backend). A nil store panics here.
func NewSchedulerOn(store Backend, opts SchedulerOptions) *Scheduler {
	if s, isStore := store.(*Store); store == nil || isStore && s == nil {
		panic("engine: NewSchedulerOn: nil Backend")
	}
	if store.Local() == nil { // a typed nil of another Backend panics here or says so
		panic("engine: NewSchedulerOn: the Backend has no Local store")
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 4 * opts.Workers
	}
	if opts.RetryBudget == 0 {
		opts.RetryBudget = DefaultRetryBudget
	}
	s := &Scheduler{store: store, opts: opts, queue: newJobQueue(opts.QueueSize), closing: make(chan struct{})}
	for range opts.Workers {
		s.g.Go(func() error {
			var w warmBatch
			c := s.newCache()
			for j := s.queue.get(); j != nil; j = s.queue.get() {
				s.run(j, &w, c)
			}
			w.drop(nil)
			c.drop()
			return nil
		})
	}
	return s
}

// PlaceOption changes how one Place call commits.
type PlaceOption func(*placeOpts)

type placeOpts struct{ partial bool }

// PartialAfterConflicts makes a request whose retry budget ran out place
// once more on the newest snapshot and commit what of it still fits
// (Store.Commit with Partial): Place then returns a plan of the committed
// placements alone, in request order, and a *ConflictError only when
// none could be. Without it such a request commits nothing.
func PartialAfterConflicts() PlaceOption { return func(o *placeOpts) { o.partial = true } }

// Place places req and commits it, and returns the committed plan. Errors:
// the PlaceBatch errors (*ValidationError, *NoValidHostError...), a
// *ConflictError (errors.Is(err, ErrConflict)) when the retry budget ran
// out, ErrClosed after Close, or ctx.Err(). On any error nothing of req is
// committed, but for a shared commit layer's ErrUnavailable that says the
// outcome is unknown (Backend; the layer's state then tells). A request whose context ends before a worker takes it is
// dropped at once; once a worker runs it, Place waits for its outcome (the
// worker checks the context between instances and before committing).
// A panic of the worker while placing req is raised here, on the caller's
// goroutine, as a *PlacementPanic; the Scheduler goes on.
func (s *Scheduler) Place(ctx context.Context, req Request, opts ...PlaceOption) (Plan, error) {
	start := time.Now()
	j := &job{ctx: ctx, req: req, done: make(chan struct{})}
	for _, f := range opts {
		f(&j.opts)
	}
	plan, err := s.submit(j)
	s.finish(j, plan, err, time.Since(start))
	if p, ok := err.(*PlacementPanic); ok {
		panic(p)
	}
	return plan, err
}

func (s *Scheduler) submit(j *job) (Plan, error) {
	if err := j.ctx.Err(); err != nil {
		return Plan{}, err
	}
	s.mu.Lock()
	if s.close {
		s.mu.Unlock()
		return Plan{}, ErrClosed
	}
	s.senders.Add(1)
	s.mu.Unlock()
	s.gaugeQueue(1) // before a worker can take it (run counts it out)
	// ErrClosed when Close is under way: never queued.
	err := s.queue.put(j.ctx, s.closing, j)
	s.senders.Done()
	if err != nil {
		s.gaugeQueue(-1)
		return Plan{}, err
	}
	select {
	case <-j.done:
		return j.plan, j.err
	case <-j.ctx.Done():
		if j.state.CompareAndSwap(jobQueued, jobAbandoned) {
			// Its place in the queue is free at once (unless a worker
			// has just taken it, and counts it out itself).
			if s.queue.remove(j) {
				s.gaugeQueue(-1)
			}
			return Plan{}, j.ctx.Err()
		}
		<-j.done
		return j.plan, j.err
	}
}

func (s *Scheduler) gaugeQueue(d float64) {
	if m := s.opts.Metrics; m != nil {
		m.queueDepth.Add(d)
	}
}

// run is one worker's handling of a job; w is the worker's kept batch, c
// its view in the caching mode (nil without it).
func (s *Scheduler) run(j *job, w *warmBatch, c *cachedView) {
	s.gaugeQueue(-1)
	if !j.state.CompareAndSwap(jobQueued, jobStarted) {
		return // abandoned: Place has returned
	}
	ctx := j.ctx
	if s.opts.Workers > 1 {
		// The other workers keep the processors busy: a batch's shard
		// passes run on its own worker rather than be handed out.
		ctx = bitmap.Sequential(ctx)
	}
	j.plan, j.err = s.placeAndCommit(ctx, j, w, c)
	close(j.done)
}

func (s *Scheduler) placeAndCommit(ctx context.Context, j *job, w *warmBatch, c *cachedView) (Plan, error) {
	req := &j.req
	partial := false // the last attempt, after the budget, of a PartialAfterConflicts request
	for attempt := 0; ; attempt++ {
		snap, release, refreshed := c.acquire(s, s.now())
		if refreshed {
			w.drop(snap) // its changes since are not in the view's (caching.go)
		}
		plan, err := s.placeOn(ctx, snap, req, w)
		release()
		if err != nil {
			return Plan{}, err
		}
		if err := ctx.Err(); err != nil {
			return Plan{}, err
		}
		n := len(plan.Placements)
		err = c.commit(ctx, s.store, &plan, partial)
		if err == nil {
			j.partial = len(plan.Placements) < n
			return plan, nil
		}
		if errors.Is(err, ErrConflict) && attempt >= s.opts.RetryBudget && j.opts.partial && !partial {
			partial = true
		} else if !errors.Is(err, ErrConflict) || attempt >= s.opts.RetryBudget || partial {
			if errors.Is(err, ErrConflict) {
				s.failures.Add(1)
			}
			return Plan{}, AsRequestError(err)
		}
		s.retries.Add(1)
		if m := s.opts.Metrics; m != nil {
			m.retries.Inc()
		}
	}
}

// placeOn places req on snap, from the worker's kept batch w unless the
// Scheduler starts cold. A panic while placing (a bug: placement only
// reads the snapshot) is returned as a *PlacementPanic for Place to raise
// on its caller, and w's batch, whose state it may have left half made,
// is forgotten without being given back. The commit is not guarded so: a
// panic there may have left the Store's state half changed, and ends the
// process.
func (s *Scheduler) placeOn(ctx context.Context, snap *Snapshot, req *Request, w *warmBatch) (plan Plan, err error) {
	defer func() {
		if v := recover(); v != nil {
			w.b = nil
			p := &PlacementPanic{Value: v, Stack: debug.Stack()}
			if sp, ok := v.(*bitmap.ShardPanic); ok { // raised from a shard's goroutine: its stack
				p.Value, p.Stack = sp.Value, sp.Stack
			}
			plan, err = Plan{}, p
		}
	}()
	if s.opts.beforePlace != nil {
		s.opts.beforePlace(req)
	}
	if s.opts.ColdStart || snap.chance() { // the chance scheduler keeps no batch
		return PlaceBatch(ctx, snap, *req)
	}
	plan, warm, err := w.place(ctx, snap, *req, &s.store.Local().changes)
	if warm {
		s.warm.Add(1)
	}
	return plan, err
}

// PlacementPanic is a panic of a Scheduler's worker while it placed a
// request: Place raises it (panics with it) on its caller's goroutine,
// as a handler's panic would be, rather than end the process from the
// worker's; the worker goes on with the next request. Value is what the
// placement panicked with, Stack the stack it panicked on.
type PlacementPanic struct {
	Value any
	Stack []byte
}

func (p *PlacementPanic) Error() string {
	return fmt.Sprintf("engine: placing a request panicked: %v\n\n%s", p.Value, p.Stack)
}

// finish counts a request and its outcome: the request, then Placed,
// then Partial, which Stats reads in the other order (see there).
func (s *Scheduler) finish(j *job, plan Plan, err error, d time.Duration) {
	s.requests.Add(1)
	switch {
	case err == nil:
		s.instances.Add(int64(len(plan.Placements)))
		s.placed.Add(1)
		if j.partial {
			s.partial.Add(1)
		}
	case errors.Is(err, ErrNoValidHost):
		s.nvh.Add(1)
	}
	if m := s.opts.Metrics; m != nil {
		m.observeOutcome(plan, err, d.Seconds())
	}
}

// Stats returns the scheduler's counters. Each is read atomically, not
// all at once: while requests finish, a request may be counted before its
// outcome, but no outcome (Placed, NoValidHost) is counted without its
// request, no Partial without its Placed, and no Placed without its
// Instances (finish counts them in one order, Stats reads them in the
// other).
func (s *Scheduler) Stats() SchedulerStats {
	var st SchedulerStats
	st.Partial = s.partial.Load()
	st.Placed = s.placed.Load()
	st.NoValidHost = s.nvh.Load()
	st.Instances = s.instances.Load()
	st.Requests = s.requests.Load()
	st.ConflictRetries, st.ConflictFailures = s.retries.Load(), s.failures.Load()
	st.WarmStarts, st.CacheRefreshes = s.warm.Load(), s.refreshes.Load()
	return st
}

// Close stops accepting requests (Place returns ErrClosed, also to a
// caller still waiting for room in the queue), lets the workers finish
// every request already queued, and returns when they have. It is safe
// to call more than once.
func (s *Scheduler) Close() error {
	s.mu.Lock()
	first := !s.close
	if first {
		s.close = true
		close(s.closing)
	}
	s.mu.Unlock()
	if first {
		s.senders.Wait() // none puts on the queue once it is closed
		s.queue.close()
	}
	return s.g.Wait()
}

// planUUID matches the field of a plan's instance uuid that Commit names.
var planUUID = regexp.MustCompile(`^plan\.placements\[([0-9]+)\]\.instance_uuid$`)

// AsRequestError names a commit's refusal of a placement's instance uuid
// (a *ValidationError of field plan.placements[i].instance_uuid) by the
// request's field, request.instance_uuids[i], which is what the caller
// gave: in a plan PlaceBatch made of a request, placement i is its
// instance i. Any other error is returned as it is. Scheduler.Place
// does this itself; a caller committing a plan of its own request
// (Store.Commit, a Backend's CommitPlan) may.
func AsRequestError(err error) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	m := planUUID.FindStringSubmatch(ve.Field)
	if m == nil {
		return err
	}
	return &ValidationError{Field: "request.instance_uuids[" + m[1] + "]", Msg: ve.Msg}
}
