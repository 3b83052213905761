package engine

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The layering of the package's files, as doc.go lists it, and the bounds
// TestLayering holds them to.
//
// A use: file A uses file B (A and B two of the package's non-test files)
// when an identifier in A refers to a declaration at the top of B: a
// package-level constant, variable, type or function, a method, or a
// field of a struct type declared in B. The identifiers are resolved by
// go/types over the files go/parser reads (the standard library imported
// from its export data, the module's other packages as empty stand-ins,
// whose errors are ignored: no engine declaration is reached through
// them). A use is counted once per pair of files, however many
// identifiers make it.
//
// A file's layer is the number of the item of doc.go's "# Layers" list
// that names it (1, values and errors, at the bottom). A use of a file of
// a higher layer is an upward use: at most maxUpward of them.
//
// Levels: leave out the upward uses; the files that use each other,
// directly or not, through the uses left (necessarily files of one layer)
// count as one node; a node's level is 1 plus the largest level of the
// nodes it uses, 1 when it uses none. The depth, the largest level, is the
// height of the stack of files: at most maxDepth.
//
// No non-test file is longer than maxLines lines.
const (
	maxDepth  = 8
	maxUpward = 10
	maxLines  = 500
)

// TestLayering holds the package's files to the layers doc.go lists:
// every non-test file is in exactly one layer and named in doc.go's map of
// files, the files stack at most maxDepth levels deep, at most maxUpward
// uses run up a layer, and no file is longer than maxLines lines.
func TestLayering(t *testing.T) {
	g, err := loadFileGraph(".")
	if err != nil {
		t.Fatal(err)
	}
	layers, fileMap, err := docLayers(g.doc)
	if err != nil {
		t.Fatal(err)
	}
	layerOf := map[string]int{}
	for i, files := range layers {
		for _, f := range files {
			if _, dup := layerOf[f]; dup {
				t.Errorf("doc.go lists %s in two layers", f)
			}
			layerOf[f] = i + 1
		}
	}
	for _, f := range g.files {
		if _, ok := layerOf[f]; !ok && f != "doc.go" {
			t.Errorf("%s is in no layer of doc.go's list", f)
		}
		if !strings.Contains(fileMap, "  - "+f+":") && f != "doc.go" {
			t.Errorf("doc.go's map of files does not name %s", f)
		}
		if n := g.lines[f]; n > maxLines {
			t.Errorf("%s has %d lines, more than %d", f, n, maxLines)
		}
	}
	for f := range layerOf {
		if !slices.Contains(g.files, f) {
			t.Errorf("doc.go lists %s, which is not a file of the package", f)
		}
	}
	// The graph sees through the standard library's generic types: the
	// commit check is reached through an atomic.Pointer.
	if !g.uses["commit.go"]["resources.go"] {
		t.Fatal("the file graph misses commit.go's use of resources.go: identifiers are not resolved")
	}

	upward := g.upward(layerOf)
	depth, level, cycle := g.depth(layerOf)
	t.Logf("%d files, %d uses; depth %d (bound %d), %d upward uses (bound %d), largest cycle %d files",
		len(g.files), g.count(), depth, maxDepth, len(upward), maxUpward, cycle)
	for _, u := range upward {
		t.Logf("upward: %s", u)
	}
	if depth > maxDepth {
		t.Errorf("the files stack %d levels deep, more than %d: %s", depth, maxDepth, g.deepest(level))
	}
	if len(upward) > maxUpward {
		t.Errorf("%d uses run up a layer, more than %d: %s", len(upward), maxUpward, strings.Join(upward, "; "))
	}
}

// fileGraph is the use relation between a package's non-test files.
type fileGraph struct {
	files []string                   // sorted
	uses  map[string]map[string]bool // uses[a][b]: a uses b
	lines map[string]int
	doc   string // the package comment (doc.go's)
}

// stubImporter imports the standard library from its export data and any
// other package as an empty one.
type stubImporter struct{ std types.Importer }

func (s stubImporter) Import(p string) (*types.Package, error) {
	if !strings.Contains(strings.Split(p, "/")[0], ".") {
		return s.std.Import(p)
	}
	name := path.Base(p)
	if regexp.MustCompile(`^v[0-9]+$`).MatchString(name) {
		name = path.Base(path.Dir(p))
	}
	pkg := types.NewPackage(p, name)
	pkg.MarkComplete()
	return pkg, nil
}

