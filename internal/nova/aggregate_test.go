package nova

import (
	"reflect"
	"testing"
)

func TestMetadataByHost(t *testing.T) {
	got := MetadataByHost([]map[string]string{
		{"availability_zone": "az1", "filter_tenant_id": "p2, p1"},
		{"filter_tenant_id": "p1,p3 ", "ssd": "true"},
	})
	want := AggregateMetadata{
		"availability_zone": {"az1"},
		"filter_tenant_id":  {"p1", "p2", "p3"},
		"ssd":               {"true"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MetadataByHost = %v, want %v", got, want)
	}
}

func TestAggregateInstanceExtraSpecsPass(t *testing.T) {
	meta := MetadataByHost([]map[string]string{
		{"ssd": "true", "cpu": "4", "name": "abc"},
		{"cpu": "8"},
	})
	cases := []struct {
		name  string
		specs map[string]string
		want  bool
		err   bool
	}{
		{"no specs", nil, true, false},
		{"unscoped present", map[string]string{"ssd": "true"}, true, false},
		{"unscoped mismatch", map[string]string{"ssd": "false"}, false, false},
		{"unscoped absent fails", map[string]string{"gpu": "true"}, false, false},
		{"scoped", map[string]string{"aggregate_instance_extra_specs:ssd": "true"}, true, false},
		{"other scope skipped", map[string]string{"capabilities:gpu": "true"}, true, false},
		{"any value matches", map[string]string{"cpu": ">= 6"}, true, false},
		{"or", map[string]string{"cpu": "<or> 2 <or> 8"}, true, false},
		{"no value matches", map[string]string{"cpu": ">= 16"}, false, false},
		{"numeric op on text raises", map[string]string{"name": ">= 1"}, false, true},
		{"scope split on first colon only", map[string]string{"aggregate_instance_extra_specs:a:b": "x"}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AggregateInstanceExtraSpecsCheck(tc.specs, nil, meta)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("AggregateInstanceExtraSpecsCheck = %v, %v; want %v, err %v", got, err, tc.want, tc.err)
			}
			if AggregateInstanceExtraSpecsPass(tc.specs, meta) != tc.want {
				t.Fatal("Pass disagrees with Check")
			}
		})
	}
}

// TestAggregateValues: expected values from running Nova 26's
// utils.validate_num_values (a ValueError makes the filters use def).
func TestAggregateValues(t *testing.T) {
	fcases := []struct {
		name   string
		values []string
		def    float64
		want   float64
	}{
		{"none", nil, 1.5, 1.5},
		{"one", []string{"2.0"}, 1.5, 2.0},
		{"min", []string{"1.5", "2.0"}, 1.0, 1.5},
		{"mixed", []string{"4", "2.5"}, 1.0, 2.5},
		{"bad one", []string{"2.0", "x"}, 1.0, 1.0},
		{"spaces", []string{" 3 "}, 1.0, 3.0},
	}
	for _, tc := range fcases {
		t.Run("float/"+tc.name, func(t *testing.T) {
			if got := AggregateNumValue(tc.values, tc.def); got != tc.want {
				t.Fatalf("AggregateNumValue(%v) = %v, want %v", tc.values, got, tc.want)
			}
		})
	}
	icases := []struct {
		name   string
		values []string
		def    int64
		want   int64
	}{
		{"none", nil, 9, 9},
		{"one", []string{"4"}, 9, 4},
		{"min", []string{"4", "3"}, 9, 3},
		{"fraction raises", []string{"4.0"}, 9, 9},
		{"spaces", []string{" 7 "}, 9, 7},
	}
	for _, tc := range icases {
		t.Run("int/"+tc.name, func(t *testing.T) {
			if got := AggregateIntValue(tc.values, tc.def); got != tc.want {
				t.Fatalf("AggregateIntValue(%v) = %v, want %v", tc.values, got, tc.want)
			}
		})
	}
}

// TestSchedulerMetrics: expected values from running Nova 26's
// MonitorMetricList.from_json on the same metrics.
func TestSchedulerMetrics(t *testing.T) {
	got, err := SchedulerMetrics(map[string]float64{
		"cpu.percent": 0.57, "cpu.user.percent": 0.29, "cpu.frequency": 2400.9,
		"cpu.idle.percent": 1.0, "cpu.kernel.percent": 0.07, "cpu.iowait.percent": -0.015,
		"numa.membw.max": -3.7, "cpu.user.time": 1e15,
	})
	want := map[string]int64{
		"cpu.percent": 56, "cpu.user.percent": 28, "cpu.frequency": 2400,
		"cpu.idle.percent": 100, "cpu.kernel.percent": 7, "cpu.iowait.percent": -1,
		"numa.membw.max": -3, "cpu.user.time": 1000000000000000,
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("SchedulerMetrics = %v, %v; want %v", got, err, want)
	}
	bad := []struct {
		name string
		in   map[string]float64
	}{
		{"unknown name", map[string]float64{"cpu.bogus": 1}},
		{"nan", map[string]float64{"cpu.percent": nan()}},
		{"inf", map[string]float64{"cpu.frequency": inf()}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if m, err := SchedulerMetrics(tc.in); err == nil {
				t.Fatalf("SchedulerMetrics(%v) = %v, want an error", tc.in, m)
			}
		})
	}
}
