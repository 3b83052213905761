package engine

import (
	"cmp"
	"maps"
	"slices"
	"strings"
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
// against the couple of hundred a realistic request costs. A commit of
// more than a few instances merges them into each host's list at once
// (ledgerPutAllLocked), so that its cost grows with the lists, not with
// their product.

// ledgerPutLocked records instance uuid, committed as e, in the ledger.
func (s *Store) ledgerPutLocked(uuid string, e ledgerEntry) {
	s.ledger[uuid] = e
	l := s.committed[e.host]
	if i, found := slices.BinarySearch(l, uuid); !found {
		// A new list: the old one may be a build's (committedLocked).
		s.committed[e.host] = slices.Insert(slices.Clip(l), i, uuid)
	}
}

// ledgerPut is one instance for ledgerPutAllLocked; id is its host's id
// in the snapshot the caller read (one per call), which groups the puts
// by host with integer comparisons rather than by the host's names.
type ledgerPut struct {
	uuid string
	id   uint32
	e    ledgerEntry
}

// ledgerPutAllLocked records a commit's instances in the ledger: each
// host's list is made anew once per commit, merged with the commit's
// instances on it, sorted, so a plan of n instances on a few hosts copies
// their lists once, not n times (5.5 s to commit 30,000 instances on
// three hosts). put is sorted in place.
func (s *Store) ledgerPutAllLocked(put []ledgerPut) {
	if len(put) <= 8 { // a few copies of short lists cost less than the sort
		for _, p := range put {
			s.ledgerPutLocked(p.uuid, p.e)
		}
		return
	}
	slices.SortFunc(put, func(x, y ledgerPut) int {
		return cmp.Or(cmp.Compare(x.id, y.id), strings.Compare(x.uuid, y.uuid))
	})
	for lo := 0; lo < len(put); {
		host := put[lo].e.host
		hi := lo + 1
		for hi < len(put) && put[hi].id == put[lo].id {
			hi++
		}
		old := s.committed[host]
		l := make([]string, 0, len(old)+hi-lo)
		i := 0
		for _, p := range put[lo:hi] {
			s.ledger[p.uuid] = p.e
			// The old uuids below p's copied as a block: a busy host's
			// list is long, and comparing each of them was most of a
			// commit's ledger work.
			j, found := slices.BinarySearch(old[i:], p.uuid)
			l = append(l, old[i:i+j]...)
			i += j
			if found || len(l) > 0 && l[len(l)-1] == p.uuid {
				continue // already listed (the ledger is a set)
			}
			l = append(l, p.uuid)
		}
		s.committed[host] = append(l, old[i:]...)
		lo = hi
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

// placedSinceLocked is snap's placedSince for the store's committed
// instances (s.committed, per node) and the lists built with s.builtWith:
// per node of snap that is not ironic, the instances committed there and
// not in its built list, and those in its built list committed nowhere
// now. A node whose list is still the one built (the same slice: lists
// are never modified) is skipped, so that a rebuild soon after the last
// costs little; a removed node, whose instances the store forgets, has
// no note.
func (s *Store) placedSinceLocked(snap *Snapshot) *groupTable {
	if !snap.tracksPlaced {
		return nil
	}
	var t *groupTable
	var gone []string
	for hn, now := range s.committed {
		built := s.builtWith[hn]
		if len(now) == len(built) && (len(now) == 0 || &now[0] == &built[0]) || !notedOn(snap, hn) {
			continue
		}
		i, j := 0, 0 // both sorted
		for i < len(now) || j < len(built) {
			switch {
			case j == len(built) || i < len(now) && now[i] < built[j]:
				t = notePlaced(t, nil, now[i], hn.Host)
				i++
			case i == len(now) || built[j] < now[i]:
				gone = append(gone, built[j])
				j++
			default:
				i, j = i+1, j+1
			}
		}
	}
	for hn, built := range s.builtWith {
		if _, merged := s.committed[hn]; !merged && notedOn(snap, hn) {
			gone = append(gone, built...)
		}
	}
	for _, u := range gone {
		if _, placed := t.members(u)[u]; !placed {
			t = noteReleased(t, nil, u, true)
		}
	}
	return t
}

// notedOn reports whether snap notes the instances committed on node hn
// (placedSince): a node of snap that is not ironic, whose instances are
// in its host name's list. Every change notes by it, as the recompute
// does, whatever the change says of the instance (an external one's
// Whole).
func notedOn(snap *Snapshot, hn HostNode) bool {
	id, ok := snap.info.byHostNode(hn)
	return ok && !snap.info.isIronic(id)
}

// notePlacedLocked is cur with uuid committed on node hn: noted there,
// or, when the lists were built holding it on hn (released and committed
// there again), its note taken out (the lists say it).
func (s *Store) notePlacedLocked(cur, parent *groupTable, uuid string, hn HostNode) *groupTable {
	if _, built := slices.BinarySearch(s.builtWith[hn], uuid); built {
		return setGroupPlaced(cur, parent, uuid, uuid, "")
	}
	return notePlaced(cur, parent, uuid, hn.Host)
}
