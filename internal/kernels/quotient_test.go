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

// TestAccumulateCodedTableSizes runs AccumulateCoded on every path with
// multiplier tables of 1 to 16 values (AVX2 decodes those of at most 8
// in half the lookups, the others in full), on an integer column (the
// quotient kernels) and a float one (the division), against the
// portable loops, bit for bit.
func TestAccumulateCodedTableSizes(t *testing.T) {
	const n = 1000
	rng := rand.New(rand.NewPCG(5, 6))
	ints, floats := make([]int32, n), make([]float64, n)
	for i := range n {
		ints[i], floats[i] = int32(rng.IntN(1<<20))-1000, rng.Float64()*1e4-10
	}
	paths := Paths()
	for _, k := range []int{1, 2, 4, 8, 9, 12, 16} {
		vals := make([]float64, k)
		for i := range vals {
			vals[i] = float64(i+1) * (0.5 + rng.Float64())
		}
		ms := make([]float64, n)
		for i := range ms {
			ms[i] = vals[rng.IntN(k)]
		}
		for i := range k { // every value present
			ms[i] = vals[i]
		}
		mult := NewCoded(ms)
		if !mult.IsCoded() || mult.k != k {
			t.Fatalf("%d values: coded %v with %d", k, mult.IsCoded(), mult.k)
		}
		for _, col := range []struct {
			name     string
			c        Col
			lo, span float64
		}{{"int32", Ints(ints), -1000, 1 << 20}, {"floats", Floats(floats), -10, 1e4}} {
			var want []float64
			for _, name := range paths {
				restore, err := SetPath(name)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]float64, n)
				AccumulateCoded(got, col.c, &mult, col.lo, col.span)
				restore()
				if name == "portable" {
					want = got
					continue
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("path=%s, %d values, %s: element %d %v, portable %v", name, k, col.name, i, got[i], want[i])
					}
				}
			}
		}
	}
	t.Logf("paths %v", paths)
}
