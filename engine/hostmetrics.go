package engine

import (
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
)

// metricCols holds the hosts' metrics as the scheduler sees them
// (nova.SchedulerMetrics): one int64 column per metric name that some host
// reports, and the set of hosts that report it. A map per host cost about
// 230 bytes per host at 100,000 hosts; four columns cost 32. A metric a
// host reports with value 0 is in has; one it does not report is not.
//
// Invariants: names is sorted and distinct; for each k, has[k] and val[k]
// range over every host; val[k][id] is 0 where has[k] lacks id.
type metricCols struct {
	names []string
	has   []*bitmap.Set
	val   [][]int64
}

// add records host id's metrics (while building, over n hosts).
func (m *metricCols) add(n int, id uint32, metrics map[string]int64) {
	for name, v := range metrics {
		k, ok := slices.BinarySearch(m.names, name)
		if !ok {
			m.names = slices.Insert(m.names, k, strings.Clone(name))
			m.has = slices.Insert(m.has, k, bitmap.NewSet(n))
			m.val = slices.Insert(m.val, k, make([]int64, n))
		}
		m.has[k].Add(id)
		m.val[k][id] = v
	}
}

// get returns host id's value of metric name, if it reports it.
func (m *metricCols) get(id uint32, name string) (int64, bool) {
	k, ok := slices.BinarySearch(m.names, name)
	if !ok || !m.has[k].Has(id) {
		return 0, false
	}
	return m.val[k][id], true
}

// of returns host id's metrics as a new map (HostState.metrics).
func (m *metricCols) of(id uint32) map[string]int64 {
	out := map[string]int64{}
	for k, name := range m.names {
		if m.has[k].Has(id) {
			out[name] = m.val[k][id]
		}
	}
	return out
}
