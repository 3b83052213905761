package engine

import (
	"maps"
	"slices"
)

// Cloud is everything a Snapshot is built from: the scheduler configuration,
// the compute nodes and the host aggregates. It mirrors the "config",
// "hosts" and "aggregates" of a scenario file (docs/formats.md).
type Cloud struct {
	// Config is the scheduler configuration. Start from DefaultConfig().
	Config Config
	// Hosts are the compute nodes, in the order that gives them their ids.
	Hosts []Host
	// Aggregates are the host aggregates with their metadata.
	Aggregates []Aggregate
}

// Host is one compute node as the scheduler sees it (Nova's ComputeNode
// plus its service record and instances). Resource fields are integers, as
// Nova's ComputeNode IntegerFields are.
type Host struct {
	// Host is the compute service's host name. Required.
	Host string
	// Node is the hypervisor node name; "" means the same as Host.
	// (Host, Node) is unique within a Cloud.
	Node string
	// UUID identifies the compute node; "" lets the engine make one up.
	UUID string
	// Cell is the cell the host belongs to; "" means "cell1". Alternates
	// stay within the selected host's cell.
	Cell string

	// MemoryMB is the total RAM (Nova's total_usable_ram_mb).
	MemoryMB int64
	// FreeRAMMB is the free RAM; it may be negative (overcommitted).
	FreeRAMMB int64
	// VCPUs is the number of physical vCPUs (Nova's vcpus_total).
	VCPUs int64
	// VCPUsUsed is the number of vCPUs claimed by instances.
	VCPUsUsed int64
	// LocalGB is the total local disk (Nova's total_usable_disk_gb).
	LocalGB int64
	// FreeDiskGB is the free local disk.
	FreeDiskGB int64
	// DiskAvailableLeast, when set, caps FreeDiskGB (thin provisioning).
	DiskAvailableLeast *int64

	// RAMAllocationRatio, CPUAllocationRatio and DiskAllocationRatio are
	// the host's own ratios; nil means the Config's.
	RAMAllocationRatio  *float64
	CPUAllocationRatio  *float64
	DiskAllocationRatio *float64

	// NumInstances, NumIOOps and FailedBuilds are the host's counters.
	NumInstances int64
	NumIOOps     int64
	FailedBuilds int64

	// Service is the state of the host's nova-compute service.
	Service Service

	// HypervisorType is e.g. "QEMU"; nil when unknown.
	HypervisorType *string
	// HypervisorVersion is Nova's integer form (6002000 = 6.2.0); nil when
	// unknown.
	HypervisorVersion *int64
	// HypervisorHostname defaults to the node name.
	HypervisorHostname *string
	// SupportedInstances lists the (architecture, hv_type, vm_mode)
	// triples the hypervisor can run.
	SupportedInstances []HVSpec
	// CPUInfo is the hypervisor's CPU description as Nova stores it: a
	// JSON text (a JSON object, normally). A text that is not JSON makes
	// every capabilities:cpu_info:... lookup fail, as in Nova. nil = none.
	CPUInfo *string
	// Stats are the compute node's free-form string statistics; extra
	// specs without a scope match them.
	Stats map[string]string
	// Metrics are the monitor metrics as the compute node reports them
	// (name -> value). The engine presents them as Nova does: the
	// "*percent" ones multiplied by 100, every value truncated to an
	// integer.
	Metrics map[string]float64
	// HostIP is the host's IP address, used by SimpleCIDRAffinityFilter.
	HostIP *string
	// Instances are the uuids of the instances already on the host.
	Instances []string
}

// Service is the state of a host's compute service.
type Service struct {
	// Disabled is true when an operator disabled the service.
	Disabled bool
	// Down is true when the service stopped reporting. (The scenario's
	// field is "up"; the zero Service is enabled and up.)
	Down bool
}

// HVSpec is one supported (architecture, hypervisor type, vm mode) triple.
type HVSpec struct {
	Arch, HVType, VMMode string
}

// Aggregate is a host aggregate: a named set of hosts with string metadata.
type Aggregate struct {
	// Name identifies the aggregate; unique within a Cloud.
	Name string
	// Hosts are host names (not node names).
	Hosts []string
	// Metadata values are strings, as in Nova. Keys that the scheduler
	// reads: availability_zone, filter_tenant_id, instance_type,
	// *_allocation_ratio, max_io_ops_per_host, max_instances_per_host,
	// every *_weight_multiplier, and any key matched by extra specs or
	// image properties.
	Metadata map[string]string
}

func nodeName(h *Host) string {
	if h.Node == "" {
		return h.Host
	}
	return h.Node
}

// AggregateChange changes one aggregate's metadata: the keys of Set are
// set, those of Delete removed (an aggregate that does not exist is made,
// with no hosts).
type AggregateChange struct {
	Name   string
	Set    map[string]string
	Delete []string
}

// WithAggregates returns c with the changes applied in order (c is not
// modified): the cloud a capacity question after an aggregate change is
// asked on, through NewSnapshot, and what Store.SetAggregateMetadata
// applies.
func (c Cloud) WithAggregates(changes []AggregateChange) Cloud {
	c.Aggregates = slices.Clone(c.Aggregates)
	for _, ch := range changes {
		i := slices.IndexFunc(c.Aggregates, func(a Aggregate) bool { return a.Name == ch.Name })
		if i < 0 {
			c.Aggregates = append(c.Aggregates, Aggregate{Name: ch.Name})
			i = len(c.Aggregates) - 1
		}
		a := &c.Aggregates[i]
		meta := maps.Clone(a.Metadata)
		if meta == nil {
			meta = map[string]string{}
		}
		maps.Copy(meta, ch.Set)
		for _, k := range ch.Delete {
			delete(meta, k)
		}
		a.Metadata = meta
	}
	return c
}
