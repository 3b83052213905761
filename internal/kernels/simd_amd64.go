//go:build goexperiment.simd && amd64

package kernels

import (
	"math"
	"simd/archsimd"
)

// hasSimd reports whether the CPU has what the archsimd kernels use.
var hasSimd = archsimd.X86.AVX512()

// fmin and fmax are Min and Max with Go's order of zeros, -0 below +0:
// VMINPD and VMAXPD return their second operand for two zeros, so where
// a == b the result is a|b (a&b), which has either's -0 (+0) and is a
// otherwise. (Min both ways round, ORed, would do, but the compiler takes
// Min for commutative and merges the two.) No NaN here.
func fmin(a, b archsimd.Float64x8) archsimd.Float64x8 {
	either := a.AsUint64x8().Or(b.AsUint64x8()).AsFloat64x8()
	return either.Merge(a.Min(b), a.Equal(b))
}

func fmax(a, b archsimd.Float64x8) archsimd.Float64x8 {
	both := a.AsUint64x8().And(b.AsUint64x8()).AsFloat64x8()
	return both.Merge(a.Max(b), a.Equal(b))
}

// leaveAVX ends a kernel's vector code (VZEROUPPER) before scalar code:
// its own tail, the caller's and the rest of the program. Go compiles
// scalar floating point to SSE instructions, which, while the upper
// halves of the vector registers are dirty, each wait on them (a false
// dependency and a merge on this machine's Xeons). The assembly kernels
// end the same way (asmgen's epilogue); the archsimd kernels did not
// until session 28, and every SSE instruction after one ran slowed:
// NotBelow took 20x the assembly's time, MaxMasked 8x, and the whole
// simd build placed at half the default build's rate. The compiler
// keeps no vector value in a register across it.
func leaveAVX() { archsimd.ClearAVXUpperBits() }

// divider8 divides eight lanes at a time by an accumulation's span:
// with VDIVPD, or where QuotientExact holds (exact) without a division,
// as the assembly's Q kernels do (quotient.go): q0 = t*inv,
// r = fma(-q0, span, t), fma(r, inv, q0).
type divider8 struct {
	span, nspan, inv archsimd.Float64x8 // span, -span, 1/span
	exact            bool
}

// newDivider8 returns the divider of an accumulation of n elements of raw
// under lo and span.
func newDivider8(raw *Col, lo, span float64, n int) divider8 {
	return divider8{
		span:  archsimd.BroadcastFloat64x8(span),
		nspan: archsimd.BroadcastFloat64x8(-span),
		inv:   archsimd.BroadcastFloat64x8(1 / span),
		exact: n >= 8 && !quotientOff && QuotientExact(raw, lo, span),
	}
}

// div returns t/span, lane by lane.
func (d divider8) div(t archsimd.Float64x8) archsimd.Float64x8 {
	if !d.exact {
		return t.Div(d.span)
	}
	q0 := t.Mul(d.inv)
	return q0.MulAdd(d.nspan, t).MulAdd(d.inv, q0)
}

func minMaxSimd(xs []float64) (lo, hi float64) {
	if len(xs) < 16 {
		return minMaxGo(xs)
	}
	vlo := archsimd.LoadFloat64x8Slice(xs)
	vhi := vlo
	i := 8
	for ; i+8 <= len(xs); i += 8 {
		v := archsimd.LoadFloat64x8Slice(xs[i:])
		vlo, vhi = fmin(vlo, v), fmax(vhi, v)
	}
	var l, h [8]float64
	vlo.Store(&l)
	vhi.Store(&h)
	leaveAVX()
	lo, hi = math.Inf(1), math.Inf(-1)
	for k := 0; k < 8; k++ {
		lo, hi = min(lo, l[k]), max(hi, h[k])
	}
	for ; i < len(xs); i++ {
		lo, hi = min(lo, xs[i]), max(hi, xs[i])
	}
	return lo, hi
}

