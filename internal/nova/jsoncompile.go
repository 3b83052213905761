package nova

import (
	"math"
	"math/big"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// A JsonFilter query as a boolean function of a host's attributes that a
// caller can judge on columns: comparisons of one usage integer
// (free_ram_mb, num_io_ops...: AttrUsage) with constants become ranges of
// that integer; parts that read only static attributes are judged as
// they are (StaticQuery), once per distinct value if the caller likes;
// and, or and not combine them. Compile refuses what a host could raise
// on, or what would need the value of a command rather than its truth
// (in, a command as an operand, a static attribute as an operand next to
// a usage one): the caller then evaluates the query host by host.

// QueryOp is what a QueryNode computes.
type QueryOp uint8

// The operations of a compiled query.
const (
	QConst  QueryOp = iota // Value, for every host
	QStatic                // Static's outcome on the host
	QRange                 // Lo <= the host's Attr <= Hi
	QAnd                   // every Args (true when there are none)
	QOr                    // any Args (false when there are none)
	QNot                   // not Args[0]
)

// QueryNode is a compiled query, or a part of one.
type QueryNode struct {
	Op     QueryOp
	Value  bool         // QConst
	Static *StaticQuery // QStatic
	Attr   string       // QRange: a usage integer (AttrUsage)
	Lo, Hi int64        // QRange: Lo > Hi is empty
	Args   []*QueryNode // QAnd, QOr, QNot
}

// StaticQuery is a part of a query that reads no attribute changing with
// usage: its outcome on a host depends on the host's static attributes
// (Attrs) alone, and may raise.
type StaticQuery struct {
	node any
	top  bool // the whole query (Eval's outcome), else an operand's truth
	// Attrs are the attributes it reads (first steps of its $ names,
	// missing ones included).
	Attrs []string
	// Key identifies it: equal keys, equal outcomes on every host.
	Key string
}

// Pass is the part's outcome on h: the query's result when it is the
// whole query, else the truth of its value as an operand of and, or or
// not; an error where Nova raises.
func (s *StaticQuery) Pass(h *HostAttrs) (bool, error) {
	if s.top {
		return (&Query{root: s.node}).Eval(h)
	}
	res, err := processQuery(s.node, h)
	if err != nil {
		return false, err
	}
	return pyval.Truthy(res), nil
}

// Compile returns q as a QueryNode whose outcome on every host is
// Eval's, or false when q is not of the compiled forms (see above). A nil
// query compiles to true.
func (q *Query) Compile() (*QueryNode, bool) {
	if q == nil {
		return &QueryNode{Op: QConst, Value: true}, true
	}
	if m := q.memo; m != nil {
		m.once.Do(func() { m.node, m.ok = q.compile() })
		return m.node, m.ok
	}
	return q.compile()
}

// compile is Compile for a query that is not nil.
func (q *Query) compile() (*QueryNode, bool) {
	if q.raises != nil {
		return nil, false // raises host by host (Eval)
	}
	if !readsChanging(q.root) {
		return staticNode(q.root, true), true
	}
	items, cmd, ok := command(q.root)
	if !ok {
		return nil, false
	}
	if cmd != "not" {
		return compileBool(q.root)
	}
	// Eval of the list "not" returns: any element truthy.
	or := &QueryNode{Op: QOr}
	for _, a := range items[1:] {
		n, dropped, ok := operandTruth(a)
		if !ok {
			return nil, false
		}
		if !dropped {
			or.Args = append(or.Args, &QueryNode{Op: QNot, Args: []*QueryNode{n}})
		}
	}
	return or, true
}

// command splits a query node into its items and command, when it is a
// non-empty list starting with a known command.
func command(v any) ([]any, string, bool) {
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		return nil, "", false
	}
	cmd, ok := items[0].(string)
	if !ok || !isJSONCommand(cmd) {
		return nil, "", false
	}
	return items, cmd, true
}

