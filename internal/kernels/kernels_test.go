package kernels

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func randSlice(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch rng.IntN(5) {
		case 0:
			xs[i] = float64(rng.IntN(1 << 20))
		case 1:
			xs[i] = -rng.Float64() * 1e4
		case 2:
			xs[i] = 0
		default:
			xs[i] = rng.NormFloat64() * 1e6
		}
	}
	return xs
}

// TestKernelsMatchPortable checks the dispatched kernels against the
// portable ones bit for bit, at every length around the vector widths.
func TestKernelsMatchPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			raw, mult := randSlice(rng, n), randSlice(rng, n)
			lo, span := rng.NormFloat64()*100, 1+rng.Float64()*1e6
			gotLo, gotHi := MinMax(raw)
			wantLo, wantHi := MinMaxPortable(raw)
			if gotLo != wantLo || gotHi != wantHi {
				t.Fatalf("n=%d: MinMax (%v,%v), portable (%v,%v)", n, gotLo, gotHi, wantLo, wantHi)
			}
			m := rng.NormFloat64()
			c, d := randSlice(rng, n), make([]float64, n)
			copy(d, c)
			AccumulateScalar(c, raw, m, lo, span)
			AccumulateScalarPortable(d, raw, m, lo, span)
			for i := range c {
				if math.Float64bits(c[i]) != math.Float64bits(d[i]) {
					t.Fatalf("n=%d i=%d: AccumulateScalar %v, portable %v", n, i, c[i], d[i])
				}
			}
			a, b := randSlice(rng, n), make([]float64, n)
			copy(b, a)
			Accumulate(a, raw, mult, lo, span)
			AccumulatePortable(b, raw, mult, lo, span)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("n=%d i=%d: Accumulate %v, portable %v", n, i, a[i], b[i])
				}
			}
		}
	}
}

func TestMinMaxEmptyAndTable(t *testing.T) {
	lo, hi := MinMax(nil)
	if !math.IsInf(lo, 1) || !math.IsInf(hi, -1) {
		t.Fatalf("empty: (%v, %v)", lo, hi)
	}
	for _, tc := range []struct {
		xs     []float64
		lo, hi float64
	}{
		{[]float64{3}, 3, 3},
		{[]float64{5, -1, 7, 2, 9, 0, -4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 100}, -4, 100},
	} {
		if lo, hi := MinMax(tc.xs); lo != tc.lo || hi != tc.hi {
			t.Errorf("%v: (%v, %v), want (%v, %v)", tc.xs, lo, hi, tc.lo, tc.hi)
		}
	}
}

func BenchmarkMinMax(b *testing.B) {
	xs := randSlice(rand.New(rand.NewPCG(3, 4)), 50000)
	for _, impl := range []struct {
		name string
		fn   func([]float64) (float64, float64)
	}{{"portable", MinMaxPortable}, {"dispatch", MinMax}} {
		b.Run("impl="+impl.name+"/n="+strconv.Itoa(len(xs)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * len(xs)))
			for b.Loop() {
				impl.fn(xs)
			}
		})
	}
}

func BenchmarkAccumulate(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	raw, mult, score := randSlice(rng, 50000), randSlice(rng, 50000), make([]float64, 50000)
	for _, impl := range []struct {
		name string
		fn   func(score, raw, mult []float64, lo, span float64)
	}{{"portable", AccumulatePortable}, {"dispatch", Accumulate}} {
		b.Run("impl="+impl.name+"/n="+strconv.Itoa(len(raw)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * 3 * len(raw)))
			for b.Loop() {
				impl.fn(score, raw, mult, 1, 3)
			}
		})
	}
}
