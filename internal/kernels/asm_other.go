//go:build !amd64 || purego

package kernels

// Without the assembly (another architecture, or the purego build tag),
// the AVX2 and AVX-512 paths are never taken: these stand in for their
// kernels.

const hasAVX2, hasAVX512 = false, false

func noAsm() { panic("kernels: no assembly kernels in this build") }

func minMaxAsm(bool, []float64) (float64, float64) { noAsm(); return 0, 0 }

func accumulateScalarAsm(bool, []float64, Col, float64, float64, float64, bool) { noAsm() }

func accumulateAsm(bool, []float64, Col, []float64, float64, float64, bool) { noAsm() }

func accumulateScaledAsm(bool, []float64, Col, []float64, float64, float64, float64) { noAsm() }

func accumulateCodedAsm(bool, []float64, Col, *Coded[float64], float64, float64, bool) { noAsm() }

func accumulateScaledCodedAsm(bool, []float64, Col, *Coded[float64], float64, float64, float64) {
	noAsm()
}

func weighScaledAsm(bool, []float64, []Col, []float64) { noAsm() }

func minMaxMaskedAsm(bool, *Col, []uint64, []float64, []float64) { noAsm() }

func maxMaskedAsm(bool, []float64, []uint64, []float64) { noAsm() }

func notBelowAsm(bool, []float64, uint64, float64) uint64 { noAsm(); return 0 }

func ramPassAsm(bool, []uint64, *Coded[int64], []int32, *Coded[float64], int64) { noAsm() }

func corePassAsm(bool, []uint64, *Coded[int64], []int32, *Coded[float64], int64) { noAsm() }

func diskPassAsm(bool, []uint64, *Coded[int64], []int32, *Coded[float64], int64) { noAsm() }

func belowPassAsm(bool, []uint64, []int32, int64, *Coded[int64]) { noAsm() }

func rangePassAsm(bool, []uint64, []int32, int32, int32, bool) { noAsm() }
