package plots

import (
	"math"
	"strconv"
)

// round3 rounds v to three significant digits.
func round3(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

func num(v float64) string { return strconv.FormatFloat(round3(v), 'f', -1, 64) }

// FormatNumber writes v with up to three significant digits: 0.25, 16,
// 1.5e+06.
func FormatNumber(v float64) string {
	if a := math.Abs(v); a != 0 && (a >= 1e6 || a < 1e-3) {
		return strconv.FormatFloat(round3(v), 'g', -1, 64)
	}
	return num(v)
}

// FormatSeconds writes a duration in seconds in the unit that suits it:
// 250 ns, 40 µs, 1.5 ms, 2 s.
func FormatSeconds(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a < 1e-6:
		return num(v*1e9) + " ns"
	case a < 1e-3:
		return num(v*1e6) + " µs"
	case a < 1:
		return num(v*1e3) + " ms"
	}
	return num(v) + " s"
}

// FormatCount writes a count with k or M: 500, 2k, 100k, 1.5M.
func FormatCount(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return num(v/1e6) + "M"
	case a >= 1e3:
		return num(v/1e3) + "k"
	}
	return num(v)
}
