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
		return max(float64(float64(sh.vcpusTotal.At(j))*sh.cpuRatio.At(j))-float64(r.vcpusUsed), 0) // rounded: no FMA
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
// dense ranker can skip the hosts of a block: raw[w][q] is block q's
// summary of weigher w's raw column (column weighers only; nil for the
// others). Immutable once built: a change of raw gets a new blockStats
// (statBlocks), which shares the summaries of the weighers and blocks the
// change left alone.
type blockStats struct {
	raw [numWeighers]*[blocksPerShard]blockSummary
}

// extremes is how many of a block's largest and smallest raw values its
// summary locates: the candidates' extremes are read from it when one of
// them is a candidate.
const extremes = 8

// blockSummary summarises a raw column over one block of hosts (every
// host of the block, candidates or not).
//
// Invariants: without a NaN in the block, lo and hi are its smallest and
// largest values (as Go's min and max take them: -0 below +0), cnst
// reports whether every host holds one value bit for bit, top[:nTop] are
// the offsets in the block of hosts holding its nTop largest values in
// the order of orderKey, largest first (ties by offset), every host off
// the list holding no more than its last, and bottom[:nBot] likewise
// for its smallest, smallest first. summarize lists min(extremes, hosts)
// of each; a compaction's update (summaryupdate.go) may leave fewer, at
// least minExtremes. So the first of top whose host is a candidate holds
// the candidates' largest value, and the first of bottom their smallest.
// With a NaN, lo and hi are NaN, cnst is false and nTop and nBot are 0
// (the kernel then takes the candidates' extremes).
type blockSummary struct {
	lo, hi      float64
	top, bottom [extremes]uint16
	nTop, nBot  uint8
	cnst        bool
}

// orderKey maps a float that is not NaN to an integer in the same order,
// -0 below +0, one key per bit pattern.
func orderKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// fromOrderKey is the float whose orderKey is k.
func fromOrderKey(k uint64) float64 {
	if k>>63 == 0 {
		return math.Float64frombits(^k)
	}
	return math.Float64frombits(k &^ (1 << 63))
}

// summarize returns the summary of xs (a block's raw values).
func summarize(xs kernels.Col) blockSummary {
	if ints, floor, ok := xs.Int32s(); ok {
		return summarizeInts(ints, floor)
	}
	e := newExtremes()
	var buf [64]float64
	for base := 0; base < xs.Len(); base += 64 {
		for i, x := range xs.Chunk(base, &buf) {
			if x < e.topMin && x > e.botMax {
				continue
			}
			if x != x {
				nan := math.NaN()
				return blockSummary{lo: nan, hi: nan}
			}
			e.add(orderKey(x), uint16(base+i))
		}
	}
	return e.summary()
}

// summarizeInts is summarize of the column of float64(max(x, floor)) for
// x in xs: in integers, which compare as their floats do, and without a
// NaN.
func summarizeInts(xs []int32, floor int32) blockSummary {
	e := newExtremes()
	i := 0
	for ; i < len(xs) && !e.add(orderKey(float64(max(xs[i], floor))), uint16(i)); i++ {
	}
	if i == len(xs) {
		return e.summary()
	}
	topMin, botMax := int32(e.topMin), int32(e.botMax)
	for i++; i < len(xs); i++ {
		if x := max(xs[i], floor); x >= topMin || x <= botMax {
			e.add(orderKey(float64(x)), uint16(i))
			topMin, botMax = int32(e.topMin), int32(e.botMax)
		}
	}
	return e.summary()
}

// extremesOf gathers a block's largest and smallest values, by their
// orderKeys, into a blockSummary.
//
// Invariants: the first n (at most extremes) entries of topK hold the
// orderKeys of the largest values added, largest first, those of s.top
// their offsets; botK and s.bottom the complements of the smallest
// (the smallest values have the largest complements); topMin and botMax
// are -Inf and +Inf until both lists are full, then the floats of
// their last keys: a value below topMin and above botMax enters neither
// (as orderKey orders floats, but for -0 against +0, which compare
// equal), so a caller rules most values out with two comparisons,
// without their keys.
type extremesOf struct {
	s              blockSummary
	topK, botK     [extremes]uint64
	n              int
	topMin, botMax float64
}

// newExtremes returns an empty extremesOf.
func newExtremes() extremesOf {
	return extremesOf{topMin: math.Inf(-1), botMax: math.Inf(1)}
}

