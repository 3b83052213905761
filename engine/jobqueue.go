package engine

import (
	"context"
	"slices"
	"sync"
)

// jobQueue is the Scheduler's queue of requests waiting for a worker.
//
// Invariants:
//   - room holds one token per job in jobs: a job takes its token before
//     it is appended, and whoever removes it from jobs gives the token
//     back (a worker taking it, or Place abandoning it), so an abandoned
//     request frees its place at once rather than when a worker reaches
//     it, and never twice;
//   - once closed, no job is appended; the workers take what is left and
//     then see the end.
//
// A channel of jobs would keep an abandoned job's slot until a worker
// took it out: under load, callers admitted behind dead jobs blocked
// instead of finding room.
type jobQueue struct {
	room chan struct{}
	mu   sync.Mutex
	cond sync.Cond // signalled on append and on close
	jobs []*job    // first in, first out
	// closed is set by close; get then returns what is left and then nil.
	closed bool
}

func newJobQueue(size int) *jobQueue {
	q := &jobQueue{room: make(chan struct{}, size)}
	q.cond.L = &q.mu
	return q
}

// put appends j once there is room, or returns done's error: ctx's when it
// ends first, ErrClosed when closing is closed first. The caller does not
// put after close (the Scheduler's senders count sees to it).
func (q *jobQueue) put(ctx context.Context, closing <-chan struct{}, j *job) error {
	select {
	case q.room <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-closing:
		return ErrClosed
	}
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	q.mu.Unlock()
	q.cond.Signal()
	return nil
}

// get removes and returns the oldest job, waiting for one; nil once the
// queue is closed and empty.
func (q *jobQueue) get() *job {
	q.mu.Lock()
	for len(q.jobs) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.jobs) == 0 {
		q.mu.Unlock()
		return nil
	}
	j := q.jobs[0]
	q.jobs[0] = nil
	q.jobs = q.jobs[1:]
	q.mu.Unlock()
	<-q.room
	return j
}

// remove takes j out of the queue and reports whether it was there (false:
// a worker has taken it).
func (q *jobQueue) remove(j *job) bool {
	q.mu.Lock()
	i := slices.Index(q.jobs, j)
	if i >= 0 {
		q.jobs = slices.Delete(q.jobs, i, i+1)
	}
	q.mu.Unlock()
	if i < 0 {
		return false
	}
	<-q.room
	return true
}

// close ends the queue: get returns the jobs left, then nil.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
