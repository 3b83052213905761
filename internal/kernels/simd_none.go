//go:build !(goexperiment.simd && amd64)

package kernels

// Without GOEXPERIMENT=simd (or off amd64) the archsimd path is never
// taken: these stand in for its kernels.

const hasSimd = false

func noSimd() { panic("kernels: no archsimd kernels in this build") }

func minMaxSimd([]float64) (float64, float64) { noSimd(); return 0, 0 }

func accumulateScalarSimd([]float64, Col, float64, float64, float64, bool) { noSimd() }

func accumulateSimd([]float64, Col, []float64, float64, float64, bool) { noSimd() }

func accumulateScaledSimd([]float64, Col, []float64, float64, float64, float64) { noSimd() }

func accumulateCodedSimd([]float64, Col, *Coded[float64], float64, float64, bool) { noSimd() }

func accumulateScaledCodedSimd([]float64, Col, *Coded[float64], float64, float64, float64) {
	noSimd()
}

func weighScaledSimd([]float64, []Col, []float64) { noSimd() }

func minMaxMaskedSimd(*Col, []uint64, []float64, []float64) { noSimd() }

func maxMaskedSimd([]float64, []uint64, []float64) { noSimd() }

func notBelowSimd([]float64, uint64, float64) uint64 { noSimd(); return 0 }

func ramPassSimd([]uint64, *Coded[int64], []int32, *Coded[float64], int64) { noSimd() }

func corePassSimd([]uint64, *Coded[int64], []int32, *Coded[float64], int64) { noSimd() }

func diskPassSimd([]uint64, *Coded[int64], []int32, *Coded[float64], int64) { noSimd() }

func belowPassSimd([]uint64, []int32, int64, *Coded[int64]) { noSimd() }

func rangePassSimd([]uint64, []int32, int32, int32, bool) { noSimd() }
