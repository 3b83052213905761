//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// codeShifts returns the shifts that bring the codes of eight consecutive
// elements, packed in one word, to the low bits of eight lanes.
func codeShifts() archsimd.Uint64x8 {
	return archsimd.LoadUint64x8(&shiftTab)
}

var shiftTab = [8]uint64{0, 4, 8, 12, 16, 20, 24, 28}

// floatSource returns what a kernel loads eight elements of c at a time
// from: its full column, or (full nil) its codes and its table as two
// vectors (decoded with codeShifts).
func floatSource(c *Coded[float64]) (full []float64, codes []uint32, lo, hi archsimd.Float64x8) {
	if c.tab == nil {
		return c.full, nil, lo, hi
	}
	lo, hi, _ = tables(c)
	return nil, c.codes, lo, hi
}

// intSource is floatSource for a Coded[int64].
func intSource(c *Coded[int64]) (full []int64, codes []uint32, lo, hi archsimd.Int64x8) {
	if c.tab == nil {
		return c.full, nil, lo, hi
	}
	lo = archsimd.LoadInt64x8((*[8]int64)(c.tab[:8]))
	hi = archsimd.LoadInt64x8((*[8]int64)(c.tab[8:]))
	return nil, c.codes, lo, hi
}

// tables returns a coded column's table as two vectors, and codeShifts.
func tables(c *Coded[float64]) (lo, hi archsimd.Float64x8, shifts archsimd.Uint64x8) {
	lo = archsimd.LoadFloat64x8((*[8]float64)(c.tab[:8]))
	hi = archsimd.LoadFloat64x8((*[8]float64)(c.tab[8:]))
	return lo, hi, codeShifts()
}

// accumulateCoded is accumulate with a coded multiplier column.
func accumulateCodedSimd(score []float64, raw Col, mult *Coded[float64], lo, span float64, set bool) {
	raw = raw.Slice(0, len(score))
	rr := raw.reader()
	codes := mult.codes[:(len(score)+7)/8]
	tlo, thi, shifts := tables(mult)
	vlo, d := archsimd.BroadcastFloat64x8(lo), newDivider8(&raw, lo, span, len(score))
	var zero archsimd.Float64x8 // 0 + t: set
	step := func(i int, r archsimd.Float64x8) {
		m := tlo.ConcatPermute(thi, archsimd.BroadcastUint64x8(uint64(codes[i>>3])).ShiftRight(shifts))
		s := zero
		if !set {
			s = archsimd.LoadFloat64x8Slice(score[i:])
		}
		// No MulAdd: Nova rounds the product and the sum separately
		// (divider8's FMAs compute the quotient exactly).
		s.Add(m.Mul(d.div(r.Sub(vlo)))).StoreSlice(score[i:])
	}
	n := len(score) &^ 7
	switch raw.kind {
	case colFloats:
		f := raw.f
		for i := 0; i < n; i += 8 {
			step(i, archsimd.LoadFloat64x8Slice(f[i:]))
		}
	case colInts:
		is, vmin := raw.i, archsimd.BroadcastInt32x8(raw.min)
		for i := 0; i < n; i += 8 {
			step(i, archsimd.LoadInt32x8Slice(is[i:]).Max(vmin).ConvertToFloat64())
		}
	case colIntHeadroom:
		limit, used := raw.j, raw.i
		for i := 0; i < n; i += 8 {
			step(i, intHeadroom8(limit, used, i))
		}
	case colStatic:
		for i := 0; i < n; i += 8 {
			step(i, rr.static8(i))
		}
	default:
		for i := 0; i < n; i += 8 {
			step(i, rr.headroom8(i))
		}
	}
	leaveAVX()
	for i := n; i < len(score); i++ {
		score[i] = addTo(score[i], set, float64(mult.At(i)*((raw.At(i)-lo)/span)))
	}
}

// accumulateScaledCoded is accumulateScaled with a coded multiplier
// column.
func accumulateScaledCodedSimd(score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	raw = raw.Slice(0, len(score))
	rr := raw.reader()
	codes := mult.codes[:(len(score)+7)/8]
	tlo, thi, shifts := tables(mult)
	vlo, vbase, vinv := archsimd.BroadcastFloat64x8(lo), archsimd.BroadcastFloat64x8(base), archsimd.BroadcastFloat64x8(inv)
	step := func(i int, r archsimd.Float64x8) {
		r = r.Sub(vlo)
		m := tlo.ConcatPermute(thi, archsimd.BroadcastUint64x8(uint64(codes[i>>3])).ShiftRight(shifts)).Sub(vbase)
		s := archsimd.LoadFloat64x8Slice(score[i:])
		s.Add(r.Mul(m).Mul(vinv)).StoreSlice(score[i:])
	}
	n := len(score) &^ 7
	switch raw.kind {
	case colFloats:
		f := raw.f
		for i := 0; i < n; i += 8 {
			step(i, archsimd.LoadFloat64x8Slice(f[i:]))
		}
	case colInts:
		is, vmin := raw.i, archsimd.BroadcastInt32x8(raw.min)
		for i := 0; i < n; i += 8 {
			step(i, archsimd.LoadInt32x8Slice(is[i:]).Max(vmin).ConvertToFloat64())
		}
	case colIntHeadroom:
		limit, used := raw.j, raw.i
		for i := 0; i < n; i += 8 {
			step(i, intHeadroom8(limit, used, i))
		}
	case colStatic:
		for i := 0; i < n; i += 8 {
			step(i, rr.static8(i))
		}
	default:
		for i := 0; i < n; i += 8 {
			step(i, rr.headroom8(i))
		}
	}
	leaveAVX()
	for i := n; i < len(score); i++ {
		score[i] += float64(float64((raw.At(i)-lo)*(mult.At(i)-base)) * inv)
	}
}
