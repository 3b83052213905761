package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// svgText checks that svg is well-formed XML with an <svg> root and
// returns the text of its <text> elements, joined by spaces with runs of
// blanks collapsed (a wrapped caption reads as one line).
func svgText(t *testing.T, svg []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	var root string
	inText := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			if el.Name.Local == "text" {
				inText++
			}
		case xml.EndElement:
			if el.Name.Local == "text" {
				inText--
			}
		case xml.CharData:
			if inText > 0 {
				texts = append(texts, string(el))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return strings.Join(strings.Fields(strings.Join(texts, " ")), " ")
}

type svgWriter interface {
	WriteSVG(io.Writer) error
	write(io.Writer, canvasMaker) error
}

// drawSVG draws c and returns its text; with -preview it also draws c
// as PNG.
func drawSVG(t *testing.T, name string, c svgWriter) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	previewChart(t, name, c)
	return svgText(t, b.Bytes())
}

func wantText(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("the SVG's text lacks %q:\n%s", w, text)
		}
	}
}

func TestHostsChart(t *testing.T) {
	d := readTestdata(t)
	c, err := HostsChart(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Name)
		if len(s.Points) != 2 {
			t.Errorf("%s: %d points, want 2 (1000 and 2000 hosts)", s.Name, len(s.Points))
		}
	}
	want := []string{"engine", "engine, GOEXPERIMENT=simd", "reference (internal/reference)", "Nova 26.2.2 (its own code, oracle time)"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("series %q, want %q", names, want)
	}
	meta := MetaOf(d.Timings[0].Config)
	text := drawSVG(t, "hosts", c)
	wantText(t, text, append(want,
		"Time to place one batch", "hosts", "1k", "2k", "100 µs", "10 ms",
		"scenarios: placer gen", "nova: oracle time FILE -n 3",
		"measured at commit "+meta.Commit, meta.CPU, "AVX-512F: "+meta.AVX512F, meta.Go, meta.Date)...)
}

