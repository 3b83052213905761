package engine

import (
	"cmp"
	"slices"
	"sync"
)

// changeLog lists, for a Store's last usage publications, the hosts each
// one changed, so that a worker can bring state it derived from an older
// snapshot up to date by re-deriving only those hosts (warm.go).
//
// Invariants: entries are in increasing version order; every usage
// publication of a version above floor is listed, with every host whose
// usage it changed; a publication that changed more than usage (a
// rebuild) raises floor to its version and empties the log.
type changeLog struct {
	mu      sync.Mutex
	floor   uint64
	entries []changeEntry
}

type changeEntry struct {
	version uint64
	ids     []uint32
}

// maxChangeEntries bounds the log: a worker more publications behind than
// this starts afresh.
const maxChangeEntries = 1024

// add records that the publication of version v changed ids' usage. The
// log keeps ids: the caller must not change it (a commit's overlay is
// dropped once published).
func (l *changeLog) add(v uint64, ids []uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == maxChangeEntries {
		const drop = maxChangeEntries / 4
		l.floor = l.entries[drop-1].version
		l.entries = slices.Delete(l.entries, 0, drop)
	}
	l.entries = append(l.entries, changeEntry{v, ids})
}

// reset empties the log: nothing before version v can be brought up to
// date from it.
func (l *changeLog) reset(v uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.floor, l.entries = v, nil
}

// since appends to dst the hosts changed by the publications of versions
// in (from, to], and reports whether the log covers them all.
func (l *changeLog) since(from, to uint64, dst []uint32) ([]uint32, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from < l.floor {
		return dst, false
	}
	i, _ := slices.BinarySearchFunc(l.entries, from+1, func(e changeEntry, v uint64) int {
		return cmp.Compare(e.version, v)
	})
	for ; i < len(l.entries) && l.entries[i].version <= to; i++ {
		dst = append(dst, l.entries[i].ids...)
	}
	return dst, true
}
