package engine

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
	s.checkID(id)
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
	// Aggregate* filter are enabled; 1 for an Exact* filter, whose limit
	// is the total).
	RAMRatio, CPURatio, DiskRatio float64
	// MaxIOOps and MaxInstances are the io-ops and instance limits.
	MaxIOOps, MaxInstances int64
}

// Capacity returns host id's capacity under s's configuration. It panics
// when id >= s.Len().
func (s *Snapshot) Capacity(id uint32) HostCapacity {
	s.checkID(id)
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
	for _, r := range s.rules {
		switch r.res {
		case resRAM:
			lower(&c.RAMRatio, r.ratio(sh).At(j))
		case resCore:
			lower(&c.CPURatio, r.ratio(sh).At(j))
		case resDisk:
			lower(&c.DiskRatio, r.ratio(sh).At(j))
		case resIOOps:
			lowerInt(&c.MaxIOOps, r.limit(sh, j, &s.cfg))
		case resInstances:
			lowerInt(&c.MaxInstances, r.limit(sh, j, &s.cfg))
		case resExactRAM: // its limit is the total
			lower(&c.RAMRatio, 1)
		case resExactCore:
			lower(&c.CPURatio, 1)
		case resExactDisk:
			lower(&c.DiskRatio, 1)
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
