package kernels

import (
	"math"
	"math/bits"
)

func minMaxGo(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	i := 0
	// Four independent lanes hide the latency of the compare chains.
	if len(xs) >= 4 {
		l0, l1, l2, l3 := xs[0], xs[1], xs[2], xs[3]
		h0, h1, h2, h3 := l0, l1, l2, l3
		for i = 4; i+4 <= len(xs); i += 4 {
			a, b, c, d := xs[i], xs[i+1], xs[i+2], xs[i+3]
			l0, l1, l2, l3 = min(l0, a), min(l1, b), min(l2, c), min(l3, d)
			h0, h1, h2, h3 = max(h0, a), max(h1, b), max(h2, c), max(h3, d)
		}
		lo, hi = min(l0, l1, l2, l3), max(h0, h1, h2, h3)
	}
	for ; i < len(xs); i++ {
		lo, hi = min(lo, xs[i]), max(hi, xs[i])
	}
	return lo, hi
}

// The portable kernels read a Col a chunk of 64 elements at a time
// (Col.chunk).

// chunks calls add with each run of up to 64 elements of score from b on
// and raw's values there (raw is at least as long as score).
func chunks(score []float64, raw Col, add func(b int, s, xs []float64)) {
	raw = raw.Slice(0, len(score))
	var buf [64]float64
	for b := 0; b < len(score); b += 64 {
		xs := raw.chunk(b, &buf)
		add(b, score[b:b+len(xs)], xs)
	}
}

func accumulateScalarGo(score []float64, raw Col, m, lo, span float64, set bool) {
	chunks(score, raw, func(_ int, s, xs []float64) {
		for k, x := range xs {
			s[k] = addTo(s[k], set, float64(m*((x-lo)/span))) // rounded: no FMA (arm64)
		}
	})
}

// addTo is s + t, or 0 + t with set (an accumulation that sets: Nova's
// weights start at 0.0, and 0 + -0 is +0).
func addTo(s float64, set bool, t float64) float64 {
	if set {
		return 0 + t
	}
	return s + t
}

func accumulateGo(score []float64, raw Col, mult []float64, lo, span float64, set bool) {
	mult = mult[:len(score)]
	chunks(score, raw, func(b int, s, xs []float64) {
		m := mult[b : b+len(xs)]
		for k, x := range xs {
			s[k] = addTo(s[k], set, float64(m[k]*((x-lo)/span)))
		}
	})
}

func minMaxMaskedGo(col *Col, words []uint64, lo, hi []float64) {
	const wpb = Block / 64
	var buf [64]float64
	for q := range lo {
		l, h := math.Inf(1), math.Inf(-1)
		for k := q * wpb; k < min((q+1)*wpb, len(words)); k++ {
			if words[k] == 0 {
				continue
			}
			xs := col.chunk(k*64, &buf)
			for w := words[k]; w != 0; w &= w - 1 {
				x := xs[bits.TrailingZeros64(w)]
				l, h = min(l, x), max(h, x)
			}
		}
		lo[q], hi[q] = l, h
	}
}

func maxMaskedGo(xs []float64, words []uint64, hi []float64) {
	const wpb = Block / 64
	for q := range hi {
		h := math.Inf(-1)
		for k := q * wpb; k < min((q+1)*wpb, len(words)); k++ {
			base := k * 64
			for w := words[k]; w != 0; w &= w - 1 {
				h = max(h, xs[base+bits.TrailingZeros64(w)])
			}
		}
		hi[q] = h
	}
}

// redoZeroBlocks takes again with Go's max each block of hi whose
// largest is a zero (or a NaN): the blocks where a kernel taking VMAXPD
// alone, which returns its second operand for two zeros, may have lost
// Go's order of -0 below +0.
func redoZeroBlocks(xs []float64, words []uint64, hi []float64) {
	const wpb = Block / 64
	for q, x := range hi {
		if x == 0 || x != x {
			maxMaskedGo(xs[q*Block:min((q+1)*Block, len(xs))], words[q*wpb:min((q+1)*wpb, len(words))], hi[q:q+1])
		}
	}
}

func weighScaledGo(score []float64, raw []Col, scale []float64) {
	if len(raw) == 0 {
		clear(score)
		return
	}
	var buf [64]float64
	for a, col := range raw {
		col, c := col.Slice(0, len(score)), scale[a]
		for b := 0; b < len(score); b += 64 {
			xs := col.chunk(b, &buf)
			s := score[b : b+len(xs)]
			for k, x := range xs {
				if a == 0 {
					s[k] = x * c
				} else {
					// The conversion keeps the product rounded on its
					// own: no fused multiply-add, as in the SIMD version.
					s[k] += float64(x * c)
				}
			}
		}
	}
}

func accumulateScaledGo(score []float64, raw Col, mult []float64, lo, base, inv float64) {
	mult = mult[:len(score)]
	chunks(score, raw, func(b int, s, xs []float64) {
		m := mult[b : b+len(xs)]
		for k, x := range xs {
			s[k] += float64(float64((x-lo)*(m[k]-base)) * inv)
		}
	})
}

func notBelowGo(xs []float64, w uint64, thr float64) uint64 {
	for t := w; t != 0; t &= t - 1 {
		if i := bits.TrailingZeros64(t); xs[i] < thr {
			w &^= 1 << i
		}
	}
	return w
}
