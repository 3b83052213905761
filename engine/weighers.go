package engine

import "slices"

// The weighers are known by their index in WeigherCatalogue: a shard's
// multiplier columns (shard.mult), the dense ranker's raw columns
// (shard.rawCol) and the rankers' active weighers are indexed by it. What
// follows is what each weigher is, independently of a snapshot: its
// multiplier's name, whether its raw value is a host column, whether
// Nova clamps it at 0.

// numWeighers is the number of weighers of WeigherCatalogue.
const numWeighers = 10

// The weigher indexes, in WeigherCatalogue order.
const (
	wRAM = iota
	wCPU
	wDisk
	wIoOps
	wNumInstances
	wMetrics
	wSoftAffinity
	wSoftAntiAffinity
	wBuildFailure
	wCrossCell
)

// multiplierKeys are the aggregate metadata keys (and option names) of the
// weighers' multipliers, in WeigherCatalogue order.
var multiplierKeys = [numWeighers]string{
	"ram_weight_multiplier", "cpu_weight_multiplier", "disk_weight_multiplier",
	"io_ops_weight_multiplier", "num_instances_weight_multiplier",
	"metrics_weight_multiplier", "soft_affinity_weight_multiplier",
	"soft_anti_affinity_weight_multiplier", "build_failure_weight_multiplier",
	"cross_cell_move_weight_multiplier",
}

// weigherIndex is the index of the weigher named name (-1: none).
func weigherIndex(name string) int {
	return slices.Index(WeigherCatalogue, name)
}

// colWeigher reports whether weigher w's raw value is a function of the
// host's columns alone (not of the request, the group or the metrics
// configuration): those the shards keep a raw column of (shard.rawCol)
// and the dense ranker (dense.go) handles.
func colWeigher(w int) bool {
	switch w {
	case wRAM, wCPU, wDisk, wIoOps, wNumInstances, wBuildFailure:
		return true
	}
	return false
}

// usageWeigher reports whether a usage change (a placement, a report)
// moves column weigher w's raw value: all but BuildFailureWeigher's.
func usageWeigher(w int) bool { return colWeigher(w) && w != wBuildFailure }

// minvalZero reports whether weigher w clamps its raw values at 0 and
// normalises x/max (Nova's minval = 0).
func minvalZero(w int) bool {
	return w == wRAM || w == wCPU || w == wDisk || w == wIoOps
}
