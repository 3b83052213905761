package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

// TestExplainEndpoint: POST /v1/explain answers what engine.Explain says
// on the store's snapshot and what POST /v1/place then does (the chosen
// host, its weight, the candidates); bad bodies are 400s naming the field.
func TestExplainEndpoint(t *testing.T) {
	cloud := testCloud(6)
	cloud.Hosts[2].FreeRAMMB = -4096 // 8192 × 1.5 - 12288 used: RamFilter rejects it
	cloud.Hosts[4].FreeRAMMB = 6144  // less RAM: weighs less
	cloud.Hosts[1].Service.Disabled = true
	s, ts := newTestServerOn(t, cloud, Options{})
	body := `{"request": {` + smallFlavor + `}}`
	code, out := call(t, "POST", ts.URL+"/v1/explain", body)
	wantStatus(t, "explain", code, http.StatusOK, out)
	e := decode[scenario.ExplainDoc](t, out)
	var want *engine.Explanation
	var err error
	req := engine.Request{Flavor: engine.Flavor{Name: "m1.small", MemoryMB: 2048, VCPUs: 1, RootGB: 10}}
	s.store.View(func(snap *engine.Snapshot) {
		want, err = engine.Explain(context.Background(), snap, req, engine.ExplainOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.Candidates != 4 || e.Chosen == nil || len(e.Rejected) != 2 || e.Rejected[0].Filter != engine.ComputeFilter ||
		e.Rejected[1].Host != "h2" || e.Rejected[1].Filter != engine.RamFilter || e.Rejected[1].Check == nil {
		t.Fatalf("explain: %s", out)
	}
	if e.Chosen.Host != want.Chosen.Host || e.Chosen.Weight != want.Chosen.Weight || len(e.Weighed) != len(want.Weighed) {
		t.Errorf("explain: chose %+v, engine.Explain %+v", e.Chosen, want.Chosen)
	}
	code, out = call(t, "POST", ts.URL+"/v1/place", `{"instance_uuids": ["vm-1"], `+smallFlavor+`}`)
	wantStatus(t, "place", code, http.StatusOK, out)
	res, err := scenario.DecodeResult(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Placements[0]; p.Host != e.Chosen.Host || p.Weight != e.Chosen.Weight || p.Candidates != e.Candidates {
		t.Errorf("place: %+v; explain chose %+v of %d", p, e.Chosen, e.Candidates)
	}

	// Some hosts only.
	code, out = call(t, "POST", ts.URL+"/v1/explain", `{"hosts": ["h2", "h3/h3"], "request": {`+smallFlavor+`}}`)
	wantStatus(t, "explain hosts", code, http.StatusOK, out)
	if e := decode[scenario.ExplainDoc](t, out); len(e.Rejected) != 1 || e.Rejected[0].Host != "h2" || len(e.Weighed) != 1 || e.Weighed[0].Host != "h3" {
		t.Errorf("explain hosts: %s", out)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"hosts": ["h2", "nope"], "request": {` + smallFlavor + `}}`, "hosts[1]"},
		{`{"hosts": "h2", "request": {` + smallFlavor + `}}`, "hosts"},
		{`{"host": ["h2"], "request": {` + smallFlavor + `}}`, "host"},
		{`{"request": {"flavor": {"memory_mb": -1}}}`, "request.flavor.memory_mb"},
		{`{}`, "request"},
	} {
		code, out = call(t, "POST", ts.URL+"/v1/explain", tc.body)
		wantStatus(t, tc.body, code, http.StatusBadRequest, out)
		if d := decode[ErrorDoc](t, out); d.Error.Field != tc.field {
			t.Errorf("%s: field %q, want %q (%s)", tc.body, d.Error.Field, tc.field, out)
		}
	}
}
