package engine_test

// The differential test: engine.PlaceBatch against internal/reference's
// per-host, Nova-style loop, decision for decision, on thousands of
// generated scenarios (internal/synth; mostly the adversarial edge
// profile). Every mismatch is a bug in one of the two.
//
//	go test ./engine -run Differential                      # the default 2,000
//	go test ./engine -run Differential -diff.n 50000 -diff.seed 1000000
//	go test ./engine -run Differential -diff.profile edge -diff.dump /tmp/diff
//
// With -diff.dump, each mismatching scenario is written as a scenario file
// (../shared/SCENARIO.md) next to both results, ready for
// `oracle place FILE` and `oracle check FILE RESULT`.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
	"github.com/placer/placer/internal/scenario"
	"github.com/placer/placer/internal/synth"
)

var (
	diffN         = flag.Int("diff.n", 2000, "differential test: number of scenarios")
	diffSeed      = flag.Uint64("diff.seed", 0, "differential test: first seed")
	diffProfile   = flag.String("diff.profile", "", "differential test: only this profile (edge, rich, basic); default a mix")
	diffReport    = flag.Int("diff.report", 15, "differential test: mismatching scenarios printed in full")
	diffDump      = flag.String("diff.dump", "", "differential test: write mismatching scenarios and both results into this directory")
	diffVerbose   = flag.Bool("diff.v", false, "differential test: log the outcome of every scenario")
	diffOracle    = flag.Int("diff.oracle", 0, "oracle test: check the engine's result on this many scenarios with Nova (../shared/nova-oracle)")
	diffOracleBin = flag.String("diff.oraclebin", "../../shared/nova-oracle/oracle", "oracle test: the oracle command")
)

// diffCase is one generated scenario.
type diffCase struct {
	seed    uint64
	profile string
	opts    synth.Options
}

// diffCaseOf derives scenario i: about 70% edge, 20% rich, 10% basic;
// small clouds, 1-8 instances.
func diffCaseOf(seed uint64) diffCase {
	profile := *diffProfile
	if profile == "" {
		switch seed % 10 {
		case 7, 8:
			profile = synth.Rich
		case 9:
			profile = synth.Basic
		default:
			profile = synth.Edge
		}
	}
	o := synth.Options{Seed: seed, Profile: profile}
	if profile != synth.Edge {
		o.Hosts = 30 + int(seed*7919%121)    // 30..150
		o.Instances = 1 + int(seed*104729%8) // 1..8
	}
	return diffCase{seed: seed, profile: profile, opts: o}
}

func (c diffCase) String() string {
	return fmt.Sprintf("seed=%d profile=%s", c.seed, c.profile)
}

// outcome is what one implementation returned.
type outcome struct {
	plan  engine.Plan
	err   error
	panic string
}

func runEngine(cloud engine.Cloud, req engine.Request) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.panic = fmt.Sprint(p)
		}
	}()
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		return outcome{err: err}
	}
	plan, err := engine.PlaceBatch(context.Background(), snap, req)
	return outcome{plan: plan, err: err}
}

func runReference(cloud engine.Cloud, req engine.Request) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.panic = fmt.Sprint(p)
		}
	}()
	plan, err := reference.PlaceBatch(context.Background(), cloud, req)
	return outcome{plan: plan, err: err}
}

// diffResult is the comparison of one scenario.
type diffResult struct {
	c     diffCase
	cloud engine.Cloud
	req   engine.Request
	eng   outcome
	ref   outcome
	diffs []string
}