// loadFileGraph parses and type-checks the non-test files of the package
// in dir and returns their uses of each other.
func loadFileGraph(dir string) (*fileGraph, error) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	g := &fileGraph{uses: map[string]map[string]bool{}, lines: map[string]int{}}
	var files []*ast.File
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		g.files = append(g.files, name)
		g.lines[name] = fset.File(f.Pos()).LineCount()
		if f.Doc != nil {
			g.doc += f.Doc.Text()
		}
	}
	slices.Sort(g.files)
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: stubImporter{importer.Default()}, Error: func(error) {}}
	pkg, _ := conf.Check(files[0].Name.Name, fset, files, info) // errors: the stand-ins'
	fileOf := func(p token.Pos) string { return path.Base(fset.Position(p).Filename) }
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !isTopLevel(obj) {
			continue
		}
		a, b := fileOf(id.Pos()), fileOf(obj.Pos())
		if a == b || !slices.Contains(g.files, b) {
			continue
		}
		if g.uses[a] == nil {
			g.uses[a] = map[string]bool{}
		}
		g.uses[a][b] = true
	}
	return g, nil
}

// isTopLevel reports whether obj is declared at the top of its file: a
// package-level object, a method or a struct field.
func isTopLevel(obj types.Object) bool {
	if obj.Parent() != nil && obj.Parent() == obj.Pkg().Scope() {
		return true
	}
	switch o := obj.(type) {
	case *types.Func:
		return o.Signature().Recv() != nil
	case *types.Var:
		return o.IsField()
	}
	return false
}

// count is the number of uses.
func (g *fileGraph) count() int {
	n := 0
	for _, bs := range g.uses {
		n += len(bs)
	}
	return n
}

// upward lists the uses of a file of a higher layer, as "a -> b".
func (g *fileGraph) upward(layerOf map[string]int) []string {
	var out []string
	for a, bs := range g.uses {
		for b := range bs {
			if layerOf[b] > layerOf[a] {
				out = append(out, a+" -> "+b)
			}
		}
	}
	slices.Sort(out)
	return out
}

// depth returns the depth of the files without their upward uses, each
// file's level, and the size of the largest cycle (files using each
// other).
func (g *fileGraph) depth(layerOf map[string]int) (depth int, level map[string]int, cycle int) {
	down := func(a string) []string {
		var out []string
		for b := range g.uses[a] {
			if layerOf[b] <= layerOf[a] {
				out = append(out, b)
			}
		}
		slices.Sort(out)
		return out
	}
	// Tarjan's algorithm: components come out used before users.
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	comp := map[string]int{}
	var stack []string
	var comps [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for _, w := range down(v) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = len(comps)
				c = append(c, w)
				if w == v {
					break
				}
			}
			comps = append(comps, c)
		}
	}
	for _, f := range g.files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	compLevel := make([]int, len(comps))
	for c, fs := range comps {
		compLevel[c] = 1
		for _, f := range fs {
			for _, b := range down(f) {
				if comp[b] != c {
					compLevel[c] = max(compLevel[c], compLevel[comp[b]]+1)
				}
			}
		}
		depth, cycle = max(depth, compLevel[c]), max(cycle, len(fs))
	}
	level = map[string]int{}
	for _, f := range g.files {
		level[f] = compLevel[comp[f]]
	}
	return depth, level, cycle
}

// deepest describes the files at each level, from the top.
func (g *fileGraph) deepest(level map[string]int) string {
	byLevel := map[int][]string{}
	top := 0
	for f, l := range level {
		byLevel[l] = append(byLevel[l], f)
		top = max(top, l)
	}
	var parts []string
	for l := top; l >= 1; l-- {
		slices.Sort(byLevel[l])
		parts = append(parts, fmt.Sprintf("%d: %s", l, strings.Join(byLevel[l], " ")))
	}
	return strings.Join(parts, "; ")
}

// docLayers reads the layers ("# Layers": a numbered list, "N. Name:
// a.go, b.go") and the map of files ("# Files") of the package comment.
func docLayers(doc string) (layers [][]string, fileMap string, err error) {
	sec := func(title string) string {
		i := strings.Index(doc, "# "+title+"\n")
		if i < 0 {
			return ""
		}
		s := doc[i+len(title)+3:]
		if j := strings.Index(s, "\n# "); j >= 0 {
			s = s[:j]
		}
		return s
	}
	item := regexp.MustCompile(`(?m)^ *([0-9]+)\. [^:\n]+: (.*)$`)
	file := regexp.MustCompile(`[a-z0-9_]+\.go`)
	for _, m := range item.FindAllStringSubmatch(sec("Layers"), -1) {
		if m[1] != fmt.Sprint(len(layers)+1) {
			return nil, "", fmt.Errorf("doc.go's layer %s comes after layer %d", m[1], len(layers))
		}
		layers = append(layers, file.FindAllString(m[2], -1))
	}
	if len(layers) == 0 {
		return nil, "", fmt.Errorf(`doc.go has no "# Layers" list`)
	}
	return layers, sec("Files"), nil
}
