// Package kernels holds the column kernels of the engine's hot paths:
// loops over flat []float64 and []int32 slices with no per-element calls,
// so that they run at memory speed. A weigher's raw values are a Col:
// float64s, or a usage column of int32s read clamped at 0.
//
// Each kernel has a portable version (Go the compiler compiles as is) and,
// when built with GOEXPERIMENT=simd on amd64 (build tag goexperiment.simd),
// an AVX-512 version from simd/archsimd used when the CPU has AVX-512F.
// The two are equivalent bit for bit: every operation is a separately
// rounded IEEE add, subtract, multiply, divide, min or max, never a fused
// multiply-add (it rounds once where Nova rounds twice), so weights match
// Nova's and the reference's exactly. kernels_test checks the equivalence
// at every length up to a few vectors and on random data.
package kernels

// MinMax returns the smallest and largest values of xs (+Inf, -Inf when
// xs is empty). xs must not hold NaN.
func MinMax(xs []float64) (lo, hi float64) { return minMax(xs) }

// Accumulate adds mult[i] * ((raw.At(i) - lo) / span) to score[i] for every
// i, with exactly those operations in that order (Nova's normalised,
// multiplied weigher term). The slices must have equal lengths.
func Accumulate(score []float64, raw Col, mult []float64, lo, span float64) {
	accumulate(score, raw, mult, lo, span)
}

// AccumulateScalar adds m * ((raw.At(i) - lo) / span) to score[i] for every
// i: Accumulate with one multiplier for every element.
func AccumulateScalar(score []float64, raw Col, m, lo, span float64) {
	accumulateScalar(score, raw, m, lo, span)
}

// AccumulateScalarPortable is AccumulateScalar without SIMD.
func AccumulateScalarPortable(score []float64, raw Col, m, lo, span float64) {
	accumulateScalarGo(score, raw, m, lo, span)
}

// MinMaxPortable is MinMax without SIMD, for tests and paired benchmarks.
func MinMaxPortable(xs []float64) (lo, hi float64) { return minMaxGo(xs) }

// AccumulatePortable is Accumulate without SIMD.
func AccumulatePortable(score []float64, raw Col, mult []float64, lo, span float64) {
	accumulateGo(score, raw, mult, lo, span)
}

// Block is the number of elements one MinMaxMasked statistic covers:
// eight words of a bitmap.
const Block = 512

// MinMaxMasked sets lo[q] and hi[q] to the smallest and largest of the
// elements xs.At(i) with i in block q (Block*q <= i < Block*(q+1)) whose bit
// is set in words (bit i%64 of words[i/64]); +Inf and -Inf when none is:
// per-block statistics over the hosts of a bitmap. words has one entry per
// 64 elements of xs, lo and hi one per Block (the last may be short); bits
// past the end of xs must be clear. xs must not hold NaN.
func MinMaxMasked(xs Col, words []uint64, lo, hi []float64) { minMaxMasked(&xs, words, lo, hi) }

// MinMaxMaskedPortable is MinMaxMasked without SIMD.
func MinMaxMaskedPortable(xs Col, words []uint64, lo, hi []float64) {
	minMaxMaskedGo(&xs, words, lo, hi)
}

// MaxMasked is MinMaxMasked computing only the maxima.
func MaxMasked(xs []float64, words []uint64, hi []float64) { maxMasked(xs, words, hi) }

// MaxMaskedPortable is MaxMasked without SIMD.
func MaxMaskedPortable(xs []float64, words []uint64, hi []float64) { maxMaskedGo(xs, words, hi) }

// WeighScaled sets score[i] to the sum over a of raw[a].At(i) * scale[a], the
// products added in order of a, each operation separately rounded (no
// fused multiply-add); 0 without columns. Each raw[a] must be at least
// len(score) long and len(scale) at least len(raw).
//
// With scale[a] = m/(hi-lo) this is a weigher sum shifted by a constant
// (the lo*m/(hi-lo) terms) that multiplies where Nova divides: it is NOT
// Nova's weight, only close to it, for callers that bound the difference
// and recompute exactly the weights that can matter.
func WeighScaled(score []float64, raw []Col, scale []float64) {
	weighScaled(score, raw, scale)
}

// WeighScaledPortable is WeighScaled without SIMD.
func WeighScaledPortable(score []float64, raw []Col, scale []float64) {
	weighScaledGo(score, raw, scale)
}

// AccumulateScaled adds ((raw.At(i) - lo) * (mult[i] - base)) * inv to
// score[i] for every i, each operation separately rounded: with
// inv = 1/(hi-lo), the part of a weigher's term that a per-host
// multiplier adds beyond base, without a division (see WeighScaled). The
// slices must have equal lengths.
func AccumulateScaled(score []float64, raw Col, mult []float64, lo, base, inv float64) {
	accumulateScaled(score, raw, mult, lo, base, inv)
}

// AccumulateScaledPortable is AccumulateScaled without SIMD.
func AccumulateScaledPortable(score []float64, raw Col, mult []float64, lo, base, inv float64) {
	accumulateScaledGo(score, raw, mult, lo, base, inv)
}

// NotBelow returns w without the bits i whose xs[i] is below thr: the
// candidates of a word (host i of the word is xs[i], bit i of w; bits at
// len(xs) and above must be clear) that can still reach thr. NaN is not
// below anything, as x < thr is false for it.
func NotBelow(xs []float64, w uint64, thr float64) uint64 { return notBelow(xs, w, thr) }

// NotBelowPortable is NotBelow without SIMD.
func NotBelowPortable(xs []float64, w uint64, thr float64) uint64 { return notBelowGo(xs, w, thr) }
