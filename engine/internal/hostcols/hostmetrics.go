package hostcols

import (
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
)

// Metrics holds the hosts' metrics as the scheduler sees them
// (nova.SchedulerMetrics): one column per metric name that some host
// reports, and the set of hosts that report it. A map per host cost about
// 230 bytes per host at 100,000 hosts; four columns of int64 cost 32, of
// int16 8, and as Ints (each value's distance from the column's
// smallest: Nova's metrics are frequencies, and percentages x100 that
// span less than 256) 5. A metric a host reports with value 0 is in has;
// one it does not report is not.
//
// Invariants: names is sorted and distinct, cols parallel to it; each
// column ranges over every host, and its value is 0 where has lacks the
// host.
type Metrics struct {
	names []string
	cols  []metricCol
	// While building: per column of from (the Metrics AddFrom last
	// copied from), the index of its metric's column here, -1 where
	// there is none yet (emptied when a column is inserted).
	from    *Metrics
	fromCol []int
}

// metricCol is one metric's column: v64 while building, v once built
// (v64 nil).
type metricCol struct {
	has *bitmap.Set
	v   Ints
	v64 []int64
}

// Add records host id's metrics (while building, over n hosts).
func (m *Metrics) Add(n int, id uint32, metrics map[string]int64) {
	for name, v := range metrics {
		m.set(n, id, name, v)
	}
}

// AddFrom records host id's metrics as from's host j's (while building,
// over n hosts): a derived snapshot's hosts keep their parsed metrics.
func (m *Metrics) AddFrom(n int, id uint32, from *Metrics, j uint32) {
	if m.from != from || len(m.fromCol) != len(from.names) {
		m.from, m.fromCol = from, make([]int, len(from.names))
		for k := range m.fromCol {
			m.fromCol[k] = -1
		}
	}
	for k, name := range from.names {
		c := &from.cols[k]
		if !c.has.Has(j) {
			continue
		}
		if m.fromCol[k] < 0 {
			m.fromCol[k] = m.col(n, name) // by name once per column, not per host
		}
		m.setAt(m.fromCol[k], id, c.at(j))
	}
}

// set records host id's value v of metric name.
func (m *Metrics) set(n int, id uint32, name string, v int64) {
	m.setAt(m.col(n, name), id, v)
}

// col returns the index of metric name's column, inserting it (over n
// hosts) if there is none.
func (m *Metrics) col(n int, name string) int {
	k, ok := slices.BinarySearch(m.names, name)
	if !ok {
		m.names = slices.Insert(m.names, k, strings.Clone(name))
		m.cols = slices.Insert(m.cols, k, metricCol{has: bitmap.NewSet(n), v64: make([]int64, n)})
		for i := range m.fromCol { // the columns from k on moved
			m.fromCol[i] = -1
		}
	}
	return k
}

// setAt records host id's value v in column k.
func (m *Metrics) setAt(k int, id uint32, v int64) {
	m.cols[k].has.Add(id)
	m.cols[k].v64[id] = v
}

// Narrow keeps each column as an Ints, in the narrowest width that
// holds its values (once every host is added).
func (m *Metrics) Narrow() {
	m.from, m.fromCol = nil, nil
	for k := range m.cols {
		c := &m.cols[k]
		c.v = NewInts(len(c.v64), func(i int) int64 { return c.v64[i] })
		c.v64 = nil
	}
}

func (c *metricCol) at(id uint32) int64 { return c.v.At(id) }

// Get returns host id's value of metric name, if it reports it.
func (m *Metrics) Get(id uint32, name string) (int64, bool) {
	k, ok := slices.BinarySearch(m.names, name)
	if !ok || !m.cols[k].has.Has(id) {
		return 0, false
	}
	return m.cols[k].at(id), true
}

// Of returns host id's metrics as a new map (HostState.metrics).
func (m *Metrics) Of(id uint32) map[string]int64 {
	out := map[string]int64{}
	for k, name := range m.names {
		if c := &m.cols[k]; c.has.Has(id) {
			out[name] = c.at(id)
		}
	}
	return out
}
