package fuzz

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gofuzz "github.com/google/gofuzz"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
)

var writeSeeds = flag.Bool("fuzz.writeseeds", false,
	"TestWriteSeeds: search for inputs of every outcome and write them to testdata/fuzz/<Target>/")

// seedBytes is a deterministic input of n bytes.
func seedBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// modelSeeds inputs of modelSeedLen bytes (seedBytes 1, 2, ...) seed the
// fuzz targets checked against a model (FuzzJSONQuery, FuzzExtraSpecs).
const (
	modelSeeds   = 256
	modelSeedLen = 256
)

// addSceneSeeds adds a few inputs in code; testdata/fuzz/<Target>/ holds
// the ones chosen for their outcome (TestWriteSeeds) and the crashers.
func addSceneSeeds(f *testing.F) {
	f.Add([]byte{})
	for s := uint64(1); s <= 3; s++ {
		f.Add(seedBytes(s, 2048))
	}
}

// seedKinds name the outcomes TestWriteSeeds looks for; each is one seed
// file of the scene targets.
var seedKinds = []struct {
	name string
	is   func(s scene, o plandiff.Outcome) bool
}{
	{"placed-batch", func(s scene, o plandiff.Outcome) bool {
		return o.Err == nil && len(o.Plan.Placements) >= 3 && o.Plan.Placements[0].Candidates >= 3
	}},
	{"placed-alternates", func(s scene, o plandiff.Outcome) bool {
		return o.Err == nil && len(o.Plan.Placements) > 0 && len(o.Plan.Placements[0].Alternates) >= 2
	}},
	{"no-valid-host-late", func(s scene, o plandiff.Outcome) bool {
		return plandiff.Kind(o) == "NoValidHost" && len(plandiff.Tentative(o)) > 0
	}},
	{"no-valid-host", func(s scene, o plandiff.Outcome) bool { return plandiff.Kind(o) == "NoValidHost" }},
	{"nova-error", func(s scene, o plandiff.Outcome) bool {
		return len(plandiff.Kind(o)) > 5 && plandiff.Kind(o)[:5] == "Nova:"
	}},
	{"metric-not-found", func(s scene, o plandiff.Outcome) bool { return plandiff.Kind(o) == "MetricNotFound" }},
	{"invalid", func(s scene, o plandiff.Outcome) bool { return plandiff.Kind(o) == "invalid" }},
	{"forced", func(s scene, o plandiff.Outcome) bool {
		return o.Err == nil && (len(s.Req.ForceHosts) > 0 || len(s.Req.ForceNodes) > 0)
	}},
	{"anti-affinity", func(s scene, o plandiff.Outcome) bool {
		g := s.Req.InstanceGroup
		return o.Err == nil && g != nil && g.Policy == engine.PolicyAntiAffinity && len(o.Plan.Placements) >= 2
	}},
	{"json-query", func(s scene, o plandiff.Outcome) bool {
		return o.Err == nil && s.Req.SchedulerHints.Query != "" && o.Plan.Placements[0].Candidates >= 2
	}},
}

