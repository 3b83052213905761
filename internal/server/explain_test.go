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
		// Read strictly: null is not an absent list, a key given twice and
		// trailing data are errors, and of two unknown fields the first.
		{`{"hosts": null, "request": {` + smallFlavor + `}}`, "hosts"},
		{`{"request": {` + smallFlavor + `}, "request": {}}`, ""},
		{`{"request": {` + smallFlavor + `}}}`, ""},
		{`null`, ""},
		{`{"a": 1, "b": 2, "c": 3, "d": 4, "request": {` + smallFlavor + `}}`, "a"},
	} {
		code, out = call(t, "POST", ts.URL+"/v1/explain", tc.body)
		wantStatus(t, tc.body, code, http.StatusBadRequest, out)
		if d := decode[ErrorDoc](t, out); d.Error.Field != tc.field {
			t.Errorf("%s: field %q, want %q (%s)", tc.body, d.Error.Field, tc.field, out)
		}
	}
}

// TestCapacityEndpoint: POST /v1/capacity on six hosts whose capacity is
// counted by hand, now and after a drain and an aggregate's ratio change
// (the store itself unchanged); bad bodies are 400s naming the field.
func TestCapacityEndpoint(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Filters = []string{engine.ComputeFilter, engine.AggregateRamFilter, engine.CoreFilter, engine.DiskFilter}
	cloud := testCloudWith(6, cfg)
	cloud.Aggregates = []engine.Aggregate{{Name: "rack", Hosts: []string{"h1", "h2"},
		Metadata: map[string]string{"ram_allocation_ratio": "1.0"}}}
	s, ts := newTestServerOn(t, cloud, Options{})
	version := s.store.Version()
	// 2048 MB, 1 vCPU, 10 GB on 8192 MB, 4 vCPU, 100 GB hosts: RAM bounds
	// it, 8192 × ratio / 2048 per host (disk: 10, vCPUs: 64). Now: h0, h3,
	// h4, h5 at 1.5 take 6 each, h1 and h2 at 1.0 take 4: 32. After
	// draining h0 and setting rack's ratio to 2.0: 3 × 6 + 2 × 8 = 34.
	body := `{"request": {` + smallFlavor + `}, "max": 100, "drain": ["h0"],
		"aggregates": [{"name": "rack", "set": {"ram_allocation_ratio": "2.0"}}]}`
	code, out := call(t, "POST", ts.URL+"/v1/capacity", body)
	wantStatus(t, "capacity", code, http.StatusOK, out)
	got := decode[map[string]scenario.CapacityDoc](t, out)
	now, after := got["now"], got["after"]
	if now.Fit != 32 || !now.Full || after.Fit != 34 || !after.Full || now.Stop == nil {
		t.Errorf("capacity: now %d (full %v), after %d (full %v); want 32 and 34, full", now.Fit, now.Full, after.Fit, after.Full)
	}
	for _, h := range after.PerHost {
		if h.Host == "h0" || (h.Host == "h1" || h.Host == "h2") != (h.Count == 8) {
			t.Errorf("after: %d on %s", h.Count, h.Host)
		}
	}
	if s.store.Version() != version {
		t.Errorf("capacity changed the store: version %d, was %d", s.store.Version(), version)
	}
	code, out = call(t, "POST", ts.URL+"/v1/capacity", `{"request": {`+smallFlavor+`}, "max": 10}`)
	wantStatus(t, "capacity max 10", code, http.StatusOK, out)
	if got := decode[map[string]scenario.CapacityDoc](t, out); got["now"].Fit != 10 || got["now"].Full || len(got) != 1 {
		t.Errorf("capacity max 10: %s", out)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"request": {` + smallFlavor + `}, "max": "x"}`, "max"},
		{`{"request": {` + smallFlavor + `}, "max": 0}`, "max"},
		{`{"request": {` + smallFlavor + `}, "drain": ["h1", ""]}`, "drain[1]"},
		{`{"request": {` + smallFlavor + `}, "drain": ["h1", "nope"]}`, "drain[1]"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"nam": "rack"}]}`, "aggregates[0].nam"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"set": {}}]}`, "aggregates[0].name"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"NAME": "rack"}]}`, "aggregates[0].NAME"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"name": "rack", "set": {"availability_zone": null}}]}`, "aggregates[0].set.availability_zone"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"name": "rack", "delete": null}]}`, "aggregates[0].delete"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"name": "rack", "name": "other"}]}`, "aggregates[0]"},
		{`{"request": {` + smallFlavor + `}, "aggregates": [{"name": "zz", "set": {"ram_allocation_ratio": "inf"}}]}`,
			"aggregates[0].metadata.ram_allocation_ratio"},
		{`{"request": {` + smallFlavor + `}, "drains": []}`, "drains"},
		{`{"request": {` + smallFlavor + `}, "max": null}`, "max"},
		{`{"request": {` + smallFlavor + `}, "drain": null}`, "drain"},
		{`{"request": {` + smallFlavor + `}, "aggregates": null}`, "aggregates"},
		{`{"request": {` + smallFlavor + `}, "max": 5, "max": 6}`, ""},
		{`{"request": {"flavor": {"vcpus": "two"}}}`, "request.flavor.vcpus"},
	} {
		code, out = call(t, "POST", ts.URL+"/v1/capacity", tc.body)
		wantStatus(t, tc.body, code, http.StatusBadRequest, out)
		if d := decode[ErrorDoc](t, out); d.Error.Field != tc.field {
			t.Errorf("%s: field %q, want %q (%s)", tc.body, d.Error.Field, tc.field, out)
		}
	}
}
