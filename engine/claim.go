package engine

import (
	"slices"

	"github.com/placer/placer/internal/kernels"
)

// claimOf is the per-instance claim of a prepared request.
func claimOf(r *Request) Claim {
	disk := (r.Flavor.RootGB + r.Flavor.EphemeralGB) * 1024
	return Claim{
		MemoryMB: r.Flavor.MemoryMB, VCPUs: r.Flavor.VCPUs,
		DiskMB: disk, DiskRequestMB: disk + r.Flavor.Swap,
	}
}

// groupClaimOf is the group of a prepared request, nil without one.
func groupClaimOf(r *Request) *GroupClaim {
	g := r.InstanceGroup
	if g == nil {
		return nil
	}
	gc := &GroupClaim{UUID: g.UUID, Policy: g.Policy, MaxServerPerHost: g.MaxServerPerHost}
	if gc.MaxServerPerHost == 0 {
		gc.MaxServerPerHost = 1
	}
	// Nova counts set(group.members): each member once, however often
	// the request lists it (the planner's groupState is a set too).
	seen := make(map[string]bool, len(g.Members)+len(r.InstanceUUIDs))
	for _, u := range slices.Concat(g.Members, r.InstanceUUIDs) {
		if !seen[u] {
			seen[u] = true
			gc.Members = append(gc.Members, u)
		}
	}
	return gc
}

// HostUsage is the part of a host's state that placements consume and
// compute nodes report: Nova's free_ram_mb, free_disk_mb, vcpus_used,
// num_instances and num_io_ops.
type HostUsage struct {
	FreeRAMMB    int64
	FreeDiskMB   int64
	VCPUsUsed    int64
	NumInstances int64
	NumIOOps     int64
}

// Usage returns host id's usage in s. It panics when id >= s.Len().
func (s *Snapshot) Usage(id uint32) HostUsage {
	r := s.usage(id)
	return HostUsage{r.freeRAM, r.freeDiskMB, r.vcpusUsed, r.numInstances, r.numIOOps}
}

// HostCapacity is what a host's usage is checked against: its totals and
// the limits the enabled resource filters compute. A limit the enabled
// filters do not enforce is 0 (ratios) or -1 (counts).
type HostCapacity struct {
	MemoryMB, VCPUs, LocalGB int64
	// RAMRatio, CPURatio and DiskRatio are the allocation ratios the
	// enabled filters use (the smaller one when both the plain and the
	// Aggregate* filter are enabled).
	RAMRatio, CPURatio, DiskRatio float64
	// MaxIOOps and MaxInstances are the io-ops and instance limits.
	MaxIOOps, MaxInstances int64
}

// Capacity returns host id's capacity under s's configuration.
func (s *Snapshot) Capacity(id uint32) HostCapacity {
	sh, j := s.at(id)
	c := HostCapacity{MemoryMB: sh.totalRAM.At(j), VCPUs: sh.vcpusTotal.At(j), LocalGB: sh.totalDiskGB.At(j), MaxIOOps: -1, MaxInstances: -1}
	lower := func(cur *float64, v float64) {
		if *cur == 0 || v < *cur {
			*cur = v
		}
	}
	lowerInt := func(cur *int64, v int64) {
		if *cur < 0 || v < *cur {
			*cur = v
		}
	}
	for _, f := range s.cfg.Filters {
		switch f {
		case RamFilter:
			lower(&c.RAMRatio, sh.ramRatio.At(j))
		case AggregateRamFilter:
			lower(&c.RAMRatio, sh.aggRAMRatio.At(j))
		case CoreFilter:
			lower(&c.CPURatio, sh.cpuRatio.At(j))
		case AggregateCoreFilter:
			lower(&c.CPURatio, sh.aggCPURatio.At(j))
		case DiskFilter:
			lower(&c.DiskRatio, sh.diskRatio.At(j))
		case AggregateDiskFilter:
			lower(&c.DiskRatio, sh.aggDiskRatio.At(j))
		case IoOpsFilter:
			lowerInt(&c.MaxIOOps, s.cfg.MaxIoOpsPerHost)
		case AggregateIoOpsFilter:
			lowerInt(&c.MaxIOOps, sh.maxIOOps.At(j))
		case NumInstancesFilter:
			lowerInt(&c.MaxInstances, s.cfg.MaxInstancesPerHost)
		case AggregateNumInstancesFilter:
			lowerInt(&c.MaxInstances, sh.maxInstances.At(j))
		}
	}
	return c
}