// The accumulations below each write out one loop per kind of Col around
// their step (a closure the compiler inlines into each loop): a shared
// helper taking the step would call it through a function value per
// eight elements, and a load that switches on the kind per eight costs
// 15-20% (14434b3).
func accumulateScalarSimd(score []float64, raw Col, m, lo, span float64, set bool) {
	raw = raw.Slice(0, len(score))
	rr := raw.reader()
	vm := archsimd.BroadcastFloat64x8(m)
	vlo, d := archsimd.BroadcastFloat64x8(lo), newDivider8(&raw, lo, span, len(score))
	var zero archsimd.Float64x8 // 0 + t: set
	step := func(i int, r archsimd.Float64x8) {
		s := zero
		if !set {
			s = archsimd.LoadFloat64x8Slice(score[i:])
		}
		s.Add(vm.Mul(d.div(r.Sub(vlo)))).StoreSlice(score[i:])
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
		score[i] = addTo(score[i], set, float64(m*((raw.At(i)-lo)/span))) // rounded: no FMA
	}
}

func accumulateSimd(score []float64, raw Col, mult []float64, lo, span float64, set bool) {
	raw = raw.Slice(0, len(score))
	rr := raw.reader()
	mult = mult[:len(score)]
	vlo, d := archsimd.BroadcastFloat64x8(lo), newDivider8(&raw, lo, span, len(score))
	var zero archsimd.Float64x8 // 0 + t: set
	step := func(i int, r archsimd.Float64x8) {
		m := archsimd.LoadFloat64x8Slice(mult[i:])
		s := zero
		if !set {
			s = archsimd.LoadFloat64x8Slice(score[i:])
		}
		// No MulAdd: Nova rounds the product and the sum separately.
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
		score[i] = addTo(score[i], set, float64(mult[i]*((raw.At(i)-lo)/span)))
	}
}

func minMaxMaskedSimd(xs *Col, words []uint64, lo, hi []float64) {
	if xs.kind == colInts || xs.kind == colIntHeadroom {
		minMaxMaskedInts(xs, words, lo, hi)
		return
	}
	const wpb = Block / 64
	inf, ninf := archsimd.BroadcastFloat64x8(math.Inf(1)), archsimd.BroadcastFloat64x8(math.Inf(-1))
	full := xs.Len() / Block
	var xr colReader
	var buf [64]float64
	if xs.kind != colFloats {
		xr.init(xs)
	}
	for q := 0; q < full; q++ {
		// Two accumulator pairs (even and odd vectors) halve the
		// dependency chains; a word's eight vectors go through without a
		// branch per vector (masks are random: a branch mispredicts),
		// and a full word needs no merge.
		vlo, vhi, vlo2, vhi2 := inf, ninf, inf, ninf
		for k := q * wpb; k < (q+1)*wpb; k++ {
			w := words[k]
			if w == 0 {
				continue
			}
			var word []float64
			if xs.kind == colFloats {
				word = xs.f[k*64 : k*64+64]
			} else {
				word = xr.word(k*64, &buf)
			}
			if w == math.MaxUint64 {
				for v := 0; v < 8; v += 2 {
					x := archsimd.LoadFloat64x8Slice(word[8*v:])
					y := archsimd.LoadFloat64x8Slice(word[8*v+8:])
					vlo, vhi = fmin(vlo, x), fmax(vhi, x)
					vlo2, vhi2 = fmin(vlo2, y), fmax(vhi2, y)
				}
				continue
			}
			for v := 0; v < 8; v += 2 {
				m := archsimd.Mask64x8FromBits(uint8(w >> (8 * v)))
				n := archsimd.Mask64x8FromBits(uint8(w >> (8*v + 8)))
				x := archsimd.LoadFloat64x8Slice(word[8*v:])
				y := archsimd.LoadFloat64x8Slice(word[8*v+8:])
				vlo, vhi = fmin(vlo, x.Merge(inf, m)), fmax(vhi, x.Merge(ninf, m))
				vlo2, vhi2 = fmin(vlo2, y.Merge(inf, n)), fmax(vhi2, y.Merge(ninf, n))
			}
		}
		vlo, vhi = fmin(vlo, vlo2), fmax(vhi, vhi2)
		var l, h [8]float64
		vlo.Store(&l)
		vhi.Store(&h)
		leaveAVX()
		lo[q], hi[q] = min(l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]), max(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
	}
	leaveAVX()
	if full < len(lo) {
		rest := xs.Slice(full*Block, xs.Len())
		minMaxMaskedGo(&rest, words[full*wpb:], lo[full:], hi[full:])
	}
}

