package engine

import "github.com/placer/placer/internal/nova"

// attrs fills h with what getattr(host_state, ...) returns for host id now.
func (b *batch) attrs(id uint32, h *nova.HostAttrs) {
	info := b.s.info
	sh, j := b.s.at(id)
	r := b.cur(id)
	*h = nova.HostAttrs{
		Host: info.hostOf(id), Nodename: info.nodeOf(id),
		CellUUID:  info.cellUUID[info.cell.At(id)],
		FreeRAMMB: r.freeRAM, FreeDiskMB: r.freeDiskMB,
		TotalUsableRAMMB: sh.totalRAM.At(j), TotalUsableDiskGB: sh.totalDiskGB.At(j),
		DiskMBUsed: info.diskMBUsed(id),
		VCPUsTotal: sh.vcpusTotal.At(j), VCPUsUsed: r.vcpusUsed,
		NumInstances: r.numInstances, NumIOOps: r.numIOOps, FailedBuilds: sh.failedBuilds.At(j),
		HypervisorType: info.hvType(id), HypervisorVersion: info.hvVersion(id),
		CPUInfo:            info.cpuInfo(id),
		SupportedInstances: info.supported(id),
		Stats:              info.statsOf(id), RAMAllocationRatio: sh.ramRatio.At(j),
		CPUAllocationRatio: sh.cpuRatio.At(j), DiskAllocationRatio: sh.diskRatio.At(j),
		ServiceDisabled: info.serviceDisabled != nil && info.serviceDisabled.Has(id),
		Extras:          b, ExtrasID: id,
	}
	// Where it is the node name, it points at h's own Nodename.
	h.HypervisorHostname = info.hvHostname(id, &h.Nodename)
}

// HostUUID is host id's uuid (nova.HostExtras).
func (b *batch) HostUUID(id uint32) string {
	return b.s.info.hostUUID(id)
}

// HostIP is host id's host_ip (nova.HostExtras).
func (b *batch) HostIP(id uint32) *string {
	return b.s.info.hostIP(id)
}

// HostMetrics is host id's metrics (nova.HostExtras).
func (b *batch) HostMetrics(id uint32) map[string]int64 {
	return b.s.info.metrics.Of(id)
}

// HostInstances is host id's instance uuids now: the snapshot's, then
// those of the batch's group placed there (nova.HostExtras).
func (b *batch) HostInstances(id uint32) []string {
	nid := b.s.info.instKey(id)
	us := b.s.info.instOf(nid)
	if b.group != nil {
		us = append(us, b.group.added[nid]...)
	}
	return us
}
