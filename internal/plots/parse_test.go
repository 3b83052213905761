package plots

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

const sampleBench = `commit: abc123
cpuinfo: AMD EPYC
goos: linux
goarch: amd64
pkg: github.com/placer/placer/bench
cpu: Oxide Virtual Turin-like Processor             
BenchmarkPlaceBatch/impl=engine/filters=default/hosts=1000/instances=1-2         	   10000	    120345 ns/op	      8309 placements/s	    2048 B/op	      12 allocs/op
BenchmarkFilterPass/filters=default/hosts=1000/gomaxprocs=1-2   	  50000	     20000 ns/op	  5.0e+07 hosts/s
BenchmarkScheduler/hosts=50000/workers=4
    scheduler_test.go:42: a log line of the benchmark
BenchmarkScheduler/hosts=50000/workers=4-2  	    1000	    150000 ns/op	     66000 placements/s	         0.08000 retries/req
BenchmarkSnapshotMemory 	       1	 123456789 ns/op	       312.5 bytes/host
--- SKIP: BenchmarkPlaceBatch/impl=reference/filters=default/hosts=100000/instances=1000
    place_test.go:38: reference at 100000 hosts x 1000 instances runs past a minute per batch
date: 2025-11-25T09:00:00Z
BenchmarkScheduler/hosts=50000/workers=8-2  	    1000	    155000 ns/op	     64000 placements/s
PASS
ok  	github.com/placer/placer/bench	12.345s
`

