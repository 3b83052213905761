package engine

import (
	"context"
	"slices"
	"strings"
)

// PlaceBatch places every instance of req against s, one after another, as
// Nova's FilterScheduler does: filter the hosts still in play, weigh them,
// choose at random among the best host_subset_size, consume the flavor on
// the chosen host, go on with the hosts that passed. With the chance
// scheduler configured, it draws hosts as Nova's ChanceScheduler does
// (chance.go).
//
// s is never modified: consumption lives in a private overlay, so many
// goroutines may call PlaceBatch on one snapshot. The result is a pure
// function of (s, req, s.Config().Seed), whatever GOMAXPROCS is.
//
// Errors: a *ValidationError for bad input; a *NoValidHostError
// (errors.Is(err, ErrNoValidHost)) when an instance finds no host, in which
// case the returned Plan is empty and the error carries the tentative
// choices; a *MetricNotFoundError or *NovaError where Nova would raise;
// ctx.Err() when the context ends (checked between instances and shards).
func PlaceBatch(ctx context.Context, s *Snapshot, req Request) (Plan, error) {
	return placeBatch(ctx, s, req, rankOptions{})
}

// checkSnapshot refuses what is not a snapshot NewSnapshot or a Store
// built: nil, or a zero Snapshot.
func checkSnapshot(s *Snapshot) error {
	switch {
	case s == nil:
		return invalid("", "nil snapshot")
	case s.info == nil:
		return invalid("", "a zero Snapshot: snapshots come from NewSnapshot or a Store")
	}
	return nil
}

// placeBatch is PlaceBatch ranking as opts say.
func placeBatch(ctx context.Context, s *Snapshot, req Request, opts rankOptions) (Plan, error) {
	if err := checkSnapshot(s); err != nil {
		return Plan{}, err
	}
	r, p, err := prepareRequest(&s.cfg, req)
	if err != nil {
		return Plan{}, err
	}
	if s.chance() {
		return chancePlace(ctx, s, &r)
	}
	b := newBatch(ctx, s, &r, p, opts)
	defer b.release()
	return b.place(false)
}

// place runs the placement loop of PlaceBatch over the batch's request;
// warm says that instance 0's candidates and ranker are already in place
// (warm.go), so that its filtering is skipped.
func (b *batch) place(warm bool) (Plan, error) {
	ctx, s, r := b.ctx, b.s, b.req
	n := r.NumInstances
	placements := make([]Placement, 0, n)
	selected := make([]uint32, 0, n)
	var dirty []uint32
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return Plan{}, err
		}
		b.index, b.uuid = i, r.InstanceUUIDs[i]
		var nvh *NoValidHostError
		var err error
		switch {
		case i == 0 && warm:
		case i == 0:
			nvh, err = b.filterFirst()
		default:
			nvh, err = b.filterNext(dirty, r.InstanceUUIDs[i-1])
		}
		if err == nil && nvh != nil {
			err = nvh
		}
		var best, ties []scored
		if err == nil {
			best, ties, err = b.rank(dirty)
		}
		if err != nil {
			return Plan{}, b.fail(err, placements)
		}
		c := b.choose(best, ties)
		id := c.id
		placements = append(placements, b.placement(id, c.score, b.candidates))
		selected = append(selected, id)
		if n == 1 {
			// A one-instance request's alternates rank on instance 0's
			// weights, from before its consumption (Nova's weighed list):
			// taken before consuming, so that the weights the ranker
			// computes afresh for them (the exact top of scaled weights)
			// are of that state too.
			if err := b.alternates(placements, selected, nil); err != nil {
				return Plan{}, b.fail(err, nil)
			}
		}
		dirty = b.consume(id, b.uuid, dirty[:0])
		if i < n-1 { // the next instances rank it first among its equals
			b.chosen.add(id, int32(i))
		}
	}
	if n > 1 {
		if err := b.alternates(placements, selected, dirty); err != nil {
			return Plan{}, b.fail(err, placements[:n-1])
		}
	}
	// Commit layer (store.go): the plan carries its claim, group and
	// whether the filters were skipped, so that Store.Commit can re-check
	// it on hosts that changed.
	return Plan{BaseVersion: s.version, Placements: placements, Claim: b.claim, Group: groupClaimOf(r), Forced: b.forced, store: s.store}, nil
}

