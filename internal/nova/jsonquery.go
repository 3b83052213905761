package nova

import (
	"errors"
	"math"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// Query is a parsed JsonFilter query. Never modified once parsed but for
// a shared one's compiled form, computed once under its sync.Once: one
// may be shared (SharedQuery).
type Query struct {
	root any
	// raises is what jsonutils.loads raises on a text that is not JSON
	// (nil for one that is): Nova parses the hint in the filter, host by
	// host, so such a query raises at the first host it is asked of, and
	// not at all when JsonFilter is off or no host reaches it.
	raises error
	memo   *compileMemo // SharedQuery's: Compile's result, computed once
}

// ParseQuery parses a JsonFilter query hint. An empty text is a nil Query
// that passes every host. A text that is not JSON is a Query whose Eval
// raises what json.loads raises: a JSONDecodeError (a RecursionError when
// nested past the parser's depth, a ValueError for an integer of more
// than 4,300 digits).
func ParseQuery(text string) *Query {
	if text == "" {
		return nil
	}
	v, err := ParseJSON(text)
	if err != nil {
		class := "JSONDecodeError"
		switch {
		case errors.Is(err, errJSONDepth):
			class = "RecursionError"
		case errors.Is(err, errJSONIntDigits):
			class = "ValueError"
		}
		return &Query{raises: pyErr(class, "%v", err)}
	}
	return &Query{root: v}
}

// Eval is JsonFilter.host_passes for one host. An error is what Nova would
// raise (e.g. an unknown command): a *ErrPython with the exception class
// (KeyError for an unknown command, TypeError for a comparison Python
// refuses or a query that is not a list, AttributeError for a $a.b lookup
// into a value without .get).
func (q *Query) Eval(h *HostAttrs) (bool, error) {
	if q == nil {
		return true, nil
	}
	if q.raises != nil {
		return false, q.raises
	}
	res, err := processQuery(q.root, h)
	if err != nil {
		return false, err
	}
	if list, ok := res.([]any); ok {
		for _, e := range list {
			if pyval.Truthy(e) {
				return true, nil
			}
		}
		return false, nil
	}
	return pyval.Truthy(res), nil
}

// processQuery is JsonFilter._process_filter.
func processQuery(query any, h *HostAttrs) (any, error) {
	if !pyval.Truthy(query) {
		return true, nil
	}
	var items []any
	switch x := query.(type) {
	case []any:
		items = x
	case string:
		// query[0] and query[1:] of a str walk its characters.
		for _, r := range x {
			items = append(items, string(r))
		}
	case *pyval.Dict:
		return nil, pyErr("KeyError", "0")
	default:
		return nil, pyErr("TypeError", "'%s' object is not subscriptable", pyval.TypeName(query))
	}
	cmd, isStr := items[0].(string)
	if !isStr {
		switch items[0].(type) {
		case []any, *pyval.Dict:
			return nil, pyErr("TypeError", "unhashable type: '%s'", pyval.TypeName(items[0]))
		}
		return nil, pyErr("KeyError", "%s", pyval.Repr(items[0]))
	}
	if !isJSONCommand(cmd) {
		return nil, pyErr("KeyError", "%s", pyval.StrRepr(cmd))
	}
	var args []any
	for _, arg := range items[1:] {
		switch a := arg.(type) {
		case []any:
			r, err := processQuery(a, h)
			if err != nil {
				return nil, err
			}
			arg = r
		case string:
			r, err := parseQueryString(a, h)
			if err != nil {
				return nil, err
			}
			arg = r
		}
		if arg != nil {
			args = append(args, arg)
		}
	}
	return runJSONCommand(cmd, args)
}

func isJSONCommand(cmd string) bool {
	switch cmd {
	case "=", "<", ">", "in", "<=", ">=", "not", "or", "and":
		return true
	}
	return false
}

func runJSONCommand(cmd string, args []any) (any, error) {
	switch cmd {
	case "not":
		out := make([]any, len(args))
		for i, a := range args {
			out[i] = !pyval.Truthy(a)
		}
		return out, nil
	case "or":
		for _, a := range args {
			if pyval.Truthy(a) {
				return true, nil
			}
		}
		return false, nil
	case "and":
		for _, a := range args {
			if !pyval.Truthy(a) {
				return false, nil
			}
		}
		return true, nil
	}
	if len(args) < 2 {
		return false, nil
	}
	if cmd == "in" {
		for _, a := range args[1:] {
			if pyval.Eq(args[0], a) || bothJSONNaN(args[0], a) {
				return true, nil
			}
		}
		return false, nil
	}
	allOK := true
	for _, a := range args[1:] {
		var ok bool
		if cmd == "=" {
			ok = pyval.Eq(args[0], a)
		} else {
			var err error
			if ok, err = pyval.Order(cmd, args[0], a); err != nil {
				return nil, err
			}
		}
		allOK = allOK && ok
	}
	return allOK, nil
}

// bothJSONNaN: json.loads returns one shared float object for every NaN
// literal, and `in` tests identity before equality.
func bothJSONNaN(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	return ok1 && ok2 && math.IsNaN(x) && math.IsNaN(y)
}

// parseQueryString is JsonFilter._parse_string: "" -> None, a plain string
// is itself, "$a.b.c" is getattr(host, "a").get("b").get("c") with None
// for a missing step.
func parseQueryString(s string, h *HostAttrs) (any, error) {
	if s == "" {
		return nil, nil
	}
	if !strings.HasPrefix(s, "$") {
		return s, nil
	}
	first, rest, more := strings.Cut(s[1:], ".")
	obj, ok := h.Attr(first)
	if !ok || obj == nil {
		return nil, nil
	}
	for more { // strings.Split's steps, "" ones included, without the slice
		var item string
		item, rest, more = strings.Cut(rest, ".")
		switch o := obj.(type) {
		case *pyval.Dict:
			v, ok := o.Get(item)
			if !ok || v == nil {
				return nil, nil
			}
			obj = v
		case *pyval.Object:
			if o.Type == "Instance" { // HostState.instances' values
				v, err := instanceGet(o, item)
				if err != nil || v == nil {
					return nil, err
				}
				obj = v
				continue
			}
			if o.Type == "ReadOnlyDict" { // HostState.service
				v, _ := h.ServiceField(item)
				if v == nil {
					return nil, nil
				}
				obj = v
				continue
			}
			return nil, pyErr("AttributeError", "'%s' object has no attribute 'get'", o.Type)
		default:
			return nil, pyErr("AttributeError", "'%s' object has no attribute 'get'", pyval.TypeName(obj))
		}
	}
	return obj, nil
}
