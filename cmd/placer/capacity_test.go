package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

// TestCapacityCommand: placer capacity answers what engine.Capacity does
// on the embedded scenario, now and after a drain and an aggregate change
// (applied with Cloud.WithAggregates), and names its bad flags.
func TestCapacityCommand(t *testing.T) {
	status, out, errs := placer(t, "", "capacity", "--max", "120", "--drain", "compute-0187",
		"--aggregate", "overcommit:ram_weight_multiplier=-1.0,-nothing")
	if status != exitOK {
		t.Fatalf("capacity: status %d, %s", status, errs)
	}
	var got map[string]scenario.CapacityDoc
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Decode(bytes.NewReader(defaultScenario))
	if err != nil {
		t.Fatal(err)
	}
	want := func(c engine.Cloud, drain []string) scenario.CapacityDoc {
		snap, err := engine.NewSnapshot(c)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := engine.Capacity(context.Background(), snap, s.Request, engine.CapacityOptions{Max: 120, Drain: drain})
		if err != nil {
			t.Fatal(err)
		}
		return scenario.CapacityOf(rep)
	}
	now := want(s.Cloud, nil)
	after := want(s.Cloud.WithAggregates([]engine.AggregateChange{{Name: "overcommit",
		Set: map[string]string{"ram_weight_multiplier": "-1.0"}, Delete: []string{"nothing"}}}), []string{"compute-0187"})
	if !reflect.DeepEqual(got["now"], now) || !reflect.DeepEqual(got["after"], after) {
		t.Errorf("capacity: now %d, after %d; engine.Capacity: now %d, after %d", got["now"].Fit, got["after"].Fit, now.Fit, after.Fit)
	}
	if drained := want(s.Cloud, []string{"compute-0187"}); reflect.DeepEqual(now.PerHost, drained.PerHost) || reflect.DeepEqual(drained.PerHost, after.PerHost) {
		t.Errorf("the drain or the change changed nothing: the test tests nothing")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max", "0"}, "--max: want an integer from 1"},
		{[]string{"--drain", "compute-0001", "--drain", "nope"}, `--drain[1]: no host "nope"`},
		{[]string{"--aggregate", "x"}, "--aggregate[0]: want NAME:KEY=VALUE"},
		{[]string{"--flavor", `{"memory_mb": "x"}`}, "--flavor.memory_mb: want an integer"},
		{[]string{"--flavor", `{}, "num_instances": 3`}, "--flavor: want one JSON object"},
		{[]string{"--flavor", `notjson`}, "--flavor: want one JSON object"},
		{[]string{"--aggregate", "a:ram_weight_multiplier=1", "--aggregate", "zz:ram_allocation_ratio=inf"},
			"--aggregate[1].metadata.ram_allocation_ratio: want a number"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		status, _, errs := placer(t, "", append([]string{"capacity"}, tc.args...)...)
		if status != exitBadInput || !strings.Contains(errs, tc.want) {
			t.Errorf("capacity %v: status %d, %q; want %q", tc.args, status, errs, tc.want)
		}
	}
}
