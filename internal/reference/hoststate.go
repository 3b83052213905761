package reference

import (
	"crypto/sha1"
	"fmt"
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/nova"
)

// HostState is nova.scheduler.host_manager.HostState for one compute node:
// the node's resources as consumption changes them, what the filters and
// weighers read, and the limits the resource filters leave on it.
type HostState struct {
	// Index is the node's position in Cloud.Hosts (its dense id).
	Index int
	// Host and Nodename name the node; Cell is its cell's name and
	// CellUUID the uuid Nova would know it by.
	Host, Nodename, UUID, Cell, CellUUID string

	// Resources, as _update_from_compute_node fills them.
	TotalUsableRAMMB  int64
	TotalUsableDiskGB int64
	DiskMBUsed        int64
	FreeRAMMB         int64
	FreeDiskMB        int64
	VCPUsTotal        int64
	VCPUsUsed         int64

	// Counters: num_instances, io_workload and failed_builds of the
	// compute node's stats.
	NumInstances int64
	NumIOOps     int64
	FailedBuilds int64

	// Hypervisor description.
	HostIP             *string
	HypervisorType     *string
	HypervisorVersion  *int64
	HypervisorHostname *string
	CPUInfo            *string
	// SupportedInstances are the canonical (arch, hv_type, vm_mode)
	// triples, as HVSpec.to_list gives them.
	SupportedInstances [][3]string

	// Allocation ratios: the node's own, else the configuration's.
	RAMAllocationRatio  float64
	CPUAllocationRatio  float64
	DiskAllocationRatio float64

	// Stats is the compute node's stats dict, with the num_instances,
	// io_workload and failed_builds counters as strings (never updated by
	// consumption, as in Nova).
	Stats map[string]string
	// Metrics are the monitor metrics as the scheduler sees them.
	Metrics map[string]int64
	// NoMetrics is HostState.metrics being None: an IronicNodeState never
	// sets it.
	NoMetrics bool
	// Ironic marks an IronicNodeState (ironic_host_manager.py, Queens):
	// a node of hypervisor_type 'ironic' under the ironic host manager. Its
	// update from the compute node and its consumption are
	// IronicNodeState's.
	Ironic bool
	// Service is the node's compute service.
	Service engine.Service

	// Limits is HostState.limits: mutated by the resource filters, kept
	// across the instances of a request.
	Limits engine.Limits

	// Instances are the instances on the host, shared by every node of
	// one host name (Nova hands them the same dict).
	Instances *InstanceSet

	// AggMeta is aggregate_metadata_get_by_host over the host's
	// aggregates: key -> comma-split, stripped values.
	AggMeta nova.AggregateMetadata
	// AggRaw is aggregate_values_from_key for every key: key -> the
	// distinct raw metadata values of the host's aggregates.
	AggRaw map[string][]string
}

// InstanceSet is HostState.instances: instance uuids in insertion order.
type InstanceSet struct {
	order []string
	has   map[string]bool
}

// Has reports whether uuid is on the host.
func (s *InstanceSet) Has(uuid string) bool { return s.has[uuid] }

// Add puts uuid on the host (no-op if it is there).
func (s *InstanceSet) Add(uuid string) {
	if s.has[uuid] {
		return
	}
	s.has[uuid] = true
	s.order = append(s.order, uuid)
}

// List returns the uuids in insertion order (the caller must not modify
// it).
func (s *InstanceSet) List() []string { return s.order }