// minMaxMaskedInts is minMaxMasked over an int32 or IntHeadroom column:
// the extremes are taken over the int64 values before the clamp (at Min,
// or at 0) and converted once per block, as the clamp and the conversion
// keep the order and are exact.
func minMaxMaskedInts(xs *Col, words []uint64, lo, hi []float64) {
	const wpb = Block / 64
	top, bottom := archsimd.BroadcastInt64x8(math.MaxInt64), archsimd.BroadcastInt64x8(math.MinInt64)
	is, js, floor := xs.i, xs.j, int64(xs.min)
	if xs.kind == colIntHeadroom {
		floor = 0
	}
	load := func(i int) archsimd.Int64x8 {
		x := archsimd.LoadInt32x8Slice(is[i:]).ExtendToInt64()
		if js != nil {
			x = archsimd.LoadInt32x8Slice(js[i:]).ExtendToInt64().Sub(x)
		}
		return x
	}
	full := len(is) / Block
	for q := 0; q < full; q++ {
		vlo, vhi, vlo2, vhi2 := top, bottom, top, bottom
		some := false
		for k := q * wpb; k < (q+1)*wpb; k++ {
			w := words[k]
			if w == 0 {
				continue
			}
			some = true
			at := k * 64
			if w == math.MaxUint64 {
				for v := 0; v < 8; v += 2 {
					x, y := load(at+8*v), load(at+8*v+8)
					vlo, vhi = vlo.Min(x), vhi.Max(x)
					vlo2, vhi2 = vlo2.Min(y), vhi2.Max(y)
				}
				continue
			}
			for v := 0; v < 8; v += 2 {
				m := archsimd.Mask64x8FromBits(uint8(w >> (8 * v)))
				n := archsimd.Mask64x8FromBits(uint8(w >> (8*v + 8)))
				x, y := load(at+8*v), load(at+8*v+8)
				vlo, vhi = vlo.Min(x.Merge(top, m)), vhi.Max(x.Merge(bottom, m))
				vlo2, vhi2 = vlo2.Min(y.Merge(top, n)), vhi2.Max(y.Merge(bottom, n))
			}
		}
		if !some {
			lo[q], hi[q] = math.Inf(1), math.Inf(-1)
			continue
		}
		vlo, vhi = vlo.Min(vlo2), vhi.Max(vhi2)
		var l, h [8]int64
		vlo.Store(&l)
		vhi.Store(&h)
		leaveAVX()
		lo[q] = float64(max(min(l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]), floor))
		hi[q] = float64(max(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], floor))
	}
	leaveAVX()
	if full < len(lo) {
		rest := xs.Slice(full*Block, xs.Len())
		minMaxMaskedGo(&rest, words[full*wpb:], lo[full:], hi[full:])
	}
}

