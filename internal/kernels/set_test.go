package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSetMatchesAccumulateOntoZeros checks SetScalar and SetCoded (with
// multiplier columns of up to 8, up to 16 and more distinct values: each
// coded kernel, and the full one), on every path and portable, against
// the portable accumulations onto a score of zeros, bit for bit: whatever
// score held before (NaN here), and
// where a term is -0 (a negative multiplier on the smallest raw value),
// which the sum with Nova's starting 0.0 makes +0. The bounds are
// integers half of the time, so that the kernels without a division (the
// quotient ones) are taken where the column allows.
func TestSetMatchesAccumulateOntoZeros(t *testing.T) { eachPath(t, testSetMatches) }

func testSetMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	negZeros, wideCoded := 0, 0
	for n := 0; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			col, raw := randCol(rng, n, rep)
			lo, span := rng.NormFloat64()*100, 1+rng.Float64()*1e6
			if rep%2 == 1 {
				lo, span = math.Floor(lo), math.Floor(span)
			}
			if n > 0 && rep%3 == 0 {
				lo = raw[rng.IntN(n)] // a term of (x - lo) = 0
			}
			m := -1 - rng.Float64()
			vals := []float64{m, 2, -0.5} // AVX2's Small kernels: codes below 8
			switch rep % 4 {
			case 2:
				vals = append(vals, randSlice(rng, 6+rng.IntN(8))...) // 9-16 values: coded, not Small
			case 3:
				vals = randSlice(rng, 17) // more values than a code holds: kept in full
			}
			mult := make([]float64, n)
			for i := range mult {
				mult[i] = vals[rng.IntN(len(vals))]
			}
			c := NewCoded(mult)
			if c.IsCoded() && c.k > CodedValues/2 {
				wideCoded++ // AVX2's coded kernels that are not Small
			}
			for _, k := range []struct {
				name      string
				set, port func(score []float64)
				want      func(score []float64)
			}{
				{"SetScalar",
					func(s []float64) { SetScalar(s, col, m, lo, span) },
					func(s []float64) { SetScalarPortable(s, col, m, lo, span) },
					func(s []float64) { AccumulateScalarPortable(s, col, m, lo, span) }},
				{"SetCoded",
					func(s []float64) { SetCoded(s, col, &c, lo, span) },
					func(s []float64) { SetCodedPortable(s, col, &c, lo, span) },
					func(s []float64) { AccumulatePortable(s, Floats(raw), mult, lo, span) }},
			} {
				got, port, want := make([]float64, n), make([]float64, n), make([]float64, n)
				for i := range got {
					got[i], port[i] = math.NaN(), math.Inf(-1)
				}
				k.set(got)
				k.port(port)
				k.want(want)
				for i := range want {
					if !same(got[i], want[i]) || !same(port[i], want[i]) {
						t.Fatalf("%s n=%d rep=%d i=%d: %v, portable %v, want %v", k.name, n, rep, i, got[i], port[i], want[i])
					}
					if k.name == "SetScalar" && raw[i] == lo && !math.Signbit(want[i]) {
						negZeros++ // m < 0: the term was -0, the weight +0
					}
				}
			}
		}
	}
	if negZeros == 0 {
		t.Fatal("no term was -0: the sum with zero went untested")
	}
	if wideCoded == 0 {
		t.Fatal("no coded column of more than 8 values: the non-Small coded kernels went untested")
	}
}
