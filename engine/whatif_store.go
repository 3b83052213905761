package engine

import "maps"

// Preview returns the snapshot the store would publish after the
// aggregate changes (SetAggregateMetadata of each, in order), without
// publishing it: the current usage of every host carried over, the
// instances committed through the store on their hosts. It is what a
// capacity question after an aggregate change is asked on; the store is
// not changed. Plans made on it are for reading: Commit refuses them.
//
// The changes are judged by the aggregates they leave, all applied
// (ValidateAggregateChanges): one the store would refuse is a
// *ValidationError naming the last change to it by its index. (So
// [inf, 2] for one multiplier previews as 2, where SetAggregateMetadata
// of each in turn would refuse the first.)
func (s *Store) Preview(changes []AggregateChange) (*Snapshot, error) {
	_, after, err := s.PreviewFrom(changes)
	return after, err
}

// PreviewFrom is Preview, and the store's snapshot it derived the
// preview from: a question asked before and after the changes reads
// the same hosts' usage, what the store published meanwhile in neither.
func (s *Store) PreviewFrom(changes []AggregateChange) (before, after *Snapshot, err error) {
	// The preview may hold the current snapshot's shards (a change no
	// shard column reads keeps them: publishKeptLocked) and is handed out
	// for good, as Snapshot() hands one out: an escape, so that the
	// recycler never reuses their columns (the garbage collector frees
	// them instead). First: see recycler.
	s.rec.escapes.Add(1)
	s.mu.Lock()
	tmp := &Store{
		id:      storeIDs.Add(1),
		preview: true,
		cloud:   s.cloud,
		ledger:  maps.Clone(s.ledger),
		byGroup: s.byGroup, // read only by the rebuild
		// the instance lists of the current snapshot (read only)
		builtWith: s.builtWith,
		committed: maps.Clone(s.committed),
	}
	base := s.cur.Load()
	tmp.cur.Store(base)
	s.mu.Unlock()
	if err := ValidateAggregateChanges(&tmp.cloud, changes); err != nil {
		return nil, nil, err
	}
	if _, err := tmp.rebuildLocked(tmp.cloud.WithAggregates(changes)); err != nil {
		return nil, nil, err
	}
	return base.snap, tmp.cur.Load().snap, nil // after is tmp's alone: its id tells its plans
}
