package fuzz

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	gofuzz "github.com/google/gofuzz"

	"github.com/placer/placer/internal/nova"
)

// queryCase is a JsonFilter query over numbers only (numeric host
// attributes, numeric and boolean literals, missing attributes, every
// command), the host it is evaluated on, and an arbitrary query text of
// every command and literal type.
type queryCase struct {
	Tree  []any // [cmd, arg...]; an arg is a number, a bool, a "$var" or "" string, or a subtree
	Host  nova.HostAttrs
	Text  jsonQuery
	Other []any // a second tree, for the two-argument identities
}

var modelVars = []string{"$free_ram_mb", "$free_disk_mb", "$vcpus_used", "$vcpus_total",
	"$num_instances", "$num_io_ops", "$ram_allocation_ratio", "$hypervisor_version", "$nosuch", ""}

var modelNumbers = []any{-2, -1, 0, 1, 2, 3, 0.5, 1.5, 1024, true, false}

func modelTree(c gofuzz.Continue, depth int) []any {
	t := []any{pick(c, queryCmds)}
	for i := c.Intn(4); i > 0; i-- {
		switch x := c.Intn(10); {
		case depth > 0 && x < 3:
			t = append(t, modelTree(c, depth-1))
		case x < 6:
			t = append(t, pick(c, modelVars))
		default:
			t = append(t, pick(c, modelNumbers))
		}
	}
	return t
}

var queryCaseFill = func(q *queryCase, c gofuzz.Continue) {
	q.Tree = modelTree(c, c.Intn(3))
	q.Other = modelTree(c, c.Intn(2))
	small := []int64{-1024, -1, 0, 1, 2, 3, 1024}
	q.Host = nova.HostAttrs{
		Host: pick(c, hostPool), Nodename: "n", FreeRAMMB: pick(c, small), FreeDiskMB: pick(c, small),
		VCPUsUsed: pick(c, small), VCPUsTotal: pick(c, small), NumInstances: pick(c, small),
		NumIOOps: pick(c, small), RAMAllocationRatio: pick(c, ratios),
	}
	if chance(c, 0.7) {
		q.Host.HypervisorVersion = ptr(pick(c, small))
	}
	if chance(c, 0.5) {
		q.Host.HypervisorType = ptr(pick(c, []string{"QEMU", "kvm"}))
	}
	if chance(c, 0.5) {
		q.Host.Stats = map[string]string{"opt1": pick(c, specWords)}
	}
	if chance(c, 0.5) {
		q.Host.HostIP = ptr(pick(c, []string{"10.0.0.1", "::1", "bogus"}))
	}
	if chance(c, 0.5) {
		q.Host.CPUInfo = ptr(pick(c, cpuInfos))
	}
	c.Fuzz(&q.Text)
}

// FuzzJSONQuery checks JsonFilter's evaluator (nova.ParseQuery, Eval):
// on numeric queries it agrees with evalModel, an independent
// transcription of nova/scheduler/filters/json_filter.py; on any query it
// never panics, raises only Python's exceptions, and keeps the identities
// not = negation, and/or of one argument = the argument, and/or of two =
// the conjunction/disjunction, "=" symmetric, "<" the mirror of ">", "in"
// = any "=".
func FuzzJSONQuery(f *testing.F) {
	// The bytes drive gofuzz's choices, not a query's text: a plain go
	// test checks the cases these deterministic inputs make, every
	// command with arguments among them (TestModelSeedsCover).
	f.Add([]byte{})
	for seed := uint64(1); seed <= modelSeeds; seed++ {
		f.Add(seedBytes(seed, modelSeedLen))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var q queryCase
		gofuzz.NewFromGoFuzz(data).NilChance(0).Funcs(append(fillFuncs, queryCaseFill)...).Fuzz(&q)
		h := &q.Host

		// The model, on the numeric tree.
		got, err := evalTree(q.Tree, h)
		want, wantErr := evalModel(q.Tree, h)
		if (err != nil) != (wantErr != "") || err == nil && got != want ||
			err != nil && exception(err) != wantErr {
			t.Fatalf("query %s on %+v: got %v, %v; the model says %v, %q", mustJSON(q.Tree), *h, got, err, want, wantErr)
		}

		// Any query text: no panic, Python's exceptions only (json.loads's
		// for a text that is not JSON).
		if _, err := nova.ParseQuery(string(q.Text)).Eval(h); err != nil {
			switch exception(err) {
			case "KeyError", "TypeError", "AttributeError", "ValueError", "JSONDecodeError", "RecursionError":
			default:
				t.Fatalf("query %s: error %T %v is not one of Python's", q.Text, err, err)
			}
		}

		checkQueryAlgebra(t, q.Tree, q.Other, h)
	})
}

