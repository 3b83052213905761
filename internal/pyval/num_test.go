package pyval

import (
	"math"
	"testing"
	"unicode"
)

// TestFloat: expected values from running Python 3's float() (Nova 26's
// interpreter) on each string.
func TestFloat(t *testing.T) {
	cases := []struct {
		s    string
		want float64
		ok   bool
	}{
		{" 1_000 ", 1000.0, true},
		{"1__0", 0, false},
		{"_1", 0, false},
		{"1_", 0, false},
		{"1_.5", 0, false},
		{"1._5", 0, false},
		{"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"nAn", math.NaN(), true},
		{"1e3", 1000.0, true},
		{".5", 0.5, true},
		{"5.", 5.0, true},
		{"1e", 0, false},
		{"0x10", 0, false},
		{"\u0661\u0662", 12.0, true},
		{"\u001c5", 0, false},
		{"1_0e1_0", 100000000000.0, true},
		{"+.5e-3", 0.0005, true},
		{"\u00a05", 5.0, true},
		{"\u20005", 5.0, true},
		{"", 0, false},
		{" ", 0, false},
		{".", 0, false},
		{"e5", 0, false},
		{"1e+", 0, false},
		{"--1", 0, false},
		{"+-1", 0, false},
		{"+-inf", 0, false},
		{"1.5.5", 0, false},
		{"infinit", 0, false},
		{"+nan", math.NaN(), true},
		{"1e400", math.Inf(1), true},
		{"\U0001D7D95", 15.0, true},
	}
	for _, tc := range cases {
		t.Run(tc.s, func(t *testing.T) {
			got, ok := Float(tc.s)
			same := got == tc.want || (math.IsNaN(got) && math.IsNaN(tc.want))
			if ok != tc.ok || (ok && !same) {
				t.Fatalf("Float(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestInt: expected values from running Python 3's int() on each string
// (9223372036854775808 is a valid Python int, refused here as too big).
func TestInt(t *testing.T) {
	cases := []struct {
		s    string
		want int64
		ok   bool
	}{
		{" 007 ", 7, true},
		{"0_7", 7, true},
		{"4.0", 0, false},
		{"+4", 4, true},
		{"-0", 0, true},
		{"1_000", 1000, true},
		{"\u0663", 3, true},
		{"", 0, false},
		{"4e1", 0, false},
		{" -12 ", -12, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"1__0", 0, false},
		{"0x1", 0, false},
		{"\u001c1", 0, false},
		{"\U0001E4F3", 0, false},  // Nag Mundari three: Unicode 15, not a digit to Python 3.11
		{"1\U00011F55", 0, false}, // Kawi five, likewise
		{"\U0001D7D7", 9, true},   // a mathematical bold nine: Unicode 3.1
	}
	for _, tc := range cases {
		t.Run(tc.s, func(t *testing.T) {
			got, ok := Int(tc.s)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("Int(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestDigitsOfUnicode14: the decimal digits int() and float() read are
// Python 3.11's, Unicode 14's 660 (unicodedata.category == "Nd"): a Go
// whose tables add more fails here, where the new ones must be left out.
func TestDigitsOfUnicode14(t *testing.T) {
	n := 0
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		if isDigit14(r) {
			n++
		}
	}
	if n += 10; n != 660 { // and ASCII's ten
		t.Fatalf("%d Nd digits, Python 3.11 has 660 (Go's Unicode %s)", n, unicode.Version)
	}
}