// buildHostStates is HostManager._get_host_states followed by
// HostState.update for every node of the cloud, in cloud order.
func buildHostStates(c *engine.Cloud) ([]*HostState, error) {
	cfg := &c.Config
	// Aggregates by host name, as host_aggregates_map keeps them.
	aggsOf := map[string][]int{}
	for a, agg := range c.Aggregates {
		for _, name := range agg.Hosts {
			if !containsInt(aggsOf[name], a) {
				aggsOf[name] = append(aggsOf[name], a)
			}
		}
	}
	type aggInfo struct {
		meta nova.AggregateMetadata
		raw  map[string][]string
	}
	aggByName := map[string]*aggInfo{}
	instByName := map[string]*InstanceSet{}

	states := make([]*HostState, len(c.Hosts))
	for i := range c.Hosts {
		h := &c.Hosts[i]
		node := h.Node
		if node == "" {
			node = h.Host
		}
		cell := h.Cell
		if cell == "" {
			cell = "cell1"
		}
		uuid := h.UUID
		if uuid == "" {
			uuid = madeUpUUID("host", h.Host, node)
		}
		hs := &HostState{
			Index: i, Host: h.Host, Nodename: node, UUID: uuid,
			Cell: cell, CellUUID: madeUpUUID("cell", cell),
			Service: h.Service,
		}
		// IronicHostManager.host_state_cls: an IronicNodeState for a
		// compute node whose hypervisor_type is exactly 'ironic'.
		hs.Ironic = cfg.HostManager == engine.HostManagerIronic &&
			h.HypervisorType != nil && *h.HypervisorType == engine.HVTypeIronic
		if hs.Ironic {
			hs.ironicUpdateFromComputeNode(cfg, h)
		} else {
			hs.updateFromComputeNode(cfg, h)
		}
		hs.HypervisorHostname = h.HypervisorHostname
		if hs.HypervisorHostname == nil {
			n := node
			hs.HypervisorHostname = &n
		}
		for j, spec := range h.SupportedInstances {
			cs, err := nova.CanonicalHVSpec([3]string{spec.Arch, spec.HVType, spec.VMMode})
			if err != nil {
				return nil, &engine.ValidationError{
					Field: fmt.Sprintf("hosts[%d].supported_instances[%d]", i, j),
					Msg:   "Nova refuses it: " + err.Error()}
			}
			hs.SupportedInstances = append(hs.SupportedInstances, cs)
		}
		hs.Stats = make(map[string]string, len(h.Stats)+3)
		for k, v := range h.Stats {
			hs.Stats[k] = v
		}
		hs.Stats["num_instances"] = strconv.FormatInt(h.NumInstances, 10)
		hs.Stats["io_workload"] = strconv.FormatInt(h.NumIOOps, 10)
		hs.Stats["failed_builds"] = strconv.FormatInt(h.FailedBuilds, 10)
		m, err := nova.SchedulerMetrics(h.Metrics)
		if err != nil {
			return nil, &engine.ValidationError{Field: fmt.Sprintf("hosts[%d].metrics", i), Msg: err.Error()}
		}
		if !hs.Ironic {
			hs.Metrics = m
		}

		if hs.Ironic {
			// IronicHostManager._get_instance_info: an ironic node is
			// handed a fresh empty dict, its own, whatever runs there.
			hs.Instances = &InstanceSet{has: map[string]bool{}}
		} else {
			inst := instByName[h.Host]
			if inst == nil {
				inst = &InstanceSet{has: map[string]bool{}}
				instByName[h.Host] = inst
			}
			for _, u := range h.Instances {
				inst.Add(u)
			}
			hs.Instances = inst
		}

		ai := aggByName[h.Host]
		if ai == nil {
			ai = &aggInfo{raw: map[string][]string{}}
			var metas []map[string]string
			for _, a := range aggsOf[h.Host] {
				md := c.Aggregates[a].Metadata
				metas = append(metas, md)
				for k, v := range md {
					if !containsStr(ai.raw[k], v) {
						ai.raw[k] = append(ai.raw[k], v)
					}
				}
			}
			ai.meta = nova.MetadataByHost(metas)
			aggByName[h.Host] = ai
		}
		hs.AggMeta, hs.AggRaw = ai.meta, ai.raw
		states[i] = hs
	}
	return states, nil
}

// updateFromComputeNode is HostState._update_from_compute_node: free disk
// capped by disk_available_least, the counters from the stats, host_ip.
// (The metrics are set by the caller.)
func (hs *HostState) updateFromComputeNode(cfg *engine.Config, h *engine.Host) {
	freeGB := h.FreeDiskGB
	if h.DiskAvailableLeast != nil {
		freeGB = min(*h.DiskAvailableLeast, freeGB)
	}
	hs.TotalUsableRAMMB = h.MemoryMB
	hs.TotalUsableDiskGB = h.LocalGB
	hs.DiskMBUsed = (h.LocalGB - h.FreeDiskGB) * 1024
	hs.FreeRAMMB = h.FreeRAMMB
	hs.FreeDiskMB = freeGB * 1024
	hs.VCPUsTotal = h.VCPUs
	hs.VCPUsUsed = h.VCPUsUsed
	hs.NumInstances = h.NumInstances
	hs.NumIOOps = h.NumIOOps
	hs.FailedBuilds = h.FailedBuilds
	hs.HostIP = h.HostIP
	hs.HypervisorType = h.HypervisorType
	hs.HypervisorVersion = h.HypervisorVersion
	hs.CPUInfo = h.CPUInfo
	hs.RAMAllocationRatio = ratioOr(h.RAMAllocationRatio, cfg.RAMAllocationRatio)
	hs.CPUAllocationRatio = ratioOr(h.CPUAllocationRatio, cfg.CPUAllocationRatio)
	hs.DiskAllocationRatio = ratioOr(h.DiskAllocationRatio, cfg.DiskAllocationRatio)
}