func TestHostsChartInstances(t *testing.T) {
	d := parseString(t, `commit: c1
$ a # series=engine hosts=1000 instances=1
place_seconds: 0.001
$ a # series=engine hosts=1000 instances=1
place_seconds: 0.003
$ a # series=engine hosts=1000 instances=1
place_seconds: 0.002
$ a # series=engine hosts=1000 instances=10
place_seconds: 0.01
$ b # series=other hosts=5000 instances=10
place_seconds: 0.5
$ c # hosts=5000
place_seconds: 0.5
`)
	c, err := HostsChart(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 3 || c.Series[0].Name != "engine, 1 instance" || c.Series[1].Name != "engine, 10 instances" || c.Series[2].Name != "other, 10 instances" {
		t.Fatalf("series %+v", c.Series)
	}
	if p := c.Series[0].Points; len(p) != 1 || p[0] != (Point{1000, 0.002}) {
		t.Errorf("the median of three records: %v", p)
	}
	if _, err := HostsChart(&Data{}); !errors.Is(err, ErrNoData) {
		t.Errorf("no records: %v", err)
	}
	bad := parseString(t, "$ a # series=engine hosts=many\nplace_seconds: 1\n")
	if _, err := HostsChart(bad); err == nil || !strings.Contains(err.Error(), "sample.txt:1: hosts=many") {
		t.Errorf("bad hosts: %v", err)
	}
}

func TestWorkersChart(t *testing.T) {
	d := readTestdata(t)
	c, err := WorkersChart(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 2 || c.Series[0].Name != "Scheduler" || c.Series[1].Name != "SchedulerColdStart" {
		t.Fatalf("series %+v", c.Series)
	}
	for _, s := range c.Series {
		if len(s.Points) != 5 || s.Points[0].X != 1 || s.Points[4].X != 16 {
			t.Errorf("%s: points %v", s.Name, s.Points)
		}
	}
	meta := MetaOf(d.Results[0].Config)
	text := drawSVG(t, "workers", c)
	wantText(t, text, "Scheduler throughput", "Scheduler", "SchedulerColdStart", "workers", "16",
		"hosts=50000", "measured at commit "+meta.Commit, meta.CPU, meta.Date)
}

// TestBenchSeries: any key=value part can make an axis or a series; the
// parts every result shares leave the names; repeated results (-count)
// give their median.
func TestBenchSeries(t *testing.T) {
	d := parseString(t, `commit: c1
BenchmarkScheduler/hosts=50000/workers=1-2 100 1 ns/op 1000 placements/s
BenchmarkScheduler/hosts=50000/workers=1-2 100 1 ns/op 3000 placements/s
BenchmarkScheduler/hosts=50000/workers=1-2 100 1 ns/op 2000 placements/s
BenchmarkScheduler/hosts=50000/workers=2-2 100 1 ns/op 4000 placements/s
BenchmarkScheduler/stream=realistic/hosts=50000/workers=2-2 100 1 ns/op 5000 placements/s
BenchmarkPlaceBatch/impl=engine/hosts=1000-2 100 1 ns/op
`)
	series, common, metas, err := BenchSeries(d.Results, "workers", "placements/s", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || series[0].Name != "Scheduler" || series[1].Name != "Scheduler stream=realistic" {
		t.Fatalf("series %+v", series)
	}
	if p := series[0].Points; len(p) != 2 || p[0] != (Point{1, 2000}) || p[1] != (Point{2, 4000}) {
		t.Errorf("points %v", p)
	}
	if len(common) != 1 || common[0] != "hosts=50000" || len(metas) != 5 || metas[0].Commit != "c1" {
		t.Errorf("common %q, %d metas", common, len(metas))
	}
	if _, _, _, err := BenchSeries(d.Results, "gomaxprocs", "ns/op", 1); !errors.Is(err, ErrNoData) {
		t.Errorf("no such key: %v", err)
	}
	bad := parseString(t, "BenchmarkScheduler/workers=many 1 1 placements/s\n")
	if _, _, _, err := BenchSeries(bad.Results, "workers", "placements/s", 1); err == nil || !strings.Contains(err.Error(), "sample.txt:1: workers=many") {
		t.Errorf("bad x: %v", err)
	}
}

func TestPlaceBatchChart(t *testing.T) {
	d := parseString(t, sampleBench+`BenchmarkPlaceBatch/impl=engine/filters=default/hosts=10000/instances=1-2 1000 480000 ns/op
BenchmarkPlaceBatch/impl=reference/filters=default/hosts=1000/instances=1-2 100 9800000 ns/op
BenchmarkPlaceBatch/impl=reference/filters=default/hosts=10000/instances=1-2 10 110000000 ns/op
`)
	c, err := PlaceBatchChart(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 2 || c.Series[0].Name != "PlaceBatch impl=engine" || c.Series[1].Points[1] != (Point{10000, 0.11}) {
		t.Fatalf("series %+v", c.Series)
	}
	text := drawSVG(t, "placebatch", c)
	wantText(t, text, "PlaceBatch impl=engine", "PlaceBatch impl=reference", "filters=default instances=1", "10k", "measured at commit abc123")
	if _, err := PlaceBatchChart(readTestdata(t)); !errors.Is(err, ErrNoData) {
		t.Errorf("no PlaceBatch results: %v", err)
	}
}

// TestTimeSeries is the helper of placer simulate --report.
func TestTimeSeries(t *testing.T) {
	var util, lat Series
	util.Name, lat.Name = "RAM used", "p99 latency"
	for i := range 300 {
		s := float64(i) / 10
		util.Points = append(util.Points, Point{s, 40 + 30*s/30})
		lat.Points = append(lat.Points, Point{s, 2 + math.Sin(s)})
	}
	c := TimeSeries("Utilization over the run", "% of capacity", []Series{util}, "placer simulate --hosts 1000", LocalMeta("c0ffee").Caption())
	text := drawSVG(t, "timeseries", c)
	wantText(t, text, "Utilization over the run", "RAM used", "seconds into the run", "% of capacity", "placer simulate --hosts 1000", "measured at commit c0ffee")
	c2 := TimeSeries("Latency", "ms", []Series{lat, {Name: "p50", Points: []Point{{0, 1}, {29.9, 1.2}}}})
	wantText(t, drawSVG(t, "latency", c2), "p99 latency", "p50")
}

// TestBarChart is the helper of the capacity picture (hosts filling).
func TestBarChart(t *testing.T) {
	cats := []string{"rack-1", "rack-2", "rack-3", "rack-4"}
	mk := func(vs ...float64) []Point {
		var p []Point
		for _, v := range vs {
			p = append(p, Point{Y: v})
		}
		return p
	}
	series := []Series{{"used", mk(30, 50, 10, 70)}, {"placed", mk(40, 30, 60, 0)}, {"free", mk(30, 20, 30, 30)}}
	for _, stacked := range []bool{true, false} {
		c := &BarChart{Title: "Hosts filling", XLabel: "rack", Y: Axis{Label: "% of RAM"}, Categories: cats, Series: series, Stacked: stacked, Caption: []string{"placer capacity --flavor m1.large"}}
		name := "bars"
		if stacked {
			name = "bars-stacked"
		}
		text := drawSVG(t, name, c)
		wantText(t, text, "Hosts filling", "rack-1", "rack-4", "used", "placed", "free", "% of RAM", "placer capacity")
	}
	// Many categories: every k-th labelled.
	var many []string
	var vals []Point
	for i := range 100 {
		many = append(many, "h"+strings.Repeat("x", i%3)+string(rune('a'+i%26)))
		vals = append(vals, Point{Y: float64(i)})
	}
	c := &BarChart{Title: "many", Categories: many, Series: []Series{{"v", vals}}, MaxLabels: 10}
	if text := drawSVG(t, "bars-many", c); strings.Count(text, " h") > 12 {
		t.Errorf("more than 10 category labels: %s", text)
	}
}

func TestChartErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    svgWriter
		want string
	}{
		{"no series", &LineChart{Title: "t"}, `chart "t" has no series`},
		{"empty series", &LineChart{Title: "t", Series: []Series{{Name: "s"}}}, `series "s" has no points`},
		{"log of 0", &LineChart{Title: "t", Y: Axis{Log: true}, Series: []Series{{"s", []Point{{1, 0}}}}}, "a log axis needs positive values"},
		{"NaN", &LineChart{Title: "t", Series: []Series{{"s", []Point{{math.NaN(), 1}}}}}, "cannot be drawn"},
		{"bars without categories", &BarChart{Title: "b", Series: []Series{{"s", nil}}}, "no series or no categories"},
		{"bars short", &BarChart{Title: "b", Categories: []string{"a", "b"}, Series: []Series{{"s", []Point{{0, 1}}}}}, `series "s" has 1 values for 2 categories`},
		{"log bars", &BarChart{Title: "b", Y: Axis{Log: true}, Categories: []string{"a"}, Series: []Series{{"s", []Point{{0, 1}}}}}, "log scale is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.WriteSVG(io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		f    func(float64) string
		v    float64
		want string
	}{
		{FormatSeconds, 0.000077, "77 µs"},
		{FormatSeconds, 0.0001, "100 µs"},
		{FormatSeconds, 0.035378, "35.4 ms"},
		{FormatSeconds, 2, "2 s"},
		{FormatSeconds, 2.5e-7, "250 ns"},
		{FormatSeconds, 0, "0"},
		{FormatCount, 1000, "1k"},
		{FormatCount, 2000, "2k"},
		{FormatCount, 100000, "100k"},
		{FormatCount, 1.5e6, "1.5M"},
		{FormatCount, 500, "500"},
		{FormatNumber, 16, "16"},
		{FormatNumber, 0.25, "0.25"},
		{FormatNumber, 1234567, "1.23e+06"},
	} {
		if got := tc.f(tc.v); got != tc.want {
			t.Errorf("%g: %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range logTicks(lo, hi, FormatNumber) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{20, 50, "20 30 40 50"},                      // within a decade: all
		{1, 1000, "1 2 5 10 20 50 100 200 500 1000"}, // up to three: 1-2-5
		{1e-4, 2, "0.0001 0.001 0.01 0.1 1"},         // more: the powers of ten
	} {
		if got := strings.Join(labels(tc.lo, tc.hi), " "); got != tc.want {
			t.Errorf("%g-%g: %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
	if step125Down(0.000077) != 0.00005 || step125Up(0.035) != 0.05 || step125Up(2000) != 2000 || step125Down(1000) != 1000 {
		t.Error("step125")
	}
}