func TestDifferential(t *testing.T) {
	n := *diffN
	if testing.Short() {
		n = min(n, 300)
	}
	start := time.Now()
	results := make([]diffResult, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := diffCaseOf(*diffSeed + uint64(i))
				g := synth.New(c.opts)
				cloud, req := g.Cloud(), g.Request()
				r := diffResult{c: c, cloud: cloud, req: req}
				r.eng = runEngine(cloud, req)
				r.ref = runReference(cloud, req)
				r.diffs = compareOutcomes(r.eng, r.ref)
				if len(r.diffs) == 0 { // keep only what a report needs
					r.cloud, r.req = engine.Cloud{}, engine.Request{}
				}
				results[i] = r
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()

	outcomes := map[string]int{}
	kinds := map[string]int{}
	bad := 0
	for i := range results {
		r := &results[i]
		kind := outcomeKind(r.ref)
		outcomes[r.c.profile+" "+kind]++
		if *diffVerbose {
			t.Logf("%v: engine %s, reference %s", r.c, outcomeKind(r.eng), kind)
		}
		if len(r.diffs) == 0 {
			continue
		}
		bad++
		kinds[diffKind(r.diffs[0])]++
		if bad <= *diffReport {
			t.Errorf("%v (%d hosts, %d instances): %d difference(s):\n\t%s",
				r.c, len(r.cloud.Hosts), instances(r.req), len(r.diffs),
				strings.Join(capLines(r.diffs, 8), "\n\t"))
		}
		if *diffDump != "" {
			if err := dumpDiff(*diffDump, r); err != nil {
				t.Errorf("dump: %v", err)
			}
		}
	}
	t.Logf("%d scenarios (seeds %d..%d) in %v; outcomes (reference): %v",
		n, *diffSeed, *diffSeed+uint64(n)-1, time.Since(start).Round(time.Millisecond), sortedCounts(outcomes))
	if bad > 0 {
		t.Errorf("%d of %d scenarios differ (first difference by kind: %v)%s",
			bad, n, sortedCounts(kinds), dumpNote())
	}
}

func dumpNote() string {
	if *diffDump != "" {
		return "; scenarios written to " + *diffDump
	}
	return "; rerun with -diff.dump DIR to write them as scenario files"
}

func instances(r engine.Request) int {
	if r.NumInstances > 0 {
		return r.NumInstances
	}
	return max(1, len(r.InstanceUUIDs))
}

func capLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n:n], fmt.Sprintf("... and %d more", len(lines)-n))
}

