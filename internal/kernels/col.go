package kernels

import "math"

// Col is a column of a weigher's raw values as the weighing kernels read
// it, without a float copy of what the host state already keeps:
//
//   - Floats(xs): the values of xs;
//   - Clamped(xs), Ints(xs): an int32 usage column (free RAM or disk,
//     io-ops, instances), clamped below at 0 (the weighers with a minval
//     of 0) or not;
//   - IntHeadroom(limit, used): max(limit[i] - used[i], 0) over int32
//     columns, computed in int64 (CPUWeigher's vCPU limit, when it is an
//     integer, less the vCPUs used);
//   - Static(l): a static coded column (BuildFailureWeigher's counts);
//   - Headroom(l, used): max(l[i] - used[i], 0), a static coded limit
//     less an int32 usage column (CPUWeigher's vCPUs total * ratio - used,
//     clamped at its minval of 0).
//
// Invariants: exactly the fields of its kind are set; a Static or
// Headroom column starting at element off of l has off%8 == 0 (a word of
// codes), as Slice keeps it for the multiples of 8 the kernels slice at;
// every value is computed with the operations the weigher's own
// arithmetic does (int32 converts to float64 exactly), so a kernel over a
// Col computes bit for bit what it computes over Floats of its values.
type Col struct {
	kind  colKind
	plain bool // a Floats column holds no -0 and no NaN (PlainFloats)
	min   int32
	f     []float64
	i     []int32
	j     []int32 // IntHeadroom's limit
	l     *Coded[float64]
	off   int
	n     int
}

type colKind uint8

const (
	colFloats colKind = iota
	colInts
	colIntHeadroom
	colStatic
	colHeadroom
)

// Floats is the column of xs's values.
func Floats(xs []float64) Col { return Col{kind: colFloats, f: xs, n: len(xs)} }

// PlainFloats is Floats(xs) where the caller knows that no value of xs is
// -0 or NaN: the AVX2 block extremes then take one instruction a vector
// (their order of two zeros cannot show).
func PlainFloats(xs []float64) Col { return Col{kind: colFloats, plain: true, f: xs, n: len(xs)} }

// HasNegZeroOrNaN reports whether some value of xs is -0 or NaN (whether
// Floats, not PlainFloats, is its column).
func HasNegZeroOrNaN(xs []float64) bool {
	for _, x := range xs {
		if x != x || x == 0 && math.Signbit(x) {
			return true
		}
	}
	return false
}

// Clamped is the column of xs's values clamped below at 0.
func Clamped(xs []int32) Col { return Col{kind: colInts, i: xs, n: len(xs)} }

// Ints is the column of xs's values.
func Ints(xs []int32) Col { return Col{kind: colInts, i: xs, min: math.MinInt32, n: len(xs)} }

// IntHeadroom is the column of max(limit[i] - used[i], 0), the difference
// taken in int64; used must be as long as limit.
func IntHeadroom(limit, used []int32) Col {
	return Col{kind: colIntHeadroom, i: used, j: limit, n: len(limit)}
}

// Static is the column of l's values.
func Static(l *Coded[float64]) Col { return Col{kind: colStatic, l: l, n: l.Len()} }

// Headroom is the column of max(l.At(i) - float64(used[i]), 0); used must
// be as long as l, and l hold no NaN.
func Headroom(l *Coded[float64], used []int32) Col {
	return Col{kind: colHeadroom, l: l, i: used, n: l.Len()}
}

// At is element i.
func (c *Col) At(i int) float64 {
	switch c.kind {
	case colFloats:
		return c.f[i]
	case colInts:
		return float64(max(c.i[i], c.min))
	case colIntHeadroom:
		return float64(max(int64(c.j[i])-int64(c.i[i]), 0))
	}
	x := c.l.At(c.off + i)
	if c.kind == colHeadroom {
		x = max(x-float64(c.i[i]), 0)
	}
	return x
}

// Chunk is chunk, for the engine's scans of a column (its per-block
// summaries).
func (c *Col) Chunk(lo int, buf *[64]float64) []float64 { return c.chunk(lo, buf) }

// chunk returns elements [lo, min(lo+64, Len())) of c: a Floats column's
// own, else decoded into buf. The portable kernels read a Col a chunk at
// a time, so that their inner loops are over float64s, without a call or
// a branch on the kind per element.
func (c *Col) chunk(lo int, buf *[64]float64) []float64 {
	hi := min(lo+64, c.n)
	if c.kind == colFloats {
		return c.f[lo:hi]
	}
	out := buf[:hi-lo]
	switch c.kind {
	case colInts:
		for k, x := range c.i[lo:hi] {
			out[k] = float64(max(x, c.min))
		}
	case colIntHeadroom:
		for k, x := range c.j[lo:hi] {
			out[k] = float64(max(int64(x)-int64(c.i[lo+k]), 0))
		}
	case colStatic:
		for k := range out {
			out[k] = c.l.At(c.off + lo + k)
		}
	case colHeadroom:
		for k, u := range c.i[lo:hi] {
			out[k] = max(c.l.At(c.off+lo+k)-float64(u), 0)
		}
	}
	return out
}

// Len is the number of elements.
func (c *Col) Len() int { return c.n }

// Slice is the column of elements [lo, hi); lo must be a multiple of 8
// for a Static or Headroom column.
func (c Col) Slice(lo, hi int) Col {
	switch c.kind {
	case colFloats:
		c.f = c.f[lo:hi]
	case colInts, colHeadroom:
		c.i = c.i[lo:hi]
	case colIntHeadroom:
		c.i, c.j = c.i[lo:hi], c.j[lo:hi]
	}
	if c.kind >= colStatic {
		if lo%8 != 0 {
			panic("kernels: Slice of a coded Col at an offset that is not a multiple of 8")
		}
		if hi > c.n {
			panic("kernels: Slice past the end of a Col")
		}
		c.off += lo
	}
	c.n = hi - lo
	return c
}

// Int32s returns, for a column of int32 values (Ints, Clamped), the
// values and the floor its elements are clamped at: element i is
// float64(max(xs[i], floor)). ok is false for the other kinds.
func (c *Col) Int32s() (xs []int32, floor int32, ok bool) {
	if c.kind != colInts {
		return nil, 0, false
	}
	return c.i[:c.n], c.min, true
}
