package engine

import (
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// intAttrSource is where one of the integer attributes of the host state
// (nova.IntCapabilities) lives: a usage column (col, with the host's
// current value in its hostRes), a static shard column kept coded or in
// full (coded), or hostInfo's disk_mb_used (all nil).
type intAttrSource struct {
	col   func(sh *shard) []int32
	cur   func(r hostRes) int64
	coded func(sh *shard) *kernels.Coded[int64]
}

// intAttrs maps each integer attribute to its source.
var intAttrs = map[string]intAttrSource{
	"free_ram_mb": {col: func(sh *shard) []int32 { return sh.freeRAM }, cur: func(r hostRes) int64 { return r.freeRAM }},
	"free_disk_mb": {col: func(sh *shard) []int32 { return sh.freeDiskMB },
		cur: func(r hostRes) int64 { return r.freeDiskMB }},
	"vcpus_used": {col: func(sh *shard) []int32 { return sh.vcpusUsed }, cur: func(r hostRes) int64 { return r.vcpusUsed }},
	"num_instances": {col: func(sh *shard) []int32 { return sh.numInstances },
		cur: func(r hostRes) int64 { return r.numInstances }},
	"num_io_ops":           {col: func(sh *shard) []int32 { return sh.numIOOps }, cur: func(r hostRes) int64 { return r.numIOOps }},
	"total_usable_ram_mb":  {coded: func(sh *shard) *kernels.Coded[int64] { return &sh.totalRAM }},
	"total_usable_disk_gb": {coded: func(sh *shard) *kernels.Coded[int64] { return &sh.totalDiskGB }},
	"vcpus_total":          {coded: func(sh *shard) *kernels.Coded[int64] { return &sh.vcpusTotal }},
	"failed_builds":        {coded: func(sh *shard) *kernels.Coded[int64] { return &sh.failedBuilds }},
	"disk_mb_used":         {},
}

// intAttr is the value of integer attribute name for host id now, as
// attrs fills it (the batch's overlay first).
func (b *batch) intAttr(name string, id uint32) int64 {
	src, ok := intAttrs[name]
	if !ok {
		panic("engine: intAttr of " + name)
	}
	sh, j := b.s.at(id)
	switch {
	case src.cur != nil:
		return src.cur(b.cur(id))
	case src.coded != nil:
		return src.coded(sh).At(j)
	}
	return b.s.info.diskMBUsed(id)
}

// intCapPass clears in words (shard k of a candidate set) the hosts whose
// integer attribute fails c: read from the attribute's column, but for
// the hosts of the batch's overlay.
func intCapPass(b *batch, c nova.IntCapability, k int, words []uint64) {
	// The overlay's hosts still in play, before the column pass judges
	// them on the snapshot's values: they are judged again on theirs.
	touched := b.ov.in.ShardWordsOf(k)
	var was [bitmap.ShardWords]uint64
	for wi, t := range touched {
		was[wi] = t & words[wi]
	}
	sh := b.s.shards[k]
	switch src := intAttrs[c.Attr]; {
	case src.col != nil:
		lo, hi, invert := c.Int32Range()
		kernels.RangePass(words, src.col(sh), lo, hi, invert)
	case src.coded != nil:
		codedPass(words, src.coded(sh), c.Test())
	default:
		diskUsedPass(words, b.s.info, k*bitmap.ShardSize, sh.hostCount(), c.Test())
	}
	base := uint32(k * bitmap.ShardSize)
	for wi, t := range was[:len(words)] {
		for ; t != 0; t &= t - 1 {
			bit := uint64(1) << bits.TrailingZeros64(t)
			if c.Pass(b.intAttr(c.Attr, base+uint32(wi*64+bits.TrailingZeros64(t)))) {
				words[wi] |= bit
			} else {
				words[wi] &^= bit
			}
		}
	}
}

// intPass clears in words the hosts whose column value fails pass, every
// host of a word with any candidate judged, the word masked once. (An
// int32 usage column goes through kernels.RangePass instead.)
func intPass(words []uint64, col []int64, pass func(float64) bool) {
	for wi, w := range words {
		if w == 0 {
			continue
		}
		var keep uint64
		for t, v := range col[wi*64 : min(wi*64+64, len(col))] {
			if pass(float64(v)) {
				keep |= 1 << t
			}
		}
		words[wi] = w & keep
	}
}

// diskUsedPass is intPass over hostInfo's disk_mb_used of the n hosts
// from id lo, decoded a word's hosts at a time.
func diskUsedPass(words []uint64, info *hostInfo, lo, n int, pass func(float64) bool) {
	var vals [64]int64
	for wi, w := range words {
		if w == 0 {
			continue
		}
		from := lo + wi*64
		m := min(64, lo+n-from)
		for t := range m {
			vals[t] = info.diskMBUsed(uint32(from + t))
		}
		intPass(words[wi:wi+1], vals[:m], pass)
	}
}

// codedPass is intPass over a Coded column: a coded one has its (at most
// kernels.CodedValues) distinct values judged once, then each host by its
// code.
func codedPass(words []uint64, col *kernels.Coded[int64], pass func(float64) bool) {
	if full := col.Full(); full != nil || col.Len() == 0 {
		intPass(words, full, pass)
		return
	}
	var ok [kernels.CodedValues]bool
	for code, v := range col.Table() {
		ok[code] = pass(float64(v))
	}
	n := col.Len()
	for wi, w := range words {
		if w == 0 {
			continue
		}
		var keep uint64
		for i, t := wi*64, 0; t < 64 && i < n; i, t = i+1, t+1 {
			if ok[col.Code(i)] {
				keep |= 1 << t
			}
		}
		words[wi] = w & keep
	}
}
