package kernels

import "math"

// Quotients without a division. Nova normalises a raw value x as
// (x-lo)/(hi-lo): one division per host and weigher, and the division
// bounds the accumulation kernels (a vector division takes several times
// a multiplication's throughput). With inv = 1/span rounded, the
// quotient of t by span is
//
//	q0 = t*inv            (within 2 ulps of t/span)
//	r  = t - q0*span      (one FMA: exact)
//	q  = q0 + r*inv       (one FMA)
//
// and q is t/span correctly rounded whenever t and span are integers with
// |t| < 2^50 and 0 < span < 2^50, t not -0 (-0/span is -0, q is +0). Proof sketch, with u = 2^-53 and t/span
// in [2^e, 2^(e+1)) (e < 50; t = +0 gives +0 both ways, t < 0 is
// symmetric):
//
//   - q0 = (t/span)(1+d1)(1+d2), |di| <= u, so |q0 - t/span| < 2^(e-51).
//   - q0 is a multiple of 2^(e-53) and t and span are integers, so
//     r = t - q0*span is a multiple of 2^(e-53) below 2^(e-51)*span in
//     magnitude: at most 52 significant bits, exact.
//   - q0 + r*inv = t/span + (r/span)*d1 = t/span + eps, |eps| < 2^(e-104).
//   - A midpoint between two float64s near t/span is an odd multiple of
//     2^(e-53) (or 2^(e-54) below 2^e); its distance to t/span is an
//     integer over span*2^(53-e) (or 2^(54-e)): 0, or at least
//     2^(e-54)/span > 2^(e-104). It is never 0: t/span would then be
//     k/2^(53-e) in lowest terms with k odd of 54 bits, so span >=
//     2^(53-e) and |t| >= 2^e*span >= 2^53. So t/span + eps rounds as
//     t/span does.
//
// QuotientExact says when the kernels may use it; TestQuotient checks the
// identity on adversarial and random integers, and the path tests check
// the kernels that use it against the portable divisions.

// quotientOff, set by tests, makes the assembly divide even where the
// quotient kernels apply, so that the division kernels are checked on
// integer columns too.
var quotientOff bool

// quotient is t/span from inv = 1/span, as the Q kernels compute it.
func quotient(t, span, inv float64) float64 {
	q := t * inv
	r := math.FMA(-q, span, t)
	return math.FMA(r, inv, q)
}

// maxExact bounds the column values, lo and span for which the kernels
// compute (x-lo)/span by quotient: x and lo below 2^49 in magnitude, so
// that t = x-lo is an exact integer below 2^50.
const maxExact = 1 << 49

// QuotientExact reports whether every (c[i]-lo)/span is computed exactly
// by quotient: span a positive integer below 2^50, lo an integer and every
// value of c an integer, both below 2^49 in magnitude, and none -0 (x-lo
// is -0 only for x = -0 and lo = +0). Integer columns are (int32s and
// their differences convert to +0, never -0); a coded Static or Headroom
// column is when its table's values are (Headroom's less an int32, and
// clamped at +0); a Floats column or one stored in full is not judged
// (false).
func QuotientExact(c *Col, lo, span float64) bool {
	if !(span > 0 && span < 2*maxExact && integral(span) && math.Abs(lo) < maxExact && integral(lo)) {
		return false
	}
	switch c.kind {
	case colInts, colIntHeadroom:
		return true
	case colStatic, colHeadroom:
		if c.l.full != nil {
			return false
		}
		bound := float64(maxExact)
		if c.kind == colHeadroom {
			bound = maxExact / 2 // less an int32 used: still below 2^49
		}
		for _, v := range c.l.tab {
			if !(math.Abs(v) < bound && integral(v)) || c.kind == colStatic && v == 0 && math.Signbit(v) {
				return false
			}
		}
		return true
	}
	return false
}

// integral is whether x is a (finite) integer.
func integral(x float64) bool { return x == math.Trunc(x) }
