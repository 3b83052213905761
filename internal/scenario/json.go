package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/placer/placer/engine"
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

// parseJSON reads one JSON document strictly, as the oracle's load_json
// does: syntax errors, NaN/Infinity and duplicate keys are errors, and so
// is anything after the document. A duplicate key is reported when its
// object ends (where Python's object_pairs_hook sees it), with the object's
// path.
func parseJSON(data []byte) (*node, error) {
	if !utf8.Valid(data) {
		return nil, &engine.ValidationError{Msg: "not valid JSON: the input is not UTF-8 text"}
	}
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	tok, err := p.dec.Token()
	if err == io.EOF {
		return nil, &engine.ValidationError{Msg: "not valid JSON: the input is empty"}
	}
	if err != nil {
		return nil, p.syntax(err)
	}
	root, err := p.value(tok)
	if err != nil {
		return nil, err
	}
	end := p.dec.InputOffset()
	if _, err := p.dec.Token(); err != io.EOF {
		for end < int64(len(data)) && strings.IndexByte(" \t\r\n", data[end]) >= 0 {
			end++
		}
		return nil, p.syntaxAt(end, "extra data after the document")
	}
	return root, nil
}

type parser struct {
	data []byte
	dec  *json.Decoder
	path []pathElem // where the parser is, for duplicate-key messages
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

func (p *parser) value(tok json.Token) (*node, error) {
	switch t := tok.(type) {
	case nil:
		return &node{kind: kNull}, nil
	case bool:
		return &node{kind: kBool, b: t}, nil
	case string:
		return &node{kind: kString, s: t}, nil
	case json.Number:
		return numberNode(string(t)), nil
	case json.Delim:
		if t == '[' {
			return p.list()
		}
		return p.object()
	}
	return nil, fmt.Errorf("scenario: unexpected JSON token %T", tok)
}

func (p *parser) list() (*node, error) {
	n := &node{kind: kList}
	for i := 0; ; i++ {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.syntax(err)
		}
		if tok == json.Delim(']') {
			return n, nil
		}
		p.path = append(p.path, pathElem{index: i})
		v, err := p.value(tok)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
	}
}

func (p *parser) object() (*node, error) {
	n := &node{kind: kObject}
	dup := ""
	hasDup := false
	var seen map[string]bool // only for large objects
	for {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.syntax(err)
		}
		if tok == json.Delim('}') {
			if hasDup {
				return nil, &engine.ValidationError{Field: p.pathString(),
					Msg: "duplicate key " + pyQuote(dup) + " in one JSON object"}
			}
			return n, nil
		}
		key := tok.(string)
		if !hasDup {
			if len(n.keys) >= 16 && seen == nil {
				seen = make(map[string]bool, 2*len(n.keys))
				for _, k := range n.keys {
					seen[k] = true
				}
			}
			if seen != nil {
				hasDup = seen[key]
				seen[key] = true
			} else {
				for _, k := range n.keys {
					if k == key {
						hasDup = true
						break
					}
				}
			}
			if hasDup {
				dup = key
			}
		}
		tok, err = p.dec.Token()
		if err != nil {
			return nil, p.syntax(err)
		}
		p.path = append(p.path, pathElem{key: key, isKey: true})
		v, err := p.value(tok)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.items = append(n.items, v)
	}
}

// numberNode types a JSON number literal as Python does: with a fraction or
// an exponent it is a float (possibly infinite: 1e400), else an int.
func numberNode(lit string) *node {
	if strings.ContainsAny(lit, ".eE") {
		f, _ := strconv.ParseFloat(lit, 64) // out of range gives ±Inf, as Python's float()
		return &node{kind: kFloat, f: f}
	}
	if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return &node{kind: kInt, i: i}
	}
	return &node{kind: kBigInt, s: lit}
}

// syntax turns an encoding/json error into the oracle's kinds of message:
// NaN and Infinity are named (Python's json accepts them as constants and
// the oracle refuses them), anything else is "not valid JSON".
func (p *parser) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The Decoder's offsets are approximate; the scanner behind
		// Unmarshal counts exactly (Offset = bytes read, the offending one
		// included).
		var raw json.RawMessage
		if !errors.As(json.Unmarshal(p.data, &raw), &se) {
			approx := *se
			approx.Offset++
			se = &approx
		}
	}
	switch {
	case se != nil:
		if at := int(se.Offset) - 1; at >= 0 && at < len(p.data) {
			rest := p.data[at:]
			switch {
			case bytes.HasPrefix(rest, []byte("NaN")):
				return &engine.ValidationError{Msg: "NaN is not a JSON number"}
			case bytes.HasPrefix(rest, []byte("Infinity")):
				if at > 0 && p.data[at-1] == '-' {
					return &engine.ValidationError{Msg: "-Infinity is not a JSON number"}
				}
				return &engine.ValidationError{Msg: "Infinity is not a JSON number"}
			}
		}
		return p.syntaxAt(se.Offset-1, se.Error())
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return p.syntaxAt(int64(len(p.data)), "unexpected end of input")
	}
	return &engine.ValidationError{Msg: "not valid JSON: " + err.Error()}
}

func (p *parser) syntaxAt(offset int64, what string) error {
	line, col := 1, 1
	for _, c := range p.data[:min(int(offset), len(p.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &engine.ValidationError{Msg: fmt.Sprintf("not valid JSON: %s (line %d column %d)", what, line, col)}
}
