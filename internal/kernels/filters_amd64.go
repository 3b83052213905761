//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// Each kernel walks the words holding 64 hosts with its eight-host vector
// step written out in the loop (a function value per step would cost more
// than the step), then the scalar predicate over the short last word.

func ramPassSimd(words []uint64, total *Coded[int64], free []int32, ratio *Coded[float64], req int64) {
	reqI, reqF := archsimd.BroadcastInt64x8(req), archsimd.BroadcastFloat64x8(float64(req))
	rf, rc, rlo, rhi := floatSource(ratio)
	tf, tc, tlo, thi := intSource(total)
	shifts := codeShifts()
	full := fullWords(words, total.Len())
	for q := 0; q < full; q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var keep uint64
		for v := 0; v < 8; v++ {
			if uint8(w>>(8*v)) == 0 {
				continue
			}
			i := q*64 + 8*v
			var t archsimd.Int64x8
			if tf != nil {
				t = archsimd.LoadInt64x8Slice(tf[i:])
			} else {
				t = tlo.ConcatPermute(thi, archsimd.BroadcastUint64x8(uint64(tc[i>>3])).ShiftRight(shifts))
			}
			f := archsimd.LoadInt32x8Slice(free[i:]).ExtendToInt64()
			var r archsimd.Float64x8
			if rf != nil {
				r = archsimd.LoadFloat64x8Slice(rf[i:])
			} else {
				r = rlo.ConcatPermute(rhi, archsimd.BroadcastUint64x8(uint64(rc[i>>3])).ShiftRight(shifts))
			}
			limit := t.ConvertToFloat64().Mul(r)
			ok := limit.Sub(t.Sub(f).ConvertToFloat64()).GreaterEqual(reqF).ToBits() &^ t.Less(reqI).ToBits()
			keep |= uint64(ok) << (8 * v)
		}
		words[q] = w & keep
	}
	leaveAVX()
	passRange(words, full, total.Len(), func(i int) bool { return RAMPasses(total.At(i), int64(free[i]), ratio.At(i), req) })
}

func corePassSimd(words []uint64, total *Coded[int64], used []int32, ratio *Coded[float64], req int64) {
	reqI, reqF := archsimd.BroadcastInt64x8(req), archsimd.BroadcastFloat64x8(float64(req))
	zeroI, zeroF := archsimd.BroadcastInt64x8(0), archsimd.BroadcastFloat64x8(0)
	rf, rc, rlo, rhi := floatSource(ratio)
	tf, tc, tlo, thi := intSource(total)
	shifts := codeShifts()
	full := fullWords(words, total.Len())
	for q := 0; q < full; q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var keep uint64
		for v := 0; v < 8; v++ {
			if uint8(w>>(8*v)) == 0 {
				continue
			}
			i := q*64 + 8*v
			var t archsimd.Int64x8
			if tf != nil {
				t = archsimd.LoadInt64x8Slice(tf[i:])
			} else {
				t = tlo.ConcatPermute(thi, archsimd.BroadcastUint64x8(uint64(tc[i>>3])).ShiftRight(shifts))
			}
			u := archsimd.LoadInt32x8Slice(used[i:])
			var r archsimd.Float64x8
			if rf != nil {
				r = archsimd.LoadFloat64x8Slice(rf[i:])
			} else {
				r = rlo.ConcatPermute(rhi, archsimd.BroadcastUint64x8(uint64(rc[i>>3])).ShiftRight(shifts))
			}
			limit := t.ConvertToFloat64().Mul(r)
			tooBig := limit.Greater(zeroF).ToBits() & reqI.Greater(t).ToBits()
			short := limit.Sub(u.ConvertToFloat64()).Less(reqF).ToBits()
			ok := t.Equal(zeroI).ToBits() | ^(tooBig | short)
			keep |= uint64(ok) << (8 * v)
		}
		words[q] = w & keep
	}
	leaveAVX()
	passRange(words, full, total.Len(), func(i int) bool { return CorePasses(total.At(i), int64(used[i]), ratio.At(i), req) })
}

