package bitmap

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// ParallelMinHosts is the host count below which ForShards runs on the
// calling goroutine: under it, handing shards out costs more than it saves.
const ParallelMinHosts = 2 * ShardSize

// DefaultHelperSpin is how long, by default, a helper goroutine of
// ForShards keeps polling for the next pass after finishing one before it
// parks. A parked helper takes the operating system a wake-up to resume:
// on the virtual machines this project runs on that is 100-300 µs, longer
// than a whole filter pass at 50,000 hosts, so a parked helper joins too
// late to help. While it polls it yields to every other runnable goroutine
// (runtime.Gosched), so it only uses a processor nothing else wants.
const DefaultHelperSpin = 2 * time.Millisecond

var helperSpin atomic.Int64

func init() { helperSpin.Store(int64(DefaultHelperSpin)) }

// SetHelperSpin sets how long helpers poll before they park (0: at once)
// and returns the previous setting.
func SetHelperSpin(d time.Duration) time.Duration {
	return time.Duration(helperSpin.Swap(int64(d)))
}

type sequentialKey struct{}

// Sequential returns a context under which ForShards runs every shard on
// the calling goroutine: for callers that already keep the processors
// busy (a pool of placement workers), where handing shards out would only
// add hand-offs.
func Sequential(ctx context.Context) context.Context {
	return context.WithValue(ctx, sequentialKey{}, true)
}

// ForShards calls fn(k) for every shard k of a set over n hosts. With at
// least ParallelMinHosts hosts, GOMAXPROCS above 1 and a context not made
// by Sequential, the shards run in parallel: the caller takes them from
// the front and up to GOMAXPROCS-1 helper goroutines (started on first
// use, kept for the life of the process, parked when idle; see
// DefaultHelperSpin) from the back, until none is left. One ForShards at a
// time has the helpers; a concurrent one runs its shards on its own
// goroutine (the processors are busy anyway). fn must only touch its own
// shard.
//
// The error is deterministic, whatever GOMAXPROCS: the error of the lowest
// shard that failed (a shard stops at its first error, so with fn walking
// its hosts in order that is the first failing host, as a sequential walk
// would find it), else ctx.Err() if the context ended (checked between
// shards), else nil. A panic of fn, on the caller's goroutine or a
// helper's, stops the pass like an error (no shard above it starts) and
// is raised again on the caller's goroutine once every shard running has
// returned, as a *ShardPanic holding the value and the stack where it
// happened: nothing of the pass runs after ForShards, and the helpers are
// free for the next one.
func ForShards(ctx context.Context, n int, fn func(k int) error) error {
	shards := (n + ShardSize - 1) / ShardSize
	procs := runtime.GOMAXPROCS(0)
	if n < ParallelMinHosts || procs == 1 || shards == 1 || ctx.Value(sequentialKey{}) != nil || !helpers.claim(procs-1) {
		for k := 0; k < shards; k++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(k); err != nil {
				return err
			}
		}
		return nil
	}
	j := &pass{ctx: ctx, fn: fn, shards: int64(shards), errs: make([]error, shards)}
	j.ends.Store(uint64(shards) << 32)
	helpers.post(j)
	j.work(false)
	helpers.release(j)
	if p := j.panicked.Load(); p != nil {
		panic(p)
	}
	for _, err := range j.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pass is one parallel ForShards: its shards go to whoever takes them.
type pass struct {
	ctx    context.Context
	fn     func(k int) error
	shards int64
	ends   atomic.Uint64 // untaken shards [lo, hi): hi<<32 | lo
	done   atomic.Int64  // shards finished
	failed atomic.Int64  // lowest failed shard + 1, 0 while none failed
	errs   []error
	// panicked is the first panic of fn in the pass, raised again by
	// ForShards once the pass is over.
	panicked atomic.Pointer[ShardPanic]
}

// ShardPanic is what a parallel ForShards panics with when a shard's
// function panicked: the value, and the stack of the goroutine it
// panicked on (a helper's, or the caller's before the pass ended).
type ShardPanic struct {
	Value any
	Stack []byte
}

func (p *ShardPanic) Error() string {
	return fmt.Sprintf("bitmap: a shard's function panicked: %v\n\n%s", p.Value, p.Stack)
}

