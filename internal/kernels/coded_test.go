package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCodedRoundTrip checks that a Coded column gives back every element
// bit for bit, in the form its distinct values call for, at lengths
// around the code word and vector widths.
func TestCodedRoundTrip(t *testing.T) {
	nan2 := math.Float64frombits(math.Float64bits(math.NaN()) ^ 1)
	for _, tc := range []struct {
		name   string
		values []float64 // drawn from, in turn then at random
		coded  bool
	}{
		{"one value", []float64{1.5}, true},
		{"zero and minus zero", []float64{0, math.Copysign(0, -1)}, true},
		{"NaN payloads", []float64{math.NaN(), nan2, math.Inf(1), math.Inf(-1)}, true},
		{"sixteen values", sequence(16), true},
		{"seventeen values", sequence(17), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			for _, n := range []int{1, 7, 8, 9, 17, 63, 64, 65, 4096, 9000} {
				xs := make([]float64, n)
				for i := range xs {
					if i < len(tc.values) {
						xs[i] = tc.values[i]
					} else {
						xs[i] = tc.values[rng.IntN(len(tc.values))]
					}
				}
				c := NewCoded(xs)
				want := tc.coded || n < len(tc.values)
				if c.IsCoded() != want || c.Len() != n {
					t.Fatalf("n=%d: coded %v, len %d; want %v, %d", n, c.IsCoded(), c.Len(), want, n)
				}
				for _, col := range []Coded[float64]{c, FullCoded(xs)} {
					tab := col.Table()
					if (tab != nil) != col.IsCoded() {
						t.Fatalf("n=%d coded=%v: table %v", n, col.IsCoded(), tab)
					}
					for i, x := range xs {
						if math.Float64bits(col.At(i)) != math.Float64bits(x) {
							t.Fatalf("n=%d coded=%v i=%d: %v, want %v", n, col.IsCoded(), i, col.At(i), x)
						}
						if tab != nil && math.Float64bits(tab[col.Code(i)]) != math.Float64bits(x) {
							t.Fatalf("n=%d i=%d: table[code] %v, want %v", n, i, tab[col.Code(i)], x)
						}
					}
				}
				xs[0] = 42 // NewCoded keeps no reference to its input
				if c.At(0) == 42 {
					t.Fatalf("n=%d: the column shares its input", n)
				}
			}
		})
	}
}

func sequence(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i) * 0.25
	}
	return xs
}

// TestCodedInts checks int64 columns at the edges of the type, coded and
// in full, and the empty column.
func TestCodedInts(t *testing.T) {
	xs := []int64{math.MaxInt64, math.MinInt64, 0, -1, 1, math.MaxInt64, 0, 0, -1}
	for _, c := range []Coded[int64]{NewCoded(xs), FullCoded(xs)} {
		for i, x := range xs {
			if c.At(i) != x {
				t.Fatalf("coded=%v i=%d: %d, want %d", c.IsCoded(), i, c.At(i), x)
			}
		}
	}
	if c := NewCoded([]int64(nil)); c.Len() != 0 || c.IsCoded() {
		t.Fatalf("empty column: len %d, coded %v", c.Len(), c.IsCoded())
	}
}

// TestCodedSharesZeros checks that single-valued columns keep no codes of
// their own (up to the shared zeros' length) and others do.
func TestCodedSharesZeros(t *testing.T) {
	one := NewCoded(make([]float64, 4096))
	two := NewCoded(append(make([]float64, 4095), 1))
	big := NewCoded(make([]float64, 8*len(zeroCodes)+1))
	if &one.codes[0] != &zeroCodes[0] || &two.codes[0] == &zeroCodes[0] || &big.codes[0] == &zeroCodes[0] {
		t.Fatal("single-valued columns should share the zero codes, up to their length, and no other")
	}
	if big.At(8*len(zeroCodes)) != 0 || two.At(4095) != 1 {
		t.Fatal("wrong values")
	}
}

// TestAccumulateCoded checks the coded accumulations, dispatched and
// portable, against the plain ones over the decoded column, bit for bit.
func TestAccumulateCoded(t *testing.T) { eachPath(t, testAccumulateCoded) }

func testAccumulateCoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 70; n++ {
		for rep := 0; rep < 10; rep++ {
			col, raw := randCol(rng, n, rep)
			vals := randSlice(rng, 1+rng.IntN(20)) // 17 and more: full
			mult := make([]float64, n)
			for i := range mult {
				mult[i] = vals[rng.IntN(len(vals))]
			}
			c := NewCoded(mult)
			lo, span := rng.NormFloat64()*100, 1+rng.Float64()*1e6
			base, inv := rng.NormFloat64(), 1/span
			start := randSlice(rng, n)
			for _, k := range []struct {
				name      string
				got, port func(score []float64)
				want      func(score []float64)
			}{
				{"Accumulate",
					func(s []float64) { AccumulateCoded(s, col, &c, lo, span) },
					func(s []float64) { AccumulateCodedPortable(s, col, &c, lo, span) },
					func(s []float64) { AccumulatePortable(s, Floats(raw), mult, lo, span) }},
				{"AccumulateScaled",
					func(s []float64) { AccumulateScaledCoded(s, col, &c, lo, base, inv) },
					func(s []float64) { AccumulateScaledCodedPortable(s, col, &c, lo, base, inv) },
					func(s []float64) { AccumulateScaledPortable(s, Floats(raw), mult, lo, base, inv) }},
			} {
				got, port, want := append([]float64(nil), start...), append([]float64(nil), start...), append([]float64(nil), start...)
				k.got(got)
				k.port(port)
				k.want(want)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(port[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s n=%d coded=%v i=%d: %v, portable %v, want %v", k.name, n, c.IsCoded(), i, got[i], port[i], want[i])
					}
				}
			}
		}
	}
}
