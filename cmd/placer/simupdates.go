package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/verify"
)

// The changes both updaters (in-process and through etcd) make once each:
// a node added late and an aggregate's metadata set.
var (
	lateNode = engine.Host{Host: "simulate-late-node", MemoryMB: 262144,
		FreeRAMMB: 262144, VCPUs: 64, LocalGB: 2000, FreeDiskGB: 2000}
	maintenance = verify.Event{Kind: verify.SetAggregate, Aggregate: "simulate-maintenance",
		Set: map[string]string{"note": "window"}} // read only
)

// takeCommitted removes a random instance from committed, under mu, and
// returns it ("" when there is none): the next one an updater deletes.
func takeCommitted(r *rand.Rand, mu *sync.Mutex, committed *[]string) string {
	mu.Lock()
	defer mu.Unlock()
	k := len(*committed)
	if k == 0 {
		return ""
	}
	i := r.IntN(k)
	u := (*committed)[i]
	(*committed)[i] = (*committed)[k-1]
	*committed = (*committed)[:k-1]
	return u
}

// externalUpdates is the background stream of outside changes until ctx
// ends: compute node reports (usage unchanged but for finished I/O: the
// host's generation moves, so concurrent plans on it are re-checked),
// deletions of committed instances, and once each a dead node, a new node
// and an aggregate metadata change (whole-snapshot rebuilds). It returns
// the changes the store accepted, each with the version it answered, and
// the errors of those it refused: each is made on the state it reads, so
// the store has no cause to refuse one, but for the deletion of an
// instance whose node was removed (ErrInvalid once a node is gone).
func externalUpdates(ctx context.Context, s *engine.Store, seed uint64, mu *sync.Mutex, committed *[]string, done *atomic.Int64, total int) (evs []verify.Event, errs []string) {
	r := rand.New(rand.NewPCG(seed, 99))
	removed, added, aggregated := false, false, false
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return evs, errs
		case <-tick.C:
		}
		var (
			err  error
			ev   verify.Event
			stop bool
		)
		// A lease, not Snapshot(): the store may then reuse the memory
		// its compactions free.
		s.View(func(snap *engine.Snapshot) {
			progress := float64(done.Load()) / float64(max(total, 1))
			switch {
			case !removed && progress > 0.25 && snap.Len() > 3:
				removed = true
				ev = verify.Event{Kind: verify.RemoveHost, Host: snap.HostNode(uint32(r.IntN(snap.Len())))}
				ev.Version, err = s.RemoveHosts(ev.Host)
			case !added && progress > 0.5:
				added = true
				ev = verify.Event{Kind: verify.AddHost, NewHost: lateNode}
				ev.Version, err = s.AddHosts(ev.NewHost)
			case !aggregated && progress > 0.75:
				aggregated = true
				ev = maintenance
				ev.Version, err = s.SetAggregateMetadata(ev.Aggregate, ev.Set, nil)
			case r.IntN(3) == 0:
				u := takeCommitted(r, mu, committed)
				if u == "" {
					return
				}
				ev = verify.Event{Kind: verify.Delete, Instance: u}
				ev.Version, err = s.DeleteInstance(u)
				if removed && errors.Is(err, engine.ErrInvalid) {
					ev, err = verify.Event{}, nil // gone with the removed node
				} else if err != nil && !errors.Is(err, engine.ErrInvalid) {
					stop = true
				}
			default:
				id := uint32(r.IntN(snap.Len()))
				// The usage as read, with the read's version: the verifier
				// checks it against its own account at that version.
				ev = verify.Event{Kind: verify.Report, Host: snap.HostNode(id), Usage: snap.Usage(id), ReadVersion: snap.Version()}
				ev.Usage.NumIOOps = 0
				ev.Version, err = s.UpdateHost(ev.Host, ev.Usage)
			}
		})
		if err != nil {
			errs = append(errs, fmt.Sprintf("update %d refused: %v", len(evs)+len(errs), err))
		}
		if stop {
			return evs, errs
		}
		if err == nil && ev.Kind != 0 {
			evs = append(evs, ev)
		}
	}
}
