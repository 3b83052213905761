package bitmap

import "github.com/RoaringBitmap/roaring/v2"

// OrInto adds the hosts of b to s.
func OrInto(s *Set, b *roaring.Bitmap) {
	if b == nil {
		return
	}
	it := b.ManyIterator()
	var buf [256]uint32
	for {
		k := it.NextMany(buf[:])
		if k == 0 {
			return
		}
		for _, h := range buf[:k] {
			s.Add(h)
		}
	}
}

// IntersectsRoaring reports whether s holds any host of b.
func IntersectsRoaring(s *Set, b *roaring.Bitmap) bool {
	it := b.Iterator()
	for it.HasNext() {
		if s.Has(it.Next()) {
			return true
		}
	}
	return false
}

// FromRoaring returns a Set over n hosts holding the hosts of b.
func FromRoaring(n int, b *roaring.Bitmap) *Set {
	s := NewSet(n)
	OrInto(s, b)
	return s
}
