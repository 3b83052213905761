package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/placer/placer/bitmap"
)

// Candidate is one host that passed the filters, with its weight.
type Candidate struct {
	ID     uint32
	Host   HostNode
	Weight float64
}

// FilterHosts runs the first instance's pre-filtering and filter chain of
// req against s and returns the hosts that pass, with the per-filter counts
// (stopping at the first filter that leaves none, as Nova does). It is one
// full filter pass: what PlaceBatch does before weighing instance 0.
func FilterHosts(ctx context.Context, s *Snapshot, req Request) (*bitmap.Set, []FilterCount, error) {
	b, err := prepare(ctx, s, req, true)
	if err != nil {
		return nil, nil, err
	}
	defer b.release()
	counts, err := b.filterFirstCounts()
	if err != nil {
		return nil, nil, err
	}
	return b.alive, counts, nil
}

// FilterHostsInto is FilterHosts writing the hosts that pass into dst (a
// set over s.Len() hosts), for callers that filter again and again: it
// takes its working sets from the snapshot's scratch pool and allocates
// nothing per host. dst is left as it was when an error is returned.
func FilterHostsInto(ctx context.Context, s *Snapshot, req Request, dst *bitmap.Set) ([]FilterCount, error) {
	if s != nil && (dst == nil || dst.Len() != s.Len()) {
		return nil, invalid("dst", "FilterHostsInto wants a set over the snapshot's %d hosts", s.Len())
	}
	b, err := prepare(ctx, s, req, false)
	if err != nil {
		return nil, err
	}
	defer b.release()
	counts, err := b.filterFirstCounts()
	if err != nil {
		return nil, err
	}
	dst.CopyFrom(b.alive)
	return counts, nil
}

// WeighHosts weighs the hosts of set (a set over s.Len() hosts) for req's
// first instance, exactly as PlaceBatch does, and returns them best first
// (ties by id). It is one full weigher pass; ctx is checked before it.
func WeighHosts(ctx context.Context, s *Snapshot, req Request, set *bitmap.Set) ([]Candidate, error) {
	if s != nil && (set == nil || set.Len() != s.Len()) {
		return nil, invalid("set", "WeighHosts wants a set over the snapshot's %d hosts", s.Len())
	}
	if s != nil && s.Len()%64 != 0 && set.Words()[len(set.Words())-1]>>(s.Len()%64) != 0 {
		// Set.Add does not check its id: a bit past the last host would
		// be weighed as a host the snapshot does not have.
		return nil, invalid("set", "holds a host id at or past the snapshot's %d hosts", s.Len())
	}
	b, err := prepare(ctx, s, req, true)
	if err != nil {
		return nil, err
	}
	defer b.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.alive = set.Clone()
	if err := b.weigh(); err != nil {
		return nil, err
	}
	out := make([]Candidate, len(b.w.cands))
	for k, id := range b.w.cands {
		out[k] = Candidate{ID: id, Host: s.HostNode(id), Weight: b.w.score[k]}
	}
	slices.SortStableFunc(out, func(x, y Candidate) int { return cmp.Compare(y.Weight, x.Weight) })
	return out, nil
}

// prepare makes the batch of req's first instance on s; keepSets says
// whether the sets it makes escape to the caller (so are never pooled).
func prepare(ctx context.Context, s *Snapshot, req Request, keepSets bool) (*batch, error) {
	if err := checkSnapshot(s); err != nil {
		return nil, err
	}
	r, p, err := prepareRequest(&s.cfg, req)
	if err != nil {
		return nil, err
	}
	b := newBatch(ctx, s, &r, p, rankOptions{})
	b.uuid = r.InstanceUUIDs[0]
	b.keepSets = keepSets
	return b, nil
}