// boolCommand reports whether the tree's command returns a bool (all but
// "not", which returns a list).
func boolCommand(tree []any) bool { return tree[0] != "not" }

// checkQueryAlgebra checks the logical identities on x and y.
func checkQueryAlgebra(t *testing.T, x, y []any, h *nova.HostAttrs) {
	t.Helper()
	same := func(a, b []any) {
		t.Helper()
		ra, ea := evalTree(a, h)
		rb, eb := evalTree(b, h)
		if ra != rb || exception(ea) != exception(eb) {
			t.Fatalf("%s = %v, %v but %s = %v, %v (host %+v)", mustJSON(a), ra, ea, mustJSON(b), rb, eb, *h)
		}
	}
	vx, ex := evalTree(x, h)
	vy, ey := evalTree(y, h)
	if boolCommand(x) {
		r, e := evalTree([]any{"not", x}, h)
		if exception(e) != exception(ex) || ex == nil && r == vx {
			t.Fatalf("not %s = %v, %v; %s = %v, %v", mustJSON(x), r, e, mustJSON(x), vx, ex)
		}
		same([]any{"and", x}, x)
		same([]any{"or", x}, x)
		if boolCommand(y) && ex == nil && ey == nil {
			if r, e := evalTree([]any{"and", x, y}, h); e != nil || r != (vx && vy) {
				t.Fatalf("and %s %s = %v, %v; want %v", mustJSON(x), mustJSON(y), r, e, vx && vy)
			}
			if r, e := evalTree([]any{"or", x, y}, h); e != nil || r != (vx || vy) {
				t.Fatalf("or %s %s = %v, %v; want %v", mustJSON(x), mustJSON(y), r, e, vx || vy)
			}
		}
	}
	// Two-argument comparisons of the arguments of x.
	if len(x) >= 3 {
		a, b := x[1], x[2]
		same([]any{"=", a, b}, []any{"=", b, a})
		same([]any{"<", a, b}, []any{">", b, a})
		same([]any{"<=", a, b}, []any{">=", b, a})
		if len(x) >= 4 {
			c := x[3]
			in, ein := evalTree([]any{"in", a, b, c}, h)
			eqB, e1 := evalTree([]any{"=", a, b}, h)
			eqC, e2 := evalTree([]any{"=", a, c}, h)
			if ein == nil && e1 == nil && e2 == nil && dropped(a, h) == 0 && dropped(b, h) == 0 && dropped(c, h) == 0 &&
				in != (eqB || eqC) {
				t.Fatalf("in %v %v %v = %v, but = gives %v and %v", a, b, c, in, eqB, eqC)
			}
		}
	}
}

// dropped is 1 when Nova drops the argument (a string that resolves to
// None), else 0.
func dropped(arg any, h *nova.HostAttrs) int {
	s, ok := arg.(string)
	if !ok {
		return 0
	}
	if v, ok := modelVar(s, h); !ok || v == nil {
		return 1
	}
	return 0
}

