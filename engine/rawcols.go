package engine

// colWeigher reports whether weigher w's raw value is a function of the
// host's columns alone (not of the request, the group or the metrics
// configuration): those the shards keep a raw column of (shard.raw) and
// the dense ranker (dense.go) handles.
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

// rawOf is column weigher w's raw value (clamped to its minval, as the
// weigher sees it) for the shard's host j, computed from its columns.
func (sh *shard) rawOf(w, j int) float64 {
	switch w {
	case wRAM:
		return float64(max(sh.freeRAM[j], 0))
	case wCPU:
		return max(float64(sh.vcpusTotal[j])*sh.cpuRatio[j]-float64(sh.vcpusUsed[j]), 0)
	case wDisk:
		return float64(max(sh.freeDiskMB[j], 0))
	case wIoOps:
		return float64(max(sh.numIOOps[j], 0))
	case wNumInstances:
		return float64(sh.numInstances[j])
	case wBuildFailure:
		return float64(sh.failedBuilds[j])
	}
	panic("engine: rawOf a weigher that is not a column weigher")
}

// rawRes is column weigher w's raw value for the shard's host j when its
// usage is r (a batch's overlay).
func (sh *shard) rawRes(w, j int, r *hostRes) float64 {
	switch w {
	case wRAM:
		return float64(max(r.freeRAM, 0))
	case wCPU:
		return max(float64(sh.vcpusTotal[j])*sh.cpuRatio[j]-float64(r.vcpusUsed), 0)
	case wDisk:
		return float64(max(r.freeDiskMB, 0))
	case wIoOps:
		return float64(max(r.numIOOps, 0))
	case wNumInstances:
		return float64(r.numInstances)
	}
	return sh.raw[w][j]
}

// rawOne is column weigher w's raw value for host id on the batch's state:
// from the overlay for the hosts it holds, else the shard's raw column.
func (b *batch) rawOne(w int, id uint32) float64 {
	sh, j := b.s.at(id)
	if b.touched.Has(id) {
		return sh.rawRes(w, j, &b.res[b.touchedIdx[id]])
	}
	return sh.raw[w][j]
}

// fillRaw computes every raw column of the shard.
func (sh *shard) fillRaw() {
	for w := range numWeighers {
		if !colWeigher(w) {
			continue
		}
		if sh.raw[w] == nil {
			sh.raw[w] = make([]float64, len(sh.freeRAM))
		}
		for j := range sh.raw[w] {
			sh.raw[w][j] = sh.rawOf(w, j)
		}
	}
}

// setUsageRaw recomputes host j's raw values of the weighers a usage
// change moves.
func (sh *shard) setUsageRaw(j int) {
	for w := range numWeighers {
		if usageWeigher(w) {
			sh.raw[w][j] = sh.rawOf(w, j)
		}
	}
}

// hostCount is the number of hosts of the shard.
func (sh *shard) hostCount() int { return len(sh.freeRAM) }
