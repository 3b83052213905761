package engine

import (
	"maps"
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
	var m metricCols
	for id, h := range hosts {
		m.add(len(hosts), uint32(id), h)
	}
	m.narrow()
	if c := m.cols[0]; m.names[0] != "cpu.frequency" || c.v16 == nil || c.v32 != nil || c.v64 != nil {
		t.Errorf("cpu.frequency not narrowed to int16: %v", c)
	}
	if c := m.cols[1]; m.names[1] != "cpu.idle.percent" || c.v32 == nil || c.v16 != nil || c.v64 != nil {
		t.Errorf("cpu.idle.percent not narrowed to int32: %v", c)
	}
	if c := m.cols[3]; m.names[3] != "numa.membw.max" || c.v64 == nil || c.v16 != nil || c.v32 != nil {
		t.Errorf("numa.membw.max narrowed: %v", c)
	}
	for id, h := range hosts {
		for _, name := range []string{"cpu.percent", "cpu.frequency", "numa.membw.max", "cpu.idle.percent", ""} {
			v, ok := m.get(uint32(id), name)
			wv, wok := h[name]
			if v != wv || ok != wok {
				t.Errorf("host %d: get(%q) = %d, %v; want %d, %v", id, name, v, ok, wv, wok)
			}
		}
		if got := m.of(uint32(id)); !maps.Equal(got, h) || got == nil {
			t.Errorf("host %d: of = %v, want %v", id, got, h)
		}
	}
}