func evalTree(tree []any, h *nova.HostAttrs) (bool, error) {
	q := nova.ParseQuery(mustJSON(tree))
	return q.Eval(h)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// exception is the Python exception class of err ("" for nil).
func exception(err error) string {
	if err == nil {
		return ""
	}
	var pe *nova.ErrPython
	if errors.As(err, &pe) {
		return pe.Exception
	}
	return fmt.Sprintf("%T", err)
}

// mval is a model value: a number (bools are 0 and 1, as in Python) or a
// list (what "not" returns).
type mval struct {
	list  []mval
	num   float64
	isLst bool
}

func (v mval) truthy() bool {
	if v.isLst {
		return len(v.list) > 0
	}
	return v.num != 0
}

func mbool(b bool) mval {
	if b {
		return mval{num: 1}
	}
	return mval{}
}

// modelVar resolves a "$attr" of the numeric model: the value, nil for
// None, ok=false for a missing attribute.
func modelVar(s string, h *nova.HostAttrs) (any, bool) {
	switch s {
	case "$free_ram_mb":
		return float64(h.FreeRAMMB), true
	case "$free_disk_mb":
		return float64(h.FreeDiskMB), true
	case "$vcpus_used":
		return float64(h.VCPUsUsed), true
	case "$vcpus_total":
		return float64(h.VCPUsTotal), true
	case "$num_instances":
		return float64(h.NumInstances), true
	case "$num_io_ops":
		return float64(h.NumIOOps), true
	case "$ram_allocation_ratio":
		return h.RAMAllocationRatio, true
	case "$hypervisor_version":
		if h.HypervisorVersion == nil {
			return nil, true
		}
		return float64(*h.HypervisorVersion), true
	}
	return nil, false
}

// evalModel is JsonFilter.host_passes on a numeric tree.
func evalModel(tree []any, h *nova.HostAttrs) (bool, string) {
	v, exc := modelProcess(tree, h)
	if exc != "" {
		return false, exc
	}
	if v.isLst {
		for _, x := range v.list {
			if x.truthy() {
				return true, ""
			}
		}
		return false, ""
	}
	return v.truthy(), ""
}

// modelProcess is _process_filter.
func modelProcess(tree []any, h *nova.HostAttrs) (mval, string) {
	if len(tree) == 0 {
		return mbool(true), ""
	}
	var args []mval
	for _, a := range tree[1:] {
		switch x := a.(type) {
		case []any:
			v, exc := modelProcess(x, h)
			if exc != "" {
				return mval{}, exc
			}
			args = append(args, v)
		case string:
			if v, ok := modelVar(x, h); ok && v != nil {
				args = append(args, mval{num: v.(float64)})
			}
		case bool:
			args = append(args, mbool(x))
		case int:
			args = append(args, mval{num: float64(x)})
		case float64:
			args = append(args, mval{num: x})
		default:
			panic(fmt.Sprintf("model: arg %T", a))
		}
	}
	switch cmd := tree[0].(string); cmd {
	case "not":
		out := mval{isLst: true, list: []mval{}}
		for _, a := range args {
			out.list = append(out.list, mbool(!a.truthy()))
		}
		return out, ""
	case "or", "and":
		acc := cmd == "and"
		for _, a := range args {
			if cmd == "or" {
				acc = acc || a.truthy()
			} else {
				acc = acc && a.truthy()
			}
		}
		return mbool(acc), ""
	default:
		if len(args) < 2 {
			return mbool(false), ""
		}
		if cmd == "in" {
			found := false
			for _, a := range args[1:] {
				found = found || modelEq(args[0], a)
			}
			return mbool(found), ""
		}
		all := true
		for _, a := range args[1:] {
			var ok bool
			if cmd == "=" {
				ok = modelEq(args[0], a)
			} else {
				c, exc := modelCmp(args[0], a)
				if exc != "" {
					return mval{}, exc
				}
				ok = map[string]bool{"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[cmd]
			}
			all = all && ok
		}
		return mbool(all), ""
	}
}

func modelEq(a, b mval) bool {
	if a.isLst != b.isLst {
		return false
	}
	if !a.isLst {
		return a.num == b.num
	}
	if len(a.list) != len(b.list) {
		return false
	}
	for i := range a.list {
		if !modelEq(a.list[i], b.list[i]) {
			return false
		}
	}
	return true
}

// modelCmp is Python's ordering of numbers and lists; a TypeError between
// a number and a list.
func modelCmp(a, b mval) (int, string) {
	switch {
	case a.isLst != b.isLst:
		return 0, "TypeError"
	case !a.isLst:
		switch {
		case a.num < b.num:
			return -1, ""
		case a.num > b.num:
			return 1, ""
		}
		return 0, ""
	}
	for i := 0; i < len(a.list) && i < len(b.list); i++ {
		if !modelEq(a.list[i], b.list[i]) {
			return modelCmp(a.list[i], b.list[i])
		}
	}
	return len(a.list) - len(b.list), ""
}
