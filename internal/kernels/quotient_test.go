package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuotient checks quotient against the division, bit for bit, on the
// integers QuotientExact admits: spans of every bit length with all ones,
// a single one and random bits, numerators near 0, near the span, near
// the span's multiples and at random, both signs.
func TestQuotient(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	check := func(x, span float64) {
		t.Helper()
		if got, want := quotient(x, span, 1/span), x/span; math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("quotient(%v, %v) = %v (%#x), want %v (%#x)", x, span, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	const limit = 1 << 50
	n := 0
	for bits := 1; bits <= 50; bits++ {
		top := uint64(1) << (bits - 1)
		spans := []uint64{top, 2*top - 1, top + 1, top | rng.Uint64N(top)}
		for _, s := range spans {
			if s == 0 || s >= limit {
				continue
			}
			span := float64(s)
			for _, x := range []uint64{0, 1, 2, 3, s - 1, s, s + 1, 2*s - 1, 2 * s, 3*s + 1, limit - 1, limit - s} {
				if x < limit {
					check(float64(x), span)
					if x != 0 { // -0 is no column's (QuotientExact)
						check(-float64(x), span)
					}
					n += 2
				}
			}
			for range 2000 {
				x := 1 + rng.Uint64N(limit-1)>>rng.IntN(50)
				check(float64(x), span)
				check(-float64(x), span)
				if s > 1 {
					check(float64(rng.Uint64N(s+1)), span)
				}
				n += 3
			}
		}
	}
	for range 1_000_000 {
		span := float64(1 + rng.Uint64N(limit-1)>>rng.IntN(50))
		check(float64(rng.Uint64N(limit)>>rng.IntN(50)), span)
		n++
	}
	t.Logf("%d quotients", n)
}

func TestQuotientExact(t *testing.T) {
	ints := []int32{3, -7, 1 << 30}
	few := NewCoded([]float64{1, 2, 3, 2, 1, 1, 1, 1})
	frac := NewCoded([]float64{1, 2.5, 3, 2, 1, 1, 1, 1})
	big := NewCoded([]float64{1, 1 << 49, 3, 2, 1, 1, 1, 1})
	negZero := NewCoded([]float64{1, math.Copysign(0, -1), 3, 2, 1, 1, 1, 1})
	full := FullCoded([]float64{1, 2, 3, 2, 1, 1, 1, 1})
	used := make([]int32, 8)
	for _, c := range []struct {
		name     string
		col      Col
		lo, span float64
		want     bool
	}{
		{"ints", Ints(ints), -7, 100, true},
		{"clamped", Clamped(ints), 0, 1 << 30, true},
		{"intheadroom", IntHeadroom(ints, ints), 0, 5, true},
		{"static", Static(&few), 1, 2, true},
		{"headroom", Headroom(&few, used), 0, 3, true},
		{"floats", Floats([]float64{1, 2}), 1, 1, false},
		{"fractional table", Static(&frac), 1, 2, false},
		{"table past 2^49", Static(&big), 1, 2, false},
		{"-0 in the table", Static(&negZero), 1, 2, false},
		{"full", Static(&full), 1, 2, false},
		{"fractional lo", Ints(ints), 0.5, 2, false},
		{"fractional span", Ints(ints), 0, 2.5, false},
		{"zero span", Ints(ints), 0, 0, false},
		{"span 2^50", Ints(ints), 0, 1 << 50, false},
		{"NaN span", Ints(ints), 0, math.NaN(), false},
		{"infinite span", Ints(ints), 0, math.Inf(1), false},
		{"lo 2^49", Ints(ints), 1 << 49, 1, false},
	} {
		if got := QuotientExact(&c.col, c.lo, c.span); got != c.want {
			t.Errorf("%s: QuotientExact = %v, want %v", c.name, got, c.want)
		}
	}
}
