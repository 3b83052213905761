package nova

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PyObject stands for a Python object that is neither a JSON value nor a
// container (a bound method, an Instance, a MonitorMetricList...). Its str()
// and repr() are Repr; it is truthy unless Falsy is set; it equals only
// an object with the same Identity (Python compares such objects by
// identity), and ordering it raises TypeError. It has no .get method.
type PyObject struct {
	// Type is the Python type name, used in TypeError messages.
	Type string
	// Repr is what str()/repr() return.
	Repr string
	// Identity tells apart distinct Python objects.
	Identity string
	// Falsy is bool(obj) == False (an empty list object).
	Falsy bool
}

// IPAddress is a netaddr.IPAddress (HostState.host_ip): str() is the
// canonical address text, it equals only another IPAddress with the same
// address, it orders only against another IPAddress, and it is truthy
// unless it is the zero address.
type IPAddress struct {
	// Text is str(IPAddress).
	Text string
	// Version is 4 or 6.
	Version int
	// Value is the address as an integer (for ordering).
	Value *big.Int
}

// PyStr is Python's str(v) for a Python-like value (see ParseJSON; also
// map[string]string, []string and [][3]string as dict/list/list-of-lists).
// None -> "None", True -> "True", 16.0 -> "16.0", ['a', 'b'] -> "['a', 'b']".
// A map[string]string, which has no order, is shown with sorted keys.
func PyStr(v any) string {
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

// PyRepr is Python's repr(v) for the values PyStr accepts.
func PyRepr(v any) string {
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
		b.WriteString(pyFloatRepr(x))
	case string:
		b.WriteString(pyStrRepr(x))
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
			b.WriteString(pyStrRepr(e))
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
	case *Object:
		b.WriteByte('{')
		if x != nil {
			for i, k := range x.Keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(pyStrRepr(k))
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
			b.WriteString(pyStrRepr(k))
			b.WriteString(": ")
			b.WriteString(pyStrRepr(x[k]))
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
	case *PyObject:
		b.WriteString(x.Repr)
	case *IPAddress:
		b.WriteString("IPAddress(" + pyStrRepr(x.Text) + ")")
	default:
		b.WriteString("<unknown>")
	}
}

// pyFloatRepr is repr(float): the shortest digits that round-trip, in
// fixed notation when the decimal exponent is in [-4, 16), else
// scientific with a signed exponent of at least two digits.
func pyFloatRepr(f float64) string {
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

// pyStrRepr is repr(str): single quotes unless the text holds a single
// quote and no double quote; backslash escapes for the quote, backslash,
// \t \n \r, and \x/\u/\U for characters that are not printable.
func pyStrRepr(s string) string {
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
		case r < 0x80 || pyPrintable(r):
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

// pyPrintable is Python 3.11's str.isprintable for one non-ASCII
// character (Unicode 14 categories, from the generated pyNonPrintable).
func pyPrintable(r rune) bool {
	lo, hi := 0, len(pyNonPrintable)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < pyNonPrintable[m][0]:
			hi = m
		case r > pyNonPrintable[m][1]:
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
