package nova

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/placer/placer/internal/pyval"
)

// ParseJSON decodes JSON text the way Python's json.loads does, into the
// values of package pyval: nil, bool, int64 (integral JSON numbers without
// a fraction or exponent), float64, string, []any, *pyval.Dict. Integers
// outside the int64 range, which Python keeps exactly, are *big.Int (up to
// pyval.MaxIntDigits digits: more is Python's ValueError). NaN,
// Infinity and -Infinity are accepted as Python accepts them; a repeated
// key keeps its first position and its last value.
func ParseJSON(text string) (any, error) {
	p := &jsonParser{s: text}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("json: extra data at offset %d", p.i)
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

// maxJSONDepth bounds nesting as CPython's recursion limit does (roughly).
const maxJSONDepth = 900

// errJSONDepth is the error of a text nested past maxJSONDepth.
var errJSONDepth = errors.New("json: nesting too deep")

// errJSONIntDigits is the error of an integer of more than
// pyval.MaxIntDigits digits: Python's scanner converts it with int(),
// which raises ValueError (not the JSONDecodeError of bad syntax).
var errJSONIntDigits = fmt.Errorf("Exceeds the limit (%d digits) for integer string conversion", pyval.MaxIntDigits)

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) errf(format string, a ...any) error {
	return fmt.Errorf("json: "+format+" at offset %d", append(a, p.i)...)
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("%w at offset %d", errJSONDepth, p.i)
	}
	if p.i >= len(p.s) {
		return nil, p.errf("expecting value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, nil
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(p.s[p.i:], "NaN"):
		p.i += 3
		return math.NaN(), nil
	case strings.HasPrefix(p.s[p.i:], "Infinity"):
		p.i += 8
		return math.Inf(1), nil
	case strings.HasPrefix(p.s[p.i:], "-Infinity"):
		p.i += 9
		return math.Inf(-1), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.errf("expecting value")
}

func (p *jsonParser) object(depth int) (any, error) {
	p.i++ // {
	o := &pyval.Dict{Values: map[string]any{}}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return o, nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errf("expecting property name enclosed in double quotes")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errf("expecting ':' delimiter")
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.Set(k.(string), v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.errf("expecting ',' delimiter")
		}
		p.i++
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.i++ // [
	out := []any{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return out, nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.errf("expecting ',' delimiter")
		}
		p.i++
	}
}

// str decodes a JSON string with Python's strict rules: no raw control
// characters, the escapes of RFC 8259 (pyval.Unescape: a lone surrogate
// escape becomes U+FFFD, Go strings cannot hold surrogates).
func (p *jsonParser) str() (any, error) {
	p.i++ // "
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return nil, p.errf("invalid control character")
		case c == '\\':
			r, next, fault := pyval.Unescape(p.s, p.i)
			switch fault {
			case pyval.EscapeTruncated:
				return nil, p.errf("unterminated string")
			case pyval.EscapeUnknown:
				p.i += 2
				return nil, p.errf("invalid \\escape")
			case pyval.EscapeBadHex:
				p.i += 2
				return nil, p.errf("invalid \\uXXXX escape")
			}
			b.WriteRune(r)
			p.i = next
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
}

// number scans -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)? as Python's scanner.
func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		p.i = start
		return nil, p.errf("expecting value")
	}
	isFloat := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9' {
		p.i++
		digits()
		isFloat = true
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.i = save
		} else {
			isFloat = true
		}
	}
	lit := p.s[start:p.i]
	if isFloat {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) { // too large: ±Inf, as Python
			return nil, p.errf("bad number %q", lit)
		}
		return f, nil
	}
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return n, nil
	}
	if n := len(strings.TrimPrefix(lit, "-")); n > pyval.MaxIntDigits {
		return nil, fmt.Errorf("%w: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", errJSONIntDigits, n)
	}
	bi, ok := new(big.Int).SetString(lit, 10)
	if !ok {
		return nil, p.errf("bad number %q", lit)
	}
	return bi, nil
}