func maxMaskedSimd(xs []float64, words []uint64, hi []float64) {
	const wpb = Block / 64
	ninf := archsimd.BroadcastFloat64x8(math.Inf(-1))
	full := len(xs) / Block
	for q := 0; q < full; q++ {
		// As minMaxMaskedSimd: two accumulators, no branch per vector;
		// but VMAXPD alone, which may take -0 for +0 (redoZeroBlocks).
		vhi, vhi2 := ninf, ninf
		for k := q * wpb; k < (q+1)*wpb; k++ {
			w := words[k]
			if w == 0 {
				continue
			}
			word := xs[k*64 : k*64+64]
			if w == math.MaxUint64 {
				for v := 0; v < 8; v += 2 {
					vhi = vhi.Max(archsimd.LoadFloat64x8Slice(word[8*v:]))
					vhi2 = vhi2.Max(archsimd.LoadFloat64x8Slice(word[8*v+8:]))
				}
				continue
			}
			for v := 0; v < 8; v += 2 {
				m := archsimd.Mask64x8FromBits(uint8(w >> (8 * v)))
				n := archsimd.Mask64x8FromBits(uint8(w >> (8*v + 8)))
				vhi = vhi.Max(archsimd.LoadFloat64x8Slice(word[8*v:]).Merge(ninf, m))
				vhi2 = vhi2.Max(archsimd.LoadFloat64x8Slice(word[8*v+8:]).Merge(ninf, n))
			}
		}
		vhi = vhi.Max(vhi2)
		var h [8]float64
		vhi.Store(&h)
		leaveAVX()
		hi[q] = max(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
	}
	leaveAVX()
	redoZeroBlocks(xs[:full*Block], words[:full*wpb], hi[:full])
	if full < len(hi) {
		maxMaskedGo(xs[full*Block:], words[full*wpb:], hi[full:])
	}
}

func weighScaledSimd(score []float64, raw []Col, scale []float64) {
	if len(raw) == 0 {
		weighScaledGo(score, raw, scale)
		return
	}
	// Two columns per pass over score (the first pass sets it, the others
	// add to it), so the terms are added in column order; simple loops
	// keep everything in registers.
	n := len(score)
	for a := 0; a < len(raw); a += 2 {
		if a+1 < len(raw) {
			scaledPair(score, raw[a].Slice(0, n), raw[a+1].Slice(0, n), scale[a], scale[a+1], a == 0)
		} else {
			scaledOne(score, raw[a].Slice(0, n), scale[a], a == 0)
		}
	}
}

func scaledPair(score []float64, r0, r1 Col, c0, c1 float64, first bool) {
	v0, v1 := archsimd.BroadcastFloat64x8(c0), archsimd.BroadcastFloat64x8(c1)
	r0, r1 = r0.Slice(0, len(score)), r1.Slice(0, len(score))
	r0r, r1r := r0.reader(), r1.reader()
	i := 0
	if first {
		for ; i+8 <= len(score); i += 8 {
			x := r0r.load8(i).Mul(v0)
			x.Add(r1r.load8(i).Mul(v1)).StoreSlice(score[i:])
		}
		leaveAVX()
		for ; i < len(score); i++ {
			score[i] = float64(r0.At(i)*c0) + float64(r1.At(i)*c1)
		}
		return
	}
	for ; i+8 <= len(score); i += 8 {
		x := archsimd.LoadFloat64x8Slice(score[i:]).Add(r0r.load8(i).Mul(v0))
		x.Add(r1r.load8(i).Mul(v1)).StoreSlice(score[i:])
	}
	leaveAVX()
	for ; i < len(score); i++ {
		score[i] = score[i] + float64(r0.At(i)*c0) + float64(r1.At(i)*c1)
	}
}

func scaledOne(score []float64, r0 Col, c0 float64, first bool) {
	v0 := archsimd.BroadcastFloat64x8(c0)
	r0 = r0.Slice(0, len(score))
	r0r := r0.reader()
	i := 0
	if first {
		for ; i+8 <= len(score); i += 8 {
			r0r.load8(i).Mul(v0).StoreSlice(score[i:])
		}
		leaveAVX()
		for ; i < len(score); i++ {
			score[i] = r0.At(i) * c0
		}
		return
	}
	for ; i+8 <= len(score); i += 8 {
		archsimd.LoadFloat64x8Slice(score[i:]).Add(r0r.load8(i).Mul(v0)).StoreSlice(score[i:])
	}
	leaveAVX()
	for ; i < len(score); i++ {
		score[i] += float64(r0.At(i) * c0)
	}
}

func accumulateScaledSimd(score []float64, raw Col, mult []float64, lo, base, inv float64) {
	raw = raw.Slice(0, len(score))
	rr := raw.reader()
	mult = mult[:len(score)]
	vlo, vbase, vinv := archsimd.BroadcastFloat64x8(lo), archsimd.BroadcastFloat64x8(base), archsimd.BroadcastFloat64x8(inv)
	step := func(i int, r archsimd.Float64x8) {
		r = r.Sub(vlo)
		m := archsimd.LoadFloat64x8Slice(mult[i:]).Sub(vbase)
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
		score[i] += float64(float64((raw.At(i)-lo)*(mult[i]-base)) * inv)
	}
}

func notBelowSimd(xs []float64, w uint64, thr float64) uint64 {
	if len(xs) < 64 || w == 0 {
		return notBelowGo(xs, w, thr)
	}
	t := archsimd.BroadcastFloat64x8(thr)
	var below uint64
	for v := 0; v < 8; v++ {
		below |= uint64(archsimd.LoadFloat64x8Slice(xs[8*v:]).Less(t).ToBits()) << (8 * v)
	}
	leaveAVX()
	return w &^ below
}
