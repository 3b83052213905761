package kernels

import (
	"math"
)

// CodedValues is the most distinct values a Coded column keeps as codes.
const CodedValues = 16

// Coded is a read-only column of values that takes few distinct ones (an
// allocation ratio, a limit, a weigher multiplier resolved per host): when
// it holds at most CodedValues distinct values (bit for bit), each element
// is a 4-bit code into a table of them, half a byte where a []T costs
// eight; otherwise it is kept in full. The kernels taking a Coded read
// either form (the SIMD ones decode eight codes with one permute).
//
// Invariants: a Coded never changes once built; n is its length; when
// full is nil (and n > 0), element i is tab[codes[i/8]>>(4*(i%8))&15],
// codes has (n+7)/8 words, and tab's first entries are the column's
// distinct values in order of first occurrence (the rest zero); when full
// is not nil, len(full) == n and codes and tab are nil. Columns of one
// value share a package-level codes slice of zeros.
type Coded[T int64 | float64] struct {
	full  []T
	codes []uint32
	tab   *[CodedValues]T
	n     int
	k     int // distinct values in tab (coded columns)
}

// zeroCodes backs the codes of single-valued columns of up to
// len(zeroCodes)*8 elements: read-only, shared.
var zeroCodes = make([]uint32, 1024)

// bitsOf is x's bits: what Coded compares values by, so that -0 and 0, and
// NaNs with different payloads, stay apart.
func bitsOf[T int64 | float64](x T) uint64 {
	switch v := any(x).(type) {
	case float64:
		return math.Float64bits(v)
	case int64:
		return uint64(v)
	}
	panic("unreachable")
}

// NewCoded returns xs as a Coded column: coded when it holds at most
// CodedValues distinct values, else in full (a copy either way: xs is
// not kept).
func NewCoded[T int64 | float64](xs []T) Coded[T] {
	n := len(xs)
	if n == 0 {
		return Coded[T]{}
	}
	var tab [CodedValues]T
	var tabBits [CodedValues]uint64
	k := 0
	codeOf := func(x T) (uint32, bool) {
		b := bitsOf(x)
		for c := range k {
			if tabBits[c] == b {
				return uint32(c), true
			}
		}
		if k == CodedValues {
			return 0, false
		}
		tab[k], tabBits[k] = x, b
		k++
		return uint32(k - 1), true
	}
	var codes []uint32
	for i, x := range xs {
		c, ok := codeOf(x)
		if !ok {
			return FullCoded(xs)
		}
		if c != 0 && codes == nil {
			codes = make([]uint32, (n+7)/8)
		}
		if codes != nil {
			codes[i>>3] |= c << (4 * (i & 7))
		}
	}
	if codes == nil { // one value throughout
		if (n+7)/8 <= len(zeroCodes) {
			codes = zeroCodes[: (n+7)/8 : (n+7)/8]
		} else {
			codes = make([]uint32, (n+7)/8)
		}
	}
	return Coded[T]{codes: codes, tab: &tab, n: n, k: k}
}

// FullCoded returns a copy of xs as a Coded column kept in full, whatever
// its values (what NewCoded falls back to).
func FullCoded[T int64 | float64](xs []T) Coded[T] {
	return Coded[T]{full: append([]T(nil), xs...), n: len(xs)}
}

// Len is the number of elements.
func (c *Coded[T]) Len() int { return c.n }

// IsCoded reports whether the column is kept as codes (not in full).
func (c *Coded[T]) IsCoded() bool { return c.full == nil && c.n > 0 }

// At returns element i.
func (c *Coded[T]) At(i int) T {
	if c.full != nil {
		return c.full[i]
	}
	return c.tab[c.codes[i>>3]>>(4*(i&7))&15]
}

// Table returns the values the codes index when the column is kept as
// codes (the distinct ones first, the rest zero), else nil. Code(i) is
// element i's index into it. Not to be modified.
func (c *Coded[T]) Table() []T {
	if c.full != nil || c.tab == nil {
		return nil
	}
	return c.tab[:]
}

// Code returns element i's index into Table; only for a coded column.
func (c *Coded[T]) Code(i int) int { return int(c.codes[i>>3] >> (4 * (i & 7)) & 15) }

// Full returns the column's elements in full when it is kept so, else nil
// (not to be modified).
func (c *Coded[T]) Full() []T { return c.full }

// AccumulateCoded is Accumulate with a multiplier column that may be
// coded: mult.At(i) is element i's multiplier. mult must be at least
// len(score) long.
func AccumulateCoded(score []float64, raw Col, mult *Coded[float64], lo, span float64) {
	accumulateCodedAny(score, raw, mult, lo, span, false)
}

// SetCoded is AccumulateCoded onto zeros: score[i] = 0 +
// mult.At(i) * ((raw.At(i) - lo) / span), the weight of a host after
// Nova's first weigher (its weights start at 0.0; 0 + -0 is +0). It
// neither reads score nor needs it cleared.
func SetCoded(score []float64, raw Col, mult *Coded[float64], lo, span float64) {
	accumulateCodedAny(score, raw, mult, lo, span, true)
}

func accumulateCodedAny(score []float64, raw Col, mult *Coded[float64], lo, span float64, set bool) {
	if len(score) == 0 {
		return
	}
	if f := mult.Full(); f != nil {
		accumulate(score, raw, f[:len(score)], lo, span, set)
		return
	}
	accumulateCoded(score, raw, mult, lo, span, set)
}

// AccumulateCodedPortable is AccumulateCoded without SIMD.
func AccumulateCodedPortable(score []float64, raw Col, mult *Coded[float64], lo, span float64) {
	accumulateCodedGo(score, raw, mult, lo, span, false)
}

// SetCodedPortable is SetCoded without SIMD.
func SetCodedPortable(score []float64, raw Col, mult *Coded[float64], lo, span float64) {
	accumulateCodedGo(score, raw, mult, lo, span, true)
}

// AccumulateScaledCoded is AccumulateScaled with a multiplier column that
// may be coded. mult must be at least len(score) long.
func AccumulateScaledCoded(score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	if len(score) == 0 {
		return
	}
	if f := mult.Full(); f != nil {
		accumulateScaled(score, raw, f[:len(score)], lo, base, inv)
		return
	}
	accumulateScaledCoded(score, raw, mult, lo, base, inv)
}

// AccumulateScaledCodedPortable is AccumulateScaledCoded without SIMD.
func AccumulateScaledCodedPortable(score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	accumulateScaledCodedGo(score, raw, mult, lo, base, inv)
}

func accumulateCodedGo(score []float64, raw Col, mult *Coded[float64], lo, span float64, set bool) {
	chunks(score, raw, func(b int, s, xs []float64) {
		for k, x := range xs {
			s[k] = addTo(s[k], set, float64(mult.At(b+k)*((x-lo)/span)))
		}
	})
}

func accumulateScaledCodedGo(score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	chunks(score, raw, func(b int, s, xs []float64) {
		for k, x := range xs {
			s[k] += float64(float64((x-lo)*(mult.At(b+k)-base)) * inv)
		}
	})
}
