//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// colReader loads a Col eight elements at a time, with what the loads
// take (a coded column's table and the code shifts, the clamp) in vectors
// made once per kernel rather than once per load.
type colReader struct {
	c      Col
	min    archsimd.Int32x8
	lo, hi archsimd.Float64x8
	shifts archsimd.Uint64x8
}

// reader returns c's reader (a copy of c: the caller's Col stays a value
// the compiler keeps in registers).
func (c Col) reader() colReader {
	var r colReader
	r.init(&c)
	return r
}

// init makes r c's reader in place (as reader does, without returning
// the reader by value: for one block, the copies cost more than the loads).
func (r *colReader) init(c *Col) {
	r.c = *c
	r.min = archsimd.BroadcastInt32x8(c.min)
	if c.kind >= colStatic && c.l.tab != nil {
		r.lo, r.hi, r.shifts = tables(c.l)
	}
}

// load8 loads elements [i, i+8) of the column; i must be a multiple of 8.
// The kernels whose loop it would slow (a branch on the kind per load)
// loop once per kind instead, with the loads below.
func (r *colReader) load8(i int) archsimd.Float64x8 {
	c := &r.c
	switch c.kind {
	case colFloats:
		return archsimd.LoadFloat64x8Slice(c.f[i:])
	case colInts:
		return archsimd.LoadInt32x8Slice(c.i[i:]).Max(r.min).ConvertToFloat64()
	case colIntHeadroom:
		return intHeadroom8(c.j, c.i, i)
	case colStatic:
		return r.static8(i)
	}
	return r.headroom8(i)
}

// intHeadroom8 is load8 of an IntHeadroom column (limit, used).
func intHeadroom8(limit, used []int32, i int) archsimd.Float64x8 {
	var zero archsimd.Int64x8
	d := archsimd.LoadInt32x8Slice(limit[i:]).ExtendToInt64().Sub(archsimd.LoadInt32x8Slice(used[i:]).ExtendToInt64())
	return d.Max(zero).ConvertToFloat64()
}

// word returns elements [at, at+64) of the column, at a multiple of 64:
// a Floats column's own, else loaded into buf.
func (r *colReader) word(at int, buf *[64]float64) []float64 {
	if r.c.kind == colFloats {
		return r.c.f[at : at+64]
	}
	for v := 0; v < 64; v += 8 {
		r.load8(at + v).StoreSlice(buf[v:])
	}
	return buf[:]
}

// static8 is load8 of a Static column.
func (r *colReader) static8(i int) archsimd.Float64x8 {
	c := &r.c
	if full := c.l.full; full != nil {
		return archsimd.LoadFloat64x8Slice(full[c.off+i:])
	}
	return r.lo.ConcatPermute(r.hi, archsimd.BroadcastUint64x8(uint64(c.l.codes[(c.off+i)>>3])).ShiftRight(r.shifts))
}

// headroom8 is load8 of a Headroom column.
func (r *colReader) headroom8(i int) archsimd.Float64x8 {
	var zero archsimd.Float64x8
	return r.static8(i).Sub(archsimd.LoadInt32x8Slice(r.c.i[i:]).ConvertToFloat64()).Max(zero)
}
