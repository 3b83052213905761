package plots

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The series tags of the timing records scripts/plots.sh writes, in the
// order the hosts chart draws them.
var seriesOrder = []string{"engine", "engine-simd", "reference", "nova"}

func seriesLabel(tag string, cfg Config) string {
	switch tag {
	case "engine":
		return "engine"
	case "engine-simd":
		return "engine, GOEXPERIMENT=simd"
	case "reference":
		return "reference (internal/reference)"
	case "nova":
		if v := cfg["nova"]; v != "" {
			return "Nova " + v + " (its own code, oracle time)"
		}
		return "Nova (its own code, oracle time)"
	}
	return tag
}

// seriesNotes say what a series' time takes in besides the placement.
var seriesNotes = map[string]string{
	"engine":      " (the snapshot is built before the timer)",
	"engine-simd": " (the snapshot is built before the timer)",
	"reference":   " (its host states are built inside the timed call)",
	"nova":        " (Nova's host states are built before each run, untimed)",
}

// scenarioFile is a scenario path in a record's command.
var scenarioFile = regexp.MustCompile(`\S+\.json\b`)

// HostsChart is the time of one batch against the number of hosts, one
// line per implementation (the series tag of the timing records: engine,
// engine-simd, reference, nova, or any other) and, when the records hold
// more than one, per instance count; log-log. Each point is the median of
// the records at it. ErrNoData when no record has series= and hosts=.
func HostsChart(d *Data) (*LineChart, error) {
	type key struct {
		series    string
		instances int
	}
	pts := map[key]map[float64][]float64{}
	first := map[key]Timing{}
	commands := map[string]string{} // series -> command with FILE for the scenario
	var metas []Meta
	instanceCounts := map[int]bool{}
	for _, t := range d.Timings {
		series, ok1 := t.Tag("series")
		hostsTag, ok2 := t.Tag("hosts")
		if !ok1 || !ok2 {
			continue
		}
		hosts, err := strconv.ParseFloat(hostsTag, 64)
		if err != nil || hosts <= 0 {
			return nil, fmt.Errorf("%s: hosts=%s: want a positive number", t.Pos, hostsTag)
		}
		inst := 0
		if v, ok := t.Tag("instances"); ok {
			if inst, err = strconv.Atoi(v); err != nil || inst <= 0 {
				return nil, fmt.Errorf("%s: instances=%s: want a positive integer", t.Pos, v)
			}
		}
		k := key{series, inst}
		if pts[k] == nil {
			pts[k] = map[float64][]float64{}
			first[k] = t
		}
		pts[k][hosts] = append(pts[k][hosts], t.Seconds)
		instanceCounts[inst] = true
		if _, ok := commands[series]; !ok {
			commands[series] = scenarioFile.ReplaceAllString(t.Command, "FILE")
		}
		metas = append(metas, MetaOf(t.Config))
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: no timing record names series= and hosts=", ErrNoData)
	}
	keys := make([]key, 0, len(pts))
	for k := range pts {
		keys = append(keys, k)
	}
	rank := func(s string) int {
		if i := slices.Index(seriesOrder, s); i >= 0 {
			return i
		}
		return len(seriesOrder)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(rank(a.series), rank(b.series)), strings.Compare(a.series, b.series), cmp.Compare(a.instances, b.instances))
	})
	c := &LineChart{
		Title: "Time to place one batch against the number of hosts",
		X:     Axis{Label: "hosts", Log: true, AtData: true, Format: FormatCount},
		Y:     Axis{Label: "time per batch (median)", Log: true, Format: FormatSeconds},
	}
	var seriesSeen []string
	for _, k := range keys {
		name := seriesLabel(k.series, first[k].Config)
		if len(instanceCounts) > 1 {
			name += fmt.Sprintf(", %d instance%s", k.instances, plural(k.instances))
		}
		c.Series = append(c.Series, Series{Name: name, Points: medians(pts[k])})
		if !slices.Contains(seriesSeen, k.series) {
			seriesSeen = append(seriesSeen, k.series)
		}
	}
	what := "one batch placed from the same scenario file by every implementation; each point the median of the command's runs"
	if len(instanceCounts) == 1 {
		for n := range instanceCounts {
			if n > 0 {
				what = fmt.Sprintf("one batch of %d instance%s placed from the same scenario file by every implementation; each point the median of the command's runs", n, plural(n))
			}
		}
	}
	c.Caption = append(c.Caption, what)
	if s := first[keys[0]].Config["scenarios"]; s != "" {
		c.Caption = append(c.Caption, "scenarios: "+s)
	}
	for _, s := range seriesSeen {
		c.Caption = append(c.Caption, s+": "+commands[s]+seriesNotes[s])
	}
	c.Caption = append(c.Caption, Captions(metas...)...)
	return c, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// medians are the points of the median of each x's values.