// staticNode is v as a QStatic node.
func staticNode(v any, top bool) *QueryNode {
	var attrs []string
	collectAttrs(v, &attrs)
	key := "A"
	if top {
		key = "T"
	}
	return &QueryNode{Op: QStatic, Static: &StaticQuery{node: v, top: top, Attrs: attrs, Key: key + pyval.Repr(v)}}
}

// varName is the first step of a $ name.
func varName(s string) (string, bool) {
	if !strings.HasPrefix(s, "$") {
		return "", false
	}
	name, _, _ := strings.Cut(s[1:], ".")
	return name, true
}

// collectAttrs appends the first steps of v's $ names.
func collectAttrs(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		if name, ok := varName(x); ok {
			*out = append(*out, name)
		}
	case []any:
		for _, e := range x {
			collectAttrs(e, out)
		}
	case *pyval.Dict:
		for _, k := range x.Keys {
			collectAttrs(x.Values[k], out)
		}
	}
}

// readsChanging reports whether v holds a $ name of an attribute that
// changes with usage (conservatively: anywhere in it).
func readsChanging(v any) bool {
	var attrs []string
	collectAttrs(v, &attrs)
	for _, a := range attrs {
		if k := AttrKindOf(a); k == AttrUsage || k == AttrDynamic {
			return true
		}
	}
	return false
}

// compileBool compiles the truth of a query node's value (a list).
func compileBool(v any) (*QueryNode, bool) {
	if !pyval.Truthy(v) {
		return &QueryNode{Op: QConst, Value: true}, true // an empty query passes
	}
	if !readsChanging(v) {
		return staticNode(v, false), true
	}
	items, cmd, ok := command(v)
	if !ok {
		return nil, false
	}
	switch cmd {
	case "and", "or", "not":
		n := &QueryNode{Op: QAnd}
		if cmd == "or" {
			n.Op = QOr
		}
		count := 0
		for _, a := range items[1:] {
			t, dropped, ok := operandTruth(a)
			if !ok {
				return nil, false
			}
			if !dropped {
				n.Args = append(n.Args, t)
				count++
			}
		}
		if cmd == "not" {
			// A list of the operands' negations: true when not empty.
			// Its value drops the operands, not their exceptions: a
			// static part may raise, so it is left to Eval.
			for _, a := range n.Args {
				if hasStatic(a) {
					return nil, false
				}
			}
			return &QueryNode{Op: QConst, Value: count > 0}, true
		}
		return n, true
	case "=", "<", ">", "<=", ">=":
		return compileCompare(cmd, items[1:])
	}
	return nil, false
}

// hasStatic reports whether n holds a QStatic part (the only parts of a
// compiled query that may raise).
func hasStatic(n *QueryNode) bool {
	if n.Op == QStatic {
		return true
	}
	for _, a := range n.Args {
		if hasStatic(a) {
			return true
		}
	}
	return false
}

// operandTruth compiles the truth of an operand of and, or or not;
// dropped reports an operand Nova drops (None).
func operandTruth(a any) (n *QueryNode, dropped, ok bool) {
	switch x := a.(type) {
	case []any:
		n, ok := compileBool(x)
		return n, false, ok
	case string:
		if x == "" {
			return nil, true, true
		}
		name, isVar := varName(x)
		if !isVar {
			return &QueryNode{Op: QConst, Value: true}, false, true
		}
		switch AttrKindOf(name) {
		case AttrMissing:
			return nil, true, true
		case AttrUsage:
			if x[1:] != name {
				return nil, false, false // a lookup into an integer raises
			}
			// An integer is true when it is not 0.
			zero := &QueryNode{Op: QRange, Attr: name, Lo: 0, Hi: 0}
			return &QueryNode{Op: QNot, Args: []*QueryNode{zero}}, false, true
		}
		return nil, false, false
	case nil:
		return nil, true, true
	}
	return &QueryNode{Op: QConst, Value: pyval.Truthy(a)}, false, true
}

// term is an operand of a comparison: a constant, or the usage integer
// named by v.
type term struct {
	v     string
	isVar bool
	c     any
}

