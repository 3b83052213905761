//go:build !(goexperiment.simd && amd64)

package kernels

func minMax(xs []float64) (lo, hi float64) { return minMaxGo(xs) }

func accumulate(score, raw, mult []float64, lo, span float64) {
	accumulateGo(score, raw, mult, lo, span)
}

func accumulateScalar(score, raw []float64, m, lo, span float64) {
	accumulateScalarGo(score, raw, m, lo, span)
}

// SIMD reports whether the AVX-512 kernels are in use.
const SIMD = false
