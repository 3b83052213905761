package novacases_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/novacases"
	"github.com/placer/placer/internal/reference"
)

// TestOracle checks every case against Nova itself: `oracle place` must
// give the case's expected outcome (unless the case says why Nova's own
// loop may differ), and `oracle check` must accept the reference's result.
// It runs only when NOVACASES_ORACLE names the oracle command (or is 1 for
// ../shared/nova-oracle/oracle beside the repository); it takes minutes (a
// Python start with Nova's imports per call, two calls per case), so it is
// opt-in; .ci/run runs it. Asked for, it fails when the oracle or Nova is
// missing.
func TestOracle(t *testing.T) {
	oracle := os.Getenv("NOVACASES_ORACLE")
	if oracle == "" {
		t.Skip("opt-in, minutes long: set NOVACASES_ORACLE=1 (or the oracle's path) to compare the cases with Nova (.ci/run does)")
	}
	if oracle == "1" {
		oracle = filepath.Join("..", "..", "..", "shared", "nova-oracle", "oracle")
	}
	if err := oracleReady(oracle); err != nil {
		t.Fatalf("NOVACASES_ORACLE=%s: %v", os.Getenv("NOVACASES_ORACLE"), err)
	}
	only := os.Getenv("NOVACASES_ONLY")
	dir := t.TempDir()
	for i, c := range novacases.Cases() {
		if only != "" && !strings.Contains(c.Name, only) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			if why := beyondNova26(c); why != "" {
				t.Skipf("the oracle runs Nova 26, which has no %s: the reference and the case judge it", why)
			}
			t.Parallel()
			scn := filepath.Join(dir, "s"+itoa(i)+".json")
			writeJSON(t, scn, scenarioDoc(c.Cloud, c.Req))

			// Nova's own placement against the case's expectation.
			out, code := run(t, oracle, "place", scn)
			if w := c.Want.Err; w != nil && w.Kind == novacases.Invalid {
				if code != 2 {
					t.Errorf("oracle place: exit %d, want 2 (bad input): %s", code, out)
				}
				return
			}
			if code != 0 && code != 3 && code != 4 {
				t.Fatalf("oracle place: exit %d: %s", code, out)
			}
			if c.NovaDiffers == "" {
				plan, err := fromResult(t, out, c.Cloud.Hosts)
				for _, msg := range novacases.Check(c, plan, err, true) {
					t.Errorf("nova: %s", msg)
				}
			}

			// The reference's result, replayed through Nova.
			plan, err := reference.PlaceBatch(context.Background(), c.Cloud, c.Req)
			doc, derr := resultDoc(plan, err)
			if derr != nil {
				t.Fatalf("reference: %v", derr)
			}
			res := filepath.Join(dir, "r"+itoa(i)+".json")
			writeJSON(t, res, doc)
			if out, code := run(t, oracle, "check", scn, res); code != 0 {
				t.Errorf("oracle check of the reference: exit %d:\n%s", code, out)
			}
		})
	}
}

// beyondNova26 names what a case uses that Nova 26 lacks, "" if nothing:
// its Feature, or a baremetal option the default host manager ignores
// (the oracle's parser refuses the field).
func beyondNova26(c novacases.Case) string {
	cfg := &c.Cloud.Config
	switch {
	case c.Feature != "":
		return c.Feature
	case cfg.UseBaremetalFilters || !slices.Equal(cfg.BaremetalEnabledFilters, engine.DefaultBaremetalEnabledFilters):
		return "use_baremetal_filters or baremetal_enabled_filters"
	}
	return ""
}

// oracleReady reports why the oracle command cannot run Nova, or nil.
func oracleReady(oracle string) error {
	if _, err := os.Stat(oracle); err != nil {
		return fmt.Errorf("no oracle: %v", err)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import nova").CombinedOutput(); err != nil {
		return fmt.Errorf("Nova is not installed (/usr/bin/python3 -c 'import nova': %v: %s); run ../shared/nova-oracle/install.sh",
			err, bytes.TrimSpace(out))
	}
	return nil
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, name string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return append(stdout.Bytes(), stderr.Bytes()...), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return stdout.Bytes(), 0
}

// fromResult reads an `oracle place` result document as a PlaceBatch
// outcome.
func fromResult(t *testing.T, out []byte, hosts []engine.Host) (engine.Plan, error) {
	t.Helper()
	var doc struct {
		Placements []struct {
			InstanceUUID string             `json:"instance_uuid"`
			Host         string             `json:"host"`
			Node         string             `json:"node"`
			Cell         string             `json:"cell"`
			Weight       float64            `json:"weight"`
			Candidates   int                `json:"candidates"`
			Limits       map[string]float64 `json:"limits"`
			Alternates   []engine.HostNode  `json:"alternates"`
		} `json:"placements"`
		Error *struct {
			Kind          string               `json:"kind"`
			InstanceIndex int                  `json:"instance_index"`
			Message       string               `json:"message"`
			Filters       []engine.FilterCount `json:"filters"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("oracle output: %v\n%s", err, out)
	}
	var ps []engine.Placement
	for _, p := range doc.Placements {
		l := engine.Limits{}
		if v, ok := p.Limits["memory_mb"]; ok {
			l.Set, l.MemoryMB = l.Set|engine.HasMemoryMB, v
		}
		if v, ok := p.Limits["vcpu"]; ok {
			l.Set, l.VCPU = l.Set|engine.HasVCPU, v
		}
		if v, ok := p.Limits["disk_gb"]; ok {
			l.Set, l.DiskGB = l.Set|engine.HasDiskGB, v
		}
		ps = append(ps, engine.Placement{
			InstanceUUID: p.InstanceUUID, Host: p.Host, Node: p.Node, Cell: p.Cell,
			Weight: p.Weight, Candidates: p.Candidates, Limits: l, Alternates: p.Alternates,
		})
	}
	if doc.Error == nil {
		return engine.Plan{Placements: ps}, nil
	}
	for i := range ps {
		ps[i].Alternates = nil
	}
	switch doc.Error.Kind {
	case "NoValidHost":
		return engine.Plan{}, &engine.NoValidHostError{InstanceIndex: doc.Error.InstanceIndex,
			Filters: doc.Error.Filters, Tentative: ps}
	case "ComputeHostMetricNotFound":
		return engine.Plan{}, &engine.MetricNotFoundError{InstanceIndex: doc.Error.InstanceIndex, Tentative: ps}
	}
	return engine.Plan{}, &engine.NovaError{Kind: doc.Error.Kind, InstanceIndex: doc.Error.InstanceIndex, Msg: doc.Error.Message}
}
