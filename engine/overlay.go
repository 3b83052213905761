package engine

import "github.com/placer/placer/bitmap"

// overlay is a batch's usage of the hosts it consumed on and of those in
// its snapshot's usage delta, over the snapshot's columns: a host's usage
// in the batch is its overlay entry when it has one, else its shard's
// columns. The snapshot is never written; everything a placement changes
// lives here, private to the batch.
//
// Invariants: ids lists the overlay's hosts in the order they entered it
// (the snapshot's delta first, then consumption order), each once; res[i]
// is ids[i]'s usage and idx[id] is i; in holds exactly the hosts of ids.
type overlay struct {
	in  *bitmap.Set
	idx map[uint32]int
	ids []uint32
	res []hostRes
}

// reset empties the overlay and seeds it with the usage delta d (Store
// commits, usage past the int32 columns; nil: none): its hosts' columns
// are not their state.
func (o *overlay) reset(d *usageDelta) {
	clear(o.idx)
	o.ids, o.res = o.ids[:0], o.res[:0]
	o.in.Reset()
	if d != nil {
		for i, id := range d.ids {
			o.put(id, d.res[i])
		}
	}
}

// has reports whether host id is in the overlay.
func (o *overlay) has(id uint32) bool { return o.in.Has(id) }

// at returns host id's entry, which must be in the overlay.
func (o *overlay) at(id uint32) *hostRes { return &o.res[o.idx[id]] }

// usage returns host id's usage on s with the overlay: its entry, else its
// shard's columns.
func (o *overlay) usage(s *Snapshot, id uint32) hostRes {
	if o.in.Has(id) {
		return o.res[o.idx[id]]
	}
	sh, j := s.at(id)
	return sh.usageAt(j)
}

// set makes r host id's usage.
func (o *overlay) set(id uint32, r hostRes) {
	if k, ok := o.idx[id]; ok {
		o.res[k] = r
		return
	}
	o.put(id, r)
}

// put adds host id, not yet in the overlay, with usage r.
func (o *overlay) put(id uint32, r hostRes) {
	o.idx[id] = len(o.res)
	o.res = append(o.res, r)
	o.ids = append(o.ids, id)
	o.in.Add(id)
}

// raw is column weigher w's raw value for host id on s with the overlay:
// from the overlay's usage for the hosts it holds, else the shard's raw
// column (shard.rawCol).
func (o *overlay) raw(s *Snapshot, w int, id uint32) float64 {
	sh, j := s.at(id)
	if o.in.Has(id) {
		return sh.rawRes(w, j, &o.res[o.idx[id]])
	}
	col := sh.rawCol(w)
	return col.At(j)
}
