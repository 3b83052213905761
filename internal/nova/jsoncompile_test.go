package nova

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// evalCompiled is n on h as the engine judges it: ranges on the usage
// integers, static parts through Pass, every part evaluated (no short
// cut), an error when a static part raises (the engine then evaluates the
// query host by host).
func evalCompiled(t *testing.T, n *QueryNode, h *HostAttrs) (bool, error) {
	t.Helper()
	args := make([]bool, len(n.Args))
	var firstErr error
	for i, a := range n.Args {
		v, err := evalCompiled(t, a, h)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		args[i] = v
	}
	switch n.Op {
	case QConst:
		return n.Value, firstErr
	case QStatic:
		return n.Static.Pass(h)
	case QRange:
		v, ok := h.Attr(n.Attr)
		iv, isInt := v.(int64)
		if !ok || !isInt || AttrKindOf(n.Attr) != AttrUsage {
			t.Fatalf("a range over %q, which is not a usage integer (%T)", n.Attr, v)
		}
		return n.Lo <= iv && iv <= n.Hi, nil
	case QAnd:
		return !slices.Contains(args, false), firstErr
	case QOr:
		return slices.Contains(args, true), firstErr
	case QNot:
		if len(args) != 1 {
			t.Fatalf("not with %d arguments", len(args))
		}
		return !args[0], firstErr
	}
	t.Fatalf("unknown op %d", n.Op)
	return false, nil
}

// compileHosts are hosts whose usage integers sit at the constants the
// queries compare with, and around them.
func compileHosts(r *rand.Rand, n int) []*HostAttrs {
	ints := []int64{0, 1, -1, 2, 3, 511, 512, 513, 1023, 1024, 1025, 4096, 1 << 31, -(1 << 31) - 1, 1 << 40}
	types := []*string{nil, strPtr("QEMU"), strPtr("kvm")}
	cpus := []*string{nil, strPtr(`{"vendor": "Intel"}`), strPtr(`not json`), strPtr(`{"vendor": "AMD", "features": ["aes"]}`)}
	stats := []map[string]string{nil, {"opt1": "1"}, {"opt1": "0", "gpu": "true"}}
	out := make([]*HostAttrs, n)
	for i := range out {
		h := jsonHost()
		pick := func() int64 { return ints[r.IntN(len(ints))] }
		h.FreeRAMMB, h.FreeDiskMB, h.VCPUsUsed, h.NumInstances, h.NumIOOps = pick(), pick(), pick(), pick(), pick()
		h.VCPUsTotal = pick()
		h.HypervisorType = types[r.IntN(len(types))]
		h.CPUInfo = cpus[r.IntN(len(cpus))]
		h.Stats = stats[r.IntN(len(stats))]
		out[i] = h
	}
	return out
}

var (
	compileCommands = []string{"and", "or", "not", "=", "<", ">", "<=", ">=", "in"}
	compileOperands = []string{
		`"$free_ram_mb"`, `"$num_instances"`, `"$vcpus_used"`, `"$free_disk_mb"`, `"$num_io_ops"`,
		`"$free_ram_mb.x"`, `"$hypervisor_type"`, `"$cpu_info"`, `"$stats.opt1"`, `"$nosuch"`,
		`"$vcpus_total"`, `"$instances"`, `""`, `"abc"`, `"1024"`, `0`, `1`, `-1`, `2`, `512`, `1024`,
		`1.5`, `1024.0`, `1e30`, `-1e30`, `99999999999999999999`, `true`, `false`, `null`, `[]`, `{}`,
		`NaN`, `Infinity`,
	}
)

// randomQuery writes a query tree of depth at most depth.
func randomQuery(r *rand.Rand, b *strings.Builder, depth int) {
	b.WriteString("[" + strconv.Quote(compileCommands[r.IntN(len(compileCommands))]))
	for range r.IntN(4) {
		b.WriteString(", ")
		if depth > 0 && r.IntN(3) == 0 {
			randomQuery(r, b, depth-1)
		} else {
			b.WriteString(compileOperands[r.IntN(len(compileOperands))])
		}
	}
	b.WriteString("]")
}

// compileFixed are hand-picked queries: a nested not whose value hides a raising static
// operand; ranges at the int32 and int64 edges; floats and bools.
var compileFixed = []string{
	`["or", ["not", ["<", "$cpu_info", 1], "$free_ram_mb"]]`,
	`["and", ["not", ["<", "$hypervisor_type", 1]], [">", "$free_ram_mb", 0]]`,
	`["and", [">=", "$free_ram_mb", 2147483648], ["<", "$free_disk_mb", -2147483649]]`,
	`["or", [">", "$num_io_ops", 1.5], ["=", "$vcpus_used", 1024.0], ["=", "$num_instances", true]]`,
	`["<", "$free_ram_mb", 99999999999999999999]`,
	`[">", -1e30, "$free_ram_mb"]`,
	`["not", [">=", "$free_ram_mb", 1024], ["=", "$stats.opt1", "1"]]`,
}

