package kernels

// Each kernel calls the implementation of the path in use (paths.go).
// Those a build lacks are stubs that supported keeps from being chosen.
// An accumulation with set writes score[i] = 0 + the term in place of
// score[i] += the term (SetScalar, SetCoded).

func minMax(xs []float64) (lo, hi float64) {
	switch cur {
	case pathAVX512:
		return minMaxAsm(true, xs)
	case pathAVX2:
		return minMaxAsm(false, xs)
	case pathSimd:
		return minMaxSimd(xs)
	}
	return minMaxGo(xs)
}

func accumulate(score []float64, raw Col, mult []float64, lo, span float64, set bool) {
	switch cur {
	case pathAVX512:
		accumulateAsm(true, score, raw, mult, lo, span, set)
	case pathAVX2:
		accumulateAsm(false, score, raw, mult, lo, span, set)
	case pathSimd:
		accumulateSimd(score, raw, mult, lo, span, set)
	default:
		accumulateGo(score, raw, mult, lo, span, set)
	}
}

func accumulateScalar(score []float64, raw Col, m, lo, span float64, set bool) {
	switch cur {
	case pathAVX512:
		accumulateScalarAsm(true, score, raw, m, lo, span, set)
	case pathAVX2:
		accumulateScalarAsm(false, score, raw, m, lo, span, set)
	case pathSimd:
		accumulateScalarSimd(score, raw, m, lo, span, set)
	default:
		accumulateScalarGo(score, raw, m, lo, span, set)
	}
}

func accumulateScaled(score []float64, raw Col, mult []float64, lo, base, inv float64) {
	switch cur {
	case pathAVX512:
		accumulateScaledAsm(true, score, raw, mult, lo, base, inv)
	case pathAVX2:
		accumulateScaledAsm(false, score, raw, mult, lo, base, inv)
	case pathSimd:
		accumulateScaledSimd(score, raw, mult, lo, base, inv)
	default:
		accumulateScaledGo(score, raw, mult, lo, base, inv)
	}
}

// accumulateCoded and accumulateScaledCoded take a coded mult (not in
// full).
func accumulateCoded(score []float64, raw Col, mult *Coded[float64], lo, span float64, set bool) {
	switch cur {
	case pathAVX512:
		accumulateCodedAsm(true, score, raw, mult, lo, span, set)
	case pathAVX2:
		accumulateCodedAsm(false, score, raw, mult, lo, span, set)
	case pathSimd:
		accumulateCodedSimd(score, raw, mult, lo, span, set)
	default:
		accumulateCodedGo(score, raw, mult, lo, span, set)
	}
}

func accumulateScaledCoded(score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	switch cur {
	case pathAVX512:
		accumulateScaledCodedAsm(true, score, raw, mult, lo, base, inv)
	case pathAVX2:
		accumulateScaledCodedAsm(false, score, raw, mult, lo, base, inv)
	case pathSimd:
		accumulateScaledCodedSimd(score, raw, mult, lo, base, inv)
	default:
		accumulateScaledCodedGo(score, raw, mult, lo, base, inv)
	}
}

func weighScaled(score []float64, raw []Col, scale []float64) {
	switch cur {
	case pathAVX512:
		weighScaledAsm(true, score, raw, scale)
	case pathAVX2:
		weighScaledAsm(false, score, raw, scale)
	case pathSimd:
		weighScaledSimd(score, raw, scale)
	default:
		weighScaledGo(score, raw, scale)
	}
}

func minMaxMasked(xs *Col, words []uint64, lo, hi []float64) {
	switch cur {
	case pathAVX512:
		minMaxMaskedAsm(true, xs, words, lo, hi)
	case pathAVX2:
		minMaxMaskedAsm(false, xs, words, lo, hi)
	case pathSimd:
		minMaxMaskedSimd(xs, words, lo, hi)
	default:
		minMaxMaskedGo(xs, words, lo, hi)
	}
}

func maxMasked(xs []float64, words []uint64, hi []float64) {
	switch cur {
	case pathAVX512:
		maxMaskedAsm(true, xs, words, hi)
	case pathAVX2:
		maxMaskedAsm(false, xs, words, hi)
	case pathSimd:
		maxMaskedSimd(xs, words, hi)
	default:
		maxMaskedGo(xs, words, hi)
	}
}

func notBelow(xs []float64, w uint64, thr float64) uint64 {
	switch cur {
	case pathAVX512:
		return notBelowAsm(true, xs, w, thr)
	case pathAVX2:
		return notBelowAsm(false, xs, w, thr)
	case pathSimd:
		return notBelowSimd(xs, w, thr)
	}
	return notBelowGo(xs, w, thr)
}

func ramPass(words []uint64, total *Coded[int64], free []int32, ratio *Coded[float64], req int64) {
	switch cur {
	case pathAVX512:
		ramPassAsm(true, words, total, free, ratio, req)
	case pathAVX2:
		ramPassAsm(false, words, total, free, ratio, req)
	case pathSimd:
		ramPassSimd(words, total, free, ratio, req)
	default:
		RAMPassPortable(words, total, free, ratio, req)
	}
}

func corePass(words []uint64, total *Coded[int64], used []int32, ratio *Coded[float64], req int64) {
	switch cur {
	case pathAVX512:
		corePassAsm(true, words, total, used, ratio, req)
	case pathAVX2:
		corePassAsm(false, words, total, used, ratio, req)
	case pathSimd:
		corePassSimd(words, total, used, ratio, req)
	default:
		CorePassPortable(words, total, used, ratio, req)
	}
}

func diskPass(words []uint64, totalGB *Coded[int64], freeMB []int32, ratio *Coded[float64], req int64) {
	switch cur {
	case pathAVX512:
		diskPassAsm(true, words, totalGB, freeMB, ratio, req)
	case pathAVX2:
		diskPassAsm(false, words, totalGB, freeMB, ratio, req)
	case pathSimd:
		diskPassSimd(words, totalGB, freeMB, ratio, req)
	default:
		DiskPassPortable(words, totalGB, freeMB, ratio, req)
	}
}

func belowPass(words []uint64, counter []int32, limit int64, limits *Coded[int64]) {
	switch cur {
	case pathAVX512:
		belowPassAsm(true, words, counter, limit, limits)
	case pathAVX2:
		belowPassAsm(false, words, counter, limit, limits)
	case pathSimd:
		belowPassSimd(words, counter, limit, limits)
	default:
		BelowPassPortable(words, counter, limit, limits)
	}
}

func rangePass(words []uint64, col []int32, lo, hi int32, invert bool) {
	switch cur {
	case pathAVX512:
		rangePassAsm(true, words, col, lo, hi, invert)
	case pathAVX2:
		rangePassAsm(false, words, col, lo, hi, invert)
	case pathSimd:
		rangePassSimd(words, col, lo, hi, invert)
	default:
		RangePassPortable(words, col, lo, hi, invert)
	}
}
