package engine

import "math"

// A shard keeps each usage counter of its hosts in an int32 column (half
// the bytes of the int64 the counters are computed in, for the memory of
// the host state and the bandwidth of the filter passes). Nova's database
// keeps them in 32-bit integer columns too, but a cloud may report, and
// overcommitment may reach, values past them (free_disk_gb * 1024 past
// 2^31 MB): such a host's usage lives in the snapshot's usage delta
// (usageDelta), which every reader consults before the columns, and its
// column entries are never read.

// fitsColumns reports whether the shard columns can hold r.
func (r *hostRes) fitsColumns() bool {
	return fits32(r.freeRAM) && fits32(r.freeDiskMB) && fits32(r.vcpusUsed) &&
		fits32(r.numInstances) && fits32(r.numIOOps)
}

func fits32(x int64) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

// setUsage makes r host j's usage in the shard's columns and reports
// true, or, when r does not fit them, changes nothing and reports false
// (the host's usage must then be kept in the snapshot's delta).
func (sh *shard) setUsage(j int, r hostRes) bool {
	if !r.fitsColumns() {
		return false
	}
	sh.freeRAM[j], sh.freeDiskMB[j], sh.vcpusUsed[j] = int32(r.freeRAM), int32(r.freeDiskMB), int32(r.vcpusUsed)
	sh.numInstances[j], sh.numIOOps[j] = int32(r.numInstances), int32(r.numIOOps)
	return true
}

// usageAt is host j's usage in the shard's columns (not its usage in a
// snapshot whose delta holds it: see Snapshot.usage).
func (sh *shard) usageAt(j int) hostRes {
	return hostRes{int64(sh.freeRAM[j]), int64(sh.freeDiskMB[j]), int64(sh.vcpusUsed[j]),
		int64(sh.numInstances[j]), int64(sh.numIOOps[j])}
}

// consumeClaim is Nova's consume_from_request on one host's usage: what a
// placement does to its host in a batch's overlay (batch.consume) and what
// a commit does to it in the Store (Store.Commit).
func consumeClaim(r hostRes, c *Claim) hostRes {
	r.freeRAM -= c.MemoryMB
	r.freeDiskMB -= c.DiskMB
	r.vcpusUsed += c.VCPUs
	r.numInstances++
	r.numIOOps++
	return r
}

// releaseClaim undoes consumeClaim (an instance deleted). num_io_ops is not
// given back: in Nova it falls when the build task ends, which the compute
// node reports (UpdateHost).
func releaseClaim(r hostRes, c *Claim) hostRes {
	r.freeRAM += c.MemoryMB
	r.freeDiskMB += c.DiskMB
	r.vcpusUsed -= c.VCPUs
	r.numInstances--
	return r
}
