package engine

import (
	"sync"
	"sync/atomic"
)

// maxMemo bounds the entries a memoTable keeps.
const maxMemo = 256

// memoTable holds what a hostInfo memoises for the static filters: host
// masks and verdicts keyed by the request parameters they depend on (the
// request's static signature, spelled out in the key), and indexes built
// on first use. Every snapshot a Store derives by commits shares its
// hostInfo, so an entry serves the whole lineage. At most maxMemo entries
// are kept; past that the least recently used gives way.
//
// Invariants: a stored value is never modified; n is the number of
// entries m holds, but while an insertion is between its store and its
// count (it may exceed maxMemo until the evictor catches up).
type memoTable struct {
	m     sync.Map // key string -> *memoEntry
	n     atomic.Int32
	clock atomic.Int64 // the last use stamp handed out
	evict sync.Mutex   // one evictor at a time
}

// memoEntry is a memoised value and its last use.
type memoEntry struct {
	val  any
	used atomic.Int64
}

// get returns the value of key, built by build on first use (or after the
// entry gave way). Concurrent first uses may build it more than once;
// all of them get the first stored.
func (t *memoTable) get(key string, build func() any) any {
	stamp := t.clock.Add(1)
	if e, ok := t.m.Load(key); ok {
		e := e.(*memoEntry)
		e.used.Store(stamp)
		return e.val
	}
	e := &memoEntry{val: build()}
	e.used.Store(t.clock.Add(1))
	if prev, loaded := t.m.LoadOrStore(key, e); loaded {
		return prev.(*memoEntry).val
	}
	if t.n.Add(1) > maxMemo {
		t.evictOldest()
	}
	return e.val
}

// evictOldest drops the least recently used entries until at most
// maxMemo are left.
func (t *memoTable) evictOldest() {
	t.evict.Lock()
	defer t.evict.Unlock()
	for t.n.Load() > maxMemo {
		var oldest any
		best := int64(-1)
		t.m.Range(func(k, v any) bool {
			if u := v.(*memoEntry).used.Load(); best < 0 || u < best {
				oldest, best = k, u
			}
			return true
		})
		if oldest == nil {
			return
		}
		if _, ok := t.m.LoadAndDelete(oldest); ok {
			t.n.Add(-1)
		}
	}
}

// len is the number of entries held.
func (t *memoTable) len() int { return int(t.n.Load()) }