// diffKind is the field path of a difference line, without indexes: the
// key the summary groups by.
func diffKind(line string) string {
	path, _, _ := strings.Cut(line, ":")
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func outcomeKind(o outcome) string {
	if o.panic != "" {
		return "panic"
	}
	var nvh *engine.NoValidHostError
	var mnf *engine.MetricNotFoundError
	var ne *engine.NovaError
	var ve *engine.ValidationError
	switch {
	case o.err == nil:
		return "ok"
	case errors.As(o.err, &nvh):
		return "NoValidHost"
	case errors.As(o.err, &mnf):
		return "MetricNotFound"
	case errors.As(o.err, &ne):
		return "Nova:" + ne.Kind
	case errors.As(o.err, &ve):
		return "invalid"
	}
	return fmt.Sprintf("%T", o.err)
}

// compareOutcomes lists the differences between the engine's outcome (e)
// and the reference's (r), one line each: "path: engine X, reference Y".
func compareOutcomes(e, r outcome) []string {
	var d diffs
	if e.panic != "" || r.panic != "" {
		d.add("panic", e.panic, r.panic)
		return d.lines
	}
	ek, rk := outcomeKind(e), outcomeKind(r)
	if ek != rk {
		d.add("outcome", ek+errText(e.err), rk+errText(r.err))
		// Still compare what both chose, when both have choices.
	}
	switch {
	case e.err == nil && r.err == nil:
		d.placements("placements", e.plan.Placements, r.plan.Placements, true)
		return d.lines
	case ek != rk:
		d.placements("tentative", tentative(e), tentative(r), false)
		return d.lines
	}
	if len(e.plan.Placements) != 0 {
		d.add("plan", fmt.Sprintf("%d placements beside an error", len(e.plan.Placements)), "")
	}
	switch ee := e.err.(type) {
	case *engine.NoValidHostError:
		re := r.err.(*engine.NoValidHostError)
		d.eq("error.instance_index", ee.InstanceIndex, re.InstanceIndex)
		d.eq("error.instance_uuid", ee.InstanceUUID, re.InstanceUUID)
		d.eq("error.in_play", ee.InPlay, re.InPlay)
		d.eq("error.prefiltered", ee.Prefiltered, re.Prefiltered)
		d.eq("error.filters", fmtFilters(ee.Filters), fmtFilters(re.Filters))
	case *engine.MetricNotFoundError:
		re := r.err.(*engine.MetricNotFoundError)
		d.eq("error.instance_index", ee.InstanceIndex, re.InstanceIndex)
		d.eq("error.instance_uuid", ee.InstanceUUID, re.InstanceUUID)
		d.eq("error.host", ee.Host+"/"+ee.Node, re.Host+"/"+re.Node)
		d.eq("error.metric", ee.Metric, re.Metric)
	case *engine.NovaError:
		re := r.err.(*engine.NovaError)
		d.eq("error.instance_index", ee.InstanceIndex, re.InstanceIndex)
		d.eq("error.instance_uuid", ee.InstanceUUID, re.InstanceUUID)
	case *engine.ValidationError:
		re := r.err.(*engine.ValidationError)
		d.eq("error.field", ee.Field, re.Field)
	}
	d.placements("tentative", tentative(e), tentative(r), false)
	return d.lines
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

func tentative(o outcome) []engine.Placement {
	switch e := o.err.(type) {
	case nil:
		return o.plan.Placements
	case *engine.NoValidHostError:
		return e.Tentative
	case *engine.MetricNotFoundError:
		return e.Tentative
	case *engine.NovaError:
		return e.Tentative
	}
	return nil
}

func fmtFilters(fs []engine.FilterCount) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s %d->%d", f.Name, f.Start, f.End)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

type diffs struct{ lines []string }

func (d *diffs) add(path string, e, r any) {
	d.lines = append(d.lines, fmt.Sprintf("%s: engine %v, reference %v", path, e, r))
}

func (d *diffs) eq(path string, e, r any) {
	if e != r {
		d.add(path, e, r)
	}
}

// closeEnough is the weight tolerance: 1e-9 relative.
func closeEnough(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func (d *diffs) placements(what string, e, r []engine.Placement, alternates bool) {
	if len(e) != len(r) {
		d.add(what+".len", len(e), len(r))
	}
	for i := 0; i < min(len(e), len(r)); i++ {
		p := fmt.Sprintf("%s[%d]", what, i)
		a, b := &e[i], &r[i]
		d.eq(p+".instance_uuid", a.InstanceUUID, b.InstanceUUID)
		if a.Host != b.Host || a.Node != b.Node || a.HostID != b.HostID {
			d.add(p+".host", fmt.Sprintf("%s/%s#%d", a.Host, a.Node, a.HostID),
				fmt.Sprintf("%s/%s#%d", b.Host, b.Node, b.HostID))
			// The rest of this placement and the later ones follow
			// from the choice; report the weights that led to it.
			d.eq(p+".weight", a.Weight, b.Weight)
			d.eq(p+".candidates", a.Candidates, b.Candidates)
			return
		}
		d.eq(p+".cell", a.Cell, b.Cell)
		if !closeEnough(a.Weight, b.Weight) {
			d.add(p+".weight", a.Weight, b.Weight)
		}
		d.eq(p+".candidates", a.Candidates, b.Candidates)
		if !sameLimits(a.Limits, b.Limits) {
			d.add(p+".limits", fmtLimits(a.Limits), fmtLimits(b.Limits))
		}
		if alternates {
			d.eq(p+".alternates", fmt.Sprint(a.Alternates), fmt.Sprint(b.Alternates))
		}
	}
}

func sameLimits(a, b engine.Limits) bool {
	if a.Set != b.Set {
		return false
	}
	return (a.Set&engine.HasMemoryMB == 0 || closeEnough(a.MemoryMB, b.MemoryMB)) &&
		(a.Set&engine.HasVCPU == 0 || closeEnough(a.VCPU, b.VCPU)) &&
		(a.Set&engine.HasDiskGB == 0 || closeEnough(a.DiskGB, b.DiskGB))
}

func fmtLimits(l engine.Limits) string {
	var parts []string
	if l.Set&engine.HasMemoryMB != 0 {
		parts = append(parts, fmt.Sprintf("memory_mb=%v", l.MemoryMB))
	}
	if l.Set&engine.HasVCPU != 0 {
		parts = append(parts, fmt.Sprintf("vcpu=%v", l.VCPU))
	}
	if l.Set&engine.HasDiskGB != 0 {
		parts = append(parts, fmt.Sprintf("disk_gb=%v", l.DiskGB))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// TestOracle replays the engine's result of -diff.oracle scenarios (same
// seeds and profiles as TestDifferential) through Nova itself with `oracle
// check`: what the differential test cannot see, a bug engine and reference
// share (internal/nova, say). Slow (a Python start per scenario); off by
// default.
func TestOracle(t *testing.T) {
	n := *diffOracle
	if n == 0 {
		t.Skip("-diff.oracle N not given")
	}
	bin, err := filepath.Abs(*diffOracleBin)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		t.Skipf("no oracle: %v", err)
	}
	dir := *diffDump
	if dir == "" {
		dir = t.TempDir()
	}
	type checked struct {
		c    diffCase
		kind string
		base string
		out  []byte
		err  error
	}
	results := make([]checked, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := diffCaseOf(*diffSeed + uint64(i))
				g := synth.New(c.opts)
				r := diffResult{c: c, cloud: g.Cloud(), req: g.Request()}
				r.eng = runEngine(r.cloud, r.req)
				r.ref = runReference(r.cloud, r.req)
				res := checked{c: c, kind: outcomeKind(r.eng),
					base: filepath.Join(dir, fmt.Sprintf("%s-%d", c.profile, c.seed))}
				if res.err = dumpDiff(dir, &r); res.err == nil {
					res.out, res.err = exec.Command(bin, "check", res.base+".scenario.json", res.base+".engine.json").CombinedOutput()
				}
				results[i] = res
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	bad := 0
	for _, res := range results {
		var exit *exec.ExitError
		switch {
		case res.err == nil:
			if *diffVerbose {
				t.Logf("%v: %s: ok", res.c, res.kind)
			}
		case errors.As(res.err, &exit) && exit.ExitCode() == 1:
			bad++
			if bad <= *diffReport {
				t.Errorf("%v (%s): Nova disagrees with the engine (%s):\n\t%s", res.c, res.kind, res.base,
					strings.Join(capLines(strings.Split(strings.TrimSpace(string(res.out)), "\n"), 10), "\n\t"))
			}
		default:
			bad++
			t.Errorf("%v: oracle check failed (%v): %s", res.c, res.err, res.out)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d scenarios: Nova disagrees (files in %s)", bad, n, dir)
	}
}

// ---------------------------------------------------------------------------
// Dumping a mismatch as scenario and result files (SCENARIO.md), for the
// Nova oracle.

func dumpDiff(dir string, r *diffResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", r.c.profile, r.c.seed))
	var b bytes.Buffer
	if err := scenario.EncodeScenario(&b, &scenario.Scenario{Cloud: r.cloud, Request: r.req}); err != nil {
		return err
	}
	if err := os.WriteFile(base+".scenario.json", b.Bytes(), 0o644); err != nil {
		return err
	}
	for name, o := range map[string]outcome{"engine": r.eng, "reference": r.ref} {
		b.Reset()
		if o.panic != "" {
			b.WriteString("panic: " + o.panic + "\n")
		} else if doc, err := scenario.ResultOf(o.plan, o.err); err != nil {
			b.WriteString("error: " + err.Error() + "\n")
		} else if err := scenario.Encode(&b, doc); err != nil {
			return err
		}
		if err := os.WriteFile(base+"."+name+".json", b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(base+".diff.txt", []byte(strings.Join(r.diffs, "\n")+"\n"), 0o644)
}

// TestDifferentialComparator makes sure the comparison sees what it must:
// a zero-difference run means agreement, not a blind comparator.
func TestDifferentialComparator(t *testing.T) {
	base := func() outcome {
		return outcome{plan: engine.Plan{Placements: []engine.Placement{
			{InstanceUUID: "a", HostID: 1, Host: "h1", Node: "h1", Cell: "cell1", Weight: 1.5, Candidates: 3,
				Limits:     engine.Limits{Set: engine.HasMemoryMB, MemoryMB: 1024},
				Alternates: []engine.HostNode{{Host: "h2", Node: "h2"}}},
			{InstanceUUID: "b", HostID: 1, Host: "h1", Node: "h1", Cell: "cell1", Weight: 0.5, Candidates: 2},
		}}}
	}
	nvh := func(edit func(*engine.NoValidHostError)) outcome {
		e := &engine.NoValidHostError{InstanceIndex: 1, InstanceUUID: "b", InPlay: 3, Prefiltered: 3,
			Filters:   []engine.FilterCount{{Name: "RamFilter", Start: 3, End: 0}},
			Tentative: base().plan.Placements[:1]}
		if edit != nil {
			edit(e)
		}
		return outcome{err: e}
	}
	cases := []struct {
		name string
		e, r outcome
		want string // the kind of the first difference; "" = none
	}{
		{"same", base(), base(), ""},
		{"weight within 1e-9", base(), func() outcome {
			o := base()
			o.plan.Placements[0].Weight += 1e-12
			return o
		}(), ""},
		{"weight", base(), func() outcome { o := base(); o.plan.Placements[1].Weight = 0.6; return o }(), "placements.weight"},
		{"host", base(), func() outcome {
			o := base()
			o.plan.Placements[1].Host, o.plan.Placements[1].HostID = "h2", 2
			return o
		}(), "placements.host"},
		{"candidates", base(), func() outcome { o := base(); o.plan.Placements[0].Candidates = 4; return o }(), "placements.candidates"},
		{"limits", base(), func() outcome { o := base(); o.plan.Placements[0].Limits.Set |= engine.HasVCPU; return o }(), "placements.limits"},
		{"alternates", base(), func() outcome { o := base(); o.plan.Placements[0].Alternates = nil; return o }(), "placements.alternates"},
		{"cell", base(), func() outcome { o := base(); o.plan.Placements[0].Cell = "cell2"; return o }(), "placements.cell"},
		{"outcome", base(), nvh(nil), "outcome"},
		{"nvh same", nvh(nil), nvh(nil), ""},
		{"nvh index", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.InstanceIndex = 0 }), "error.instance_index"},
		{"nvh filters", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Filters[0].End = 1 }), "error.filters"},
		{"nvh prefiltered", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Prefiltered = 2 }), "error.prefiltered"},
		{"nvh tentative", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Tentative = nil }), "tentative.len"},
		{"metric", outcome{err: &engine.MetricNotFoundError{Metric: "cpu.percent"}},
			outcome{err: &engine.MetricNotFoundError{Metric: "cpu.frequency"}}, "error.metric"},
		{"panic", outcome{panic: "boom"}, base(), "panic"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := compareOutcomes(tc.e, tc.r)
			got := ""
			if len(d) > 0 {
				got = diffKind(d[0])
			}
			if got != tc.want {
				t.Fatalf("first difference %q, want %q (all: %q)", got, tc.want, d)
			}
		})
	}
}
