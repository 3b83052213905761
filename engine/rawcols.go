package engine

import (
	"math"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// rawCol is column weigher w's raw values over the shard's hosts, as the
// kernels read them, from the columns the shard keeps anyway (no float
// copy): RAMWeigher's, DiskWeigher's and IoOpsWeigher's are their usage
// column clamped at their minval of 0, NumInstancesWeigher's its column
// as it is, CPUWeigher's the static vCPU limit less the vCPUs used
// (clamped at 0), BuildFailureWeigher's the failed builds: int32 columns
// where they hold them (the limit an integer), else coded floats.
func (sh *shard) rawCol(w int) kernels.Col {
	switch w {
	case wRAM:
		return kernels.Clamped(sh.freeRAM)
	case wDisk:
		return kernels.Clamped(sh.freeDiskMB)
	case wIoOps:
		return kernels.Clamped(sh.numIOOps)
	case wNumInstances:
		return kernels.Ints(sh.numInstances)
	case wCPU:
		if sh.cpuLimit != nil {
			return kernels.IntHeadroom(sh.cpuLimit, sh.vcpusUsed)
		}
		return kernels.Headroom(&sh.cpuLimitF, sh.vcpusUsed)
	case wBuildFailure:
		if sh.failed != nil {
			return kernels.Ints(sh.failed)
		}
		return kernels.Static(&sh.failedF)
	}
	panic("engine: rawCol of a weigher that is not a column weigher")
}

// rawRes is column weigher w's raw value for the shard's host j when its
// usage is r (a batch's overlay).
func (sh *shard) rawRes(w, j int, r *hostRes) float64 {
	switch w {
	case wRAM:
		return float64(max(r.freeRAM, 0))
	case wCPU:
		return max(float64(sh.vcpusTotal.At(j))*sh.cpuRatio.At(j)-float64(r.vcpusUsed), 0)
	case wDisk:
		return float64(max(r.freeDiskMB, 0))
	case wIoOps:
		return float64(max(r.numIOOps, 0))
	case wNumInstances:
		return float64(r.numInstances)
	}
	return float64(sh.failedBuilds.At(j))
}

// blocksPerShard is the number of dense-ranker blocks (kernels.Block
// hosts) of a full shard.
const blocksPerShard = bitmap.ShardSize / kernels.Block

// blockStats summarises a shard's raw columns per block of kernels.Block
// hosts, over every host of the block (candidates or not), so that the
// dense ranker can skip the hosts of a block: rawLo/rawHi[w][q] are the
// smallest and largest of raw[w] over block q (column weighers only),
// rawConst[w][q] whether they are one value (every host's raw value is
// that float), and rawLoAt/rawHiAt[w][q] the offset in the block of a host
// holding rawLo/rawHi (noHost when the block holds a NaN): when both are
// candidates, the candidates' extremes are the block's. Immutable once
// built: a change of raw gets a new blockStats (statBlocks).
type blockStats struct {
	rawLo, rawHi     [numWeighers][]float64
	rawConst         [numWeighers][]bool
	rawLoAt, rawHiAt [numWeighers][]uint16
}

// noHost is the offset of no host of a block.
const noHost = math.MaxUint16

// blockRange returns the [lo, hi) host range of the shard's block q.
func (sh *shard) blockRange(q int) (lo, hi int) {
	lo = q * kernels.Block
	return lo, min(lo+kernels.Block, sh.hostCount())
}

// statBlocks computes the shard's block summaries from its raw columns,
// into a new blockStats; those of the columns a usage change leaves alone
// are kept when the shard has some.
func (sh *shard) statBlocks() {
	nq := (sh.hostCount() + kernels.Block - 1) / kernels.Block
	st := &blockStats{}
	if old := sh.blk; old != nil {
		*st = *old
	}
	for w := range numWeighers {
		if !colWeigher(w) || (sh.blk != nil && !usageWeigher(w)) {
			continue
		}
		col := sh.rawCol(w)
		st.rawLo[w], st.rawHi[w], st.rawConst[w] = make([]float64, nq), make([]float64, nq), make([]bool, nq)
		st.rawLoAt[w], st.rawHiAt[w] = make([]uint16, nq), make([]uint16, nq)
		for q := range nq {
			lo, hi := sh.blockRange(q)
			xs := col.Slice(lo, hi)
			st.rawLo[w][q], st.rawHi[w][q], st.rawLoAt[w][q], st.rawHiAt[w][q] = floatRange(xs)
			st.rawConst[w][q] = allBits(xs)
		}
	}
	sh.blk = st
}

// floatRange is the smallest and largest of xs and the index of their
// first occurrences; NaN and noHost if any is NaN.
func floatRange(xs kernels.Col) (lo, hi float64, loAt, hiAt uint16) {
	lo, hi, loAt, hiAt = math.Inf(1), math.Inf(-1), noHost, noHost
	for i := range xs.Len() {
		x := xs.At(i)
		if x != x {
			return x, x, noHost, noHost
		}
		if l := min(lo, x); loAt == noHost || math.Float64bits(l) != math.Float64bits(lo) {
			lo, loAt = l, uint16(i)
		}
		if h := max(hi, x); hiAt == noHost || math.Float64bits(h) != math.Float64bits(hi) {
			hi, hiAt = h, uint16(i)
		}
	}
	return lo, hi, loAt, hiAt
}

// allBits reports whether xs is one non-NaN value repeated, bit for bit.
func allBits(xs kernels.Col) bool {
	if xs.Len() == 0 || xs.At(0) != xs.At(0) {
		return false
	}
	b := math.Float64bits(xs.At(0))
	for i := 1; i < xs.Len(); i++ {
		if math.Float64bits(xs.At(i)) != b {
			return false
		}
	}
	return true
}