// fail completes an error with the instance it happened at and the
// tentative placements made before it.
func (b *batch) fail(err error, tentative []Placement) error {
	switch e := err.(type) {
	case *NoValidHostError:
		e.InstanceIndex, e.InstanceUUID, e.Tentative = b.index, b.uuid, tentative
	case *MetricNotFoundError:
		e.InstanceIndex, e.InstanceUUID, e.Tentative = b.index, b.uuid, tentative
	case *NovaError:
		e.InstanceIndex, e.InstanceUUID, e.Tentative = b.index, b.uuid, tentative
	}
	return err
}

func (b *batch) placement(id uint32, weight float64, candidates int) Placement {
	info := b.s.info
	host, node := ownNames(info.hostOf(id), info.nodeOf(id))
	return Placement{
		InstanceUUID: b.uuid, HostID: id,
		Host: host, Node: node, Cell: info.cells[info.cell.At(id)],
		Weight: weight, Candidates: candidates, Limits: b.limitsOf(id),
	}
}

// ownNames returns copies of a host's names, in one allocation: a
// snapshot's names are slices of one text of every host's names
// (hostcols.Names), which a string kept from it keeps alive whole. A plan
// (its placements and alternates, the chance scheduler's too) outlives
// its snapshot in the Store's ledger and in the caller's hands: sharing
// the text, a long-running Store kept the names of every snapshot it had
// rebuilt (placer soak's heap grew 2.5x in 40 s). What lives only as long
// as an answer (explanations, dry runs) still shares it.
func ownNames(host, node string) (string, string) {
	if node == host {
		host = strings.Clone(host)
		return host, host
	}
	both := host + node
	return both[:len(host)], both[len(host):]
}

// choose picks among the best host_subset_size candidates (after shuffling
// the hosts tied at the top weight, when configured) with the batch's
// seeded generator. best holds the top min(host_subset_size, candidates)
// in rank order; ties holds every candidate tied at the top weight, in
// rank order (only needed when shuffling).
func (b *batch) choose(best, ties []scored) scored {
	sub := len(best)
	if b.cfg.ShuffleBestSameWeighedHosts {
		b.rng.Shuffle(len(ties), func(i, j int) { ties[i], ties[j] = ties[j], ties[i] })
		if len(ties) < sub {
			ties = append(ties, best[len(ties):]...)
		}
		best = ties
	}
	return best[b.rng.IntN(sub)]
}

// alternates fills each placement's alternates as _get_alternate_hosts
// does: from the hosts that pass after the last instance (re-filtered and
// re-weighed when there were several instances, instance 0's candidates
// otherwise), hosts of the selected host's cell that are not a selected
// host, best first, up to max_attempts - 1.
func (b *batch) alternates(placements []Placement, selected []uint32, dirty []uint32) error {
	numAlts := b.cfg.MaxAttempts - 1
	if numAlts <= 0 || len(placements) == 0 {
		return nil
	}
	if len(placements) > 1 {
		nvh, err := b.filterNext(dirty, b.uuid)
		if err != nil {
			return err
		}
		if nvh != nil {
			return nil // no host passes any more: no alternates
		}
		b.rk.update(dirty)
		b.candidates = b.rk.size()
		if err := b.rk.check(); err != nil {
			return err
		}
	}
	isSelected := b.set()
	for _, id := range selected {
		isSelected.Add(id)
	}
	info := b.s.info
	perCell := make(map[int32][]HostNode)
	for _, id := range selected {
		// Only the cells of the selected hosts: theirs are the only
		// alternates asked for.
		c := int32(info.cell.At(id))
		if _, done := perCell[c]; done {
			continue
		}
		perCell[c] = nil
		keep := func(id uint32) bool { return info.cell.At(id) == uint64(c) && !isSelected.Has(id) }
		best, _ := b.rk.top(numAlts, false, keep, c)
		for _, x := range best {
			host, node := ownNames(info.hostOf(x.id), info.nodeOf(x.id))
			perCell[c] = append(perCell[c], HostNode{Host: host, Node: node})
		}
	}
	for i := range placements {
		placements[i].Alternates = slices.Clone(perCell[int32(info.cell.At(selected[i]))])
	}
	return nil
}
