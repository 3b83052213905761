//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

// vectorWords runs keep8 (the pass bits of hosts i..i+7) over every
// non-zero word holding 64 hosts, and the scalar pass over the rest.
func vectorWords(words []uint64, n int, keep8 func(i int) uint8, pass func(i int) bool) {
	full := min(n/64, len(words))
	for q := 0; q < full; q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var keep uint64
		for v := 0; v < 8; v++ {
			if uint8(w>>(8*v)) != 0 {
				keep |= uint64(keep8(q*64+8*v)) << (8 * v)
			}
		}
		words[q] = w & keep
	}
	passRange(words, full, n, pass)
}

func ramPass(words []uint64, total, free []int64, ratio []float64, req int64) {
	if !SIMD {
		RAMPassPortable(words, total, free, ratio, req)
		return
	}
	reqI, reqF := archsimd.BroadcastInt64x8(req), archsimd.BroadcastFloat64x8(float64(req))
	vectorWords(words, len(total), func(i int) uint8 {
		t := archsimd.LoadInt64x8Slice(total[i:])
		f := archsimd.LoadInt64x8Slice(free[i:])
		r := archsimd.LoadFloat64x8Slice(ratio[i:])
		limit := t.ConvertToFloat64().Mul(r)
		ok := limit.Sub(t.Sub(f).ConvertToFloat64()).GreaterEqual(reqF).ToBits()
		return ok &^ t.Less(reqI).ToBits()
	}, func(i int) bool { return RAMPasses(total[i], free[i], ratio[i], req) })
}

func corePass(words []uint64, total, used []int64, ratio []float64, req int64) {
	if !SIMD {
		CorePassPortable(words, total, used, ratio, req)
		return
	}
	reqI, reqF := archsimd.BroadcastInt64x8(req), archsimd.BroadcastFloat64x8(float64(req))
	zeroI, zeroF := archsimd.BroadcastInt64x8(0), archsimd.BroadcastFloat64x8(0)
	vectorWords(words, len(total), func(i int) uint8 {
		t := archsimd.LoadInt64x8Slice(total[i:])
		u := archsimd.LoadInt64x8Slice(used[i:])
		r := archsimd.LoadFloat64x8Slice(ratio[i:])
		limit := t.ConvertToFloat64().Mul(r)
		tooBig := limit.Greater(zeroF).ToBits() & reqI.Greater(t).ToBits()
		short := limit.Sub(u.ConvertToFloat64()).Less(reqF).ToBits()
		return t.Equal(zeroI).ToBits() | ^(tooBig | short)
	}, func(i int) bool { return CorePasses(total[i], used[i], ratio[i], req) })
}

func diskPass(words []uint64, totalGB, freeMB []int64, ratio []float64, req int64) {
	if !SIMD {
		DiskPassPortable(words, totalGB, freeMB, ratio, req)
		return
	}
	reqI, reqF := archsimd.BroadcastInt64x8(req), archsimd.BroadcastFloat64x8(float64(req))
	vectorWords(words, len(totalGB), func(i int) uint8 {
		t := archsimd.LoadInt64x8Slice(totalGB[i:]).ShiftAllLeft(10) // * 1024, wrapping as Go does
		f := archsimd.LoadInt64x8Slice(freeMB[i:])
		r := archsimd.LoadFloat64x8Slice(ratio[i:])
		limit := t.ConvertToFloat64().Mul(r)
		ok := limit.Sub(t.Sub(f).ConvertToFloat64()).GreaterEqual(reqF).ToBits()
		return ok &^ t.Less(reqI).ToBits()
	}, func(i int) bool { return DiskPasses(totalGB[i], freeMB[i], ratio[i], req) })
}

func belowPass(words []uint64, counter []int64, limit int64, limits []int64) {
	if !SIMD {
		BelowPassPortable(words, counter, limit, limits)
		return
	}
	if limits != nil {
		vectorWords(words, len(counter), func(i int) uint8 {
			return archsimd.LoadInt64x8Slice(counter[i:]).Less(archsimd.LoadInt64x8Slice(limits[i:])).ToBits()
		}, func(i int) bool { return counter[i] < limits[i] })
		return
	}
	lim := archsimd.BroadcastInt64x8(limit)
	vectorWords(words, len(counter), func(i int) uint8 {
		return archsimd.LoadInt64x8Slice(counter[i:]).Less(lim).ToBits()
	}, func(i int) bool { return counter[i] < limit })
}
