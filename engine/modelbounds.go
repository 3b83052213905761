package engine

import (
	"maps"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/kernels"
)

// Seeds by model. A block's summary bounds its candidates' raw values by
// those of every host of the block, and the largest hosts of a cloud tend
// to be one hardware model: a request whose static filters rule that model
// out (an image asking for an older hypervisor, a capability spec on the
// CPU vendor or its features) found a seed above its candidates' extreme
// in nearly every block, and bounds refined every leaf of RAM, CPU and
// disk one block at a time. On the synthetic realistic stream (50,000
// hosts, 98 blocks), ~15% of the requests refined 325-588 leaves each:
// three quarters of the 1.5 million refinements of 20,000 requests. So a
// hostInfo groups its hosts by hypervisor model (hostInfo.hvModel: type,
// version and cpu_info), each shard's column weighers are summarised per
// block and model (modelBounds, computed on first use, kept per shard id),
// and seed takes the extremes of the models of the request's candidates
// that the block holds, where the models the summary finds its extremes on
// are not among them (modelBounds.holds). A block without a candidate is
// seeded exact and empty (+Inf, -Inf), as restat leaves it, where its
// summary used to cost a refinement. The same 20,000 requests refine 0.40
// million leaves, 58% of them NumInstancesWeigher's (its extremes are
// usage's, not a model's). Paired runs of the realistic Scheduler stream
// (8 workers, one CPU each) read 1.057x and 1.085x, each the median of
// six.
//
// The seeds stay bounds: a candidate of model c in block q holds a raw
// value (from its columns; the exceptions are widened in as before,
// seedExceptions) between the smallest and the largest of model c's hosts
// of the block, since those cover every host of the block. A
// compaction's copy of a shard widens its parent's summaries by the
// hosts it changed (build), as every other host holds its parent's
// values.

// maxBoundModels is the most hypervisor models a cloud may have for the
// seeds to tell them apart (a model is a bit of a block's mask).
const maxBoundModels = 16

// modelGroups is a hostInfo's hosts grouped by hypervisor model for the
// lazy bounds' seeds, with the per-shard summaries computed so far.
//
// Invariants: of is the hostInfo's hvModel column (host id's model); the
// words of block q and model c (wordsOf) hold exactly the block's hosts
// of model c; inBlock[q] has bit c set exactly when block q holds a host
// of model c. A modelBounds in shards is never modified once stored.
type modelGroups struct {
	nc      int
	of      *hostcols.Idx
	words   []uint64
	inBlock []uint16

	// shards holds the summaries computed so far by shard id: a map
	// never modified once stored (readers take it without a lock; a
	// writer, under mu, stores a copy with its change).
	shards  atomic.Pointer[map[uint64]*modelBounds]
	mu      sync.Mutex
	derived int // shards derived from their parent's (tests; under mu)
}

// modelBounds summarises one shard's column weighers per block and
// model: lo[w][b*nc+c] and hi[w][b*nc+c] are the smallest and largest of
// weigher w's raw values (rawCol) over the hosts of model c in the shard's
// block b (+Inf and -Inf for a model the block lacks; NaN when one of
// them is NaN) when widened is 0, else bounds of them: at most the
// smallest, at least the largest.
//
// ext[w][b] has bit c set when model c holds the largest of weigher w's
// raw values in block b as the shard's summary locates it (its top[0]),
// and bit 16+c when it holds the smallest (its bottom[0]); 0 where the
// summary locates none (a NaN in the block); anyExt[b] has bit c set
// when model c holds any of those extremes.
type modelBounds struct {
	id      uint64
	widened uint8 // how many derivations in a row widened it (build)
	lo, hi  [numWeighers][]float64
	ext     [numWeighers][]uint32
	anyExt  []uint16
}

// models returns info's hosts grouped by hypervisor model, built on
// first use; nil when there are fewer than two models or more than
// maxBoundModels.
func (info *hostInfo) models() *modelGroups {
	info.modelsOnce.Do(func() { info.modelGroups = newModelGroups(info) })
	return info.modelGroups
}

