//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// colReader loads a Col eight elements at a time, with what the loads
// take (a coded column's table and the code shifts, the clamp) in vectors
// made once per kernel rather than once per load.
type colReader struct {
	c      *Col
	min    archsimd.Int32x8
	lo, hi archsimd.Float64x8
	shifts archsimd.Uint64x8
}

// reader returns c's reader.
func (c *Col) reader() colReader {
	r := colReader{c: c, min: archsimd.BroadcastInt32x8(c.min)}
	if c.kind >= colStatic && c.l.tab != nil {
		r.lo, r.hi, r.shifts = tables(c.l)
	}
	return r
}

// load8 loads elements [i, i+8) of the column; i must be a multiple of 8.
func (r *colReader) load8(i int) archsimd.Float64x8 {
	c := r.c
	switch c.kind {
	case colFloats:
		return archsimd.LoadFloat64x8Slice(c.f[i:])
	case colInts:
		return archsimd.LoadInt32x8Slice(c.i[i:]).Max(r.min).ConvertToFloat64()
	}
	var x archsimd.Float64x8
	if full := c.l.full; full != nil {
		x = archsimd.LoadFloat64x8Slice(full[c.off+i:])
	} else {
		x = r.lo.ConcatPermute(r.hi, archsimd.BroadcastUint64x8(uint64(c.l.codes[(c.off+i)>>3])).ShiftRight(r.shifts))
	}
	if c.kind == colHeadroom {
		var zero archsimd.Float64x8
		x = x.Sub(archsimd.LoadInt32x8Slice(c.i[i:]).ConvertToFloat64()).Max(zero)
	}
	return x
}
