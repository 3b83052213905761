package plots

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strconv"
	"strings"
)

// KV is one key=value part of a benchmark name or of a timing record's
// tags.
type KV struct{ Key, Value string }

// Config is the configuration in effect for a result: the "key: value"
// lines above it (go test's goos, goarch, pkg and cpu; the commit, cpu,
// avx512f, cpus, go and date that scripts/plots.sh writes). A later line
// with the same key replaces the earlier one from there on.
type Config map[string]string

// Result is one benchmark result line of go test -bench output.
type Result struct {
	// Name is the benchmark's name without "Benchmark" and without the
	// -N suffix: "Scheduler/hosts=50000/workers=4".
	Name string
	// Base is the parts of Name that are not key=value, joined by "/":
	// "Scheduler".
	Base string
	// Keys are the key=value parts of Name, in order.
	Keys []KV
	// Procs is the -N suffix go test adds (GOMAXPROCS); 1 without one.
	Procs int
	// Iterations is b.N.
	Iterations int
	// Metrics holds every "value unit" pair: "ns/op", "B/op",
	// "placements/s" and the other custom metrics.
	Metrics map[string]float64
	// Config is the configuration in effect.
	Config Config
	// Pos is FILE:LINE of the line.
	Pos string
}

// Key returns the value of the key=value part named key.
func (r Result) Key(key string) (string, bool) { return lookup(r.Keys, key) }

// Timing is one timing record: a line "$ COMMAND  # key=value ..." and
// the output of COMMAND below it, up to the next record, result line or
// blank line.
type Timing struct {
	// Command is the command as the record names it, without the "$ " and
	// the tags.
	Command string
	// Tags are the key=value words after the command's " # ".
	Tags []KV
	// Seconds is the time the output reports: its last
	// "place_seconds: X" or "nova_place_seconds: X" line.
	Seconds float64
	// Output is the command's output, as printed.
	Output []string
	// Config is the configuration in effect (the header above the
	// record).
	Config Config
	// Pos is FILE:LINE of the "$" line.
	Pos string
}

// Tag returns the value of the tag named key.
func (t Timing) Tag(key string) (string, bool) { return lookup(t.Tags, key) }

func lookup(kvs []KV, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Data is what one or more data files hold.
type Data struct {
	Results []Result
	Timings []Timing
}

// Add appends the results and timings of o to d.
func (d *Data) Add(o *Data) {
	d.Results = append(d.Results, o.Results...)
	d.Timings = append(d.Timings, o.Timings...)
}

var (
	// configLine is the Go benchmark format's configuration line: a key
	// starting with a lower-case letter, with no space or upper-case
	// letter, then a colon.
	configLine = regexp.MustCompile(`^([a-z][^\s:A-Z]*):(?:\s+(.*?))?\s*$`)
	// procsSuffix is the -N that go test appends to a name when
	// GOMAXPROCS is not 1.
	procsSuffix = regexp.MustCompile(`-([0-9]+)$`)
	// secondsLine is the time a timing record's command prints.
	secondsLine = regexp.MustCompile(`^(?:nova_)?place_seconds:\s*(\S+)\s*$`)
)

// Parse reads one data file: go test -bench output, timing records, or
// both, with their configuration lines. file names it in errors. Lines it
// does not know (PASS, ok, a benchmark's log) are skipped; a result line
// or a timing record it cannot read is an error naming FILE:LINE.
func Parse(r io.Reader, file string) (*Data, error) {
	d := &Data{}
	cfg := Config{}
	var rec *Timing // the open timing record
	closeRecord := func() error {
		if rec == nil {
			return nil
		}
		t := rec
		rec = nil
		if t.Seconds == 0 {
			return fmt.Errorf("%s: the output of %q has no place_seconds or nova_place_seconds line", t.Pos, t.Command)
		}
		d.Timings = append(d.Timings, *t)
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		pos := fmt.Sprintf("%s:%d", file, n)
		switch {
		case strings.HasPrefix(line, "$ "):
			if err := closeRecord(); err != nil {
				return nil, err
			}
			t, err := parseRecordLine(line, pos)
			if err != nil {
				return nil, err
			}
			t.Config = cfg
			rec = &t
		case strings.TrimSpace(line) == "":
			if err := closeRecord(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "Benchmark"):
			if err := closeRecord(); err != nil {
				return nil, err
			}
			res, ok, err := parseResult(line, pos)
			if err != nil {
				return nil, err
			}
			if ok {
				res.Config = cfg
				d.Results = append(d.Results, res)
			}
		case rec != nil:
			rec.Output = append(rec.Output, line)
			if m := secondsLine.FindStringSubmatch(line); m != nil {
				v, err := strconv.ParseFloat(m[1], 64)
				if err != nil || v <= 0 {
					return nil, fmt.Errorf("%s: %q: want a positive number of seconds", pos, line)
				}
				rec.Seconds = v
			}
		case strings.HasPrefix(line, "#"):
			// a comment
		default:
			if m := configLine.FindStringSubmatch(line); m != nil {
				cfg = maps.Clone(cfg)
				cfg[m[1]] = m[2]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := closeRecord(); err != nil {
		return nil, err
	}
	return d, nil
}

// parseRecordLine reads "$ COMMAND  # key=value key=value".
func parseRecordLine(line, pos string) (Timing, error) {
	cmd, tags, ok := strings.Cut(strings.TrimPrefix(line, "$ "), " # ")
	t := Timing{Command: strings.TrimSpace(cmd), Pos: pos}
	if !ok {
		return t, fmt.Errorf("%s: a timing record names what it measured after \" # \" (series=engine hosts=1000 instances=1): %q", pos, line)
	}
	for _, w := range strings.Fields(tags) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return t, fmt.Errorf("%s: tag %q: want key=value", pos, w)
		}
		t.Tags = append(t.Tags, KV{k, v})
	}
	return t, nil
}

// parseResult reads a result line; ok is false for a line that starts
// with "Benchmark" but is not one (a benchmark's name printed alone
// before its log).
func parseResult(line, pos string) (Result, bool, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return Result{}, false, nil
	}
	iters, err := strconv.Atoi(f[1])
	if err != nil {
		return Result{}, false, nil
	}
	if len(f) < 4 || len(f)%2 != 0 {
		return Result{}, false, fmt.Errorf("%s: %s: want value-unit pairs after the iteration count", pos, f[0])
	}
	r := Result{Procs: 1, Iterations: iters, Metrics: map[string]float64{}, Pos: pos}
	name := strings.TrimPrefix(f[0], "Benchmark")
	if m := procsSuffix.FindStringSubmatchIndex(name); m != nil {
		r.Procs, _ = strconv.Atoi(name[m[2]:m[3]])
		name = name[:m[0]]
	}
	r.Name = name
	var base []string
	for _, part := range strings.Split(name, "/") {
		if k, v, ok := strings.Cut(part, "="); ok && k != "" {
			r.Keys = append(r.Keys, KV{k, v})
		} else {
			base = append(base, part)
		}
	}
	r.Base = strings.Join(base, "/")
	for i := 2; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return Result{}, false, fmt.Errorf("%s: %s: %q is not a number (before %q)", pos, f[0], f[i], f[i+1])
		}
		r.Metrics[f[i+1]] = v
	}
	return r, true, nil
}
