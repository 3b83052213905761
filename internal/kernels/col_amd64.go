//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// load8 loads elements [i, i+8) of c; i must be a multiple of 8.
func (c *Col) load8(i int) archsimd.Float64x8 {
	switch c.kind {
	case colFloats:
		return archsimd.LoadFloat64x8Slice(c.f[i:])
	case colInts:
		return archsimd.LoadInt32x8Slice(c.i[i:]).Max(archsimd.BroadcastInt32x8(c.min)).ConvertToFloat64()
	}
	return c.loadCoded8(i)
}

func (c *Col) loadCoded8(i int) archsimd.Float64x8 {
	var x archsimd.Float64x8
	if full := c.l.full; full != nil {
		x = archsimd.LoadFloat64x8Slice(full[c.off+i:])
	} else {
		lo, hi, shifts := tables(c.l)
		x = lo.ConcatPermute(hi, archsimd.BroadcastUint64x8(uint64(c.l.codes[(c.off+i)>>3])).ShiftRight(shifts))
	}
	if c.kind == colHeadroom {
		var zero archsimd.Float64x8
		x = x.Sub(archsimd.LoadInt32x8Slice(c.i[i:]).ConvertToFloat64()).Max(zero)
	}
	return x
}
