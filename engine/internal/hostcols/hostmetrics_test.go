package hostcols

import (
	"maps"
	"reflect"
	"testing"
)

// TestMetricCols checks the columns against the per-host maps they
// replaced: a metric reported as 0 is present, one not reported absent.
func TestMetricCols(t *testing.T) {
	hosts := []map[string]int64{
		{"cpu.percent": 0, "cpu.frequency": 2400},
		nil,
		{},
		{"cpu.percent": -5, "cpu.idle.percent": 1 << 20},
		{"cpu.idle.percent": -1 << 31, "cpu.frequency": -1 << 15},
		{"numa.membw.max": 1 << 62, "cpu.frequency": 0},
	}
	var m Metrics
	for id, h := range hosts {
		m.Add(len(hosts), uint32(id), h)
	}
	m.Narrow()
	// Each column in the width of its values' span (0 where not reported).
	wantBytes := map[string]int{"cpu.frequency": 2, "cpu.idle.percent": 4, "cpu.percent": 1, "numa.membw.max": 8}
	if len(m.names) != len(wantBytes) {
		t.Fatalf("metrics %v, want those of %v", m.names, wantBytes)
	}
	for k, name := range m.names {
		if c := &m.cols[k]; c.v64 != nil || c.v.off.Bytes() != wantBytes[name] {
			t.Errorf("%s: %d bytes per host, want %d", name, c.v.off.Bytes(), wantBytes[name])
		}
	}
	for id, h := range hosts {
		for _, name := range []string{"cpu.percent", "cpu.frequency", "numa.membw.max", "cpu.idle.percent", ""} {
			v, ok := m.Get(uint32(id), name)
			wv, wok := h[name]
			if v != wv || ok != wok {
				t.Errorf("host %d: get(%q) = %d, %v; want %d, %v", id, name, v, ok, wv, wok)
			}
		}
		if got := m.Of(uint32(id)); !maps.Equal(got, h) || got == nil {
			t.Errorf("host %d: of = %v, want %v", id, got, h)
		}
	}
}

// TestMetricsAddFrom checks that hosts copied from another Metrics
// (AddFrom), between hosts added from their maps whose metrics insert
// columns before and among the copied ones, give the columns a build
// from the maps gives.
func TestMetricsAddFrom(t *testing.T) {
	hosts := []map[string]int64{
		{"cpu.percent": 0, "cpu.frequency": 2400},
		nil,
		{"cpu.percent": -5, "cpu.idle.percent": 1 << 20},
		{"numa.membw.max": 1 << 62, "cpu.frequency": 0},
	}
	var from Metrics
	for id, h := range hosts {
		from.Add(len(hosts), uint32(id), h)
	}
	from.Narrow()
	// The next hosts: from's in reverse, with new ones in between.
	joining := []map[string]int64{{"a.first": 7}, {"cpu.idle.percent": 3, "cpu.middle": 9}, {"z.last": 1}}
	var next []map[string]int64
	var old []int
	for k := len(hosts) - 1; k >= 0; k-- {
		next, old = append(next, hosts[k]), append(old, k)
		if k < len(joining) {
			next, old = append(next, joining[k]), append(old, -1)
		}
	}
	var got, want Metrics
	for id, h := range next {
		want.Add(len(next), uint32(id), h)
		if old[id] >= 0 {
			got.AddFrom(len(next), uint32(id), &from, uint32(old[id]))
		} else {
			got.Add(len(next), uint32(id), h)
		}
	}
	got.Narrow()
	want.Narrow()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("copied %+v, want %+v", got, want)
	}
	for id, h := range next {
		if m := got.Of(uint32(id)); !maps.Equal(m, h) {
			t.Errorf("host %d: %v, want %v", id, m, h)
		}
	}
}
