package engine

import (
	"strings"

	"github.com/placer/placer/bitmap"
)

// The filter chain driver: how the enabled filters run over the hosts,
// as nova/filters.py runs them. Instance 0 puts every host in play,
// pre-filters them (prefilter) and runs the whole chain (runChain), fused
// into shard passes where it can; a later instance re-tests only the
// hosts the last placement changed (filterNext), and replays the chain
// only to explain a NoValidHost. Each filter is the catalogue's
// (filters.go).

// startFilter puts every host in play and pre-filters them; false means
// ignore_hosts left nothing (no filter runs).
func (b *batch) startFilter() bool {
	b.alive = b.set()
	b.alive.Fill()
	return b.prefilter(b.alive)
}

// prefilter is HostManager.get_filtered_hosts before the filters run:
// requested_destination, ignore_hosts, force_hosts, force_nodes. It
// returns false when ignore_hosts left nothing (Nova returns [] without
// running any filter).
func (b *batch) prefilter(set *bitmap.Set) bool {
	info, r := b.s.info, b.req
	if d := r.RequestedDestination; d != nil {
		keep := b.set()
		for id := range info.byHostLower(strings.ToLower(d.Host)).All() {
			if info.hostOf(id) == d.Host && (d.Node == "" || info.nodeOf(id) == d.Node) {
				keep.Add(id)
			}
		}
		set.And(keep)
	}
	if len(r.IgnoreHosts) > 0 {
		for _, h := range r.IgnoreHosts {
			for id := range info.byHostLower(strings.ToLower(h)).All() {
				set.Remove(id)
			}
		}
		if set.Count() == 0 {
			return false
		}
	}
	if len(r.ForceHosts) > 0 {
		keep := b.set()
		for _, h := range r.ForceHosts {
			for id := range info.byHostLower(strings.ToLower(h)).All() {
				keep.Add(id)
			}
		}
		set.And(keep)
	}
	if len(r.ForceNodes) > 0 {
		keep := b.set()
		for _, node := range r.ForceNodes {
			for id := range info.byNode(node).All() {
				keep.Add(id)
			}
		}
		set.And(keep)
	}
	b.forced = len(r.ForceHosts) > 0 || len(r.ForceNodes) > 0
	return true
}

// filterFirst filters every host for instance 0. It returns a
// *NoValidHostError (without index or tentative placements) when nothing
// passes.
func (b *batch) filterFirst() (*NoValidHostError, error) {
	ran := b.startFilter()
	if !ran || b.forced {
		if n := b.alive.Count(); n == 0 {
			return &NoValidHostError{InPlay: b.s.n, Prefiltered: n}, nil
		}
		return nil, nil
	}
	// The chain runs uncounted: the counts only explain a NoValidHost,
	// and then the chain runs again, counted, over the prefiltered set
	// (the same filters run on the same hosts, in the same order: the
	// uncounted run stops where the counted one would, at the first
	// filter, or fused run, after which no host is left).
	if b.prev == nil {
		b.prev = b.set()
	}
	prefiltered := b.prev
	prefiltered.CopyFrom(b.alive)
	if _, err := b.runChain(b.alive, false, false); err != nil {
		return nil, err
	}
	if b.alive.Any() {
		return nil, nil
	}
	counts, err := b.runChain(prefiltered, false, true)
	if err != nil {
		return nil, err
	}
	// The chain's counts start from the prefiltered set.
	n := 0
	if len(counts) > 0 {
		n = counts[0].Start
	}
	return &NoValidHostError{InPlay: b.s.n, Prefiltered: n, Filters: counts}, nil
}

// filterFirstCounts is filterFirst returning the counts even on success.
func (b *batch) filterFirstCounts() ([]FilterCount, error) {
	if !b.startFilter() || b.forced {
		return nil, nil
	}
	return b.runChain(b.alive, false, true)
}

