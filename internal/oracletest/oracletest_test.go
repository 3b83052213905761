package oracletest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/placer/placer/internal/oracletest"
)

// startPool starts a pool on the oracle beside the clone. Without Nova the
// test skips, except in CI (CI=true), where Nova is installed first and a
// skip would hide a broken set-up: there it fails.
func startPool(t *testing.T, n int, exact bool) (*oracletest.Pool, string) {
	t.Helper()
	oracle := oracletest.DefaultOracle(filepath.Join("..", ".."))
	if err := oracletest.Ready(oracle); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("needs Nova and the oracle (CI installs them): %v", err)
	}
	p, err := oracletest.Start(oracle, n, exact)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p, oracle
}

// TestPoolMatchesFreshProcesses is the reason the pool may stand in for
// the oracle: scenarios of every profile, placed one after another in ONE
// serving process (so that anything one scenario left in Nova's global
// CONF or in a class would show in the next), give byte for byte the
// output and exit status of a fresh `oracle place` process each.
func TestPoolMatchesFreshProcesses(t *testing.T) {
	p, oracle := startPool(t, 1, false)
	dir := t.TempDir()
	var scenarios []string
	for _, g := range []struct {
		profile, seed, hosts, instances string
	}{
		{"wide", "7", "40", "6"}, {"basic", "3", "30", "4"}, {"rich", "11", "50", "8"},
		{"wide", "2", "20", "30"}, // likely NoValidHost part-way
		{"basic", "5", "25", "3"},
	} {
		out, err := exec.Command(oracle, "gen", "--profile", g.profile, "--seed", g.seed,
			"--hosts", g.hosts, "--instances", g.instances).Output()
		if err != nil {
			t.Fatalf("oracle gen: %v", err)
		}
		path := filepath.Join(dir, g.profile+"-"+g.seed+".json")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		scenarios = append(scenarios, path)
	}
	codes := map[int]int{}
	for _, s := range scenarios {
		got, err := p.Run("place", s)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(oracle, "place", s)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		codes[code]++
		if got.Code != code || got.Stdout != stdout.String() {
			t.Errorf("%s: pool exit %d, fresh process exit %d; outputs equal: %v\npool:\n%s\nfresh:\n%s",
				s, got.Code, code, got.Stdout == stdout.String(), head(got.Stdout), head(stdout.String()))
		}
	}
	if codes[0] == 0 {
		t.Errorf("no scenario placed (exit codes %v): the comparison saw no placement", codes)
	}
}

// TestPoolExitCodes checks that the oracle's verdicts come through: a
// result it accepts (0), a corrupted one (1), bad input (2).
func TestPoolExitCodes(t *testing.T) {
	p, oracle := startPool(t, 2, true)
	dir := t.TempDir()
	scn := filepath.Join(dir, "s.json")
	out, err := exec.Command(oracle, "gen", "--profile", "basic", "--seed", "1", "--hosts", "20", "--instances", "3").Output()
	if err != nil {
		t.Fatalf("oracle gen: %v", err)
	}
	if err := os.WriteFile(scn, out, 0o644); err != nil {
		t.Fatal(err)
	}
	placed, err := p.Run("place", scn)
	if err != nil || placed.Code != 0 {
		t.Fatalf("place: %v, exit %d: %s", err, placed.Code, placed.Output())
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(placed.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := p.Run("check", scn, good); err != nil || r.Code != 0 {
		t.Errorf("check of Nova's own result: %v, exit %d: %s", err, r.Code, r.Output())
	}
	// Nova's weight plus one ulp: exact mode must see it.
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(nudgeFirstWeight(t, placed.Stdout)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := p.Run("check", scn, bad); err != nil || r.Code != 1 {
		t.Errorf("check of a result one ulp off: %v, exit %d (want 1): %s", err, r.Code, r.Output())
	}
	if r, err := p.Run("place", filepath.Join(dir, "missing.json")); err == nil && r.Code == 0 {
		t.Errorf("place of a missing file: exit 0")
	}
	if r, err := p.Run("no-such-command"); err != nil || r.Code != 2 {
		t.Errorf("an unknown command: %v, exit %d (want argparse's 2)", err, r.Code)
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
