package nova

// AttrKind says how the value of a HostState attribute (HostAttrs.Attr)
// changes while the scheduler places instances.
type AttrKind uint8

// The kinds of attributes.
const (
	// AttrMissing: not an attribute of the host state (getattr finds
	// nothing; a capability lookup then reads the stats).
	AttrMissing AttrKind = iota
	// AttrStatic: fixed between the compute node's reports (the host and
	// its names, its hardware, hypervisor, cpu_info, stats, metrics,
	// allocation ratios, totals, disk_mb_used...).
	AttrStatic
	// AttrUsage: an integer consume_from_request changes: free_ram_mb,
	// free_disk_mb, vcpus_used, num_instances, num_io_ops.
	AttrUsage
	// AttrDynamic: anything else that changes while a request is placed:
	// instances (the request's own instances join it) and the bound
	// methods, whose repr shows the host's usage.
	AttrDynamic
)

// attrKinds holds the kind of every name HostAttrs.Attr answers; a test
// holds it to Attr's cases.
var attrKinds = map[string]AttrKind{
	"host": AttrStatic, "nodename": AttrStatic, "uuid": AttrStatic, "cell_uuid": AttrStatic,
	"free_ram_mb": AttrUsage, "free_disk_mb": AttrUsage,
	"total_usable_ram_mb": AttrStatic, "total_usable_disk_gb": AttrStatic,
	"disk_mb_used": AttrStatic, "vcpus_total": AttrStatic, "vcpus_used": AttrUsage,
	"num_instances": AttrUsage, "num_io_ops": AttrUsage, "failed_builds": AttrStatic,
	"hypervisor_type": AttrStatic, "hypervisor_version": AttrStatic,
	"hypervisor_hostname": AttrStatic, "cpu_info": AttrStatic,
	"supported_instances": AttrStatic, "host_ip": AttrStatic, "stats": AttrStatic,
	"ram_allocation_ratio": AttrStatic, "cpu_allocation_ratio": AttrStatic,
	"disk_allocation_ratio": AttrStatic, "metrics": AttrStatic, "instances": AttrDynamic,
	"limits": AttrStatic, "aggregates": AttrStatic, "service": AttrStatic,
	"_lock_name": AttrStatic, "pci_stats": AttrStatic, "numa_topology": AttrStatic,
	"updated": AttrStatic,
	"update":  AttrDynamic, "consume_from_request": AttrDynamic,
	"_update_from_compute_node": AttrDynamic, "_locked_consume_from_request": AttrDynamic,
}

// nullableAttrs are the static attributes whose value may be None.
var nullableAttrs = map[string]bool{
	"hypervisor_type": true, "hypervisor_version": true, "hypervisor_hostname": true,
	"cpu_info": true, "host_ip": true, "pci_stats": true, "numa_topology": true, "updated": true,
}

// AttrKindOf is the kind of attribute name of the host state.
func AttrKindOf(name string) AttrKind { return attrKinds[name] }

// AttrNullable reports whether attribute name may be None on some host
// (a capability lookup then reads the stats in its place).
func AttrNullable(name string) bool { return nullableAttrs[name] }
