package scenario

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/pyval"
)

// kind is the Python type json.loads gives a JSON value.
type kind uint8

const (
	kNull   kind = iota
	kBool        // bool
	kString      // str
	kInt         // int that fits an int64
	kBigInt      // int that does not (its digits are in s)
	kFloat       // float (a literal with a fraction or an exponent)
	kList        // list
	kObject      // dict, keys in document order
)

// node is one JSON value as Python's json.loads sees it: integers and
// floats stay apart (1 is an int, 1.0 a float), object keys keep their
// order. The scenario readers work on nodes so that every message can show
// a value the way the oracle shows it.
type node struct {
	kind  kind
	b     bool
	s     string // kString value, kBigInt digits
	i     int64
	f     float64
	items []*node  // kList elements, kObject values
	keys  []string // kObject keys, parallel to items
}

// maxDepth bounds nesting, as encoding/json does (Python would overflow its
// recursion limit far earlier).
const maxDepth = 10000

// parseJSON reads one JSON document strictly, as the oracle's load_json
// does: syntax errors, NaN/Infinity and duplicate keys are errors, and so
// is anything after the document. A duplicate key is reported when its
// object ends (where Python's object_pairs_hook sees it), with the object's
// path. It is a small recursive-descent parser rather than
// encoding/json's Decoder.Token, which is several times slower on large
// clouds and cannot say where a NaN is.
func parseJSON(data []byte) (*node, error) {
	if !utf8.Valid(data) {
		return nil, &engine.ValidationError{Msg: "not valid JSON: the input is not UTF-8 text"}
	}
	p := &parser{data: data}
	p.ws()
	if p.pos == len(data) {
		return nil, &engine.ValidationError{Msg: "not valid JSON: the input is empty"}
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(data) {
		return nil, p.syntax("extra data after the document")
	}
	return root, nil
}

type parser struct {
	data []byte
	pos  int
	path []pathElem // where the parser is, for duplicate-key messages
	slab []node     // nodes are carved from here, a chunk at a time
	// items and keys are stacks the open lists and objects collect their
	// elements on; each is copied out once, at its exact size, when it
	// closes.
	items []*node
	keys  []string
	names map[string]string // object keys seen, to share their strings
}

// pathElem is one step of a field path: an object key or a list index.
type pathElem struct {
	key   string
	index int
	isKey bool
}

func (p *parser) pathString() string {
	path := ""
	for _, e := range p.path {
		if e.isKey {
			path = keyPath(path, e.key)
		} else {
			path = indexPath(path, e.index)
		}
	}
	return path
}

func (p *parser) newNode(k kind) *node {
	if len(p.slab) == 0 {
		p.slab = make([]node, 256)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.kind = k
	return n
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// syntax is a "not valid JSON" error at the current position.
func (p *parser) syntax(what string) error {
	line, col := 1, 1
	for _, c := range p.data[:p.pos] {
		if c == '\n' {
			line, col = line+1, 1
		} else if c < 0x80 || c >= 0xc0 { // count characters, not bytes
			col++
		}
	}
	return &engine.ValidationError{Msg: fmt.Sprintf("not valid JSON: %s (line %d column %d)", what, line, col)}
}

// unexpected reports the character at the current position (or the end of
// the input) in a context such as "looking for beginning of value".
func (p *parser) unexpected(context string) error {
	if p.pos >= len(p.data) {
		return p.syntax("unexpected end of input")
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	var c string
	switch r {
	case '\'':
		c = `'\''`
	case '"':
		c = `'"'`
	default:
		q := strconv.QuoteRune(r)
		c = "'" + q[1:len(q)-1] + "'"
	}
	return p.syntax("invalid character " + c + " " + context)
}

func (p *parser) has(lit string) bool {
	return len(p.data)-p.pos >= len(lit) && string(p.data[p.pos:p.pos+len(lit)]) == lit
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.syntax("nested too deeply")
	}
	if p.pos >= len(p.data) {
		return nil, p.unexpected("")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.list(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n := p.newNode(kString)
		n.s = s
		return n, nil
	case c == '-' || c >= '0' && c <= '9':
		if p.has("-Infinity") {
			return nil, &engine.ValidationError{Field: p.pathString(), Msg: "-Infinity is not a JSON number"}
		}
		return p.number()
	case p.has("true"):
		p.pos += 4
		n := p.newNode(kBool)
		n.b = true
		return n, nil
	case p.has("false"):
		p.pos += 5
		return p.newNode(kBool), nil
	case p.has("null"):
		p.pos += 4
		return p.newNode(kNull), nil
	case p.has("NaN"):
		return nil, &engine.ValidationError{Field: p.pathString(), Msg: "NaN is not a JSON number"}
	case p.has("Infinity"):
		return nil, &engine.ValidationError{Field: p.pathString(), Msg: "Infinity is not a JSON number"}
	}
	return nil, p.unexpected("looking for beginning of value")
}

func (p *parser) list(depth int) (*node, error) {
	p.pos++ // [
	n := p.newNode(kList)
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	for i := 0; ; i++ {
		p.ws()
		p.path = append(p.path, pathElem{index: i})
		v, err := p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.unexpected("")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.items = append([]*node(nil), p.items[base:]...)
			return n, nil
		default:
			return nil, p.unexpected("after array element")
		}
	}
}

func (p *parser) object(depth int) (*node, error) {
	p.pos++ // {
	n := p.newNode(kObject)
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	dup, hasDup := "", false
	var seen map[string]bool // only for large objects
	base, kbase := len(p.items), len(p.keys)
	defer func() { p.items, p.keys = p.items[:base], p.keys[:kbase] }()
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected("looking for beginning of object key string")
		}
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if !hasDup {
			hasDup = p.seenKey(p.keys[kbase:], &seen, key)
			dup = key
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected("after object key")
		}
		p.pos++
		p.ws()
		p.path = append(p.path, pathElem{key: key, isKey: true})
		v, err := p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		p.keys = append(p.keys, key)
		p.items = append(p.items, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.unexpected("")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			if hasDup {
				return nil, &engine.ValidationError{Field: p.pathString(),
					Msg: "duplicate key " + pyQuote(dup) + " in one JSON object"}
			}
			n.keys = append([]string(nil), p.keys[kbase:]...)
			n.items = append([]*node(nil), p.items[base:]...)
			return n, nil
		default:
			return nil, p.unexpected("after object key:value pair")
		}
	}
}

// seenKey reports whether key is among keys, with a map once the object is
// large.
func (p *parser) seenKey(keys []string, seen *map[string]bool, key string) bool {
	if *seen == nil && len(keys) < 16 {
		for _, k := range keys {
			if k == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*len(keys))
		for _, k := range keys {
			(*seen)[k] = true
		}
	}
	if (*seen)[key] {
		return true
	}
	(*seen)[key] = true
	return false
}

// key reads an object key, sharing the string of an equal key read before
// (a cloud repeats the same few field names on every host).
func (p *parser) key() (string, error) {
	start := p.pos
	for i := start + 1; i < len(p.data) && i-start <= 64; i++ {
		if c := p.data[i]; c == '"' {
			if shared, ok := p.names[string(p.data[start+1:i])]; ok {
				p.pos = i + 1
				return shared, nil
			}
			break
		} else if c == '\\' || c < 0x20 {
			break
		}
	}
	s, err := p.str()
	if err != nil || p.pos-start > 64 {
		return s, err
	}
	if p.names == nil {
		p.names = make(map[string]string)
	}
	if shared, ok := p.names[s]; ok {
		return shared, nil
	}
	p.names[s] = s
	return s, nil
}

// str reads a string literal (the input is valid UTF-8).
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == '"':
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		case c == '\\':
			return p.escapedStr(start)
		case c < 0x20:
			return "", p.unexpected("in string literal")
		default:
			p.pos++
		}
	}
	return "", p.unexpected("")
}

