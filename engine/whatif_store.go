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
	tmp.cur.Store(s.cur.Load())
	s.mu.Unlock()
	if err := ValidateAggregateChanges(&tmp.cloud, changes); err != nil {
		return nil, err
	}
	if _, err := tmp.rebuildLocked(tmp.cloud.WithAggregates(changes)); err != nil {
		return nil, err
	}
	return tmp.cur.Load().snap, nil // tmp's alone: its id tells its plans
}
