package engine

import (
	"sync"
	"sync/atomic"

	"github.com/placer/placer/internal/kernels"
)

// shard holds the columns of up to bitmap.ShardSize hosts. The first group
// of columns is what a placement consumes (int32: see usage.go); the rest
// never changes between commits of usage.
type shard struct {
	// id is the shard's own (newShardID): a shard's columns never change
	// once a snapshot holding it is published, so the verdicts kept for
	// an id hold for the shard (fitcache.go).
	id uint64

	freeRAM      []int32 // free_ram_mb
	freeDiskMB   []int32 // free_disk_mb
	vcpusUsed    []int32
	numInstances []int32
	numIOOps     []int32

	// The static columns (capacities, and those resolved from a host's
	// own fields, its aggregates and the configuration) take few distinct
	// values in a cloud: they are coded (half a byte per host) where a
	// shard's column has at most kernels.CodedValues of them, else kept
	// in full.
	totalRAM                               kernels.Coded[int64] // total_usable_ram_mb
	totalDiskGB                            kernels.Coded[int64] // total_usable_disk_gb
	vcpusTotal                             kernels.Coded[int64]
	failedBuilds                           kernels.Coded[int64]
	ramRatio, cpuRatio, diskRatio          kernels.Coded[float64] // the host's own (else config)
	aggRAMRatio, aggCPURatio, aggDiskRatio kernels.Coded[float64] // aggregate minimum, else the host's
	maxIOOps, maxInstances                 kernels.Coded[int64]   // aggregate minimum, else config

	// mult[w] is weigher w's multiplier per host (WeigherCatalogue order),
	// BuildFailureWeigher's already negated.
	mult [numWeighers]kernels.Coded[float64]

	// multOver[w] lists, in increasing order, the shard's hosts whose
	// multiplier is not Snapshot.mults.base[w] (an aggregate overrides it):
	// the dense ranker's scaled weights add their difference sparsely.
	multOver [numWeighers][]uint16

	// cpuLimit is vcpusTotal * cpuRatio (CPUWeigher's limit) and failed
	// failedBuilds: with the usage columns, what the dense ranker's
	// kernels read as the column weighers' raw values (rawCol). Each is
	// an int32 column where every value is an integer that fits (the
	// kernels then read it as fast as a usage column), else coded floats
	// (cpuLimitF, failedF; the int32 column nil).
	cpuLimit, failed   []int32
	cpuLimitF, failedF kernels.Coded[float64]

	// blk summarises the raw values (rawCol) per block of kernels.Block
	// hosts.
	blk *blockStats

	// twins caches the ratio rules' hosts to judge after their twins
	// (resources.go, twin ratio rules); shared with the shard's usage clones.
	twins *twinMasks

	// bornEscapes is the Store's escape count just before the snapshot
	// that first held these usage columns was published (recycler).
	bornEscapes uint64

	// parent is the id of the shard a compaction copied this one from (0:
	// none), and changed the hosts (offsets, increasing) whose usage it
	// set: every other host's columns are the parent's, so what was
	// computed from them for the parent holds here (rankcache.go).
	parent  uint64
	changed []uint16
}

// twinSlots numbers the six ratio rules (resourceRule.slot).
const twinSlots = 6

// twinMasks caches, per ratio rule, the shard's hosts that rule must
// still judge after its twin (resources.go): computed on first use, from
// static columns only, so a shard's usage clones share it.
type twinMasks struct {
	once  [twinSlots]sync.Once
	words [twinSlots][]uint64 // nil: no host
}

// hostCount is the number of hosts of the shard.
func (sh *shard) hostCount() int { return len(sh.freeRAM) }

// multipliers summarises each weigher's per-host multipliers: base[w] is
// the most common (bit for bit; each shard's multOver[w] lists the hosts
// whose multiplier differs from it, overs[w] counts them) and maxAbs[w] the
// largest |multiplier| of any host.
type multipliers struct {
	base, maxAbs [numWeighers]float64
	overs        [numWeighers]int
}

// zero reports whether weigher w's multiplier is 0 on every host.
func (m *multipliers) zero(w int) bool { return m.maxAbs[w] == 0 }

// uniform reports whether weigher w's multiplier is base[w] on every host
// (no aggregate overrides it).
func (m *multipliers) uniform(w int) bool { return m.overs[w] == 0 }

// shardIDs numbers the shards made in this process.
var shardIDs atomic.Uint64

// newShardID returns a shard id no shard had before.
func newShardID() uint64 { return shardIDs.Add(1) }