// Exceeds reports whether usage u is beyond c's limits: more RAM, vCPUs or
// disk used than total × ratio, or more io-ops or instances than allowed.
// (The io-ops and instance filters refuse a host at the limit; a host may
// reach it.)
func (c HostCapacity) Exceeds(u HostUsage) bool {
	if c.RAMRatio > 0 && float64(c.MemoryMB-u.FreeRAMMB) > float64(c.MemoryMB)*c.RAMRatio {
		return true
	}
	if c.CPURatio > 0 && c.VCPUs > 0 && float64(u.VCPUsUsed) > float64(c.VCPUs)*c.CPURatio {
		return true
	}
	if c.DiskRatio > 0 && float64(c.LocalGB*1024-u.FreeDiskMB) > float64(c.LocalGB*1024)*c.DiskRatio {
		return true
	}
	if c.MaxIOOps >= 0 && u.NumIOOps > c.MaxIOOps {
		return true
	}
	return c.MaxInstances >= 0 && u.NumInstances > c.MaxInstances
}

// claimFits re-runs the enabled resource filters (RAM, core, disk, io-ops,
// instance count, plain and Aggregate*) for one instance of c on host id
// whose current usage is r. It returns the first failing filter's name.
func (s *Snapshot) claimFits(id uint32, r hostRes, c *Claim) (bool, string) {
	sh, j := s.at(id)
	for _, f := range s.cfg.Filters {
		var ok bool
		switch f {
		case RamFilter:
			ok = kernels.RAMPasses(sh.totalRAM.At(j), r.freeRAM, sh.ramRatio.At(j), c.MemoryMB)
		case AggregateRamFilter:
			ok = kernels.RAMPasses(sh.totalRAM.At(j), r.freeRAM, sh.aggRAMRatio.At(j), c.MemoryMB)
		case CoreFilter:
			ok = kernels.CorePasses(sh.vcpusTotal.At(j), r.vcpusUsed, sh.cpuRatio.At(j), c.VCPUs)
		case AggregateCoreFilter:
			ok = kernels.CorePasses(sh.vcpusTotal.At(j), r.vcpusUsed, sh.aggCPURatio.At(j), c.VCPUs)
		case DiskFilter:
			ok = kernels.DiskPasses(sh.totalDiskGB.At(j), r.freeDiskMB, sh.diskRatio.At(j), c.DiskRequestMB)
		case AggregateDiskFilter:
			ok = kernels.DiskPasses(sh.totalDiskGB.At(j), r.freeDiskMB, sh.aggDiskRatio.At(j), c.DiskRequestMB)
		case IoOpsFilter:
			ok = r.numIOOps < s.cfg.MaxIoOpsPerHost
		case AggregateIoOpsFilter:
			ok = r.numIOOps < sh.maxIOOps.At(j)
		case NumInstancesFilter:
			ok = r.numInstances < s.cfg.MaxInstancesPerHost
		case AggregateNumInstancesFilter:
			ok = r.numInstances < sh.maxInstances.At(j)
		default:
			continue
		}
		if !ok {
			return false, f
		}
	}
	return true, ""
}

// consumeRes is consume_from_request on one host's usage.
func consumeRes(r hostRes, c *Claim) hostRes {
	r.freeRAM -= c.MemoryMB
	r.freeDiskMB -= c.DiskMB
	r.vcpusUsed += c.VCPUs
	r.numInstances++
	r.numIOOps++
	return r
}

// releaseRes undoes consumeRes (an instance deleted). num_io_ops is not
// given back: in Nova it falls when the build task ends, which the compute
// node reports (UpdateHost).
func releaseRes(r hostRes, c *Claim) hostRes {
	r.freeRAM += c.MemoryMB
	r.freeDiskMB += c.DiskMB
	r.vcpusUsed -= c.VCPUs
	r.numInstances--
	return r
}

// Utilization is the used fraction of a cloud's RAM, vCPUs and disk.
type Utilization struct {
	RAM, VCPU, Disk float64
}

// Utilization sums every host's usage against its capacity (0 for a
// resource no host has).
func (s *Snapshot) Utilization() Utilization {
	var ram, ramTot, cpu, cpuTot, disk, diskTot float64
	for id := range uint32(s.Len()) {
		u, c := s.Usage(id), s.Capacity(id)
		ram += float64(c.MemoryMB - u.FreeRAMMB)
		ramTot += float64(c.MemoryMB)
		cpu += float64(u.VCPUsUsed)
		cpuTot += float64(c.VCPUs)
		disk += float64(c.LocalGB*1024 - u.FreeDiskMB)
		diskTot += float64(c.LocalGB * 1024)
	}
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	return Utilization{RAM: div(ram, ramTot), VCPU: div(cpu, cpuTot), Disk: div(disk, diskTot)}
}

// Map is u keyed "ram", "vcpu" and "disk", as reports print it.
func (u Utilization) Map() map[string]float64 {
	return map[string]float64{"ram": u.RAM, "vcpu": u.VCPU, "disk": u.Disk}
}
