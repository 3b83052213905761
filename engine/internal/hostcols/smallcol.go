package hostcols

import "math"

// Idx is a read-only column of unsigned integers — per host, an index
// into a table of distinct values (cells, hypervisor models, stats,
// aggregate classes), or an offset — each kept in the narrowest of 1, 2,
// 4 and 8 bytes that holds the column's largest value: the tables a cloud
// indexes per host are small, and an []int32 per table cost 4 bytes per
// host where one byte holds up to 256 entries.
//
// Invariants: at most one of u8, u16, u32 and u64 is not nil, and it has
// the column's length (none: the column is empty); it is the narrowest of
// them that holds every value set (IdxBuilder widens on the first value
// that does not fit). Never modified once built.
type Idx struct {
	u8  []uint8
	u16 []uint16
	u32 []uint32
	u64 []uint64
}

// At is element i (a host id).
func (c *Idx) At(i uint32) uint64 {
	switch {
	case c.u8 != nil:
		return uint64(c.u8[i])
	case c.u16 != nil:
		return uint64(c.u16[i])
	case c.u32 != nil:
		return uint64(c.u32[i])
	}
	return c.u64[i]
}

// Len is the column's length.
func (c *Idx) Len() int {
	return len(c.u8) + len(c.u16) + len(c.u32) + len(c.u64)
}

// Bytes is the size of an element (0: empty).
func (c *Idx) Bytes() int {
	switch {
	case c.u8 != nil:
		return 1
	case c.u16 != nil:
		return 2
	case c.u32 != nil:
		return 4
	case c.u64 != nil:
		return 8
	}
	return 0
}

// IdxBuilder fills an Idx of n elements (all 0 to begin with), one
// byte each until a value needs more.
type IdxBuilder struct{ col Idx }

// NewIdxBuilder returns a builder of a column of n elements.
func NewIdxBuilder(n int) *IdxBuilder {
	return &IdxBuilder{col: Idx{u8: make([]uint8, n)}}
}

// Set sets element i to v, widening the column first if v does not fit.
func (b *IdxBuilder) Set(i uint32, v uint64) {
	c := &b.col
	switch {
	case c.u8 != nil && v <= math.MaxUint8:
		c.u8[i] = uint8(v)
		return
	case c.u16 != nil && v <= math.MaxUint16:
		c.u16[i] = uint16(v)
		return
	case c.u32 != nil && v <= math.MaxUint32:
		c.u32[i] = uint32(v)
		return
	case c.u64 != nil:
		c.u64[i] = v
		return
	}
	b.widen(v)
	b.Set(i, v)
}

// widen moves the column to the narrowest width that holds v.
func (b *IdxBuilder) widen(v uint64) {
	c := &b.col
	n := c.Len()
	var w Idx
	switch {
	case v <= math.MaxUint16:
		w.u16 = make([]uint16, n)
	case v <= math.MaxUint32:
		w.u32 = make([]uint32, n)
	default:
		w.u64 = make([]uint64, n)
	}
	for i := range uint32(n) {
		x := c.At(i)
		switch {
		case w.u16 != nil:
			w.u16[i] = uint16(x)
		case w.u32 != nil:
			w.u32[i] = uint32(x)
		default:
			w.u64[i] = x
		}
	}
	*c = w
}

// Done returns the column.
func (b *IdxBuilder) Done() Idx { return b.col }

// MaskWordsOf sets in words bit t of word wi where pass[c[lo+wi*64+t]] is
// 1 (pass holds 0 or 1 per value), for the column's elements [lo, hi).
func (c *Idx) MaskWordsOf(lo, hi int, words, pass []uint64) {
	switch {
	case c.u8 != nil:
		maskWords(words, c.u8[lo:hi], pass)
	case c.u16 != nil:
		maskWords(words, c.u16[lo:hi], pass)
	case c.u32 != nil:
		maskWords(words, c.u32[lo:hi], pass)
	case c.u64 != nil:
		maskWords(words, c.u64[lo:hi], pass)
	}
}

// maskWords is maskWordsOf on one width: without a branch per element.
func maskWords[T uint8 | uint16 | uint32 | uint64](words []uint64, ids []T, pass []uint64) {
	for wi := range words {
		var w uint64
		for t, c := range ids[wi*64 : min(wi*64+64, len(ids))] {
			w |= pass[c] << t
		}
		words[wi] |= w
	}
}

// Ints is a read-only column of int64 values kept as their distance from
// the smallest (an Idx): a column whose values lie within 256 of each
// other takes one byte per host, where an []int64 cost eight.
//
// Invariants: element i is base + int64(off.At(i)), in int64's wrapping
// arithmetic (exact: off.At(i) is the element's distance from base, which
// is the smallest element, up to 2^64-1); off has the column's length.
type Ints struct {
	base int64
	off  Idx
}

// NewInts returns the column of n elements whose element i is at(i)
// (called twice per element).
func NewInts(n int, at func(i int) int64) Ints {
	if n == 0 {
		return Ints{}
	}
	base := at(0)
	for i := 1; i < n; i++ {
		base = min(base, at(i))
	}
	b := NewIdxBuilder(n)
	for i := range n {
		b.Set(uint32(i), uint64(at(i)-base))
	}
	return Ints{base: base, off: b.Done()}
}

// At is element i (a host id).
func (c *Ints) At(i uint32) int64 { return c.base + int64(c.off.At(i)) }

// Bytes is the size of an element (0: empty).
func (c *Ints) Bytes() int { return c.off.Bytes() }