// TestQueryCompileMatchesEval holds Query.Compile to Query.Eval, the
// transcription of Nova's JsonFilter: on every host where no static part
// of the compiled query raises, the compiled query's outcome is Eval's and
// Eval does not raise.
func TestQueryCompileMatchesEval(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	hosts := compileHosts(r, 48)
	n := 20000
	if testing.Short() {
		n = 4000
	}
	compiled, ranges, judged := 0, 0, 0
	fixed := compileFixed
	n += len(fixed)
	for i := range n {
		var b strings.Builder
		if i < len(fixed) {
			b.WriteString(fixed[i])
		} else if r.IntN(10) == 0 {
			b.WriteString(compileOperands[r.IntN(len(compileOperands))])
		} else {
			randomQuery(r, &b, r.IntN(4))
		}
		q := ParseQuery(b.String())
		node, ok := q.Compile()
		if !ok {
			continue
		}
		compiled++
		if hasRange(node) {
			ranges++
		}
		for _, h := range hosts {
			got, gerr := evalCompiled(t, node, h)
			if gerr != nil {
				continue
			}
			judged++
			want, werr := q.Eval(h)
			if werr != nil || got != want {
				t.Fatalf("query %s on host (free_ram_mb %d, num_instances %d, vcpus_used %d, free_disk_mb %d, num_io_ops %d): compiled %v, Eval %v, %v",
					b.String(), h.FreeRAMMB, h.NumInstances, h.VCPUsUsed, h.FreeDiskMB, h.NumIOOps, got, want, werr)
			}
		}
	}
	t.Logf("%d queries, %d compiled (%d with ranges), %d host outcomes compared", n, compiled, ranges, judged)
	if compiled < n/10 || ranges < n/50 {
		t.Fatalf("too few queries compiled (%d, %d with ranges) for the test to mean much", compiled, ranges)
	}
}

// hasRange reports whether n holds a QRange part.
func hasRange(n *QueryNode) bool {
	if n.Op == QRange {
		return true
	}
	return slices.ContainsFunc(n.Args, hasRange)
}

// TestAttrKindsCoverAttr holds attrKinds to the names HostAttrs.Attr
// answers (its switch's cases, read from hostattrs.go, and its bound
// methods), and the usage
// integers to the attributes consume_from_request changes.
func TestAttrKindsCoverAttr(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "hostattrs.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "Attr" {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						names = append(names, s)
					}
				}
			}
			return true
		})
	}
	for name := range hostMethods { // Attr's bound methods, after its switch
		names = append(names, name)
		if AttrKindOf(name) != AttrDynamic {
			t.Errorf("the bound method %q is not AttrDynamic (its repr shows the host's usage)", name)
		}
	}
	if len(names) < 20 {
		t.Fatalf("found %d cases in HostAttrs.Attr: the parse is wrong", len(names))
	}
	h := jsonHost()
	for _, name := range names {
		if AttrKindOf(name) == AttrMissing {
			t.Errorf("HostAttrs.Attr answers %q, which attrKinds does not name", name)
		}
	}
	for name := range attrKinds {
		if !slices.Contains(names, name) {
			t.Errorf("attrKinds names %q, which HostAttrs.Attr does not answer", name)
		}
		if _, ok := h.Attr(name); !ok {
			t.Errorf("HostAttrs.Attr(%q): not found", name)
		}
	}
	var usage []string
	for name, k := range attrKinds {
		if k == AttrUsage {
			usage = append(usage, name)
		}
	}
	slices.Sort(usage)
	// nova/scheduler/host_manager.py, _locked_consume_from_request.
	if want := []string{"free_disk_mb", "free_ram_mb", "num_instances", "num_io_ops", "vcpus_used"}; !slices.Equal(usage, want) {
		t.Errorf("usage integers %v, want %v", usage, want)
	}
}

// FuzzQueryCompile holds Query.Compile to Query.Eval on any query text, as
// TestQueryCompileMatchesEval does on generated ones.
func FuzzQueryCompile(f *testing.F) {
	for _, q := range compileFixed {
		f.Add(q)
	}
	f.Add(`["and", [">=", "$free_ram_mb", 1024], ["<", "$num_instances", 3]]`)
	hosts := compileHosts(rand.New(rand.NewPCG(18, 3)), 32)
	f.Fuzz(func(t *testing.T, text string) {
		q := ParseQuery(text)
		node, ok := q.Compile()
		if !ok {
			return
		}
		for _, h := range hosts {
			got, gerr := evalCompiled(t, node, h)
			if gerr != nil {
				continue
			}
			if want, werr := q.Eval(h); werr != nil || got != want {
				t.Fatalf("query %s on host (free_ram_mb %d, num_instances %d): compiled %v, Eval %v, %v",
					text, h.FreeRAMMB, h.NumInstances, got, want, werr)
			}
		}
	})
}
