package engine

import (
	"math"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// The dense ranker's raw values, for every weigher that can contribute:
//
//   - the column weighers (colWeigher) read the shards' raw columns
//     (shard.rawCol) and, for the hosts the overlay holds, its usage;
//   - MetricsWeigher reads the lineage's column of its raw values
//     (metricsCol), which no placement changes;
//   - the soft (anti-)affinity weighers are sparse: every host's raw value
//     is the default (a signed zero) but on the few hosts holding a member
//     of the group, the batch's sparse hosts, read from the group's counts.
//
// Hosts whose raw values the columns do not hold (the overlay's and the
// sparse ones) are the ranker's exceptions: the block statistics fold
// them in one by one and every rescoring weighs them one by one.

// sparseWeigher reports whether weigher w's raw values are the default
// (sparseDefault) on every host but a few the batch lists.
func sparseWeigher(w int) bool { return w == wSoftAffinity || w == wSoftAntiAffinity }

// sparseDefault is sparse weigher w's raw value on a host holding no
// member of the group: softSign(w) * 0, a signed zero.
func sparseDefault(w int) float64 { return float64(softSign(w) * 0) }

// sparseCols are columns of one shard's length holding +0 and -0, the
// sparse weighers' defaults as the kernels read them.
var sparseCols = [2]kernels.Coded[float64]{
	kernels.NewCoded(make([]float64, bitmap.ShardSize)),
	kernels.NewCoded(negZeros(bitmap.ShardSize)),
}

func negZeros(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.Copysign(0, -1)
	}
	return xs
}

// col is weigher w's raw column over shard k's hosts, as the kernels read
// it (the sparse weighers' defaults, the overlay's and sparse hosts'
// columns are not their values).
func (rk *denseRanker) col(k, w int) kernels.Col {
	sh := rk.v.snap().shards[k]
	switch {
	case w == wMetrics:
		base := k * bitmap.ShardSize
		xs := rk.metrics.raw[base : base+sh.hostCount()]
		if rk.metrics.plain {
			return kernels.PlainFloats(xs)
		}
		return kernels.Floats(xs)
	case sparseWeigher(w):
		c := &sparseCols[0]
		if math.Signbit(sparseDefault(w)) {
			c = &sparseCols[1]
		}
		return kernels.Static(c).Slice(0, sh.hostCount())
	}
	return sh.rawCol(w)
}

// raw is weigher w's raw value for host id on the batch's state.
func (rk *denseRanker) raw(w int, id uint32) float64 {
	switch {
	case w == wMetrics:
		return rk.metrics.raw[id]
	case sparseWeigher(w):
		return rk.v.groupRaw(w, id)
	}
	return rk.v.raw(w, id)
}

// rawWith is raw for a host whose overlay usage is r (nil: its columns).
func (rk *denseRanker) rawWith(w int, id uint32, r *hostRes) float64 {
	if r == nil || !colWeigher(w) {
		return rk.raw(w, id)
	}
	sh, j := rk.v.snap().at(id)
	return sh.rawRes(w, j, r)
}

// summary is block q's summary of weigher w's raw column (a column or
// MetricsWeigher's; see blockSummary).
func (rk *denseRanker) summary(w, q int) *blockSummary {
	if w == wMetrics {
		return &rk.metrics.sums[q]
	}
	sh, _, _ := rk.block(q)
	return &sh.blk.raw[w][q%blocksPerShard]
}

// startSparse lists the batch's sparse hosts when a sparse weigher
// contributes.
func (rk *denseRanker) startSparse() {
	for _, w := range rk.act {
		if sparseWeigher(w) {
			rk.soft = w
		}
	}
	if rk.soft < 0 {
		return
	}
	rk.sparse = rk.v.set()
	rk.v.groupHosts(rk.addSparse)
}

// addSparse adds host id to the sparse hosts when its sparse raw value is
// not the default (a member of the group was placed on its host).
func (rk *denseRanker) addSparse(id uint32) {
	if rk.soft >= 0 && !rk.sparse.Has(id) && rk.v.groupRaw(rk.soft, id) != 0 {
		rk.sparse.Add(id)
		rk.sparseIDs = append(rk.sparseIDs, id)
	}
}

// exceptionWords returns the words of block q's hosts whose raw values the
// columns do not hold: the overlay's and the sparse ones, in buf.
func (rk *denseRanker) exceptionWords(q int, buf *[wordsPerBlock]uint64) []uint64 {
	n := len(rk.words(q))
	out := buf[:n]
	clear(out)
	if rk.v.overlaid() {
		copy(out, rk.v.overlayWords()[q*wordsPerBlock:])
	}
	if rk.sparse != nil {
		for k, w := range rk.sparse.Words()[q*wordsPerBlock : q*wordsPerBlock+n] {
			out[k] |= w
		}
	}
	return out
}

// eachException calls f with every exception the ranker must weigh one by
// one (the overlay's hosts, the sparse ones), maybe more than once.
func (rk *denseRanker) eachException(f func(id uint32)) {
	for _, id := range rk.v.overlayIDs() {
		f(id)
	}
	for _, id := range rk.sparseIDs {
		f(id)
	}
}