// runChain runs the enabled filters in order over set (the once-per-request
// ones only when not later), recording (name, start, end) and stopping at the
// first filter that leaves no host, as nova/filters.py does.
//
// A run of consecutive filters that each have a column form for this
// request (ComputeFilter, AvailabilityZoneFilter, RamFilter, CoreFilter,
// the static filters' memoised masks, ...: stageOf) is one pass over the
// shards, each shard going through every stage of the run (applyFused),
// which counts too; the counts after each are the same as filter by
// filter, and a filter after the one that emptied the set changes
// nothing. No stage can raise: a filter from which a Nova exception may
// surface runs alone, in its place, through apply. A filter that keeps
// every host for this request (keepsAll) is recorded without a pass.
//
// Uncounted (count false), it records nothing and returns no counts, and
// stops after the first filter or fused run that leaves no host.
func (b *batch) runChain(set *bitmap.Set, later, count bool) ([]FilterCount, error) {
	var counts []FilterCount
	if count {
		counts = make([]FilterCount, 0, len(b.filters))
	}
	start := -1 // the set's count, taken when first needed
	chain := b.filters
	var run []stage
	var runBuf [catalogueSize]stage
	var ran uint64 // the filters run on set so far (bits of filterImpl.idx)
	for i := 0; i < len(chain); i++ {
		f := chain[i]
		if later && f.once {
			continue
		}
		run = runBuf[:0]
		j := i
		for ; j < len(chain); j++ {
			g := chain[j]
			if later && g.once {
				continue
			}
			if !g.fusable() {
				break
			}
			st, ok := b.stageOf(g)
			if !ok {
				break
			}
			if g.afterTwin != nil && ran&(1<<g.twinIdx) != 0 {
				// Every host of set passed its twin: without kept
				// verdicts (st.fit, which hold for any set), the pass
				// judges only the hosts where the two may differ.
				st.kernel = g.afterTwin
			}
			run = append(run, st)
			ran |= 1 << g.idx
		}
		if len(run) > 0 {
			first, ends, err := b.applyFused(set, run, count)
			if err != nil {
				return nil, err
			}
			if !count {
				if !set.Any() {
					return nil, nil
				}
				i = j - 1
				continue
			}
			if start < 0 {
				start = first
			}
			for x, end := range ends {
				counts = append(counts, FilterCount{Name: run[x].f.name, Start: start, End: end})
				if end == 0 {
					return counts, nil
				}
				start = end
			}
			i = j - 1
			continue
		}
		if count && start < 0 {
			start = set.Count()
		}
		end := start
		if f.keepsAll == nil || !f.keepsAll(b) {
			if err := f.apply(b, set); err != nil {
				return nil, err
			}
			if count {
				end = set.Count()
			}
		}
		ran |= 1 << f.idx
		if !count {
			if !set.Any() {
				break
			}
			continue
		}
		counts = append(counts, FilterCount{Name: f.name, Start: start, End: end})
		if end == 0 {
			break
		}
		start = end
	}
	return counts, nil
}

// filterNext filters for instance b.index > 0. Only the hosts whose state
// changed (dirty) can change verdict, plus the set-wide group.hosts rule of
// the affinity filter: every other host in play passed the same filters on
// the same state for the previous instance.
func (b *batch) filterNext(dirty []uint32, prevUUID string) (*NoValidHostError, error) {
	if b.forced {
		return nil, nil
	}
	if b.prev == nil {
		b.prev = b.set()
	}
	prev := b.prev
	prev.CopyFrom(b.alive)
	if g := b.group; g != nil && g.policy == PolicyAntiAffinity {
		// The anti-affinity verdict of a host running the instance's own
		// uuid depends on which instance is being placed.
		for _, u := range [2]string{prevUUID, b.uuid} {
			for nid := range b.s.info.instances.NamesOf(u) {
				var one [1]uint32
				dirty = append(dirty, b.s.info.instNodes(nid, &one)...)
			}
		}
	}
	for _, id := range dirty {
		if !b.alive.Has(id) {
			continue
		}
		for _, f := range b.filters {
			if f.once || f.host == nil {
				continue
			}
			ok, err := f.host(b, id)
			if err != nil {
				return nil, err
			}
			if !ok {
				b.alive.Remove(id)
				b.aliveWords = append(b.aliveWords, id>>6)
				break
			}
		}
	}
	for _, f := range b.filters {
		if !f.once && f.whole != nil && f.whole(b, b.alive) {
			b.aliveAll = true
		}
	}
	if b.alive.Any() {
		return nil, nil
	}
	// Explain: replay the per-instance filters on the hosts in play.
	inPlay := prev.Count()
	counts, err := b.runChain(prev, true, true)
	if err != nil {
		return nil, err
	}
	return &NoValidHostError{InPlay: inPlay, Prefiltered: inPlay, Filters: counts}, nil
}

// refilter runs instance 0's filters over set, which holds ids: the
// per-host test of the filters that have one (what later instances run on
// the hosts a placement changed), the others' set-wide pass.
func (b *batch) refilter(set *bitmap.Set, ids []uint32) error {
	for _, f := range b.filters {
		if set.Count() == 0 {
			return nil
		}
		if f.host == nil {
			if err := f.apply(b, set); err != nil {
				return err
			}
			continue
		}
		for _, id := range ids {
			if !set.Has(id) {
				continue
			}
			ok, err := f.host(b, id)
			if err != nil {
				return err
			}
			if !ok {
				set.Remove(id)
			}
		}
	}
	return nil
}
