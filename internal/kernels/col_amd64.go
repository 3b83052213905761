//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// load8 loads elements [i, i+8) of c.
func (c Col) load8(i int) archsimd.Float64x8 {
	if c.I != nil {
		return archsimd.LoadInt32x8Slice(c.I[i:]).Max(archsimd.BroadcastInt32x8(c.Min)).ConvertToFloat64()
	}
	return archsimd.LoadFloat64x8Slice(c.F[i:])
}