func diskPassSimd(words []uint64, totalGB *Coded[int64], freeMB []int32, ratio *Coded[float64], req int64) {
	reqI, reqF := archsimd.BroadcastInt64x8(req), archsimd.BroadcastFloat64x8(float64(req))
	rf, rc, rlo, rhi := floatSource(ratio)
	tf, tc, tlo, thi := intSource(totalGB)
	shifts := codeShifts()
	full := fullWords(words, totalGB.Len())
	for q := 0; q < full; q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var keep uint64
		for v := 0; v < 8; v++ {
			if uint8(w>>(8*v)) == 0 {
				continue
			}
			i := q*64 + 8*v
			var t archsimd.Int64x8
			if tf != nil {
				t = archsimd.LoadInt64x8Slice(tf[i:])
			} else {
				t = tlo.ConcatPermute(thi, archsimd.BroadcastUint64x8(uint64(tc[i>>3])).ShiftRight(shifts))
			}
			t = t.ShiftAllLeft(10) // * 1024, wrapping as Go does
			f := archsimd.LoadInt32x8Slice(freeMB[i:]).ExtendToInt64()
			var r archsimd.Float64x8
			if rf != nil {
				r = archsimd.LoadFloat64x8Slice(rf[i:])
			} else {
				r = rlo.ConcatPermute(rhi, archsimd.BroadcastUint64x8(uint64(rc[i>>3])).ShiftRight(shifts))
			}
			limit := t.ConvertToFloat64().Mul(r)
			ok := limit.Sub(t.Sub(f).ConvertToFloat64()).GreaterEqual(reqF).ToBits() &^ t.Less(reqI).ToBits()
			keep |= uint64(ok) << (8 * v)
		}
		words[q] = w & keep
	}
	leaveAVX()
	passRange(words, full, totalGB.Len(), func(i int) bool { return DiskPasses(totalGB.At(i), int64(freeMB[i]), ratio.At(i), req) })
}

func belowPassSimd(words []uint64, counter []int32, limit int64, limits *Coded[int64]) {
	lim := archsimd.BroadcastInt64x8(limit)
	var lf []int64
	var lc []uint32
	var llo, lhi archsimd.Int64x8
	shifts := codeShifts()
	if limits != nil {
		lf, lc, llo, lhi = intSource(limits)
	}
	full := fullWords(words, len(counter))
	for q := 0; q < full; q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var keep uint64
		for v := 0; v < 8; v++ {
			if uint8(w>>(8*v)) == 0 {
				continue
			}
			i := q*64 + 8*v
			l := lim
			switch {
			case lf != nil:
				l = archsimd.LoadInt64x8Slice(lf[i:])
			case limits != nil:
				l = llo.ConcatPermute(lhi, archsimd.BroadcastUint64x8(uint64(lc[i>>3])).ShiftRight(shifts))
			}
			keep |= uint64(archsimd.LoadInt32x8Slice(counter[i:]).ExtendToInt64().Less(l).ToBits()) << (8 * v)
		}
		words[q] = w & keep
	}
	if limits != nil {
		leaveAVX()
		passRange(words, full, len(counter), func(i int) bool { return int64(counter[i]) < limits.At(i) })
		return
	}
	leaveAVX()
	passRange(words, full, len(counter), func(i int) bool { return int64(counter[i]) < limit })
}

// rangePass judges sixteen hosts per vector: two compares and a mask.
func rangePassSimd(words []uint64, col []int32, lo, hi int32, invert bool) {
	vlo, vhi := archsimd.BroadcastInt32x16(lo), archsimd.BroadcastInt32x16(hi)
	var flip uint64
	if invert {
		flip = ^uint64(0)
	}
	full := fullWords(words, len(col))
	for q := 0; q < full; q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var in uint64
		for g := 0; g < 4; g++ {
			if uint16(w>>(16*g)) == 0 {
				continue
			}
			v := archsimd.LoadInt32x16Slice(col[q*64+16*g:])
			in |= uint64(v.GreaterEqual(vlo).And(v.LessEqual(vhi)).ToBits()) << (16 * g)
		}
		words[q] = w & (in ^ flip)
	}
	leaveAVX()
	passRange(words, full, len(col), func(i int) bool { return (lo <= col[i] && col[i] <= hi) != invert })
}
