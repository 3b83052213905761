package engine

import (
	"fmt"
	"slices"
	"testing"
)

// TestCommittedListsStayAsTaken checks the invariant the Store's
// per-host committed lists rest on (committed.go): a list, once in the
// map, is never modified, so that the copy a rebuild took reads as it
// was taken while commits and deletions go on, and the Store's own lists
// are the ledger's.
func TestCommittedListsStayAsTaken(t *testing.T) {
	s := &Store{ledger: map[string]ledgerEntry{}, committed: map[HostNode][]string{}}
	h, k, g, f := HostNode{"h", "h"}, HostNode{"k", "k"}, HostNode{"g", "g"}, HostNode{"f", "f"}
	uuid := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	for i := range 6 { // even uuids on h and k: their lists grow by appends, with room to spare
		s.ledgerPutLocked(uuid(2*i), ledgerEntry{host: h})
		s.ledgerPutLocked(uuid(2*i+1000), ledgerEntry{host: k})
	}
	s.ledgerPutLocked(uuid(100), ledgerEntry{host: g})
	taken := s.committedLocked()
	want := map[HostNode][]string{}
	for hn, l := range taken {
		want[hn] = slices.Clone(l)
	}

	s.ledgerPutLocked(uuid(3), ledgerEntry{host: h})       // into the middle of the taken list
	s.ledgerForgetLocked(uuid(1000), ledgerEntry{host: k}) // from the taken list
	s.ledgerPutLocked(uuid(11), ledgerEntry{host: h})      // at the end of h's new list
	s.ledgerForgetLocked(uuid(100), ledgerEntry{host: g})  // g's last
	s.ledgerPutLocked(uuid(200), ledgerEntry{host: f})

	if len(taken) != len(want) {
		t.Fatalf("the taken copy has %d hosts after later changes, want %d", len(taken), len(want))
	}
	for hn, l := range want {
		if !slices.Equal(taken[hn], l) {
			t.Errorf("host %v: the taken list reads %q after later changes, want %q", hn, taken[hn], l)
		}
	}
	wantNow := map[HostNode][]string{
		h: {uuid(0), uuid(2), uuid(3), uuid(4), uuid(6), uuid(8), uuid(10), uuid(11)},
		k: {uuid(1002), uuid(1004), uuid(1006), uuid(1008), uuid(1010)},
		f: {uuid(200)},
	}
	if len(s.committed) != len(wantNow) {
		t.Fatalf("the store holds lists for %d hosts, want %d: %q", len(s.committed), len(wantNow), s.committed)
	}
	for hn, l := range wantNow {
		if !slices.Equal(s.committed[hn], l) {
			t.Errorf("host %v: the store's list is %q, want %q", hn, s.committed[hn], l)
		}
	}
	s.ledgerResetLocked()
	if len(s.committed) != 0 || len(taken[h]) != len(want[h]) {
		t.Errorf("after a reset: %d hosts hold lists; the taken copy's h %q", len(s.committed), taken[h])
	}
}

// BenchmarkLedgerPut times what a commit does per instance under the
// Store's mutex to record it: the ledger's insert alone (what=ledger, the
// baseline) and with the per-host lists kept for rebuilds
// (what=ledger+lists): 200,000 instances over 50,000 hosts, the maps
// starting empty. what=commits16 records them 16 at a time on 4 of 100
// hosts (ledgerPutAllLocked, a large commit's path), so that each host's
// list grows to 2,000 instances: the merge's cost on long lists. One op
// is one instance in every case.
func BenchmarkLedgerPut(b *testing.B) {
	hosts := make([]HostNode, 50000)
	for i := range hosts {
		hosts[i] = HostNode{fmt.Sprintf("compute-%05d", i), fmt.Sprintf("compute-%05d", i)}
	}
	uuids := make([]string, 200000)
	for i := range uuids {
		uuids[i] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i*7919)
	}
	for _, what := range []string{"ledger", "ledger+lists"} {
		b.Run("what="+what, func(b *testing.B) {
			var s *Store
			i := len(uuids)
			for b.Loop() {
				if i == len(uuids) {
					b.StopTimer()
					s, i = &Store{ledger: map[string]ledgerEntry{}, committed: map[HostNode][]string{}}, 0
					b.StartTimer()
				}
				e := ledgerEntry{host: hosts[i*31%len(hosts)]}
				if what == "ledger" {
					s.ledger[uuids[i]] = e
				} else {
					s.ledgerPutLocked(uuids[i], e)
				}
				i++
			}
		})
	}
	b.Run("what=commits16", func(b *testing.B) {
		const per, few = 16, 100
		var s *Store
		i := len(uuids)
		put := make([]ledgerPut, 0, per)
		for b.Loop() {
			if i == len(uuids) {
				b.StopTimer()
				s, i = &Store{ledger: map[string]ledgerEntry{}, committed: map[HostNode][]string{}}, 0
				b.StartTimer()
			}
			id := uint32(i / per * 4 % few) // the commit's first of its 4 hosts
			id += uint32(i % 4)
			put = append(put, ledgerPut{uuid: uuids[i], id: id, e: ledgerEntry{host: hosts[id]}})
			if i++; len(put) == per || i == len(uuids) {
				s.ledgerPutAllLocked(put)
				put = put[:0]
			}
		}
	})
}
