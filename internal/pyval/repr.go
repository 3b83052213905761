package pyval

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Str is Python's str(v) for a value of the model (see the package
// comment; also map[string]string, []string and [][3]string as
// dict/list/list-of-lists). None -> "None", True -> "True", 16.0 -> "16.0",
// ['a', 'b'] -> "['a', 'b']". A map[string]string, which has no order, is
// shown with sorted keys.
func Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *IPAddress:
		return x.Text
	}
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// Repr is Python's repr(v) for the values Str accepts.
func Repr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		b.WriteString(FloatRepr(x))
	case string:
		b.WriteString(StrRepr(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(StrRepr(e))
		}
		b.WriteByte(']')
	case [][3]string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, []string(e[:]))
		}
		b.WriteByte(']')
	case *Dict:
		b.WriteByte('{')
		if x != nil {
			for i, k := range x.Keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(StrRepr(k))
				b.WriteString(": ")
				writeRepr(b, x.Values[k])
			}
		}
		b.WriteByte('}')
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(StrRepr(k))
			b.WriteString(": ")
			b.WriteString(StrRepr(x[k]))
		}
		b.WriteByte('}')
	case IntSet:
		if len(x) == 0 {
			b.WriteString("CoercedSet()")
			return
		}
		b.WriteString("CoercedSet({")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(e, 10))
		}
		b.WriteString("})")
	case *Object:
		b.WriteString(x.Repr)
	case *IPAddress:
		b.WriteString("IPAddress(" + StrRepr(x.Text) + ")")
	default:
		b.WriteString("<unknown>")
	}
}

// FloatRepr is repr(float) and str(float): the shortest digits that
// round-trip, in fixed notation when the decimal exponent is in [-4, 16)
// (with ".0" when integral), else scientific with a signed exponent of at
// least two digits; "inf", "-inf", "nan" ("-0.0" keeps its sign).
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := strings.HasPrefix(e, "-")
	if neg {
		e = e[1:]
	}
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		out += "e" + sign + es
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if len(digits) <= exp+1 {
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		return "-" + out
	}
	return out
}

// StrRepr is repr(str): single quotes unless the text holds a single
// quote and no double quote; backslash escapes for the quote, backslash,
// \t \n \r, and \x/\u/\U for characters that are not printable. (Text
// that is not UTF-8 shows each bad byte as U+FFFD.)
func StrRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + hexPad(int64(r), 2))
		case r < 0x80 || Printable(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x` + hexPad(int64(r), 2))
		case r <= 0xffff:
			b.WriteString(`\u` + hexPad(int64(r), 4))
		default:
			b.WriteString(`\U` + hexPad(int64(r), 8))
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Printable is Python 3.11's str.isprintable for one character: ASCII
// from ' ' to '~', and from U+0080 up what the generated nonPrintable
// leaves out (Unicode 14 categories).
func Printable(r rune) bool {
	if r < 0x80 {
		return r >= 0x20 && r < 0x7f
	}
	lo, hi := 0, len(nonPrintable)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < nonPrintable[m][0]:
			hi = m
		case r > nonPrintable[m][1]:
			lo = m + 1
		default:
			return false
		}
	}
	return true
}

func hexPad(n int64, width int) string {
	h := strconv.FormatInt(n, 16)
	for len(h) < width {
		h = "0" + h
	}
	return h
}
