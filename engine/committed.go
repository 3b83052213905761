package engine

import (
	"maps"
	"slices"
)

// The instances committed through a Store, per host, as a rebuild hands
// them to its build (buildInput.committed: a host's instance list is the
// cloud's and then these). The Store keeps them up to date as its ledger
// changes (Store.committed), so that a rebuild takes a copy of the map,
// one entry per host holding any, rather than going over the ledger:
// the ledger holds every instance committed and not deleted, and a
// rebuild used to copy it under the mutex and then group it by host, a
// cost that grew with the instances (40-110 ms of CPU a rebuild late in
// a `placer simulate` run), not with the hosts. The price is paid per
// instance instead, under the mutex: recording one costs about twice
// the ledger's insert alone (BenchmarkLedgerPut: ~0.8 against ~0.35 µs,
// 200,000 instances over 50,000 hosts), a microsecond or two a request
// against the couple of hundred a realistic request costs.

// ledgerPutLocked records instance uuid, committed as e, in the ledger.
func (s *Store) ledgerPutLocked(uuid string, e ledgerEntry) {
	s.ledger[uuid] = e
	l := s.committed[e.host]
	if i, found := slices.BinarySearch(l, uuid); !found {
		// A new list: the old one may be a build's (committedLocked).
		s.committed[e.host] = slices.Insert(slices.Clip(l), i, uuid)
	}
}

// ledgerForgetLocked takes instance uuid, committed as e, out of the
// ledger.
func (s *Store) ledgerForgetLocked(uuid string, e ledgerEntry) {
	delete(s.ledger, uuid)
	l := s.committed[e.host]
	i, found := slices.BinarySearch(l, uuid)
	switch {
	case !found:
	case len(l) == 1:
		delete(s.committed, e.host)
	default:
		s.committed[e.host] = slices.Delete(slices.Clone(l), i, i+1)
	}
}

// ledgerResetLocked forgets every committed instance.
func (s *Store) ledgerResetLocked() {
	s.ledger = map[string]ledgerEntry{}
	s.committed = map[HostNode][]string{}
}

// committedLocked is the instances committed through the store, per
// host, sorted (buildInput.committed), for a build to read without the
// mutex: the map is a copy, and the lists are never modified (a change
// makes a new one).
func (s *Store) committedLocked() map[HostNode][]string {
	return maps.Clone(s.committed)
}