// escapedStr finishes a string literal that has escapes (pyval.Unescape:
// a \u escape that is a lone surrogate becomes U+FFFD; Go strings hold
// UTF-8, Python would keep the surrogate).
func (p *parser) escapedStr(start int) (string, error) {
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.unexpected("in string literal")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		r, next, fault := pyval.Unescape(p.data, p.pos)
		switch fault {
		case pyval.EscapeTruncated:
			p.pos++
			return "", p.unexpected("")
		case pyval.EscapeUnknown:
			p.pos++
			return "", p.unexpected("in string escape code")
		case pyval.EscapeBadHex:
			p.pos += 2
			return "", p.unexpected("in \\u hexadecimal character escape")
		}
		buf = utf8.AppendRune(buf, r)
		p.pos = next
	}
	return "", p.unexpected("")
}

// number reads a number literal and types it as Python does: with a
// fraction or an exponent it is a float (possibly infinite: 1e400), else an
// int.
func (p *parser) number() (*node, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.unexpected("in numeric literal")
	}
	isFloat := false
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		isFloat = true
		if digits() == 0 {
			return nil, p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		isFloat = true
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.unexpected("in exponent of numeric literal")
		}
	}
	lit := p.data[start:p.pos]
	if isFloat {
		n := p.newNode(kFloat)
		n.f, _ = strconv.ParseFloat(string(lit), 64) // out of range: ±Inf, as Python's float()
		return n, nil
	}
	if i, ok := smallInt(lit); ok {
		n := p.newNode(kInt)
		n.i = i
		return n, nil
	}
	if i, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		n := p.newNode(kInt)
		n.i = i
		return n, nil
	}
	n := p.newNode(kBigInt)
	n.s = string(lit)
	return n, nil
}

// smallInt parses an integer literal of at most 18 digits without
// allocating.
func smallInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	var i int64
	for _, c := range lit {
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}
