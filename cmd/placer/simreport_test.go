package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSimulateReport: --report writes an HTML page with the four charts
// (utilization, latency, throughput, capacity) and the run's figures, the
// same as the JSON report's; an unwritable path fails the command.
func TestSimulateReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	status, stdout, stderr := placer(t, "", "simulate", "--hosts", "2000", "--requests", "300", "--workers", "2", "--seed", "3", "--json", "--report", path)
	if status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d charts, want 4", n)
	}
	for _, want := range []string{
		fmt.Sprintf("<th align=left>placements</th><td>%d</td>", rep.Placements),
		fmt.Sprintf("<th align=left>hosts</th><td>%d</td>", rep.Hosts),
		"Capacity left: hosts filling", "Utilization", "Latency", "Throughput",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if !regexp.MustCompile(`capacity left</th><td>(at least )?\d+ more of m1\.\w+ \(\d+ MB, \d+ vCPUs\) fit, on \d+ hosts`).MatchString(page) {
		t.Errorf("no capacity answer in the report")
	}
	// A report to no folder is refused before the run, as a bad flag.
	status, stdout, stderr = placer(t, "", "simulate", "--hosts", "200", "--requests", "20", "--report", filepath.Join(t.TempDir(), "no", "such", "dir.html"))
	if status != exitBadInput || stdout != "" || !strings.Contains(stderr, "no such folder") {
		t.Errorf("a report to no folder: status %d, %q, stdout %q", status, stderr, stdout)
	}
}