func medians(byX map[float64][]float64) []Point {
	var out []Point
	for x, ys := range byX {
		out = append(out, Point{x, median(ys)})
	}
	slices.SortFunc(out, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
	return out
}

func median(vs []float64) float64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// BenchSeries groups the results that have the key=value part xKey and
// the metric unit into series: one per benchmark, named by its Base and
// its other key=value parts (those equal in every such result are left
// out, and returned as common, "hosts=50000"). A point's X is the value of
// xKey, its Y the median of the metric over the results at that point
// (go test -count), times scale. The Metas are those of the results used.
// Any key can be the axis: workers, hosts, or a later stream=realistic
// becoming a series of its own by merely appearing in the names.
func BenchSeries(rs []Result, xKey, unit string, scale float64) (series []Series, common []string, metas []Meta, err error) {
	var used []Result
	for _, r := range rs {
		if _, ok := r.Key(xKey); !ok {
			continue
		}
		if _, ok := r.Metrics[unit]; !ok {
			continue
		}
		used = append(used, r)
	}
	if len(used) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: no benchmark result has %s= and %s", ErrNoData, xKey, unit)
	}
	// The key=value parts (other than xKey) that every result shares.
	values := map[string]map[string]bool{}
	present := map[string]int{}
	for _, r := range used {
		for _, kv := range r.Keys {
			if kv.Key == xKey {
				continue
			}
			if values[kv.Key] == nil {
				values[kv.Key] = map[string]bool{}
			}
			values[kv.Key][kv.Value] = true
			present[kv.Key]++
		}
	}
	constant := func(k string) bool { return len(values[k]) == 1 && present[k] == len(used) }
	type acc struct {
		name string
		pts  map[float64][]float64
	}
	var order []*acc
	byName := map[string]*acc{}
	for _, r := range used {
		xv, _ := r.Key(xKey)
		x, perr := strconv.ParseFloat(xv, 64)
		if perr != nil {
			return nil, nil, nil, fmt.Errorf("%s: %s=%s: want a number", r.Pos, xKey, xv)
		}
		parts := []string{r.Base}
		for _, kv := range r.Keys {
			if kv.Key != xKey && !constant(kv.Key) {
				parts = append(parts, kv.Key+"="+kv.Value)
			}
		}
		name := strings.Join(parts, " ")
		a := byName[name]
		if a == nil {
			a = &acc{name: name, pts: map[float64][]float64{}}
			byName[name] = a
			order = append(order, a)
		}
		a.pts[x] = append(a.pts[x], r.Metrics[unit]*scale)
		metas = append(metas, MetaOf(r.Config))
	}
	for _, a := range order {
		series = append(series, Series{Name: a.name, Points: medians(a.pts)})
	}
	for _, kv := range used[0].Keys {
		if kv.Key != xKey && constant(kv.Key) {
			common = append(common, kv.Key+"="+kv.Value)
		}
	}
	return series, common, metas, nil
}

// bases are the distinct Base names of the results with key xKey.
func bases(rs []Result, xKey string) []string {
	var out []string
	for _, r := range rs {
		if _, ok := r.Key(xKey); ok && !slices.Contains(out, r.Base) {
			out = append(out, r.Base)
		}
	}
	return out
}

// WorkersChart is placements/s against Scheduler workers: every benchmark
// result with a workers= part and a placements/s metric (BenchmarkScheduler
// and BenchmarkSchedulerColdStart, and any later stream), log-log.
func WorkersChart(d *Data) (*LineChart, error) {
	series, common, metas, err := BenchSeries(d.Results, "workers", "placements/s", 1)
	if err != nil {
		return nil, err
	}
	c := &LineChart{
		Title:  "Scheduler throughput against workers",
		X:      Axis{Label: "workers", Log: true, AtData: true},
		Y:      Axis{Label: "placements/s", Log: true, Format: FormatCount},
		Series: series,
	}
	what := "go test ./bench -bench '" + strings.Join(bases(d.Results, "workers"), "|") + "'; each point the median of its results, in instances committed per second"
	if len(common) > 0 {
		what += "; " + strings.Join(common, " ")
	}
	c.Caption = append([]string{what}, Captions(metas...)...)
	return c, nil
}

// PlaceBatchChart is BenchmarkPlaceBatch's time per batch (ns/op) against
// hosts, one line per combination of its other parts (impl, filters,
// instances) that varies; log-log. For go test -bench output kept beside
// the timing records; the hosts chart (HostsChart) compares with Nova.
func PlaceBatchChart(d *Data) (*LineChart, error) {
	var rs []Result
	for _, r := range d.Results {
		if r.Base == "PlaceBatch" {
			rs = append(rs, r)
		}
	}
	series, common, metas, err := BenchSeries(rs, "hosts", "ns/op", 1e-9)
	if err != nil {
		return nil, err
	}
	c := &LineChart{
		Title:  "PlaceBatch: time per batch against hosts (go test -bench)",
		X:      Axis{Label: "hosts", Log: true, AtData: true, Format: FormatCount},
		Y:      Axis{Label: "time per batch (ns/op)", Log: true, Format: FormatSeconds},
		Series: series,
	}
	what := "go test ./bench -bench PlaceBatch on the synthetic basic cloud (internal/synth); each point the median of its results"
	if len(common) > 0 {
		what += "; " + strings.Join(common, " ")
	}
	c.Caption = append([]string{what}, Captions(metas...)...)
	return c, nil
}