func parseString(t *testing.T, text string) *Data {
	t.Helper()
	d, err := Parse(strings.NewReader(text), "sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseBench(t *testing.T) {
	d := parseString(t, sampleBench)
	if len(d.Timings) != 0 {
		t.Errorf("%d timings in bench output", len(d.Timings))
	}
	if len(d.Results) != 5 {
		t.Fatalf("%d results, want 5: %+v", len(d.Results), d.Results)
	}
	pb := d.Results[0]
	if pb.Name != "PlaceBatch/impl=engine/filters=default/hosts=1000/instances=1" || pb.Base != "PlaceBatch" || pb.Procs != 2 || pb.Iterations != 10000 {
		t.Errorf("PlaceBatch: %+v", pb)
	}
	wantKeys := []KV{{"impl", "engine"}, {"filters", "default"}, {"hosts", "1000"}, {"instances", "1"}}
	if !reflect.DeepEqual(pb.Keys, wantKeys) {
		t.Errorf("keys %v, want %v", pb.Keys, wantKeys)
	}
	wantMetrics := map[string]float64{"ns/op": 120345, "placements/s": 8309, "B/op": 2048, "allocs/op": 12}
	if !reflect.DeepEqual(pb.Metrics, wantMetrics) {
		t.Errorf("metrics %v, want %v", pb.Metrics, wantMetrics)
	}
	if v, ok := pb.Key("hosts"); !ok || v != "1000" {
		t.Errorf("Key(hosts) = %q, %v", v, ok)
	}
	if pb.Pos != "sample.txt:7" {
		t.Errorf("Pos %q", pb.Pos)
	}
	// The -N suffix goes, the key=value before it stays whole.
	if fp := d.Results[1]; fp.Procs != 2 || !reflect.DeepEqual(fp.Keys[2], KV{"gomaxprocs", "1"}) || fp.Metrics["hosts/s"] != 5e7 {
		t.Errorf("FilterPass: %+v", fp)
	}
	// The name printed alone before a log line is not a result.
	sc := d.Results[2]
	if sc.Name != "Scheduler/hosts=50000/workers=4" || sc.Metrics["retries/req"] != 0.08 {
		t.Errorf("Scheduler: %+v", sc)
	}
	if mem := d.Results[3]; mem.Base != "SnapshotMemory" || len(mem.Keys) != 0 || mem.Procs != 1 || mem.Metrics["bytes/host"] != 312.5 {
		t.Errorf("SnapshotMemory: %+v", mem)
	}
	// Configuration: go test's cpu line (trailing blanks trimmed), and a
	// later line applies from there on only.
	if pb.Config["cpu"] != "Oxide Virtual Turin-like Processor" || pb.Config["cpuinfo"] != "AMD EPYC" || pb.Config["date"] != "" {
		t.Errorf("config of the first result: %v", pb.Config)
	}
	if last := d.Results[4]; last.Config["date"] != "2025-11-25T09:00:00Z" || last.Config["commit"] != "abc123" {
		t.Errorf("config of the last result: %v", last.Config)
	}
	if m := MetaOf(pb.Config); m.CPU != "AMD EPYC" || m.Commit != "abc123" {
		t.Errorf("MetaOf prefers cpuinfo: %+v", m)
	}
}

func TestParseTimings(t *testing.T) {
	text := `# a comment
commit: abc123
nova: 26.2.2

$ placer place --impl engine --timing --runs 31 -f s.json  # series=engine hosts=1000 instances=1
place_seconds: 0.000077
$ oracle time s.json -n 3 # series=nova hosts=1000 instances=1
oracle: 1000 hosts, 1 instances, runs 0.0354 0.0345 0.0361 s, placed 1
nova_place_seconds: 0.035378

date: 2025-11-25T09:00:00Z
$ placer place --impl reference --timing -f s.json # series=reference hosts=2000
place_seconds: 1.5
`
	d := parseString(t, text)
	if len(d.Results) != 0 || len(d.Timings) != 3 {
		t.Fatalf("%d results, %d timings: %+v", len(d.Results), len(d.Timings), d.Timings)
	}
	e, n, r := d.Timings[0], d.Timings[1], d.Timings[2]
	if e.Command != "placer place --impl engine --timing --runs 31 -f s.json" || e.Seconds != 0.000077 || e.Pos != "sample.txt:5" {
		t.Errorf("engine record: %+v", e)
	}
	if !reflect.DeepEqual(e.Tags, []KV{{"series", "engine"}, {"hosts", "1000"}, {"instances", "1"}}) {
		t.Errorf("tags %v", e.Tags)
	}
	// The oracle's lines are output, not configuration.
	if n.Seconds != 0.035378 || len(n.Output) != 2 || n.Config["oracle"] != "" || n.Config["nova"] != "26.2.2" {
		t.Errorf("nova record: %+v", n)
	}
	if v, ok := r.Tag("series"); !ok || v != "reference" || r.Config["date"] == "" || e.Config["date"] != "" {
		t.Errorf("reference record: %+v", r)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no time", "$ placer place -f s.json # series=engine hosts=1\nsomething else\n", "sample.txt:1: the output of \"placer place -f s.json\" has no place_seconds"},
		{"no time at a blank line", "$ placer place # series=engine\n\nplace_seconds: 1\n", "sample.txt:1"},
		{"no tags", "$ placer place -f s.json\nplace_seconds: 1\n", "sample.txt:1: a timing record names what it measured"},
		{"bad tag", "$ placer place # series\nplace_seconds: 1\n", `sample.txt:1: tag "series": want key=value`},
		{"bad seconds", "$ placer place # series=engine\nplace_seconds: soon\n", "sample.txt:2: \"place_seconds: soon\": want a positive number"},
		{"bad value", "BenchmarkX/hosts=1-2 100 12x ns/op\n", `sample.txt:1: BenchmarkX/hosts=1-2: "12x" is not a number`},
		{"odd pairs", "BenchmarkX 100 12 ns/op 5\n", "sample.txt:1: BenchmarkX: want value-unit pairs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.text), "sample.txt")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestParseTestdata reads the example output of make plots.
func TestParseTestdata(t *testing.T) {
	d := readTestdata(t)
	if len(d.Timings) == 0 || len(d.Results) == 0 {
		t.Fatalf("%d timings, %d results", len(d.Timings), len(d.Results))
	}
	for _, tm := range d.Timings {
		if _, ok := tm.Tag("series"); !ok || tm.Seconds <= 0 {
			t.Errorf("%s: %+v", tm.Pos, tm)
		}
	}
	for _, r := range d.Results {
		if _, ok := r.Key("workers"); !ok || r.Metrics["placements/s"] <= 0 || r.Procs < 1 {
			t.Errorf("%s: %+v", r.Pos, r)
		}
	}
}

func readTestdata(t *testing.T) *Data {
	t.Helper()
	d := &Data{}
	for _, name := range []string{"testdata/hosts.txt", "testdata/scheduler.txt"} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		x, err := Parse(f, name)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		d.Add(x)
	}
	return d
}

func TestCPUInfo(t *testing.T) {
	text := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD  EPYC 9654\nflags\t\t: fpu sse2 avx2 avx512f avx512dq\n\nprocessor\t: 1\nmodel name\t: other\nflags\t\t: fpu\n"
	if model, avx := CPUInfo(strings.NewReader(text)); model != "AMD EPYC 9654" || !avx {
		t.Errorf("CPUInfo = %q, %v", model, avx)
	}
	if _, avx := CPUInfo(strings.NewReader("model name : X\nflags : avx512fx avx2\n")); avx {
		t.Error("avx512fx read as avx512f")
	}
}

func TestMeta(t *testing.T) {
	m := Meta{Commit: "abc123", CPU: "AMD EPYC", AVX512F: "yes", CPUs: "2", Go: "go1.26.8 linux/amd64", GOEXPERIMENT: "simd", Date: "2025-11-25T09:00:00Z"}
	want := "measured at commit abc123, on AMD EPYC (AVX-512F: yes, 2 CPUs), go1.26.8 linux/amd64 GOEXPERIMENT=simd, 2025-11-25T09:00:00Z"
	if got := m.Caption(); got != want {
		t.Errorf("Caption\n got %q\nwant %q", got, want)
	}
	if got := (Meta{}).Caption(); got != "measured at an unrecorded commit" {
		t.Errorf("empty Caption %q", got)
	}
	// The header reads back as the same Meta.
	d := parseString(t, m.Header()+"BenchmarkX 1 1 ns/op\n")
	if got := MetaOf(d.Results[0].Config); got != m {
		t.Errorf("Header round trip: %+v", got)
	}
	if got := Captions(m, m, Meta{Commit: "def"}); len(got) != 2 {
		t.Errorf("Captions: %q", got)
	}
	if l := LocalMeta("c0ffee"); l.Commit != "c0ffee" || l.Go == "" || l.Date == "" || l.CPUs == "" {
		t.Errorf("LocalMeta: %+v", l)
	}
}