// ironicUpdateFromComputeNode is IronicNodeState._update_from_compute_node
// (queens-eol): free_disk_mb is free_disk_gb * 1024 (disk_available_least
// is not read); disk_mb_used, num_instances, num_io_ops and host_ip are
// never set, so they keep HostState's initial 0, 0, 0 and None; metrics
// stay None; failed_builds comes from the stats (the stable-only fix
// d26dc0ca03). The rest is as for a HostState.
func (hs *HostState) ironicUpdateFromComputeNode(cfg *engine.Config, h *engine.Host) {
	hs.VCPUsTotal = h.VCPUs
	hs.VCPUsUsed = h.VCPUsUsed
	hs.FreeRAMMB = h.FreeRAMMB
	hs.TotalUsableRAMMB = h.MemoryMB
	hs.FreeDiskMB = h.FreeDiskGB * 1024
	hs.TotalUsableDiskGB = h.LocalGB
	hs.HypervisorType = h.HypervisorType
	hs.HypervisorVersion = h.HypervisorVersion
	hs.CPUInfo = h.CPUInfo
	hs.RAMAllocationRatio = ratioOr(h.RAMAllocationRatio, cfg.RAMAllocationRatio)
	hs.CPUAllocationRatio = ratioOr(h.CPUAllocationRatio, cfg.CPUAllocationRatio)
	hs.DiskAllocationRatio = ratioOr(h.DiskAllocationRatio, cfg.DiskAllocationRatio)
	hs.FailedBuilds = h.FailedBuilds
	hs.NoMetrics = true
}

// attrs is what getattr(host_state, name) sees right now.
func (h *HostState) attrs() *nova.HostAttrs {
	return &nova.HostAttrs{
		Host: h.Host, Nodename: h.Nodename, UUID: h.UUID, CellUUID: h.CellUUID,
		FreeRAMMB: h.FreeRAMMB, FreeDiskMB: h.FreeDiskMB,
		TotalUsableRAMMB: h.TotalUsableRAMMB, TotalUsableDiskGB: h.TotalUsableDiskGB,
		DiskMBUsed: h.DiskMBUsed,
		VCPUsTotal: h.VCPUsTotal, VCPUsUsed: h.VCPUsUsed,
		NumInstances: h.NumInstances, NumIOOps: h.NumIOOps, FailedBuilds: h.FailedBuilds,
		HypervisorType: h.HypervisorType, HypervisorVersion: h.HypervisorVersion,
		HypervisorHostname: h.HypervisorHostname, CPUInfo: h.CPUInfo,
		SupportedInstances: h.SupportedInstances, HostIP: h.HostIP,
		Stats:              h.Stats,
		RAMAllocationRatio: h.RAMAllocationRatio, CPUAllocationRatio: h.CPUAllocationRatio,
		DiskAllocationRatio: h.DiskAllocationRatio,
		Metrics:             h.Metrics,
		Instances:           append([]string(nil), h.Instances.List()...),
		ServiceDisabled:     h.Service.Disabled,
	}
}

// consumeFromRequest is HostState.consume_from_request: the flavor's RAM,
// root and ephemeral disk (not swap) and vCPUs, one more instance, one
// more I/O operation. Totals and limits are not touched.
//
// An IronicNodeState consumes the node whole whatever the flavor
// (_locked_consume_from_request, queens-eol): free_ram_mb and free_disk_mb
// become 0 and vcpus_used vcpus_total; num_instances and num_io_ops do
// not change.
func (h *HostState) consumeFromRequest(f *engine.Flavor) {
	if h.Ironic {
		h.FreeRAMMB = 0
		h.FreeDiskMB = 0
		h.VCPUsUsed = h.VCPUsTotal
		return
	}
	h.FreeRAMMB -= f.MemoryMB
	h.FreeDiskMB -= (f.RootGB + f.EphemeralGB) * 1024
	h.VCPUsUsed += f.VCPUs
	h.NumInstances++
	h.NumIOOps++
}

func ratioOr(v *float64, def float64) float64 {
	if v != nil {
		return *v
	}
	return def
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func containsStr(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// madeUpUUID is the oracle's made_up_uuid: uuid5 in the namespace
// 6f1c1a4e-5b0e-4c4e-9d43-0c2f7b1f3a90 of the NUL-joined parts.
func madeUpUUID(parts ...string) string {
	ns := [16]byte{0x6f, 0x1c, 0x1a, 0x4e, 0x5b, 0x0e, 0x4c, 0x4e,
		0x9d, 0x43, 0x0c, 0x2f, 0x7b, 0x1f, 0x3a, 0x90}
	sum := sha1.Sum(append(ns[:], strings.Join(parts, "\x00")...))
	var u [16]byte
	copy(u[:], sum[:16])
	u[6] = (u[6] & 0x0f) | 0x50
	u[8] = (u[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
