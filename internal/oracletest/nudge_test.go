package oracletest_test

import (
	"encoding/json"
	"math"
	"testing"
)

// nudgeFirstWeight returns the result document with its first placement's
// weight moved by one ulp.
func nudgeFirstWeight(t *testing.T, doc string) string {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	ps, _ := d["placements"].([]any)
	if len(ps) == 0 {
		t.Fatalf("no placement to nudge in %s", doc)
	}
	p := ps[0].(map[string]any)
	w := p["weight"].(float64)
	p["weight"] = math.Nextafter(w, math.Inf(1))
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