// newModelGroups groups info's hosts by hypervisor model (nil: fewer
// than two, or more than maxBoundModels).
func newModelGroups(info *hostInfo) *modelGroups {
	nc, n := len(info.hvModels), info.hvModel.Len()
	if nc < 2 || nc > maxBoundModels {
		return nil
	}
	nb := (n + kernels.Block - 1) / kernels.Block
	mg := &modelGroups{nc: nc, of: &info.hvModel, words: make([]uint64, nb*nc*wordsPerBlock),
		inBlock: make([]uint16, nb)}
	mg.shards.Store(&map[uint64]*modelBounds{})
	for id := range n {
		c := int(info.hvModel.At(uint32(id)))
		q, i := id/kernels.Block, id%kernels.Block
		mg.words[(q*nc+c)*wordsPerBlock+i/64] |= 1 << (i % 64)
		mg.inBlock[q] |= 1 << c
	}
	return mg
}

// model is host id's model.
func (mg *modelGroups) model(id int) int { return int(mg.of.At(uint32(id))) }

// wordsOf returns the words of block q's hosts of model c.
func (mg *modelGroups) wordsOf(q, c int) []uint64 {
	return mg.words[(q*mg.nc+c)*wordsPerBlock:][:wordsPerBlock]
}

// meets reports whether words a and b (at least as long) share a bit.
func meets(a, b []uint64) bool {
	for i, w := range a {
		if w&b[i] != 0 {
			return true
		}
	}
	return false
}

// present returns the models of the candidates in (a host set's
// words): a model's words are ANDed with in's, block after block, until
// one holds a candidate.
func (mg *modelGroups) present(in []uint64) (present uint16) {
	for c := range mg.nc {
		for q := range mg.inBlock {
			ws := in[q*wordsPerBlock : min((q+1)*wordsPerBlock, len(in))]
			if mg.inBlock[q]&(1<<c) != 0 && meets(ws, mg.wordsOf(q, c)) {
				present |= 1 << c
				break
			}
		}
	}
	return present
}

// shard returns shard k of s summarised per block and model: kept from
// an earlier call for the same shard, derived from its parent's, or
// computed (build).
func (mg *modelGroups) shard(s *Snapshot, k int) *modelBounds {
	sh := s.shards[k]
	kept := *mg.shards.Load()
	if mb := kept[sh.id]; mb != nil {
		return mb
	}
	var parent *modelBounds
	if sh.parent != 0 {
		parent = kept[sh.parent]
	}
	mb, derived := mg.build(s, k, parent)
	mg.mu.Lock()
	defer mg.mu.Unlock()
	old := *mg.shards.Load()
	next := make(map[uint64]*modelBounds, len(old)+1)
	if len(old) >= 2*len(s.shards) {
		// Forget the shards s no longer holds (a compaction's copies
		// replace them) but their parents.
		for _, x := range s.shards {
			for _, id := range []uint64{x.id, x.parent} {
				if m := old[id]; m != nil {
					next[id] = m
				}
			}
		}
	} else {
		maps.Copy(next, old)
	}
	next[sh.id] = mb
	mg.shards.Store(&next)
	if derived {
		mg.derived++
	}
	return mb
}

// maxWidened is how many compactions in a row a shard's summaries by
// model are derived from its parent's by widening them (build) before
// they are computed again: a widened bound only grows looser (a host
// that held a model's extreme and moved off it still counts), and a
// loose leaf costs a refinement when it comes to the root.
const maxWidened = 8

// build computes shard k's modelBounds; with parent's (nil: none), it
// derives them instead, widened by the raw values of the hosts the
// shard changed (shard.changed: every other host's are the parent's),
// unless parent is widened maxWidened times already. derived reports
// whether it did.
func (mg *modelGroups) build(s *Snapshot, k int, parent *modelBounds) (mb *modelBounds, derived bool) {
	sh := s.shards[k]
	n, nc := sh.hostCount(), mg.nc
	nbk := (n + kernels.Block - 1) / kernels.Block
	if parent == nil || len(parent.hi[wRAM]) != nbk*nc || parent.widened >= maxWidened {
		return mg.compute(s, k), false
	}
	mb = &modelBounds{id: sh.id, widened: parent.widened + 1}
	base := k * bitmap.ShardSize
	for w := range numWeighers {
		if !colWeigher(w) {
			continue
		}
		lo, hi := slices.Clone(parent.lo[w]), slices.Clone(parent.hi[w])
		col := sh.rawCol(w)
		for _, j := range sh.changed {
			i := int(j)/kernels.Block*nc + mg.model(base+int(j))
			x := col.At(int(j))
			lo[i], hi[i] = min(lo[i], x), max(hi[i], x)
		}
		mb.lo[w], mb.hi[w] = lo, hi
	}
	mg.locate(mb, sh, k)
	return mb, true
}

