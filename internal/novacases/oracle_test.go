package novacases_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/novacases"
	"github.com/placer/placer/internal/oracletest"
	"github.com/placer/placer/internal/reference"
)

// TestOracle checks every case against Nova itself: `oracle place` must
// give the case's expected outcome (unless the case says why Nova's own
// loop may differ), and `oracle check` must accept the reference's result
// with weights and limits exact. It runs only when NOVACASES_ORACLE names
// the oracle command (or is 1 for ../shared/nova-oracle/oracle beside the
// repository), so that `go test ./...` needs no Nova; .ci/run runs it.
// Asked for, it fails when the oracle or Nova is missing. The commands go
// through long-lived oracle processes (internal/oracletest), one per CPU.
// Cases that need what Nova 26 lacks (the drivers and filters of older
// releases) are judged by the reference and the case alone, and counted
// in the log.
func TestOracle(t *testing.T) {
	oracle := os.Getenv("NOVACASES_ORACLE")
	if oracle == "" {
		t.Skip("opt-in, minutes long: set NOVACASES_ORACLE=1 (or the oracle's path) to compare the cases with Nova (.ci/run does)")
	}
	if oracle == "1" {
		oracle = oracletest.DefaultOracle(filepath.Join("..", ".."))
	}
	pool, err := oracletest.Start(oracle, runtime.GOMAXPROCS(0), true)
	if err != nil {
		t.Fatalf("NOVACASES_ORACLE=%s: %v", os.Getenv("NOVACASES_ORACLE"), err)
	}
	t.Cleanup(func() {
		if err := pool.Close(); err != nil {
			t.Error(err)
		}
	})
	run := func(t *testing.T, args ...string) ([]byte, int) {
		t.Helper()
		res, err := pool.Run(args...)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(res.Output()), res.Code
	}
	only := os.Getenv("NOVACASES_ONLY")
	dir := t.TempDir()
	beyond := map[string]int{}
	t.Cleanup(func() {
		for why, n := range beyond {
			t.Logf("%d cases need %s, which Nova 26 lacks: judged against the case by the reference's tests (internal/reference), not by Nova", n, why)
		}
	})
	ran := 0
	for i, c := range novacases.Cases() {
		if only != "" && !strings.Contains(c.Name, only) {
			continue
		}
		if why := beyondNova26(c); why != "" {
			beyond[why]++
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			scn := filepath.Join(dir, "s"+itoa(i)+".json")
			writeJSON(t, scn, scenarioDoc(c.Cloud, c.Req))

			// Nova's own placement against the case's expectation.
			out, code := run(t, "place", scn)
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
			if out, code := run(t, "check", scn, res); code != 0 {
				t.Errorf("oracle check of the reference: exit %d:\n%s", code, out)
			}
		})
	}
	if ran == 0 {
		t.Fatalf("no case ran (NOVACASES_ONLY=%q)", only)
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