// TestWriteSeeds writes the seed corpus of FuzzFilters, FuzzWeighers and
// FuzzPlaceBatch: for each seed kind, the first input whose scene has that
// outcome. Run with -fuzz.writeseeds after changing the generator.
func TestWriteSeeds(t *testing.T) {
	if !*writeSeeds {
		t.Skip("-fuzz.writeseeds not given")
	}
	found := map[string][]byte{}
	for seed := uint64(100); seed < 100000 && len(found) < len(seedKinds); seed++ {
		data := seedBytes(seed, 1024)
		s := sceneOf(data)
		o := plandiff.RunReference(s.Cloud, s.Req)
		for _, k := range seedKinds {
			if _, ok := found[k.name]; !ok && k.is(s, o) {
				found[k.name] = data
			}
		}
	}
	for _, target := range []string{"FuzzFilters", "FuzzWeighers", "FuzzPlaceBatch"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range found {
			if err := writeCorpusFile(filepath.Join(dir, "seed-"+name), data); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("wrote %d seed kinds of %d", len(found), len(seedKinds))
}

// TestGeneratorMix checks the outcomes of the scenes 2,000 fixed inputs
// make (the bytes seedBytes gives seeds 100..2099, the reference's
// outcome): each outcome must have at least a third of its share then (in
// parentheses), and invalid scenes, which exercise validation only, at
// most a fifth. A generator that degenerates (four scenes in five invalid,
// as before makeValid; no Nova exception; no NoValidHost at a later
// instance) fails it.
func TestGeneratorMix(t *testing.T) {
	const n = 2000
	floors := []struct {
		kind  string
		share float64
	}{
		{plandiff.MixPlaced, 0.04},        // (0.118)
		{plandiff.MixNoValidHost0, 0.20},  // (0.73)
		{plandiff.MixNoValidHostN, 0.008}, // (0.025)
		{plandiff.MixMetric, 0.004},       // (0.012)
		{plandiff.MixNova, 0.01},          // (0.033)
		{plandiff.MixInvalid, 0.02},       // (0.085)
	}
	mix := map[string]int{}
	for seed := uint64(100); seed < 100+n; seed++ {
		s := sceneOf(seedBytes(seed, 1024))
		mix[plandiff.MixKind(plandiff.RunReference(s.Cloud, s.Req))]++
	}
	t.Logf("outcome mix of %d scenes: %v", n, mix)
	known := 0
	for _, f := range floors {
		known += mix[f.kind]
		if least := int(f.share * n); mix[f.kind] < least {
			t.Errorf("outcome %q in %d of %d scenes, want at least %d: has the generator degenerated? mix %v",
				f.kind, mix[f.kind], n, least, mix)
		}
	}
	if most := n / 5; mix[plandiff.MixInvalid] > most {
		t.Errorf("%d of %d scenes invalid, want at most %d: the fuzzers would mostly test validation", mix[plandiff.MixInvalid], n, most)
	}
	if known != n {
		t.Errorf("%d of %d scenes have another outcome (a panic?): %v", n-known, n, mix)
	}
}

// TestSeedCorpusKinds checks the committed seed corpus against its names:
// each seed kind has its file in FuzzFilters, FuzzWeighers and
// FuzzPlaceBatch (the same bytes in the three), and the scene those bytes
// make still has that outcome. A generator change that moves the seeds
// (TestWriteSeeds must be rerun) or a generator that degenerated (no
// Nova exception, no NoValidHost at a later instance...) fails here
// instead of leaving the fuzzers a corpus of one kind.
func TestSeedCorpusKinds(t *testing.T) {
	for _, k := range seedKinds {
		var first []byte
		for _, target := range []string{"FuzzPlaceBatch", "FuzzFilters", "FuzzWeighers"} {
			path := filepath.Join("testdata", "fuzz", target, "seed-"+k.name)
			data, err := readCorpusFile(path)
			if err != nil {
				t.Errorf("seed kind %s: %v", k.name, err)
				continue
			}
			if first == nil {
				first = data
			} else if string(data) != string(first) {
				t.Errorf("%s differs from FuzzPlaceBatch's seed-%s", path, k.name)
			}
		}
		if first == nil {
			continue
		}
		s := sceneOf(first)
		if o := plandiff.RunReference(s.Cloud, s.Req); !k.is(s, o) {
			t.Errorf("seed-%s: the scene's outcome is %s (%v), not a %s one; rerun TestWriteSeeds -fuzz.writeseeds",
				k.name, plandiff.Kind(o), o.Err, k.name)
		}
	}
}

// readCorpusFile reads a one-[]byte file of go test -fuzz's corpus.
func readCorpusFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text, ok := strings.CutPrefix(string(b), "go test fuzz v1\n[]byte(")
	text, ok2 := strings.CutSuffix(strings.TrimSpace(text), ")")
	if !ok || !ok2 {
		return nil, fmt.Errorf("%s: not a go test fuzz v1 file of one []byte", path)
	}
	data, err := strconv.Unquote(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return []byte(data), nil
}

// writeCorpusFile writes data in the format of go test -fuzz's corpus.
func writeCorpusFile(path string, data []byte) error {
	return os.WriteFile(path, []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))), 0o644)
}

// TestModelSeedsCover checks that the seeds of FuzzJSONQuery and
// FuzzExtraSpecs make cases of every JsonFilter command with two
// arguments or more ("not" with one) and of every extra_specs operator
// with an operand, so that a plain go test compares each with its model.
func TestModelSeedsCover(t *testing.T) {
	cmds, ops := map[any]int{}, map[string]int{}
	for seed := uint64(1); seed <= modelSeeds; seed++ {
		data := seedBytes(seed, modelSeedLen)
		var q queryCase
		gofuzz.NewFromGoFuzz(data).NilChance(0).Funcs(append(fillFuncs, queryCaseFill)...).Fuzz(&q)
		var walk func(tree []any)
		walk = func(tree []any) {
			if len(tree) >= 3 || tree[0] == "not" && len(tree) == 2 {
				cmds[tree[0]]++
			}
			for _, a := range tree[1:] {
				if sub, ok := a.([]any); ok {
					walk(sub)
				}
			}
		}
		walk(q.Tree)
		walk(q.Other)
		var sc specCase
		gofuzz.NewFromGoFuzz(data).NilChance(0).Funcs(specCaseFill).Fuzz(&sc)
		if len(sc.Words) > 0 {
			ops[sc.Op]++
		}
	}
	for _, c := range queryCmds {
		if cmds[c] == 0 {
			t.Errorf("no seed makes a query of %q with its arguments (%v)", c, cmds)
		}
	}
	for _, op := range specOps {
		if ops[op] == 0 {
			t.Errorf("no seed makes a spec of operator %q with an operand (%v)", op, ops)
		}
	}
}
