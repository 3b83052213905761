package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plotTestdata is the example output of make plots that internal/plots
// tests with.
const plotTestdata = "../../internal/plots/testdata"

func TestPlot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "charts")
	status, stdout, stderr := placer(t, "", "plot", "--data", plotTestdata, "--out", out)
	if status != exitOK || stderr != "" {
		t.Fatalf("status %d\nstderr: %s", status, stderr)
	}
	want := []string{filepath.Join(out, "hosts.svg"), filepath.Join(out, "workers.svg")}
	if got := strings.Fields(stdout); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("stdout %q, want %q", got, want)
	}
	for file, names := range map[string][]string{
		want[0]: {"engine", "reference (internal/reference)", "Nova", "measured at commit"},
		want[1]: {"SchedulerColdStart", "placements/s", "measured at commit"},
	} {
		svg, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			XMLName xml.Name
		}
		if err := xml.Unmarshal(svg, &doc); err != nil || doc.XMLName.Local != "svg" {
			t.Errorf("%s: not an SVG document: %v", file, err)
		}
		for _, name := range names {
			if !strings.Contains(string(svg), name) {
				t.Errorf("%s lacks %q", file, name)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, "placebatch.svg")); err == nil {
		t.Error("placebatch.svg drawn without PlaceBatch results")
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		d := filepath.Join(dir, strings.TrimSuffix(name, ".txt"))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexistent")
	file := filepath.Join(write("file.txt", "x"), "file.txt")
	broken := write("broken.txt", "commit: c1\n$ placer place -f s.json # series=engine hosts=1000\nno time here\n")
	useless := write("useless.txt", "commit: c1\nBenchmarkSnapshotMemory 1 100 ns/op 312 bytes/host\nPASS\n")
	badHosts := write("badhosts.txt", "$ placer place # series=engine hosts=lots\nplace_seconds: 0.1\n")
	for _, tc := range []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"missing data", []string{"--data", missing}, exitBadInput, "placer plot: no measurements: " + missing + " does not exist (make plots measures them)"},
		{"not a directory", []string{"--data", file}, exitBadInput, "not a directory"},
		{"no data files", []string{"--data", empty}, exitBadInput, "placer plot: no measurements: " + empty + " holds no *.txt data file"},
		{"bad data", []string{"--data", broken}, exitBadInput, "placer plot: " + filepath.Join(broken, "broken.txt") + ":2: the output of \"placer place -f s.json\" has no place_seconds"},
		{"nothing to draw", []string{"--data", useless}, exitBadInput, "placer plot: nothing to draw from " + useless + " (hosts.svg: no timing record names series= and hosts=; workers.svg: no benchmark result has workers= and placements/s; placebatch.svg: no benchmark result has hosts= and ns/op)"},
		{"bad hosts", []string{"--data", badHosts}, exitBadInput, "placer plot: hosts.svg: " + filepath.Join(badHosts, "badhosts.txt") + ":1: hosts=lots: want a positive number"},
		{"stray argument", []string{"docs/plots/data"}, exitBadInput, `placer plot: unexpected argument "docs/plots/data"`},
		{"help", []string{"-h"}, exitOK, "placer plot [--data DIR] [--out DIR]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			status, stdout, stderr := placer(t, "", append([]string{"plot", "--out", out}, tc.args...)...)
			if status != tc.want || !strings.Contains(stderr, tc.msg) || stdout != "" {
				t.Errorf("status %d (want %d)\nstdout: %s\nstderr: %s\nwant: %s", status, tc.want, stdout, stderr, tc.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s made although nothing was drawn", out)
			}
		})
	}
}
