package engine

import (
	"math"

	"github.com/placer/placer/internal/kernels"
)

// Scaled weights. Nova's weight of a host is the sum over weighers of
// m*((r-lo)/(hi-lo)), m the host's multiplier; every full rescoring of the
// dense ranker would pay a division per host and weigher and read every
// multiplier column. With m0 a weigher's base multiplier (the most common)
// and d = hi-lo, the scaled weight sums r*(m0/d) over the weighers
// (kernels.WeighScaled: columns of r only), then, for the few hosts whose
// m differs from m0 (shard.multOver), ((r-lo)*(m-m0))*(1/d). A weigher
// whose multiplier many hosts override has no base (m0 = 0): every host
// adds ((r-lo)*m)*(1/d) (kernels.AccumulateScaled). Its exact
// value is the weight plus the constant sum of -lo*m0/d, the same for
// every host. With B the sum over weighers of |m0/d|*max(|lo|,|hi|) (a
// bound on every |r*m0/d|, since lo <= r <= hi for a candidate) and M the
// sum of the largest |m| plus |m0|, each of the at most 8n roundings of
// the scaled weight (factors, products, differences, sums) errs by at most
// 2^-53 of B+M, and each of Nova's 4n by at most 2^-53 of M, so that for
// n <= 10 weighers
//
//	|scaled(h) - (weight(h) + constant)| <= 120 * 2^-53 * (B+M) < eps
//
// with eps = (B+M) * 2^-44 (a margin of 4), plus 2^-860 for what
// underflows (every d and |m| lies within 2^+-200, or the ranker keeps
// the exact kernels). The ranking on scaled weights then bounds the exact
// one: if the k-th best scaled weight is t, every host of the exact top k
// (and every host tied with the best) has a scaled weight of at least
// t - 2*eps, and only those are weighed exactly (top).

// useScaledWeights is whether scaled weights are on by default (a batch's
// rankOptions.scaled may turn them on or off either way). They pay where the kernels
// are portable Go (scalar divisions: 50,000 hosts x 1 instance 1.13 ->
// 0.81 ms, x 1,000 16.4 -> 12.8 ms, interleaved A/B). With the AVX-512
// kernels, which the columns' bandwidth bounds, they cost more than they
// save (x 1 193 -> 224 us, x 1,000 5.4 -> 7.3 ms: the second, exact pass
// of top and the longer per-host sums). Never changed once set.
var useScaledWeights = !kernels.SIMD

// scaledPlan decides whether the next full rescoring uses scaled weights
// under lo/hi and sets the terms and eps.
func (rk *denseRanker) scaledPlan() {
	s := rk.v.snap()
	rk.scaled, rk.eps = false, 0
	rk.cols, rk.scale = rk.cols[:0], rk.scale[:0]
	rk.terms, rk.tlo, rk.inv, rk.tbase = rk.terms[:0], rk.tlo[:0], rk.inv[:0], rk.tbase[:0]
	if !rk.scaledOK {
		return
	}
	bound, mult := 0.0, 0.0
	for a, w := range rk.act {
		lo, hi := rk.lo[a], rk.hi[a]
		if lo == hi {
			continue
		}
		d, m0 := hi-lo, s.mults.base[w]
		if !(d >= 0x1p-200 && d <= 0x1p200 && s.mults.maxAbs[w] <= 0x1p200) {
			return
		}
		if manyOver(s, w) {
			m0 = 0
		}
		if c := m0 / d; c != 0 {
			if math.Abs(c) < 0x1p-1000 { // subnormal: too coarse
				return
			}
			rk.cols, rk.scale = append(rk.cols, w), append(rk.scale, c)
			bound += math.Abs(c) * max(math.Abs(lo), math.Abs(hi))
		}
		rk.terms, rk.tlo, rk.inv = append(rk.terms, w), append(rk.tlo, lo), append(rk.inv, 1/d)
		rk.tbase = append(rk.tbase, m0)
		mult += s.mults.maxAbs[w] + math.Abs(m0)
	}
	if len(rk.terms) == 0 || !(bound+mult <= 0x1p900) {
		return
	}
	rk.scaled, rk.eps = true, (bound+mult)*0x1p-44+0x1p-860
}

// scaledOf is candidate id's scaled weight, with rescoreAll's operations
// in its order.
func (rk *denseRanker) scaledOf(id uint32) float64 {
	s := 0.0
	for t, w := range rk.cols {
		if p := rk.raw(w, id) * rk.scale[t]; t == 0 {
			s = p
		} else {
			s += float64(p)
		}
	}
	sh, j := rk.v.snap().at(id)
	for t, w := range rk.terms {
		if m, base := sh.mult[w].At(j), rk.tbase[t]; base == 0 || math.Float64bits(m) != math.Float64bits(base) {
			s += float64(float64((rk.raw(w, id)-rk.tlo[t])*(m-base)) * rk.inv[t])
		}
	}
	return s
}

// manyOver reports whether so many hosts have a multiplier of weigher w
// other than the base that a pass over all of them is cheaper than one
// per such host.
func manyOver(s *Snapshot, w int) bool { return s.mults.overs[w]*16 > s.n }

// weighScaled sets the shard's hosts' scaled weights (score), as
// scaledOf computes one.
func (rk *denseRanker) weighScaled(k int, score []float64) {
	sh := rk.v.snap().shards[k]
	var cols [numWeighers]kernels.Col
	for t, w := range rk.cols {
		cols[t] = rk.col(k, w)
	}
	kernels.WeighScaled(score, cols[:len(rk.cols)], rk.scale)
	for t, w := range rk.terms {
		raw, mult, base, lo, inv := rk.col(k, w), &sh.mult[w], rk.tbase[t], rk.tlo[t], rk.inv[t]
		if base == 0 {
			kernels.AccumulateScaledCoded(score, raw, mult, lo, 0, inv)
			continue
		}
		for _, j := range sh.multOver[w] {
			score[j] += float64(float64((raw.At(int(j))-lo)*(mult.At(int(j))-base)) * inv)
		}
	}
}
