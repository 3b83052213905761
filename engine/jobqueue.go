package engine

import (
	"context"
	"sync"
)

// jobQueue is the Scheduler's queue of requests waiting for a worker: a
// list through the jobs themselves (job.prev, job.next), first in, first
// out.
//
// Invariants:
//   - room holds one token per job in the list: a job takes its token
//     before it is appended, and whoever takes it out of the list gives
//     the token back (a worker taking it, or Place abandoning it), so an
//     abandoned request frees its place at once rather than when a worker
//     reaches it, and never twice;
//   - a job is in the list exactly when its queued flag is set, under mu;
//     taking one out is O(1) wherever it is (many callers timing out at
//     once each take theirs out);
//   - once closed, no job is appended; the workers take what is left and
//     then see the end.
//
// A channel of jobs would keep an abandoned job's slot until a worker
// took it out: under load, callers admitted behind dead jobs blocked
// instead of finding room.
type jobQueue struct {
	room       chan struct{}
	mu         sync.Mutex
	cond       sync.Cond // signalled on append and on close
	head, tail *job
	// closed is set by close; get then returns what is left and then nil.
	closed bool
}

func newJobQueue(size int) *jobQueue {
	q := &jobQueue{room: make(chan struct{}, size)}
	q.cond.L = &q.mu
	return q
}

// put appends j once there is room, or returns ctx's error when it ends
// first, ErrClosed when closing is closed first. The caller does not put
// after close (the Scheduler's senders count sees to it).
func (q *jobQueue) put(ctx context.Context, closing <-chan struct{}, j *job) error {
	select {
	case q.room <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-closing:
		return ErrClosed
	}
	q.mu.Lock()
	j.prev, j.next, j.queued = q.tail, nil, true
	if q.tail != nil {
		q.tail.next = j
	} else {
		q.head = j
	}
	q.tail = j
	q.mu.Unlock()
	q.cond.Signal()
	return nil
}

// unlinkLocked takes j, which is in the list, out of it.
func (q *jobQueue) unlinkLocked(j *job) {
	if j.prev != nil {
		j.prev.next = j.next
	} else {
		q.head = j.next
	}
	if j.next != nil {
		j.next.prev = j.prev
	} else {
		q.tail = j.prev
	}
	j.prev, j.next, j.queued = nil, nil, false
}

// get removes and returns the oldest job, waiting for one; nil once the
// queue is closed and empty.
func (q *jobQueue) get() *job {
	q.mu.Lock()
	for q.head == nil && !q.closed {
		q.cond.Wait()
	}
	j := q.head
	if j != nil {
		q.unlinkLocked(j)
	}
	q.mu.Unlock()
	if j != nil {
		<-q.room
	}
	return j
}

// remove takes j out of the queue and reports whether it was there (false:
// a worker has taken it).
func (q *jobQueue) remove(j *job) bool {
	q.mu.Lock()
	queued := j.queued
	if queued {
		q.unlinkLocked(j)
	}
	q.mu.Unlock()
	if queued {
		<-q.room
	}
	return queued
}

// close ends the queue: get returns the jobs left, then nil.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
