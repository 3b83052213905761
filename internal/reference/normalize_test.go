package reference

import (
	"fmt"
	"testing"
)

// TestNormalize is nova/tests/unit/test_weights.py's normalize cases,
// the maxval ones included (no weigher of the catalogue sets maxval, so
// only this test shows them).
func TestNormalize(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in           []float64
		minval, maxv *float64
		want         []float64
	}{
		{nil, nil, nil, []float64{}},
		{[]float64{0, 0}, nil, nil, []float64{0, 0}},
		{[]float64{1, 1}, nil, nil, []float64{0, 0}},
		{[]float64{20, 50}, nil, nil, []float64{0, 1}},
		{[]float64{20, 50}, nil, f(100), []float64{0, 0.375}},
		{[]float64{20, 50}, f(0), nil, []float64{0.4, 1.0}},
		{[]float64{20, 50}, f(0), f(100), []float64{0.2, 0.5}},
	} {
		got := normalize(tc.in, tc.minval, tc.maxv)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("normalize(%v, %v, %v) = %v, want %v", tc.in, tc.minval, tc.maxv, got, tc.want)
		}
	}
}