// work takes and runs shards until none is left: the caller from the
// front, helpers from the back. Each end keeps to its half from pass to
// pass, so a shard's columns tend to be read by the same processor each
// time and stay in its cache (taking shards in one shared order moved
// them between the processors' caches: no gain from the second core).
func (j *pass) work(fromBack bool) {
	for {
		e := j.ends.Load()
		lo, hi := int64(e&0xffffffff), int64(e>>32)
		if lo >= hi {
			return
		}
		k, next := lo, uint64(hi)<<32|uint64(lo+1)
		if fromBack {
			k, next = hi-1, uint64(hi-1)<<32|uint64(lo)
		}
		if !j.ends.CompareAndSwap(e, next) {
			continue
		}
		j.run(int(k))
		j.done.Add(1)
	}
}

// left reports whether j has shards no one took yet.
func (j *pass) left() bool {
	e := j.ends.Load()
	return e&0xffffffff < e>>32
}

func (j *pass) run(k int) {
	if f := j.failed.Load(); f != 0 && int(f-1) < k {
		return // a lower shard failed: its error wins
	}
	if err := j.ctx.Err(); err != nil {
		j.errs[k] = err
		return
	}
	if err := j.call(k); err != nil {
		j.errs[k] = err
		for {
			f := j.failed.Load()
			if (f != 0 && int(f-1) < k) || j.failed.CompareAndSwap(f, int64(k+1)) {
				return
			}
		}
	}
}

// errPanicked is a shard's error when its fn panicked (the panic itself
// is raised again by ForShards).
var errPanicked = errors.New("bitmap: a shard's function panicked")

// call is j.fn(k), a panic recorded as the pass's and returned as
// errPanicked: the shard counts as done, so the pass ends and frees the
// helpers, and a helper's panic does not end the process.
func (j *pass) call(k int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			j.panicked.CompareAndSwap(nil, &ShardPanic{Value: p, Stack: debug.Stack()})
			err = errPanicked
		}
	}()
	return j.fn(k)
}

// helperPool is the process's ForShards helpers.
//
// Invariants: at most one pass is posted at a time (owned guards it);
// current is the posted pass or nil; a helper only runs shards of a pass
// it loaded from current, and the owner returns only once every shard of
// its pass is done, so no helper touches a pass after ForShards returns.
type helperPool struct {
	owned   atomic.Bool
	current atomic.Pointer[pass]
	parked  atomic.Int32
	wake    chan struct{}
	mu      sync.Mutex
	started int
}

var helpers = helperPool{wake: make(chan struct{}, 64)}

// claim takes the helpers for one pass, starting them up to want (at most
// 64); false if another pass has them.
func (h *helperPool) claim(want int) bool {
	if !h.owned.CompareAndSwap(false, true) {
		return false
	}
	want = min(want, cap(h.wake))
	if h.started < want { // only the owner reads or writes started
		h.mu.Lock()
		for ; h.started < want; h.started++ {
			go h.loop()
		}
		h.mu.Unlock()
	}
	return true
}

// post publishes j and wakes the parked helpers.
func (h *helperPool) post(j *pass) {
	h.current.Store(j)
	for range h.parked.Load() {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// release withdraws j once every shard of it is done, and frees the
// helpers for the next pass.
func (h *helperPool) release(j *pass) {
	h.current.Store(nil)
	for j.done.Load() < j.shards {
		runtime.Gosched()
	}
	h.owned.Store(false)
}

// loop is a helper: it runs the shards of posted passes, polls for the
// next one for a while after each (SetHelperSpin), then parks until woken.
func (h *helperPool) loop() {
	for {
		spin := time.Duration(helperSpin.Load())
		deadline := time.Now().Add(spin)
		for time.Now().Before(deadline) {
			if j := h.current.Load(); j != nil && j.left() {
				j.work(true)
				deadline = time.Now().Add(spin)
				continue
			}
			runtime.Gosched()
		}
		h.parked.Add(1)
		if j := h.current.Load(); j == nil || !j.left() {
			<-h.wake
		}
		h.parked.Add(-1)
	}
}
