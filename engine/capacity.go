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
// the limits the enabled resource filters compute. Enforced says which
// limits an enabled filter enforces; one that none does reads 0 (ratios)
// or -1 (counts), values an enforcing filter may hold too (an aggregate's
// ratio of 0 or count of -1, which Nova applies as they are).
type HostCapacity struct {
	MemoryMB, VCPUs, LocalGB int64
	// RAMRatio, CPURatio and DiskRatio are the allocation ratios the
	// enabled filters use (the smaller one when both the plain and the
	// Aggregate* filter are enabled; 1 for an Exact* filter, whose limit
	// is the total).
	RAMRatio, CPURatio, DiskRatio float64
	// MaxIOOps and MaxInstances are the io-ops and instance limits.
	MaxIOOps, MaxInstances int64
	// Enforced says which of the limits above an enabled filter enforces.
	Enforced Enforced
}

// Enforced says which of a host's limits (HostCapacity) an enabled
// resource filter enforces.
type Enforced struct {
	RAM, CPU, Disk, IOOps, Instances bool
}

// Capacity returns host id's capacity under s's configuration. It panics
// when id >= s.Len().
func (s *Snapshot) Capacity(id uint32) HostCapacity {
	s.checkID(id)
	sh, j := s.at(id)
	c := HostCapacity{MemoryMB: sh.totalRAM.At(j), VCPUs: sh.vcpusTotal.At(j), LocalGB: sh.totalDiskGB.At(j), MaxIOOps: -1, MaxInstances: -1}
	e := &c.Enforced
	// The smallest of the enforcing rules' values.
	lower := func(set *bool, cur *float64, v float64) {
		if !*set || v < *cur {
			*cur, *set = v, true
		}
	}
	lowerInt := func(set *bool, cur *int64, v int64) {
		if !*set || v < *cur {
			*cur, *set = v, true
		}
	}
	for _, r := range s.rules {
		switch r.res {
		case resRAM:
			lower(&e.RAM, &c.RAMRatio, r.ratio(sh).At(j))
		case resCore:
			lower(&e.CPU, &c.CPURatio, r.ratio(sh).At(j))
		case resDisk:
			lower(&e.Disk, &c.DiskRatio, r.ratio(sh).At(j))
		case resIOOps:
			lowerInt(&e.IOOps, &c.MaxIOOps, r.limit(sh, j, &s.cfg))
		case resInstances:
			lowerInt(&e.Instances, &c.MaxInstances, r.limit(sh, j, &s.cfg))
		case resExactRAM: // its limit is the total
			lower(&e.RAM, &c.RAMRatio, 1)
		case resExactCore:
			lower(&e.CPU, &c.CPURatio, 1)
		case resExactDisk:
			lower(&e.Disk, &c.DiskRatio, 1)
		}
	}
	return c
}

// Exceeds reports whether usage u is beyond c's limits: more RAM, vCPUs or
// disk used than total × ratio, or more io-ops or instances than allowed.
// (The io-ops and instance filters refuse a host at the limit; a host may
// reach it.)
func (c HostCapacity) Exceeds(u HostUsage) bool {
	e := &c.Enforced
	if e.RAM && float64(c.MemoryMB-u.FreeRAMMB) > float64(float64(c.MemoryMB)*c.RAMRatio) {
		return true
	}
	if e.CPU && c.VCPUs > 0 && float64(u.VCPUsUsed) > float64(float64(c.VCPUs)*c.CPURatio) {
		return true
	}
	if e.Disk && float64(c.LocalGB*1024-u.FreeDiskMB) > float64(float64(c.LocalGB*1024)*c.DiskRatio) {
		return true
	}
	if e.IOOps && u.NumIOOps > c.MaxIOOps {
		return true
	}
	return e.Instances && u.NumInstances > c.MaxInstances
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
