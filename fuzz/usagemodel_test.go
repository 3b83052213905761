package fuzz

import (
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
)

// The usage model FuzzCommit and FuzzStore hold a Store to, written apart
// from the engine's arithmetic: Nova's consume_from_request, and Queens'
// IronicNodeState, which takes an ironic node whole.

// took is what one instance took of its host, for its deletion.
type took struct {
	flavor engine.Flavor
	whole  bool             // an ironic node, taken whole
	usage  engine.HostUsage // what a whole instance took: free RAM, free disk, vCPUs used
}

// recordOf is node hn's record in cloud (nil: none).
func recordOf(cloud *engine.Cloud, hn engine.HostNode) *engine.Host {
	for i := range cloud.Hosts {
		if h := &cloud.Hosts[i]; plandiff.NodeOf(h) == hn {
			return h
		}
	}
	return nil
}

// wholeNode reports whether h is an ironic node under cfg.
func wholeNode(cfg *engine.Config, h *engine.Host) bool {
	return cfg.HostManager == engine.HostManagerIronic && h.HypervisorType != nil && *h.HypervisorType == engine.HVTypeIronic
}

// modelConsume returns u after one instance of flavor fl on host h, and
// what it took: the flavor's RAM, disk and vCPUs, an instance and an I/O
// operation; on an ironic node all its free RAM and disk and its vCPUs
// (to its total), the counters unchanged.
func modelConsume(cfg *engine.Config, h *engine.Host, u engine.HostUsage, fl engine.Flavor) (engine.HostUsage, took) {
	if wholeNode(cfg, h) {
		t := took{flavor: fl, whole: true, usage: engine.HostUsage{FreeRAMMB: u.FreeRAMMB, FreeDiskMB: u.FreeDiskMB, VCPUsUsed: h.VCPUs - u.VCPUsUsed}}
		u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed = 0, 0, h.VCPUs
		return u, t
	}
	u.FreeRAMMB -= fl.MemoryMB
	u.FreeDiskMB -= (fl.RootGB + fl.EphemeralGB) * 1024
	u.VCPUsUsed += fl.VCPUs
	u.NumInstances++
	u.NumIOOps++
	return u, took{flavor: fl}
}

// modelRelease returns u without an instance that took t: what it took
// back (num_io_ops falls with the compute node's report, not here; an
// ironic node's counters never moved).
func modelRelease(u engine.HostUsage, t took) engine.HostUsage {
	if t.whole {
		u.FreeRAMMB += t.usage.FreeRAMMB
		u.FreeDiskMB += t.usage.FreeDiskMB
		u.VCPUsUsed -= t.usage.VCPUsUsed
		return u
	}
	u.FreeRAMMB += t.flavor.MemoryMB
	u.FreeDiskMB += (t.flavor.RootGB + t.flavor.EphemeralGB) * 1024
	u.VCPUsUsed -= t.flavor.VCPUs
	u.NumInstances--
	return u
}

// modelRecord is the usage a host record starts with: free disk the lesser
// of free_disk_gb and disk_available_least (on an ironic node free_disk_gb
// alone, and no instance or I/O counted).
func modelRecord(cfg *engine.Config, h *engine.Host) engine.HostUsage {
	if wholeNode(cfg, h) {
		return engine.HostUsage{FreeRAMMB: h.FreeRAMMB, FreeDiskMB: h.FreeDiskGB * 1024, VCPUsUsed: h.VCPUsUsed}
	}
	gb := h.FreeDiskGB
	if h.DiskAvailableLeast != nil {
		gb = min(gb, *h.DiskAvailableLeast)
	}
	return engine.HostUsage{FreeRAMMB: h.FreeRAMMB, FreeDiskMB: gb * 1024, VCPUsUsed: h.VCPUsUsed,
		NumInstances: h.NumInstances, NumIOOps: h.NumIOOps}
}
