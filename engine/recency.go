package engine

// recency says which hosts a batch chose, and at which instance last:
// Nova hands each instance the list [the host just chosen] + the rest in
// the order it weighed them and sorts it stably, so of hosts of equal
// weight the most recently chosen ranks first (collector.better).
//
// A chosen host has been consumed, so it has a slot in the batch's
// overlay: at holds the instance per overlay slot (-1: a slot of the
// usage delta, or of a host not chosen), read through the overlay's index
// without a map. Invariants: n counts the hosts chosen; at is indexed by
// overlay slot, and a slot past its end was not chosen.
type recency struct {
	ov *overlay
	at []int32
	n  int
}

// reset forgets every choice; ov is the batch's overlay.
func (r *recency) reset(ov *overlay) {
	r.ov, r.at, r.n = ov, r.at[:0], 0
}

func (r *recency) empty() bool { return r.n == 0 }

// add records that instance i chose host id, which its consumption put
// in the overlay.
func (r *recency) add(id uint32, i int32) {
	slot := int(r.ov.idx[id])
	for len(r.at) <= slot {
		r.at = append(r.at, -1)
	}
	if r.at[slot] < 0 {
		r.n++
	}
	r.at[slot] = i
}

// of returns the instance that last chose id, ok false when none did.
func (r *recency) of(id uint32) (int32, bool) {
	if !r.ov.has(id) {
		return 0, false
	}
	if slot := int(r.ov.idx[id]); slot < len(r.at) && r.at[slot] >= 0 {
		return r.at[slot], true
	}
	return 0, false
}

// words returns in dst (wordsPerBlock words of block q) the candidates
// of block q (in) that may have been chosen: the overlay's hosts among
// them; any is false when there are none.
func (r *recency) words(dst []uint64, in []uint64, q int) (words []uint64, any bool) {
	ov := r.ov.in.Words()
	base := q * wordsPerBlock
	dst = dst[:0]
	var or uint64
	for k, w := range in {
		if base+k < len(ov) {
			w &= ov[base+k]
		} else {
			w = 0
		}
		or |= w
		dst = append(dst, w)
	}
	return dst, or != 0
}
