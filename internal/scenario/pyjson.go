package scenario

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/placer/placer/internal/pyval"
)

// This file writes values the way the oracle (Python) writes them: field
// paths (_key_path), json.dumps with its default separators and
// ensure_ascii, float repr. Messages and cpu_info texts depend on it.

// keyPath is the path of a map entry: a.b for identifiers, a["x:y"]
// otherwise (the oracle's _key_path).
func keyPath(path, key string) string {
	if isIdentifier(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + pyQuote(key) + "]"
}

// indexPath is the path of a list element: a[3].
func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// fieldPath is the path of a record field: the oracle joins with a dot
// whatever the name.
func fieldPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// isIdentifier approximates Python's str.isidentifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		start := r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
		if i == 0 && !start {
			return false
		}
		if !start && !unicode.IsDigit(r) && !unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc) {
			return false
		}
	}
	return true
}

// show is the oracle's _show: json.dumps of a value, cut to 60 characters.
func show(n *node) string {
	text := pyDump(n)
	if len(text) <= 60 {
		return text
	}
	return text[:57] + "..."
}

// pyDump is Python's json.dumps(v) with its defaults: separators ", " and
// ": ", ensure_ascii, floats as repr.
func pyDump(n *node) string {
	var b strings.Builder
	writePy(&b, n)
	return b.String()
}

func writePy(b *strings.Builder, n *node) {
	switch n.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		if n.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case kString:
		writePyQuoted(b, n.s)
	case kInt:
		b.WriteString(strconv.FormatInt(n.i, 10))
	case kBigInt:
		b.WriteString(n.s)
	case kFloat:
		b.WriteString(pyFloat(n.f))
	case kList:
		b.WriteByte('[')
		for i, x := range n.items {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, x)
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyQuoted(b, k)
			b.WriteString(": ")
			writePy(b, n.items[i])
		}
		b.WriteByte('}')
	}
}

// pyQuote is json.dumps of a string (ensure_ascii).
func pyQuote(s string) string {
	var b strings.Builder
	writePyQuoted(&b, s)
	return b.String()
}

func writePyQuoted(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= ' ' && r <= '~':
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			u4(0xd800 | (r>>10)&0x3ff)
			u4(0xdc00 | r&0x3ff)
		default:
			u4(r)
		}
	}
	b.WriteByte('"')
}

// pyFloat is Python's repr(float) as json.dumps writes it (pyval.FloatRepr),
// but Infinity, -Infinity and NaN for the values JSON has no number for.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	return pyval.FloatRepr(f)
}
