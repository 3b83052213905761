package plandiff

import (
	"fmt"
	"math"
	"testing"

	"github.com/placer/placer/engine"
)

// TestCompare makes sure the comparison sees what it must: a
// zero-difference run means agreement, not a blind comparator.
func TestCompare(t *testing.T) {
	base := func() Outcome {
		return Outcome{Plan: engine.Plan{Placements: []engine.Placement{
			{InstanceUUID: "a", HostID: 1, Host: "h1", Node: "h1", Cell: "cell1", Weight: 1.5, Candidates: 3,
				Limits:     engine.Limits{Set: engine.HasMemoryMB, MemoryMB: 1024},
				Alternates: []engine.HostNode{{Host: "h2", Node: "h2"}}},
			{InstanceUUID: "b", HostID: 1, Host: "h1", Node: "h1", Cell: "cell1", Weight: 0.5, Candidates: 2},
		}}}
	}
	nvh := func(edit func(*engine.NoValidHostError)) Outcome {
		e := &engine.NoValidHostError{InstanceIndex: 1, InstanceUUID: "b", InPlay: 3, Prefiltered: 3,
			Filters:   []engine.FilterCount{{Name: "RamFilter", Start: 3, End: 0}},
			Tentative: base().Plan.Placements[:1]}
		if edit != nil {
			edit(e)
		}
		return Outcome{Err: e}
	}
	cases := []struct {
		name string
		e, r Outcome
		want string // the kind of the first difference; "" = none
	}{
		{"same", base(), base(), ""},
		// Bit for bit: one ulp, or a zero of the other sign, is a
		// difference; NaN is the same as NaN.
		{"weight one ulp", base(), func() Outcome {
			o := base()
			o.Plan.Placements[0].Weight = math.Nextafter(1.5, 2)
			return o
		}(), "placements.weight"},
		{"weight -0", func() Outcome { o := base(); o.Plan.Placements[0].Weight = 0; return o }(),
			func() Outcome { o := base(); o.Plan.Placements[0].Weight = math.Copysign(0, -1); return o }(), "placements.weight"},
		{"weight NaN", func() Outcome { o := base(); o.Plan.Placements[0].Weight = math.NaN(); return o }(),
			func() Outcome { o := base(); o.Plan.Placements[0].Weight = math.NaN(); return o }(), ""},
		{"weight NaN vs number", func() Outcome { o := base(); o.Plan.Placements[0].Weight = math.NaN(); return o }(),
			base(), "placements.weight"},
		{"limit one ulp", base(), func() Outcome {
			o := base()
			o.Plan.Placements[0].Limits.MemoryMB = math.Nextafter(1024, 0)
			return o
		}(), "placements.limits"},
		{"weight", base(), func() Outcome { o := base(); o.Plan.Placements[1].Weight = 0.6; return o }(), "placements.weight"},
		{"host", base(), func() Outcome {
			o := base()
			o.Plan.Placements[1].Host, o.Plan.Placements[1].HostID = "h2", 2
			return o
		}(), "placements.host"},
		{"candidates", base(), func() Outcome { o := base(); o.Plan.Placements[0].Candidates = 4; return o }(), "placements.candidates"},
		{"limits", base(), func() Outcome { o := base(); o.Plan.Placements[0].Limits.Set |= engine.HasVCPU; return o }(), "placements.limits"},
		{"alternates", base(), func() Outcome { o := base(); o.Plan.Placements[0].Alternates = nil; return o }(), "placements.alternates"},
		{"cell", base(), func() Outcome { o := base(); o.Plan.Placements[0].Cell = "cell2"; return o }(), "placements.cell"},
		{"outcome", base(), nvh(nil), "outcome"},
		{"nvh same", nvh(nil), nvh(nil), ""},
		{"nvh index", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.InstanceIndex = 0 }), "error.instance_index"},
		{"nvh filters", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Filters[0].End = 1 }), "error.filters"},
		{"nvh prefiltered", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Prefiltered = 2 }), "error.prefiltered"},
		{"nvh tentative", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Tentative = nil }), "tentative.len"},
		{"metric", Outcome{Err: &engine.MetricNotFoundError{Metric: "cpu.percent"}},
			Outcome{Err: &engine.MetricNotFoundError{Metric: "cpu.frequency"}}, "error.metric"},
		{"invalid field", Outcome{Err: &engine.ValidationError{Field: "hosts[0].host"}},
			Outcome{Err: &engine.ValidationError{Field: "hosts[1].host"}}, "error.field"},
		{"panic", Outcome{Panic: "boom"}, base(), "panic"},
		// A wrapped error is compared by its fields and tentative
		// placements as the bare one is (a type switch compared none).
		{"nvh wrapped index", nvh(nil), func() Outcome {
			o := nvh(func(e *engine.NoValidHostError) { e.InstanceIndex = 0 })
			o.Err = fmt.Errorf("placing: %w", o.Err)
			return o
		}(), "error.instance_index"},
		{"nvh wrapped tentative", nvh(nil), func() Outcome {
			o := nvh(func(e *engine.NoValidHostError) { e.Tentative = nil })
			o.Err = fmt.Errorf("placing: %w", o.Err)
			return o
		}(), "tentative.len"},
		{"nvh reason", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.Reason = "chance" }), "error.reason"},
		{"nvh in play", nvh(nil), nvh(func(e *engine.NoValidHostError) { e.InPlay = 4 }), "error.in_play"},
		{"nova index", Outcome{Err: &engine.NovaError{Kind: "TypeError", InstanceIndex: 0}},
			Outcome{Err: &engine.NovaError{Kind: "TypeError", InstanceIndex: 1}}, "error.instance_index"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.e, tc.r)
			got := ""
			if len(d) > 0 {
				got = PathKind(d[0])
			}
			if got != tc.want {
				t.Fatalf("first difference %q, want %q (all: %q)", got, tc.want, d)
			}
		})
	}
}

func TestMixKind(t *testing.T) {
	for _, tc := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{}, MixPlaced},
		{Outcome{Err: &engine.NoValidHostError{InstanceIndex: 0}}, MixNoValidHost0},
		{Outcome{Err: &engine.NoValidHostError{InstanceIndex: 2}}, MixNoValidHostN},
		{Outcome{Err: &engine.MetricNotFoundError{}}, MixMetric},
		{Outcome{Err: &engine.NovaError{Kind: "TypeError"}}, MixNova},
		{Outcome{Err: &engine.ValidationError{Field: "hosts"}}, MixInvalid},
		{Outcome{Panic: "boom"}, "panic"},
	} {
		if got := MixKind(tc.o); got != tc.want {
			t.Errorf("MixKind(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}
