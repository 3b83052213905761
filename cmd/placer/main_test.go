package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/engine/etcdstore"
	"github.com/placer/placer/internal/scenario"
	"github.com/placer/placer/internal/server"
	"github.com/placer/placer/internal/soak"
	"github.com/placer/placer/internal/synth"
	"github.com/placer/placer/internal/verify"
)

// placer runs the command in-process.
func placer(t *testing.T, stdin string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	status = run(args, strings.NewReader(stdin), &out, &errb)
	return status, out.String(), errb.String()
}

func implList() []string {
	var names []string
	for name := range impls {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		want       int
		wantStdout string
		wantStderr string
	}{
		{"help", []string{"help"}, exitOK, "Exit status of placer place", ""},
		{"--help", []string{"--help"}, exitOK, "placer place", ""},
		{"no command", nil, exitBadInput, "", "Usage:"},
		{"unknown command", []string{"plase"}, exitBadInput, "", `unknown command "plase"`},
		{"gen extra", []string{"gen", "extra"}, exitBadInput, "", `placer gen: unexpected argument "extra"`},
		{"gen profile", []string{"gen", "--profile", "huge"}, exitBadInput, "", `placer gen: unknown profile "huge"`},
		{"gen hosts", []string{"gen", "--hosts", "-1"}, exitBadInput, "", "placer gen: want --hosts from 0 to 4194304, got -1"},
		{"gen too many hosts", []string{"gen", "--hosts", "1000000000"}, exitBadInput, "", "placer gen: want --hosts from 0 to 4194304, got 1000000000"},
		{"gen too many instances", []string{"gen", "--instances", "2000000"}, exitBadInput, "", "placer gen: want --instances from 0 to 1048576, got 2000000"},
		{"simulate report folder", []string{"simulate", "--report", "/nonexistent/r.html"}, exitBadInput, "", "placer simulate: --report /nonexistent/r.html: no such folder"},
		{"simulate too many hosts", []string{"simulate", "--hosts", "1000000000"}, exitBadInput, "", "placer simulate: want --hosts from 1 to 4194304"},
		{"serve too many hosts", []string{"serve", "--synthetic", "1000000000"}, exitBadInput, "", "placer serve: want --synthetic from 0 to 4194304"},
		{"simulate", []string{"simulate", "--workers", "0"}, exitBadInput, "", "placer simulate: want --workers from 1 to 4096, got 0\n"},
		{"simulate too many requests", []string{"simulate", "--requests", "3000000000000"}, exitBadInput, "", "--requests from 0 to 2097152, got 3000000000000"},
		{"place runs without timing", []string{"place", "--runs", "5"}, exitBadInput, "", "placer place: --runs needs --timing"},
		{"serve etcd prefix without etcd", []string{"serve", "--synthetic", "10", "--etcd-prefix", "/x/", "--etcd-max-txn-ops", "9"}, exitBadInput, "", "--etcd-prefix, --etcd-max-txn-ops need --etcd"},
		{"serve timeout", []string{"serve", "--synthetic", "10", "--timeout", "0s"}, exitBadInput, "", "want --cache-interval >= 0 and --timeout > 0, got 0s and 0s"},
		{"serve max body", []string{"serve", "--synthetic", "10", "--max-body", "0"}, exitBadInput, "", "want --max-body from 1 to"},
		{"etcd load cloud and negative synthetic", []string{"etcd", "load", "--etcd", "http://127.0.0.1:1", "--cloud", "x.json", "--synthetic", "-3", "--seed", "9"}, exitBadInput, "", "want exactly one of --cloud FILE and --synthetic N"},
		{"etcd load negative synthetic", []string{"etcd", "load", "--etcd", "http://127.0.0.1:1", "--synthetic", "-3"}, exitBadInput, "", "want --synthetic from 1 to 4194304, got -3"},
		{"soak max body", []string{"soak", "--max-body", "0"}, exitBadInput, "", "placer soak: want --max-body from 1 to"},
		{"soak duration", []string{"soak", "--duration", "0s"}, exitBadInput, "", "placer soak: want --duration > 0, got 0s"},
		{"simulate too many workers", []string{"simulate", "--workers", "2305843009213693952"}, exitBadInput, "", "--workers from 1 to 4096"},
		{"simulate faults one placer", []string{"simulate", "--etcd-members", "3", "--faults"}, exitBadInput, "", "want --placers 2 or more"},
		{"simulate ironic share", []string{"simulate", "--ironic-nodes", "1.5"}, exitBadInput, "", "placer simulate: want --ironic-nodes from 0 to 1, got 1.5\n"},
		{"simulate ironic NaN", []string{"simulate", "--ironic-nodes", "NaN"}, exitBadInput, "", "want --ironic-nodes from 0 to 1, got NaN"},
		{"simulate driver", []string{"simulate", "--driver", "caching_scheduler"}, exitBadInput, "", `want --driver filter_scheduler or chance_scheduler, got "caching_scheduler"`},
		{"simulate ironic with etcd", []string{"simulate", "--etcd-members", "1", "--ironic-nodes", "0.5"}, exitBadInput, "", "--ironic-nodes and --driver are not available with --etcd-members yet"},
		{"simulate report folder itself", []string{"simulate", "--report", "/tmp"}, exitBadInput, "", "placer simulate: --report:"},
		{"serve huge queue", []string{"serve", "--synthetic", "10", "--queue", "4611686018427387904"}, exitBadInput, "", "--queue from 0 to 1048576"},
		{"serve seed without synthetic", []string{"serve", "--cloud", "x.json", "--seed", "3"}, exitBadInput, "", "--seed draws a --synthetic cloud"},
		{"etcd load seed without synthetic", []string{"etcd", "load", "--etcd", "http://127.0.0.1:1", "--cloud", "x.json", "--seed", "3"}, exitBadInput, "", "--seed draws a --synthetic cloud"},
		{"etcd cacert missing", []string{"etcd", "load", "--etcd", "https://127.0.0.1:1", "--synthetic", "3", "--etcd-cacert", "/nonexistent/ca.pem"}, exitBadInput, "", "--etcd-cacert: stat /nonexistent/ca.pem"},
		{"etcd cacert over http", []string{"etcd", "load", "--etcd", "http://127.0.0.1:1", "--synthetic", "3", "--etcd-cacert", "/nonexistent/ca.pem"}, exitBadInput, "", "no --etcd endpoint is https://"},
		{"soak huge clients", []string{"soak", "--clients", "100000000"}, exitBadInput, "", "--clients from 1 to 65536"},
		{"soak hosts with addr", []string{"soak", "--addr", "127.0.0.1:1", "--hosts", "10"}, exitBadInput, "", "--hosts configure the service soak starts"},
		{"soak", []string{"soak", "--clients", "0"}, exitBadInput, "", "placer soak: want"},
		{"soak hosts", []string{"soak", "--hosts", "4194305"}, exitBadInput, "", "--hosts from 1 to 4194304"},
		{"serve", []string{"serve"}, exitBadInput, "", "placer serve: want exactly one of --cloud FILE, --synthetic N and --etcd ENDPOINTS"},
		{"serve both", []string{"serve", "--cloud", "x.json", "--synthetic", "3"}, exitBadInput, "", "want exactly one"},
		{"serve log", []string{"serve", "--synthetic", "3", "--log", "xml"}, exitBadInput, "", `unknown --log "xml"`},
		{"serve missing cloud", []string{"serve", "--cloud", "/nonexistent.json"}, exitBadInput, "", "cannot read /nonexistent.json"},
		{"place -h", []string{"place", "-h"}, exitOK, "", "-impl"},
		{"unknown impl", []string{"place", "--impl", "nova"}, exitBadInput, "", `unknown --impl "nova"`},
		{"stray argument", []string{"place", "s.json"}, exitBadInput, "", `unexpected argument "s.json"`},
		{"bad flag", []string{"place", "--fast"}, exitBadInput, "", "flag provided but not defined"},
		{"empty -f", []string{"place", "-f", ""}, exitBadInput, "", `invalid value "" for flag -f: empty file name`},
		{"empty -f explain", []string{"explain", "-f="}, exitBadInput, "", `invalid value "" for flag -f: empty file name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, stdout, stderr := placer(t, "", tc.args...)
			if status != tc.want || !strings.Contains(stdout, tc.wantStdout) || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("status %d (want %d)\nstdout: %s\nstderr: %s", status, tc.want, stdout, stderr)
			}
		})
	}
}

// TestCommandLines checks every command's -h and a stray argument alike:
// -h prints the usage and exits 0, a positional argument (no command takes
// one) is named and exits 2, before any work starts.
func TestCommandLines(t *testing.T) {
	for _, cmd := range [][]string{{"place"}, {"explain"}, {"capacity"}, {"gen"}, {"simulate"},
		{"serve"}, {"soak"}, {"plot"}, {"etcd", "load"}, {"etcd"}} {
		name := strings.Join(cmd, " ")
		t.Run(name, func(t *testing.T) {
			status, stdout, stderr := placer(t, "", append(slices.Clone(cmd), "-h")...)
			if status != exitOK || stdout != "" || !strings.Contains(stderr, "-") {
				t.Errorf("-h: status %d (want %d)\nstdout: %s\nstderr: %s", status, exitOK, stdout, stderr)
			}
			status, stdout, stderr = placer(t, "", append(slices.Clone(cmd), "extra")...)
			want := "placer " + name + `: unexpected argument "extra"`
			if status != exitBadInput || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stray argument: status %d (want %d)\nstdout: %s\nstderr: %s (want %s...)", status, exitBadInput, stdout, stderr, want)
			}
		})
	}
}

const oneHost = `{"host": "h1", "memory_mb": 4096, "free_ram_mb": 4096, "vcpus": 4, "vcpus_used": 0, "local_gb": 40, "free_disk_gb": 40}`
const twoHosts = oneHost + `, {"host": "h2", "memory_mb": 8192, "free_ram_mb": 8192, "vcpus": 4, "vcpus_used": 0, "local_gb": 40, "free_disk_gb": 40}`

// TestPlace runs "placer place" on scenarios with each outcome, with every
// implementation.
func TestPlace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.json", `{"hosts": [`+twoHosts+`], "request": {"num_instances": 2, "flavor": {"memory_mb": 1024, "vcpus": 1, "root_gb": 1}}}`)
	nvh := write("nvh.json", `{"hosts": [`+twoHosts+`], "request": {"num_instances": 2, "flavor": {"memory_mb": 7000}}}`)
	metric := write("metric.json", `{"config": {"weighers": ["MetricsWeigher"], "metrics_weight_setting": [["cpu.percent", 1.0]]},
		"hosts": [`+twoHosts+`], "request": {"flavor": {"memory_mb": 1}}}`)
	badField := write("bad.json", `{"hosts": [`+oneHost+`, {"host": "h2", "memory_mb": 1, "free_ram_mb": "12GB"}], "request": {"flavor": {}}}`)
	badMetric := write("badmetric.json", `{"hosts": [{"host": "h1", "memory_mb": 1, "free_ram_mb": 1, "vcpus": 1, "vcpus_used": 0,
		"local_gb": 1, "free_disk_gb": 1, "metrics": {"cpu.bogus": 1}}], "request": {"flavor": {}}}`)
	okText, _ := os.ReadFile(ok)

	for _, impl := range implList() {
		for _, tc := range []struct {
			name       string
			args       []string
			stdin      string
			want       int
			check      func(t *testing.T, doc scenario.Result)
			wantStderr string // a prefix of the only stderr line
		}{
			{name: "embedded default scenario", want: exitOK, check: func(t *testing.T, doc scenario.Result) {
				if len(doc.Placements) != 8 || doc.Error != nil {
					t.Errorf("got %+v", doc)
				}
			}},
			{name: "file", args: []string{"-f", ok}, want: exitOK, check: func(t *testing.T, doc scenario.Result) {
				if len(doc.Placements) != 2 || doc.Placements[0].Host != "h2" || doc.Placements[0].Limits.MemoryMB == nil {
					t.Errorf("got %+v", doc)
				}
			}},
			{name: "stdin", args: []string{"-f", "-"}, stdin: string(okText), want: exitOK},
			{name: "NoValidHost", args: []string{"-f", nvh}, want: exitNoValidHost, check: func(t *testing.T, doc scenario.Result) {
				e := doc.Error
				if e == nil || e.Kind != "NoValidHost" || e.InstanceIndex != 1 || len(doc.Placements) != 1 || len(e.Filters) == 0 {
					t.Errorf("got %+v %+v", doc, e)
				}
			}},
			{name: "ComputeHostMetricNotFound", args: []string{"-f", metric}, want: exitNovaError, check: func(t *testing.T, doc scenario.Result) {
				if e := doc.Error; e == nil || e.Kind != "ComputeHostMetricNotFound" || e.InstanceIndex != 0 {
					t.Errorf("got %+v", doc)
				}
			}},
			{name: "bad field", args: []string{"-f", badField}, want: exitBadInput,
				wantStderr: `hosts[1].free_ram_mb: want a number, got "12GB"`},
			{name: "Nova refuses a metric", args: []string{"-f", badMetric}, want: exitBadInput, wantStderr: "hosts[0].metrics"},
			{name: "missing file", args: []string{"-f", filepath.Join(dir, "nope.json")}, want: exitBadInput,
				wantStderr: "cannot read " + filepath.Join(dir, "nope.json") + ": no such file or directory"},
			{name: "empty stdin", args: []string{"-f", "-"}, want: exitBadInput, wantStderr: "not valid JSON"},
		} {
			t.Run(impl+"/"+tc.name, func(t *testing.T) {
				args := append([]string{"place", "--impl", impl}, tc.args...)
				status, stdout, stderr := placer(t, tc.stdin, args...)
				if status != tc.want {
					t.Fatalf("status %d, want %d\nstderr: %s", status, tc.want, stderr)
				}
				if tc.wantStderr != "" {
					if stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, tc.wantStderr) {
						t.Errorf("want one stderr line starting %q, got %q (stdout %q)", tc.wantStderr, stderr, stdout)
					}
					return
				}
				if stderr != "" {
					t.Errorf("stderr: %s", stderr)
				}
				doc, err := scenario.DecodeResult(strings.NewReader(stdout))
				if err != nil {
					t.Fatalf("%v\n%s", err, stdout)
				}
				if doc.Format != 1 {
					t.Errorf("format %d", doc.Format)
				}
				if tc.check != nil {
					tc.check(t, doc)
				}
			})
		}
	}
}

func TestPlaceTiming(t *testing.T) {
	_, once, _ := placer(t, "", "place")
	for _, args := range [][]string{{"--timing"}, {"--timing", "--runs", "3"}, {"--timing", "--runs", "1"}} {
		status, stdout, stderr := placer(t, "", append([]string{"place"}, args...)...)
		var secs float64
		if _, err := fmt.Sscanf(stderr, "place_seconds: %f\n", &secs); err != nil || secs <= 0 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: stderr %q (%v)", args, stderr, err)
		}
		if status != exitOK || stdout != once {
			t.Errorf("%v: status %d, result differs from one placement's: %v", args, status, stdout != once)
		}
	}
	if status, _, stderr := placer(t, "", "place", "--timing", "--runs", "0"); status != exitBadInput || !strings.Contains(stderr, "--runs") {
		t.Errorf("--runs 0: status %d, stderr %q", status, stderr)
	}
}

// TestDefaultScenarioSize keeps the embedded scenario small (the binary
// carries it).
func TestDefaultScenarioSize(t *testing.T) {
	if n := len(defaultScenario); n == 0 || n > 300<<10 {
		t.Errorf("embedded scenario is %d bytes", n)
	}
}

// TestGen decodes what "placer gen" writes, for each profile, places it
// with "placer place", and checks that -o writes the same bytes.
func TestGen(t *testing.T) {
	for _, profile := range synth.Profiles {
		t.Run(profile, func(t *testing.T) {
			args := []string{"gen", "--hosts", "30", "--instances", "3", "--seed", "7", "--profile", profile}
			status, stdout, stderr := placer(t, "", args...)
			if status != exitOK || stderr != "" {
				t.Fatalf("status %d, stderr %q", status, stderr)
			}
			s, err := scenario.Decode(strings.NewReader(stdout))
			if err != nil {
				t.Fatal(err)
			}
			cloud, req := synth.Scenario(synth.Options{Hosts: 30, Instances: 3, Seed: 7, Profile: profile})
			if len(s.Cloud.Hosts) != len(cloud.Hosts) || s.Request.NumInstances != 3 ||
				!slices.Equal(s.Request.InstanceUUIDs, req.InstanceUUIDs) || s.Request.Flavor.Name != req.Flavor.Name {
				t.Errorf("decoded %d hosts, request %+v; generated %d hosts, request %+v",
					len(s.Cloud.Hosts), s.Request, len(cloud.Hosts), req)
			}
			// Decoding, encoding and decoding again gives the same scenario
			// (Decode fills defaults such as node and uuid, so the bytes
			// may differ from gen's).
			var again bytes.Buffer
			if err := scenario.EncodeScenario(&again, s); err != nil {
				t.Fatal(err)
			}
			s2, err := scenario.Decode(&again)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s, s2) {
				t.Errorf("decode/encode/decode does not round-trip")
			}
			status, _, stderr = placer(t, stdout, "place", "-f", "-")
			if status != exitOK && status != exitNoValidHost && status != exitNovaError {
				t.Errorf("place: status %d, stderr %q", status, stderr)
			}

			file := filepath.Join(t.TempDir(), "s.json")
			if status, _, stderr := placer(t, "", append(args, "-o", file)...); status != exitOK || stderr != "" {
				t.Fatalf("-o: status %d, stderr %q", status, stderr)
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != stdout {
				t.Errorf("-o wrote other bytes (%v)", err)
			}
		})
	}
}

// TestSimulateSmall runs "placer simulate", the main job, on a small cloud
// and checks its report: every request accounted for, placements made,
// and the from-scratch verification clean.
func TestSimulateSmall(t *testing.T) {
	status, stdout, stderr := placer(t, "", "simulate", "--hosts", "2000", "--requests", "300", "--workers", "2", "--seed", "3", "--json")
	if status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	if rep.Hosts != 2000 || rep.Requests != 300 || rep.Workers != 2 {
		t.Errorf("report of %d hosts, %d requests, %d workers", rep.Hosts, rep.Requests, rep.Workers)
	}
	if got := rep.Placed + rep.NoValidHost + rep.ConflictFailures + rep.OtherErrors; got != 300 {
		t.Errorf("placed %d + NoValidHost %d + conflict failures %d + other errors %d = %d, want 300",
			rep.Placed, rep.NoValidHost, rep.ConflictFailures, rep.OtherErrors, got)
	}
	if rep.Placed < 100 || rep.Placements < rep.Placed || rep.OtherErrors != 0 {
		t.Errorf("placed %d requests (%d instances), %d other errors", rep.Placed, rep.Placements, rep.OtherErrors)
	}
	if !rep.Verified || rep.OvercommittedHosts != 0 || rep.UsageMismatches != 0 || rep.JournalEntries == 0 ||
		rep.LostClaims+rep.DoubledClaims+rep.UnclaimedCommits+rep.MisplacedClaims+rep.BadEvents != 0 ||
		rep.VerifiedPlacements != int(rep.Placements) || rep.VerifiedEvents == 0 {
		t.Errorf("verification: verified %v, %d overcommitted, %d mismatches, %d journal entries, %d/%d placements and %d events replayed, problems %q",
			rep.Verified, rep.OvercommittedHosts, rep.UsageMismatches, rep.JournalEntries,
			rep.VerifiedPlacements, rep.Placements, rep.VerifiedEvents, rep.Problems)
	}
}

// TestSimulateIronicAndChance runs "placer simulate" on clouds with
// ironic nodes, under the filter and the chance scheduler: the runs
// verify, and the report names the cloud's shape.
func TestSimulateIronicAndChance(t *testing.T) {
	for _, driver := range []string{engine.DriverFilterScheduler, engine.DriverChanceScheduler} {
		status, stdout, stderr := placer(t, "", "simulate", "--hosts", "1500", "--requests", "300", "--workers", "2",
			"--seed", "4", "--ironic-nodes", "0.4", "--driver", driver, "--json")
		if status != exitOK {
			t.Fatalf("%s: status %d, stderr %s\n%s", driver, status, stderr, stdout)
		}
		var rep simReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("report: %v\n%s", err, stdout)
		}
		wantDriver := ""
		if driver == engine.DriverChanceScheduler {
			wantDriver = driver
		}
		// The chance scheduler, reading no filter, goes over limits on a
		// cloud half used; the filter scheduler's forced requests only.
		if driver == engine.DriverChanceScheduler && rep.ForcedOverLimits < 10 {
			t.Errorf("chance: %d placements over limits: was it the chance scheduler?", rep.ForcedOverLimits)
		}
		if !rep.Verified || rep.Placements == 0 || rep.IronicNodes != 0.4 || rep.Driver != wantDriver {
			t.Errorf("%s: verified %v, %d placements, ironic nodes %v, driver %q; problems %q",
				driver, rep.Verified, rep.Placements, rep.IronicNodes, rep.Driver, rep.Problems)
		}
	}
}

// TestSimulateFaults plants faults in simulate's run before it is
// verified and sees the command fail (exit status 1) with the fault named
// in its report. internal/verify's tests plant each fault precisely; this
// one shows the wiring.
func TestSimulateFaults(t *testing.T) {
	defer func() { plantFault = nil }()
	for _, tc := range []struct {
		name  string
		plant func(*verify.Input)
		field func(*simReport) int
		msg   string
	}{
		{"doubled", func(in *verify.Input) { in.Commits = append(in.Commits, in.Commits[0]) },
			func(r *simReport) int { return r.DoubledClaims }, "was committed 2 times"},
		{"returned, not committed", func(in *verify.Input) { in.Commits = in.Commits[1:] },
			func(r *simReport) int { return r.LostClaims }, "never committed"},
		{"over limits", func(in *verify.Input) {
			for i := range in.Requests {
				if len(in.Requests[i].Placed) > 0 && !in.Requests[i].Forced {
					in.Requests[i].Flavor.MemoryMB *= 1000
					return
				}
			}
		}, func(r *simReport) int { return r.OvercommittedHosts }, "RamFilter refuses"},
		{"store lost usage", func(in *verify.Input) {
			for hn, u := range in.Final.Usage {
				u.VCPUsUsed++
				in.Final.Usage[hn] = u
				return
			}
		}, func(r *simReport) int { return r.UsageMismatches }, "vcpus_used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plantFault = tc.plant
			status, stdout, stderr := placer(t, "", "simulate", "--hosts", "300", "--requests", "60", "--workers", "2", "--seed", "5")
			if status != exitFailure {
				t.Fatalf("status %d, want %d; stderr %s\n%s", status, exitFailure, stderr, stdout)
			}
			if !strings.Contains(stdout, "FAILED") || !strings.Contains(stdout, tc.msg) {
				t.Errorf("the report does not say it failed with %q:\n%s", tc.msg, stdout)
			}
			plantFault = tc.plant
			_, stdout, _ = placer(t, "", "simulate", "--hosts", "300", "--requests", "60", "--workers", "2", "--seed", "5", "--json")
			var rep simReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Verified || tc.field(&rep) == 0 {
				t.Errorf("verified %v, the fault's count %d; problems %q", rep.Verified, tc.field(&rep), rep.Problems)
			}
		})
	}
}

// TestSoakCommand runs "placer soak" briefly against the server it starts
// itself, and against a server at --addr.
func TestSoakCommand(t *testing.T) {
	status, stdout, stderr := placer(t, "", "soak", "--duration", "600ms", "--clients", "4", "--hosts", "100", "--workers", "2")
	if status != exitOK || !strings.Contains(stdout, "verification     verified") || !strings.Contains(stdout, "place ") {
		t.Fatalf("status %d\nstdout: %s\nstderr: %s", status, stdout, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	url, done, err := serveLoopback(ctx, synth.Cloud(synth.Options{Hosts: 50, Seed: 2, Profile: synth.Basic}), server.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); done() }()
	status, stdout, stderr = placer(t, "", "soak", "--addr", strings.TrimPrefix(url, "http://"), "--duration", "600ms", "--clients", "4", "--json")
	var rep soak.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || status != exitOK || !rep.OK || rep.Placed == 0 || rep.HostsAdded == 0 {
		t.Fatalf("--addr: status %d, %v\nstdout: %s\nstderr: %s", status, err, stdout, stderr)
	}
}

// TestSimulateEtcd runs "placer simulate" against an embedded 3-member
// etcd with two placer stores and the faults (leader killed and
// restarted, a placer crashed mid-commit and replaced): every request
// answered, the verification from etcd's final state clean (the requests
// answered "unavailable" told what etcd holds of their instances). Then faults planted in etcd's state
// before the verification make it fail, each counted.
func TestSimulateEtcd(t *testing.T) {
	args := []string{"simulate", "--hosts", "300", "--requests", "150", "--workers", "2", "--seed", "3",
		"--etcd-members", "3", "--placers", "2", "--faults", "--json"}
	status, stdout, stderr := placer(t, "", args...)
	if status != exitOK {
		t.Fatalf("status %d, stderr %s\n%s", status, stderr, stdout)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	if got := rep.Placed + rep.NoValidHost + rep.ConflictFailures + rep.OtherErrors + rep.Unavailable; got != 150 {
		t.Errorf("placed %d + NoValidHost %d + conflict failures %d + other %d + unavailable %d = %d, want 150",
			rep.Placed, rep.NoValidHost, rep.ConflictFailures, rep.OtherErrors, rep.Unavailable, got)
	}
	if !rep.Verified || rep.Placed < 50 || rep.VerifiedPlacements != int(rep.Placements)+rep.UnknownCommitted || rep.EtcdMembers != 3 ||
		rep.Placers != 2 || len(rep.Faults) != 3 || !strings.HasPrefix(rep.Faults[2], "crashed placer 1") || rep.EtcdCommits == 0 {
		t.Errorf("report: verified %v, %d placed, %d/%d placements verified, %d members, %d placers, faults %q, %d commits; problems %q",
			rep.Verified, rep.Placed, rep.VerifiedPlacements, rep.Placements, rep.EtcdMembers, rep.Placers, rep.Faults, rep.EtcdCommits, rep.Problems)
	}

	defer func() { plantEtcdFault = nil }()
	plantEtcdFault = func(ctx context.Context, cli *clientv3.Client) error {
		st, err := etcdstore.ReadState(ctx, cli, "")
		if err != nil {
			return err
		}
		var victim string
		for uuid := range st.Instances {
			victim = uuid
			break
		}
		if _, err := cli.Delete(ctx, etcdstore.InstanceKey("", victim)); err != nil { // a lost claim (and its host's usage mismatch)
			return err
		}
		_, err = cli.Put(ctx, etcdstore.InstanceKey("", "rogue"), `{"host": "nowhere", "node": "nowhere"}`) // an unclaimed commit
		return err
	}
	status, stdout, stderr = placer(t, "", args[:len(args)-2]...) // no --faults: quicker
	if status != exitFailure {
		t.Fatalf("planted faults: status %d, want %d; stderr %s", status, exitFailure, stderr)
	}
	_, stdout, _ = placer(t, "", append(args[:len(args)-2], "--json")...)
	rep = simReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verified || rep.LostClaims == 0 || rep.UnclaimedCommits == 0 || rep.UsageMismatches == 0 {
		t.Errorf("planted faults: verified %v, lost %d, unclaimed %d, mismatches %d", rep.Verified, rep.LostClaims, rep.UnclaimedCommits, rep.UsageMismatches)
	}

	// A claim the engine got wrong and consumed consistently (its record
	// and its host's usage agree with each other, not with the flavor):
	// the verifier recomputes usage from the requests' flavors, so it
	// fails (from the records alone, as before, it passed).
	plantEtcdFault = func(ctx context.Context, cli *clientv3.Client) error {
		st, err := etcdstore.ReadState(ctx, cli, "")
		if err != nil {
			return err
		}
		for uuid, in := range st.Instances {
			key := etcdstore.InstanceKey("", uuid)
			resp, err := cli.Get(ctx, key)
			if err != nil || len(resp.Kvs) != 1 {
				return fmt.Errorf("reading %s: %v", key, err)
			}
			var rec map[string]any
			if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil {
				return err
			}
			rec["claim"].(map[string]any)["MemoryMB"] = float64(in.Claim.MemoryMB + 1024)
			u := st.Usage[in.Host]
			u.FreeRAMMB -= 1024
			ukey := strings.Replace(key, "inst/"+uuid, "usage/"+in.Host.Host+"/"+in.Host.Node, 1)
			if ukey == key {
				return fmt.Errorf("no usage key made of %s", key)
			}
			uv, _ := json.Marshal(map[string]int64{"free_ram_mb": u.FreeRAMMB, "free_disk_mb": u.FreeDiskMB,
				"vcpus_used": u.VCPUsUsed, "num_instances": u.NumInstances, "num_io_ops": u.NumIOOps})
			rv, _ := json.Marshal(rec)
			if _, err := cli.Txn(ctx).Then(clientv3.OpPut(key, string(rv)), clientv3.OpPut(ukey, string(uv))).Commit(); err != nil {
				return err
			}
			return nil
		}
		return errors.New("no instance to plant a wrong claim on")
	}
	_, stdout, _ = placer(t, "", append(args[:len(args)-2], "--json")...)
	rep = simReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verified || rep.UsageMismatches != 1 || rep.LostClaims != 0 || rep.UnclaimedCommits != 0 {
		t.Errorf("a wrong claim consumed consistently: verified %v, mismatches %d, lost %d, unclaimed %d; problems %q",
			rep.Verified, rep.UsageMismatches, rep.LostClaims, rep.UnclaimedCommits, rep.Problems)
	}

	// A deletion the store answered as done that etcd does not show: the
	// first deleted instance key of the run's history put back.
	plantEtcdFault = func(ctx context.Context, cli *clientv3.Client) error {
		resp, err := cli.Get(ctx, etcdstore.DefaultPrefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return err
		}
		// The history from the start, up to now (a watch past it waits).
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		inst := etcdstore.DefaultPrefix + "inst/"
		for wr := range cli.Watch(wctx, inst, clientv3.WithPrefix(), clientv3.WithRev(1), clientv3.WithPrevKV()) {
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete && ev.PrevKv != nil {
					_, err := cli.Put(ctx, string(ev.Kv.Key), string(ev.PrevKv.Value))
					return err
				}
				if ev.Kv.ModRevision >= resp.Header.Revision {
					cancel()
				}
			}
			if wr.Err() != nil {
				break
			}
		}
		return errors.New("the run deleted no instance")
	}
	_, stdout, _ = placer(t, "", append(args[:len(args)-2], "--json")...)
	rep = simReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verified || rep.BadEvents != 1 {
		t.Errorf("a deletion undone: verified %v, bad events %d; problems %q", rep.Verified, rep.BadEvents, rep.Problems)
	}
}
