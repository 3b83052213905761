package bitmap

import "github.com/RoaringBitmap/roaring/v2"

// Index is an inverted index: a categorical value -> the hosts that have it.
// It is built once (Add, then Optimize) and read concurrently afterwards.
type Index struct {
	m map[string]*roaring.Bitmap
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{m: make(map[string]*roaring.Bitmap)} }

// Add records that host has value.
func (x *Index) Add(value string, host uint32) {
	b := x.m[value]
	if b == nil {
		b = roaring.New()
		x.m[value] = b
	}
	b.Add(host)
}

// Optimize compresses the bitmaps (run containers); call it once built.
func (x *Index) Optimize() {
	for _, b := range x.m {
		b.RunOptimize()
	}
}

// Get returns the hosts with value, or nil. The bitmap must not be changed.
func (x *Index) Get(value string) *roaring.Bitmap { return x.m[value] }

// Values returns how many distinct values the index holds.
func (x *Index) Values() int { return len(x.m) }

// SizeInBytes is the serialized size of every bitmap of the index.
func (x *Index) SizeInBytes() uint64 {
	var n uint64
	for k, b := range x.m {
		n += b.GetSizeInBytes() + uint64(len(k))
	}
	return n
}

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
