package pyval

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Float is Python's float(s): surrounding whitespace allowed, "inf",
// "nan", "1e3", "1_000" accepted as Python accepts them. ok=false where
// Python raises ValueError. Unicode decimal digits count as digits, as in
// Python; hexadecimal is refused, as Python's float() refuses it.
func Float(s string) (f float64, ok bool) {
	t, ok := pyNumText(s)
	if !ok {
		return 0, false
	}
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	if !validFloatLiteral(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // too large: ±Inf, as Python
		return 0, false
	}
	return f, true
}

// Int is Python's int(s) for a string (whitespace allowed, no fraction).
// ok=false where Python raises ValueError, and also for a value outside
// the int64 range (which Python would return as a big integer).
func Int(s string) (i int64, ok bool) {
	b, ok := BigInt(s)
	if !ok || !b.IsInt64() {
		return 0, false
	}
	return b.Int64(), true
}

// BigInt is int(s) with Python's arbitrary precision.
func BigInt(s string) (*big.Int, bool) {
	t, ok := pyNumText(s)
	if !ok {
		return nil, false
	}
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if !validDigits(body) {
		return nil, false
	}
	if len(body)-strings.Count(body, "_") > MaxIntDigits { // body is ASCII (pyNumText)
		return nil, false
	}
	b, ok := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), 10)
	return b, ok
}

// MaxIntDigits is Python's limit on the digits int() converts from a
// string (sys.get_int_max_str_digits(), 4300 by default since 3.11):
// past it int() raises ValueError, whatever the value.
const MaxIntDigits = 4300

// pyNumText strips Python whitespace and maps Unicode decimal digits to
// ASCII, as float() and int() do before parsing.
func pyNumText(s string) (string, bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	var b strings.Builder
	for _, r := range s {
		if r >= 0x80 {
			if !isDigit14(r) {
				return "", false
			}
			r = '0' + digitValue(r)
		}
		b.WriteRune(r)
	}
	return b.String(), true
}

// isDigit14 is Python 3.11's Unicode 14 Nd: Go's tables are newer, and
// the digits Unicode 15 added (Kawi, Nag Mundari) are not digits to the
// Python Nova 26 runs on (float("\U00011f55") raises ValueError).
func isDigit14(r rune) bool {
	if 0x11F50 <= r && r <= 0x11F59 || 0x1E4F0 <= r && r <= 0x1E4F9 {
		return false
	}
	return unicode.IsDigit(r)
}

// digitValue is the decimal value of a Unicode Nd character: Nd characters
// come in runs of ten starting at a zero.
func digitValue(r rune) rune {
	n := rune(0)
	for unicode.IsDigit(r - n - 1) {
		n++
	}
	return n % 10
}

// validDigits is digit (['_'] digit)*.
func validDigits(s string) bool {
	if s == "" {
		return false
	}
	prevDigit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			prevDigit = true
		case c == '_' && prevDigit && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			prevDigit = false
		default:
			return false
		}
	}
	return true
}

// validFloatLiteral is Python's decimal float syntax without the sign:
// (digits ['.' [digits]] | '.' digits) [('e'|'E') [sign] digits], where
// digits may hold single underscores between digits.
func validFloatLiteral(s string) bool {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if !validDigits(exp) {
			return false
		}
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	switch {
	case !hasDot:
		return validDigits(intPart)
	case intPart == "":
		return validDigits(frac)
	case frac == "":
		return validDigits(intPart)
	default:
		return validDigits(intPart) && validDigits(frac)
	}
}
