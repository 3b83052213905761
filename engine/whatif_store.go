package engine

import "maps"

// Preview returns the snapshot the store would publish after the
// aggregate changes (SetAggregateMetadata of each, in order), without
// publishing it: the current usage of every host carried over, the
// instances committed through the store on their hosts. It is what a
// capacity question after an aggregate change is asked on; the store is
// not changed.
func (s *Store) Preview(changes []AggregateChange) (*Snapshot, error) {
	s.mu.Lock()
	tmp := &Store{
		cloud:   s.cloud,
		ledger:  maps.Clone(s.ledger),
		byGroup: s.byGroup, // read only by the rebuild
		// the instance lists of the current snapshot (read only)
		builtWith: s.builtWith,
	}
	tmp.cur.Store(s.cur.Load())
	s.mu.Unlock()
	if _, err := tmp.rebuildLocked(tmp.cloud.WithAggregates(changes)); err != nil {
		return nil, err
	}
	return tmp.cur.Load().snap, nil
}
