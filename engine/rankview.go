package engine

import (
	"context"

	"github.com/placer/placer/bitmap"
)

// rankView is what a ranker reads of the batch it ranks for, and all it
// reads: the snapshot, the hosts in play and which of their words changed
// since the ranker last looked, the overlay's usage (read only) and the
// weighers' raw values on it, and the batch's scratch memory. A ranker
// writes nothing of the batch but through synced and the scratch. The
// view holds the batch, not copies of its fields: a warm batch (warm.go)
// moves to a newer snapshot under its ranker.
type rankView struct{ b *batch }

// snap is the batch's snapshot.
func (v rankView) snap() *Snapshot { return v.b.s }

// ctx is the batch's context.
func (v rankView) ctx() context.Context { return v.b.ctx }

// chosen is the batch's hosts chosen so far (see collector.better); nil
// when it chose none.
func (v rankView) chosen() *recency {
	if v.b.chosen.empty() {
		return nil
	}
	return &v.b.chosen
}

// alive is the set of the hosts in play (not to be modified).
func (v rankView) alive() *bitmap.Set { return v.b.alive }

// changes returns the words of alive that changed since the ranker last
// called synced; all says that any word may have.
func (v rankView) changes() (words []uint32, all bool) { return v.b.aliveWords, v.b.aliveAll }

// synced notes that the ranker has read every change of alive.
func (v rankView) synced() { v.b.aliveSynced() }

// overlaid reports whether the overlay holds any host (consumed on, or in
// the snapshot's delta).
func (v rankView) overlaid() bool { return len(v.b.ov.ids) > 0 }

// overlayWords is the overlay's set of hosts, as words (not to be
// modified).
func (v rankView) overlayWords() []uint64 { return v.b.ov.in.Words() }

// overlayed reports whether host id is in the overlay.
func (v rankView) overlayed(id uint32) bool { return v.b.ov.has(id) }

// overlayIDs lists the overlay's hosts (not to be modified).
func (v rankView) overlayIDs() []uint32 { return v.b.ov.ids }

// usageOf is the usage of host id, which the overlay holds (not to be
// modified).
func (v rankView) usageOf(id uint32) *hostRes { return v.b.ov.at(id) }

// raw is column weigher w's raw value for host id on the batch's state.
func (v rankView) raw(w int, id uint32) float64 { return v.b.ov.raw(v.b.s, w, id) }

// groupRaw is soft (anti-)affinity weigher w's raw value for host id on
// the batch's state: the number of the group's members on its host,
// negated for anti-affinity (weigh.go's rawValues). Only for a weigher
// that contributes (the group's policy is w's).
func (v rankView) groupRaw(w int, id uint32) float64 {
	return softSign(w) * float64(v.b.group.count[v.b.s.info.instKey(id)])
}

// groupHosts calls f with every host holding a member of the batch's
// group (a node sharing an instance dict with a non-zero count: a host
// name's nodes, or one ironic node), maybe more than once.
func (v rankView) groupHosts(f func(id uint32)) {
	g := v.b.group
	if g == nil {
		return
	}
	var one [1]uint32
	for key, c := range g.count {
		if c != 0 {
			for _, id := range v.b.s.info.instNodes(key, &one) {
				f(id)
			}
		}
	}
}

// metricsValue is MetricsWeigher's raw value for host id, or the error
// Nova raises for it.
func (v rankView) metricsValue(id uint32) (float64, error) { return v.b.metricsValue(id) }

// weighAll weighs every host in play afresh (batch.weigh): the hosts in
// id order and their weights, in the batch's weighScratch.
func (v rankView) weighAll() (cands []uint32, score []float64, err error) {
	err = v.b.weigh()
	return v.b.w.cands, v.b.w.score, err
}

// floats returns a float slice of length m from the batch's scratch.
func (v rankView) floats(m int) []float64 { return v.b.floats(m) }

// set returns an empty host set from the batch's scratch.
func (v rankView) set() *bitmap.Set { return v.b.set() }

// instancesLeft is the number of instances the batch has still to place,
// the current one included.
func (v rankView) instancesLeft() int { return v.b.req.NumInstances - v.b.index }
