//go:build !(goexperiment.simd && amd64)

package kernels

func minMax(xs []float64) (lo, hi float64) { return minMaxGo(xs) }

func accumulate(score []float64, raw Col, mult []float64, lo, span float64) {
	accumulateGo(score, raw, mult, lo, span)
}

func accumulateScalar(score []float64, raw Col, m, lo, span float64) {
	accumulateScalarGo(score, raw, m, lo, span)
}

// SIMD reports whether the AVX-512 kernels are in use.
const SIMD = false

func minMaxMasked(xs *Col, words []uint64, lo, hi []float64) {
	minMaxMaskedGo(xs, words, lo, hi)
}

func ramPass(words []uint64, total *Coded[int64], free []int32, ratio *Coded[float64], req int64) {
	RAMPassPortable(words, total, free, ratio, req)
}

func corePass(words []uint64, total *Coded[int64], used []int32, ratio *Coded[float64], req int64) {
	CorePassPortable(words, total, used, ratio, req)
}

func diskPass(words []uint64, totalGB *Coded[int64], freeMB []int32, ratio *Coded[float64], req int64) {
	DiskPassPortable(words, totalGB, freeMB, ratio, req)
}

func rangePass(words []uint64, col []int32, lo, hi int32, invert bool) {
	RangePassPortable(words, col, lo, hi, invert)
}

func belowPass(words []uint64, counter []int32, limit int64, limits *Coded[int64]) {
	BelowPassPortable(words, counter, limit, limits)
}

func maxMasked(xs []float64, words []uint64, hi []float64) { maxMaskedGo(xs, words, hi) }

func weighScaled(score []float64, raw []Col, scale []float64) {
	weighScaledGo(score, raw, scale)
}

func accumulateScaled(score []float64, raw Col, mult []float64, lo, base, inv float64) {
	accumulateScaledGo(score, raw, mult, lo, base, inv)
}

func accumulateCoded(score []float64, raw Col, mult *Coded[float64], lo, span float64) {
	accumulateCodedGo(score, raw, mult, lo, span)
}

func accumulateScaledCoded(score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	accumulateScaledCodedGo(score, raw, mult, lo, base, inv)
}

func notBelow(xs []float64, w uint64, thr float64) uint64 { return notBelowGo(xs, w, thr) }