// compute computes shard k's modelBounds from its columns: each model's
// hosts of a block through the masked kernel that computes a block's
// statistics over its candidates.
func (mg *modelGroups) compute(s *Snapshot, k int) *modelBounds {
	sh := s.shards[k]
	n, nc := sh.hostCount(), mg.nc
	nbk := (n + kernels.Block - 1) / kernels.Block
	mb := &modelBounds{id: sh.id}
	base := k * bitmap.ShardSize
	for w := range numWeighers {
		if !colWeigher(w) {
			continue
		}
		lo, hi := make([]float64, nbk*nc), make([]float64, nbk*nc)
		col := sh.rawCol(w)
		for b := range nbk {
			from, to := b*kernels.Block, min((b+1)*kernels.Block, n)
			xs, q := col.Slice(from, to), (base+from)/kernels.Block
			for c := range nc {
				i := b*nc + c
				if mg.inBlock[q]&(1<<c) == 0 {
					lo[i], hi[i] = math.Inf(1), math.Inf(-1)
					continue
				}
				kernels.MinMaxMasked(xs, mg.wordsOf(q, c)[:(to-from+63)/64], lo[i:i+1], hi[i:i+1])
			}
		}
		mb.lo[w], mb.hi[w] = lo, hi
	}
	mg.locate(mb, sh, k)
	return mb
}

// locate sets mb.ext from the block summaries of sh (shard k).
func (mg *modelGroups) locate(mb *modelBounds, sh *shard, k int) {
	nbk := (sh.hostCount() + kernels.Block - 1) / kernels.Block
	mb.anyExt = make([]uint16, nbk)
	for w := range numWeighers {
		if !colWeigher(w) {
			continue
		}
		ext := make([]uint32, nbk)
		for b := range ext {
			sum := &sh.blk.raw[w][b]
			first := k*bitmap.ShardSize + b*kernels.Block
			if sum.nTop > 0 {
				ext[b] |= 1 << mg.model(first+int(sum.top[0]))
			}
			if sum.nBot > 0 {
				ext[b] |= 1 << 16 << mg.model(first+int(sum.bottom[0]))
			}
			mb.anyExt[b] |= uint16(ext[b]) | uint16(ext[b]>>16)
		}
		mb.ext[w] = ext
	}
}

// bounds returns weigher w's extremes over the models present of the
// shard's block b.
func (mb *modelBounds) bounds(w, b, nc int, present uint16) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	los, his := mb.lo[w][b*nc:(b+1)*nc], mb.hi[w][b*nc:(b+1)*nc]
	for t := present; t != 0; t &= t - 1 {
		c := bits.TrailingZeros16(t)
		lo, hi = min(lo, los[c]), max(hi, his[c])
	}
	return lo, hi
}

// holds reports whether the models present in the shard's block b hold
// its hosts' largest raw value of weigher w (and, unless hiOnly, their
// smallest) as the block's summary locates them: the models' bounds are
// then the summary's.
func (mb *modelBounds) holds(w, b int, present uint16, hiOnly bool) bool {
	e := mb.ext[w][b]
	return present&uint16(e) != 0 && (hiOnly || present&uint16(e>>16) != 0)
}

// modelBounds returns shard k's summaries by model, looked up once per
// shard and refresh.
func (rk *denseRanker) modelBounds(k int) *modelBounds {
	s := rk.v.snap()
	mb := rk.mbs[k]
	if mb == nil || mb.id != s.shards[k].id {
		mb = rk.mg.shard(s, k)
		rk.mbs[k] = mb
	}
	return mb
}

// startSeeds readies the ranker's seeds' models for its snapshot.
func (rk *denseRanker) startSeeds() {
	s := rk.v.snap()
	rk.mg = s.info.models()
	if rk.mg == nil || rk.mg.of.Len() != s.n || rk.opts.noModelSeeds {
		rk.mg = nil
		return
	}
	if cap(rk.mbs) < len(s.shards) {
		rk.mbs = make([]*modelBounds, len(s.shards))
	}
	rk.mbs = rk.mbs[:len(s.shards)]
	rk.candModels = rk.mg.present(rk.in)
}
