package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
)

var twoPlacements = []engine.Placement{
	{InstanceUUID: "inst-0", HostID: 42, Host: "compute-0042", Node: "compute-0042", Cell: "cell1",
		Weight: 2.7310001, Candidates: 4211,
		Limits:     engine.Limits{Set: engine.HasMemoryMB | engine.HasDiskGB, MemoryMB: 393216, DiskGB: 4000},
		Alternates: []engine.HostNode{{Host: "compute-0007", Node: "compute-0007"}}},
	{InstanceUUID: "inst-1", Host: "h", Node: "n", Cell: "cell2", Weight: math.Nextafter(1, 2), Candidates: 1,
		Limits: engine.Limits{Set: engine.HasVCPU, VCPU: 0.30000000000000004}},
}

func TestResultOf(t *testing.T) {
	nvh := &engine.NoValidHostError{InstanceIndex: 1, InstanceUUID: "inst-1", InPlay: 5000, Prefiltered: 5000,
		Filters:   []engine.FilterCount{{Name: "ComputeFilter", Start: 5000, End: 4990}, {Name: "RamFilter", Start: 4990, End: 0}},
		Tentative: twoPlacements[:1]}
	for _, tc := range []struct {
		name    string
		plan    engine.Plan
		err     error
		want    string // the encoded document
		wantErr error
	}{
		{name: "placed", plan: engine.Plan{Placements: twoPlacements}, want: `{
  "format": 1,
  "placements": [
    {
      "instance_uuid": "inst-0",
      "host": "compute-0042",
      "node": "compute-0042",
      "cell": "cell1",
      "weight": 2.7310001,
      "candidates": 4211,
      "limits": {
        "memory_mb": 393216,
        "disk_gb": 4000
      },
      "alternates": [
        {
          "host": "compute-0007",
          "node": "compute-0007"
        }
      ]
    },
    {
      "instance_uuid": "inst-1",
      "host": "h",
      "node": "n",
      "cell": "cell2",
      "weight": 1.0000000000000002,
      "candidates": 1,
      "limits": {
        "vcpu": 0.30000000000000004
      },
      "alternates": []
    }
  ],
  "error": null
}
`},
		{name: "no valid host", err: fmtWrap(nvh), want: `{
  "format": 1,
  "placements": [
    {
      "instance_uuid": "inst-0",
      "host": "compute-0042",
      "node": "compute-0042",
      "cell": "cell1",
      "weight": 2.7310001,
      "candidates": 4211,
      "limits": {
        "memory_mb": 393216,
        "disk_gb": 4000
      },
      "alternates": [
        {
          "host": "compute-0007",
          "node": "compute-0007"
        }
      ]
    }
  ],
  "error": {
    "kind": "NoValidHost",
    "instance_index": 1,
    "message": "no host for inst-1: ComputeFilter removed 10 of 5000 hosts, RamFilter removed 4990 of 4990 hosts",
    "filters": [
      {
        "name": "ComputeFilter",
        "start": 5000,
        "end": 4990
      },
      {
        "name": "RamFilter",
        "start": 4990,
        "end": 0
      }
    ]
  }
}
`},
		{name: "no valid host at the first instance, no filter ran",
			err: &engine.NoValidHostError{InstanceUUID: "inst-0", InPlay: 3, Prefiltered: 0}, want: `{
  "format": 1,
  "placements": [],
  "error": {
    "kind": "NoValidHost",
    "instance_index": 0,
    "message": "no host for inst-0: ignore_hosts/force_hosts/force_nodes/requested_destination left 0 of 3 hosts",
    "filters": []
  }
}
`},
		{name: "metric not found", err: &engine.MetricNotFoundError{InstanceIndex: 0, InstanceUUID: "inst-0",
			Host: "h", Node: "h", Metric: "cpu.percent"}, want: `{
  "format": 1,
  "placements": [],
  "error": {
    "kind": "ComputeHostMetricNotFound",
    "instance_index": 0,
    "message": "metric cpu.percent not found on host h node h (instance inst-0)",
    "filters": []
  }
}
`},
		{name: "another Nova error", err: &engine.NovaError{Kind: "KeyError", InstanceIndex: 2, Msg: "'x'"}, want: `{
  "format": 1,
  "placements": [],
  "error": {
    "kind": "KeyError",
    "instance_index": 2,
    "message": "KeyError: 'x'",
    "filters": []
  }
}
`},
		{name: "bad input is not an outcome", err: &engine.ValidationError{Field: "request.flavor.vcpus", Msg: "x"},
			wantErr: engine.ErrInvalid},
		{name: "cancelled is not an outcome", err: context.Canceled, wantErr: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := ResultOf(tc.plan, tc.err)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := Encode(&b, doc); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
			back, err := DecodeResult(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, doc) {
				t.Errorf("result does not round-trip:\n%+v\n%+v", back, doc)
			}
		})
	}
}

// fmtWrap wraps an error as callers may (ResultOf looks through wrapping).
func fmtWrap(err error) error { return errors.Join(errors.New("placing"), err) }

// TestEncodeFloatsRoundTrip: weights and limits come back bit for bit.
func TestEncodeFloatsRoundTrip(t *testing.T) {
	weights := []float64{0, math.Copysign(0, -1), 1e-300, 5e-324, math.MaxFloat64, -1.5707065217391305, 1e21, 1.0 / 3}
	var ps []engine.Placement
	for i, w := range weights {
		ps = append(ps, engine.Placement{InstanceUUID: string(rune('a' + i)), Weight: w,
			Limits: engine.Limits{Set: engine.HasMemoryMB, MemoryMB: w / 3}})
	}
	doc, _ := ResultOf(engine.Plan{Placements: ps}, nil)
	var b bytes.Buffer
	if err := Encode(&b, doc); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Placements []struct {
			Weight float64
			Limits map[string]float64
		}
	}
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for i, w := range weights {
		got := raw.Placements[i]
		if math.Float64bits(got.Weight) != math.Float64bits(w) || got.Limits["memory_mb"] != w/3 {
			t.Errorf("weight %v came back as %v (limits %v)", w, got.Weight, got.Limits)
		}
	}
}

func TestDecodeResultUnknownField(t *testing.T) {
	_, err := DecodeResult(strings.NewReader(`{"format": 1, "placements": [], "error": null, "x": 1}`))
	if err == nil {
		t.Fatal("unknown field accepted")
	}
}
