package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/placer/placer/internal/scenario"
)

// TestExplainCommand: placer explain agrees with placer place on the
// embedded scenario (the chosen host, its weight and the candidates),
// reports only the hosts asked for, and names a bad --host.
func TestExplainCommand(t *testing.T) {
	status, out, errs := placer(t, "", "explain")
	if status != exitOK {
		t.Fatalf("explain: status %d, %s", status, errs)
	}
	var e scenario.ExplainDoc
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	status, out, errs = placer(t, "", "place")
	if status != exitOK {
		t.Fatalf("place: status %d, %s", status, errs)
	}
	var res struct {
		Placements []struct {
			Host       string
			Node       string
			Weight     float64
			Candidates int
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	p := res.Placements[0]
	if e.Chosen == nil || e.Chosen.Host != p.Host || e.Chosen.Node != p.Node || e.Chosen.Weight != p.Weight || e.Candidates != p.Candidates {
		t.Errorf("explain chose %+v of %d candidates; place %+v", e.Chosen, e.Candidates, p)
	}
	if len(e.Rejected)+len(e.Weighed) != e.Hosts || len(e.Weighed) != e.Candidates {
		t.Errorf("%d rejected + %d weighed, %d hosts, %d candidates", len(e.Rejected), len(e.Weighed), e.Hosts, e.Candidates)
	}

	rejected := e.Rejected[0]
	status, out, errs = placer(t, "", "explain", "--host", p.Host, "--host", rejected.Host+"/"+rejected.Node)
	var some scenario.ExplainDoc
	if err := json.Unmarshal([]byte(out), &some); status != exitOK || err != nil {
		t.Fatalf("explain --host: status %d, %v, %s", status, err, errs)
	}
	if len(some.Weighed) != 1 || some.Weighed[0].Host != p.Host || len(some.Rejected) != 1 || some.Rejected[0] != rejected {
		t.Errorf("explain --host %s --host %s: weighed %+v, rejected %+v", p.Host, rejected.Host, some.Weighed, some.Rejected)
	}

	status, _, errs = placer(t, "", "explain", "--host", p.Host, "--host", "nope")
	if status != exitBadInput || !strings.Contains(errs, `--host[1]: no host "nope"`) {
		t.Errorf("explain --host nope: status %d, %q", status, errs)
	}
	// No host passes: exit 3, every host rejected.
	var doc map[string]any
	if err := json.Unmarshal(defaultScenario, &doc); err != nil {
		t.Fatal(err)
	}
	doc["request"].(map[string]any)["flavor"].(map[string]any)["memory_mb"] = 1 << 30
	big, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	status, out, errs = placer(t, string(big), "explain", "-f", "-")
	var none scenario.ExplainDoc
	if err := json.Unmarshal([]byte(out), &none); status != exitNoValidHost || err != nil {
		t.Fatalf("explain, nothing fits: status %d, %v, %s", status, err, errs)
	}
	if none.Candidates != 0 || none.Chosen != nil || len(none.Rejected) != none.Hosts || none.Filters[len(none.Filters)-1].End != 0 {
		t.Errorf("explain, nothing fits: %d candidates, %d of %d rejected, filters %v", none.Candidates, len(none.Rejected), none.Hosts, none.Filters)
	}

	status, _, errs = placer(t, "", "explain", "extra")
	if status != exitBadInput || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("explain extra: status %d, %q", status, errs)
	}
}
