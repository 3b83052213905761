package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// The static ranking data of a snapshot lineage: what the dense ranker
// reads that depends on the static host data and the configuration alone
// (and its kept full rescorings, which name the shards they read), built
// on first use and shared by every snapshot holding the same
// hostInfo (a Store's snapshots share it from one rebuild to the next).
// It is kept beside the hostInfo, not in it: a registry keyed by a weak
// pointer to the hostInfo, whose entry goes when the hostInfo does.

// lineage is the static ranking data of one hostInfo.
type lineage struct {
	mu      sync.Mutex
	metrics *metricsCol
	// scores are the dense ranker's full rescorings (rankcache.go).
	scores scoreCache
	// fits are the resource filters' verdicts (fitcache.go).
	fits fitCache
}

// lineages maps weak.Pointer[hostInfo] to *lineage.
var lineages sync.Map

// lineageOf returns info's static ranking data, made empty on first use.
func lineageOf(info *hostInfo) *lineage {
	k := weak.Make(info)
	if l, ok := lineages.Load(k); ok {
		return l.(*lineage)
	}
	l, loaded := lineages.LoadOrStore(k, &lineage{})
	if !loaded {
		runtime.AddCleanup(info, func(k weak.Pointer[hostInfo]) { lineages.Delete(k) }, k)
	}
	return l.(*lineage)
}

// shareLineage makes info's static ranking data prev's: info is a
// rebuild's host data whose shards and metrics are prev's snapshot's
// (Store.publishKeptLocked), so what the lineage keeps holds for it.
func shareLineage(info, prev *hostInfo) {
	l := lineageOf(prev)
	k := weak.Make(info)
	if _, loaded := lineages.LoadOrStore(k, l); !loaded {
		runtime.AddCleanup(info, func(k weak.Pointer[hostInfo]) { lineages.Delete(k) }, k)
	}
}

// metricsCol is MetricsWeigher's raw value for every host, as the dense
// ranker's kernels read it, with its per-block summaries (as a shard's
// blockStats, over the global blocks of kernels.Block hosts).
//
// Invariants: raw[id] is host id's raw value (batch.metricsValue), 0
// where Nova raises for it; missing holds exactly the hosts for which it
// raises (metrics_required and a weighed metric not reported); sums[q]
// summarises raw over block q as blockStats does; a kept[q] that is set
// holds raw's extremes over the hosts of block q in its words.
type metricsCol struct {
	n          int // the number of hosts it was built for
	raw        []float64
	plain      bool // no value of raw is -0 or NaN (kernels.PlainFloats)
	missing    *bitmap.Set
	anyMissing bool
	sums       []blockSummary
	// kept is, per block, the last extremes the kernel found over some
	// of its hosts (restat): the column never changes, so a batch whose
	// candidates in the block are those reads them rather than running
	// the kernel again. Records are never modified once stored.
	kept []atomic.Pointer[blockExtremes]
}

// blockExtremes are a block's smallest and largest values over the hosts
// in words.
type blockExtremes struct {
	words  [wordsPerBlock]uint64
	lo, hi float64
}

// extremes sets lo[0] and hi[0] to raw's smallest and largest values
// over the hosts of block q in words (the block's clean candidate words,
// zero past its hosts; the kernel reads words[:len(in)], in being those
// words as a slice), from kept when they are the last asked for, else
// with the kernel over col (the block's column), and keeps them. It
// reports whether they were kept.
func (m *metricsCol) extremes(q int, words *[wordsPerBlock]uint64, in []uint64, col kernels.Col, lo, hi []float64) (kept bool) {
	if e := m.kept[q].Load(); e != nil && e.words == *words {
		lo[0], hi[0] = e.lo, e.hi
		return true
	}
	kernels.MinMaxMasked(col, in, lo, hi)
	m.kept[q].Store(&blockExtremes{words: *words, lo: lo[0], hi: hi[0]})
	return false
}

// metricsCol returns the snapshot's MetricsWeigher column, built once per
// lineage (its hosts' metrics, multipliers and configuration never
// change without a new hostInfo). A column built for another number of
// hosts is built again: a snapshot that shares its hostInfo with one of
// fewer hosts must not read past the column.
func (s *Snapshot) metricsCol() *metricsCol {
	l := lineageOf(s.info)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.metrics == nil || l.metrics.n != s.n {
		l.metrics = buildMetricsCol(s)
	}
	return l.metrics
}

func buildMetricsCol(s *Snapshot) *metricsCol {
	nb := (s.n + kernels.Block - 1) / kernels.Block
	m := &metricsCol{
		n:   s.n,
		raw: make([]float64, s.n), missing: bitmap.NewSet(s.n),
		sums: make([]blockSummary, nb), kept: make([]atomic.Pointer[blockExtremes], nb),
	}
	for id := range uint32(s.n) {
		x, miss := s.metricsRaw(id)
		if miss >= 0 {
			m.missing.Add(id)
			m.anyMissing = true
			continue
		}
		m.raw[id] = x
	}
	for q := range nb {
		xs := kernels.Floats(m.raw[q*kernels.Block : min((q+1)*kernels.Block, s.n)])
		m.sums[q] = summarize(xs)
	}
	m.plain = !kernels.HasNegZeroOrNaN(m.raw)
	return m
}
