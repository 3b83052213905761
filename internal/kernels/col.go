package kernels

import "math"

// Col is a column of a weigher's raw values as the weighing kernels read
// it: the values of F, or, when I is not nil, those of I clamped below at
// Min (float64(max(I[i], Min))): a usage column (free RAM or disk, io-ops,
// instances) read as Nova's weigher sees it (RAM, disk and io-ops have a
// minval of 0), without a float copy of the column.
//
// Invariants: at most one of F and I is not nil; an int32 converts to
// float64 exactly, so a kernel over an int32 column computes bit for bit
// what it computes over Floats of its (clamped) values.
type Col struct {
	F   []float64
	I   []int32
	Min int32
}

// Floats is the column of xs's values.
func Floats(xs []float64) Col { return Col{F: xs} }

// Clamped is the column of xs's values clamped below at 0.
func Clamped(xs []int32) Col { return Col{I: xs} }

// Ints is the column of xs's values.
func Ints(xs []int32) Col { return Col{I: xs, Min: math.MinInt32} }

// At is element i.
func (c Col) At(i int) float64 {
	if c.I != nil {
		return float64(max(c.I[i], c.Min))
	}
	return c.F[i]
}

// Len is the number of elements.
func (c Col) Len() int {
	if c.I != nil {
		return len(c.I)
	}
	return len(c.F)
}

// Slice is the column of elements [lo, hi).
func (c Col) Slice(lo, hi int) Col {
	if c.I != nil {
		return Col{I: c.I[lo:hi], Min: c.Min}
	}
	return Col{F: c.F[lo:hi]}
}