// add takes in the value of key k at offset at, and reports whether
// both lists are full (topMin and botMax then hold their floats).
func (e *extremesOf) add(k uint64, at uint16) bool {
	if e.n < extremes || k > e.topK[extremes-1] {
		insertKey(&e.topK, &e.s.top, e.n, k, at)
	}
	if e.n < extremes || ^k > e.botK[extremes-1] {
		insertKey(&e.botK, &e.s.bottom, e.n, ^k, at)
	}
	if e.n = min(e.n+1, extremes); e.n == extremes {
		e.topMin, e.botMax = fromOrderKey(e.topK[extremes-1]), fromOrderKey(^e.botK[extremes-1])
		return true
	}
	return false
}

// summary is the summary of the values added.
func (e *extremesOf) summary() blockSummary {
	if e.n == 0 {
		return blockSummary{lo: math.Inf(1), hi: math.Inf(-1)}
	}
	s := e.s
	s.nTop, s.nBot = uint8(e.n), uint8(e.n)
	s.lo, s.hi = fromOrderKey(^e.botK[0]), fromOrderKey(e.topK[0])
	s.cnst = e.topK[0] == ^e.botK[0]
	return s
}

// insertKey inserts key k of offset at into keys and ats, largest first,
// whose first n entries (at most extremes, the last then dropped) are
// filled: after the entries it does not exceed, so that equal keys keep
// their order of arrival.
func insertKey(keys *[extremes]uint64, ats *[extremes]uint16, n int, k uint64, at uint16) {
	j := min(n, extremes-1)
	for ; j > 0 && k > keys[j-1]; j-- {
		keys[j], ats[j] = keys[j-1], ats[j-1]
	}
	keys[j], ats[j] = k, at
}

// firstIn returns the index in ats[:n] of the first offset whose bit is
// set in words (a block's candidate words), or -1.
func firstIn(ats *[extremes]uint16, n uint8, words []uint64) int {
	for i, at := range ats[:n] {
		if hasBit(words, at) {
			return i
		}
	}
	return -1
}

// hasBit reports whether bit i of words is set (false past them).
func hasBit(words []uint64, i uint16) bool {
	return int(i)/64 < len(words) && words[i/64]&(1<<(i%64)) != 0
}

// blockRange returns the [lo, hi) host range of the shard's block q.
func (sh *shard) blockRange(q int) (lo, hi int) {
	lo = q * kernels.Block
	return lo, min(lo+kernels.Block, sh.hostCount())
}

// allBlocks marks every block of a shard for statBlocks.
const allBlocks = 1<<blocksPerShard - 1

// statBlocks summarises the shard's raw columns into a new blockStats:
// for every block of a new shard (blk nil), else for the blocks of
// changed (bit q for block q) and the usage weighers only (a usage change:
// the other summaries, and the changed weighers' other blocks, are
// shared with the old blockStats). With was, the shard a compaction
// copied sh from (its columns what blk summarises), a changed block's
// summaries are updated from the hosts at sh.changed (sorted) where they
// can be (updateSummary), else summarised again.
func (sh *shard) statBlocks(changed uint64, was *shard) {
	nq := (sh.hostCount() + kernels.Block - 1) / kernels.Block
	st := &blockStats{}
	old := sh.blk
	if old != nil {
		*st = *old
	}
	var offs [kernels.Block]uint16
	for w := range numWeighers {
		if !colWeigher(w) || (old != nil && !usageWeigher(w)) {
			continue
		}
		sums := new([blocksPerShard]blockSummary)
		if old != nil {
			*sums = *old.raw[w]
		}
		col := sh.rawCol(w)
		rest := sh.changed
		for q := range nq {
			lo, hi := sh.blockRange(q)
			n := 0
			for ; was != nil && n < len(rest) && int(rest[n]) < hi; n++ {
				offs[n] = rest[n] - uint16(lo)
			}
			rest = rest[n:]
			if old != nil && changed&(1<<q) == 0 {
				continue
			}
			c := col.Slice(lo, hi)
			if was != nil {
				o := was.rawCol(w).Slice(lo, hi)
				if updateSummary(&sums[q], &o, &c, offs[:n]) {
					continue
				}
			}
			sums[q] = summarize(c)
		}
		st.raw[w] = sums
	}
	sh.blk = st
}