// compileCompare compiles cmd over its operands: true when there are at
// least two and the first compares true with each other one.
func compileCompare(cmd string, operands []any) (*QueryNode, bool) {
	var terms []term
	attr := ""
	for _, a := range operands {
		switch x := a.(type) {
		case []any:
			return nil, false // a command's value as an operand
		case nil:
			continue
		case string:
			if x == "" {
				continue
			}
			name, isVar := varName(x)
			if !isVar {
				terms = append(terms, term{c: x})
				continue
			}
			switch AttrKindOf(name) {
			case AttrMissing:
				continue
			case AttrUsage:
				if x[1:] != name || (attr != "" && attr != name) {
					return nil, false
				}
				attr = name
				terms = append(terms, term{v: name, isVar: true})
				continue
			}
			return nil, false
		default:
			terms = append(terms, term{c: a})
		}
	}
	if len(terms) < 2 {
		return &QueryNode{Op: QConst, Value: false}, true
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	always := true
	for _, t := range terms[1:] {
		x, y := terms[0], t
		switch {
		case !x.isVar && !y.isVar:
			ok, err := compareConst(cmd, x.c, y.c)
			if err != nil {
				return nil, false
			}
			always = always && ok
		case x.isVar && y.isVar:
			always = always && (cmd == "=" || cmd == "<=" || cmd == ">=")
		default:
			l, h, ok := intRange(cmd, x, y)
			if !ok {
				return nil, false
			}
			lo, hi = max(lo, l), min(hi, h)
		}
	}
	if !always {
		return &QueryNode{Op: QConst, Value: false}, true
	}
	if attr == "" {
		return &QueryNode{Op: QConst, Value: true}, true
	}
	return &QueryNode{Op: QRange, Attr: attr, Lo: lo, Hi: hi}, true
}

// compareConst is x cmd y for two constants.
func compareConst(cmd string, x, y any) (bool, error) {
	if cmd == "=" {
		return pyval.Eq(x, y), nil
	}
	return pyval.Order(cmd, x, y)
}

// intRange returns the integers v for which x cmd y holds, one of x and y
// being v and the other a constant c, as a range lo..hi (lo > hi: none);
// false where Python raises (an ordering of an integer with anything but
// a number).
func intRange(cmd string, x, y term) (lo, hi int64, ok bool) {
	c := y.c
	if !x.isVar {
		c = x.c
	}
	pred := func(v int64) bool {
		a, b := any(v), c
		if !x.isVar {
			a, b = c, any(v)
		}
		r, _ := compareConst(cmd, a, b)
		return r
	}
	if cmd == "=" {
		p, ok := intEqualTo(c)
		if !ok || !pred(p) {
			return 1, 0, true
		}
		return p, p, true
	}
	switch c.(type) {
	case bool, int64, *big.Int, float64:
	default:
		return 0, 0, false
	}
	// v < c and c > v hold for the small v, the rest for the large.
	down := (cmd == "<" || cmd == "<=") == x.isVar
	if down {
		if !pred(math.MinInt64) {
			return 1, 0, true
		}
		return math.MinInt64, lastTrue(pred), true
	}
	if !pred(math.MaxInt64) {
		return 1, 0, true
	}
	return firstTrue(pred), math.MaxInt64, true
}

// intEqualTo is the integer equal to c, if there is one.
func intEqualTo(c any) (int64, bool) {
	switch x := c.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int64:
		return x, true
	case *big.Int:
		return x.Int64(), x.IsInt64()
	case float64:
		if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<63 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// firstTrue is the smallest int64 where pred, false then true over the
// int64s (true at math.MaxInt64), holds.
func firstTrue(pred func(int64) bool) int64 {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64) // pred(hi)
	if pred(lo) {
		return lo
	}
	for uint64(hi)-uint64(lo) > 1 {
		mid := int64(uint64(lo) + (uint64(hi)-uint64(lo))/2)
		if pred(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// lastTrue is the largest int64 where pred, true then false over the
// int64s (true at math.MinInt64), holds.
func lastTrue(pred func(int64) bool) int64 {
	if pred(math.MaxInt64) {
		return math.MaxInt64
	}
	return firstTrue(func(v int64) bool { return !pred(v) }) - 1
}
