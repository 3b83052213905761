package nova

import (
	"fmt"
	"sort"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// HostAttrs is what a HostState exposes to ComputeCapabilitiesFilter and
// JsonFilter lookups (getattr(host_state, name)), filled by the caller from
// its own representation of one host at the moment of the lookup.
type HostAttrs struct {
	Host, Nodename, UUID, CellUUID string
	FreeRAMMB, FreeDiskMB          int64
	TotalUsableRAMMB               int64
	TotalUsableDiskGB              int64
	DiskMBUsed                     int64
	VCPUsTotal, VCPUsUsed          int64
	NumInstances, NumIOOps         int64
	FailedBuilds                   int64
	HypervisorType                 *string
	HypervisorVersion              *int64
	HypervisorHostname             *string
	CPUInfo                        *string // JSON text as Nova stores it
	SupportedInstances             [][3]string
	HostIP                         *string
	// Stats as HostState.stats holds them (including the num_instances,
	// io_workload and failed_builds counters Nova keeps there).
	Stats                                  map[string]string
	RAMAllocationRatio, CPUAllocationRatio float64
	DiskAllocationRatio                    float64
	// Metrics as HostState.metrics (already x100 / truncated, see
	// SchedulerMetrics).
	Metrics map[string]int64
	// Instances are the uuids on the host (HostState.instances keys).
	Instances []string
	// ServiceDisabled is the host's compute service's "disabled" (the
	// HostState.service record's).
	ServiceDisabled bool
	// Extras, when not nil, supplies UUID, HostIP, Metrics and Instances
	// in their place, for host ExtrasID, when a lookup reads them: few
	// lookups do, and building them costs a map and strings per host
	// looked at.
	Extras   HostExtras
	ExtrasID uint32
}

// HostExtras supplies the HostAttrs that are built only when read. What it
// returns is not modified.
type HostExtras interface {
	HostUUID(id uint32) string
	HostIP(id uint32) *string
	HostMetrics(id uint32) map[string]int64
	HostInstances(id uint32) []string
}

// uuid is HostState.uuid.
func (h *HostAttrs) uuid() string {
	if h.Extras != nil {
		return h.Extras.HostUUID(h.ExtrasID)
	}
	return h.UUID
}

// hostIP is HostState.host_ip's text.
func (h *HostAttrs) hostIP() *string {
	if h.Extras != nil {
		return h.Extras.HostIP(h.ExtrasID)
	}
	return h.HostIP
}

// metrics is HostState.metrics' values.
func (h *HostAttrs) metrics() map[string]int64 {
	if h.Extras != nil {
		return h.Extras.HostMetrics(h.ExtrasID)
	}
	return h.Metrics
}

// instances is HostState.instances' keys.
func (h *HostAttrs) instances() []string {
	if h.Extras != nil {
		return h.Extras.HostInstances(h.ExtrasID)
	}
	return h.Instances
}

// hostMethods are HostState's methods: getattr returns a bound method,
// whose str() is "<bound method HostState.NAME of REPR>".
var hostMethods = map[string]bool{
	"update":                       true,
	"consume_from_request":         true,
	"_update_from_compute_node":    true,
	"_locked_consume_from_request": true,
}

// Attr is getattr(host_state, name): the attribute's Python-like value and
// whether the attribute exists (a None value exists, with v == nil).
//
// The data attributes are those HostState sets in __init__, update() and
// _update_from_compute_node(). Values: strings and int64s as the fields
// hold them; cpu_info the JSON text (a str, as Nova stores it);
// supported_instances a list of lists; host_ip a *pyval.IPAddress
// (netaddr.IPAddress); stats a dict (*pyval.Dict, keys sorted); the ratios
// float64. Attributes whose value is a Python object are modelled as
// *pyval.Object values whose str() is what Nova prints where that is
// reproducible (bound methods, _lock_name, metrics, instances' keys) and
// an approximation otherwise (aggregates, service, Instance objects).
// limits is an empty dict (the limits set by filters that ran before are
// not part of HostAttrs); pci_stats, numa_topology and updated are None.
// Python's special attributes (__class__, __dict__, __doc__, ...) are not
// modelled: ok is false for them.
func (h *HostAttrs) Attr(name string) (v any, ok bool) {
	switch name {
	case "host":
		return h.Host, true
	case "nodename":
		return h.Nodename, true
	case "uuid":
		return h.uuid(), true
	case "cell_uuid":
		return h.CellUUID, true
	case "free_ram_mb":
		return h.FreeRAMMB, true
	case "free_disk_mb":
		return h.FreeDiskMB, true
	case "total_usable_ram_mb":
		return h.TotalUsableRAMMB, true
	case "total_usable_disk_gb":
		return h.TotalUsableDiskGB, true
	case "disk_mb_used":
		return h.DiskMBUsed, true
	case "vcpus_total":
		return h.VCPUsTotal, true
	case "vcpus_used":
		return h.VCPUsUsed, true
	case "num_instances":
		return h.NumInstances, true
	case "num_io_ops":
		return h.NumIOOps, true
	case "failed_builds":
		return h.FailedBuilds, true
	case "hypervisor_type":
		return optStr(h.HypervisorType), true
	case "hypervisor_version":
		if h.HypervisorVersion == nil {
			return nil, true
		}
		return *h.HypervisorVersion, true
	case "hypervisor_hostname":
		return optStr(h.HypervisorHostname), true
	case "cpu_info":
		return optStr(h.CPUInfo), true
	case "supported_instances":
		out := make([]any, len(h.SupportedInstances))
		for i, s := range h.SupportedInstances {
			out[i] = []any{s[0], s[1], s[2]}
		}
		return out, true
	case "host_ip":
		ip := h.hostIP()
		if ip == nil {
			return nil, true
		}
		return parseIPAddress(*ip), true
	case "stats":
		return stringDict(h.Stats), true
	case "ram_allocation_ratio":
		return h.RAMAllocationRatio, true
	case "cpu_allocation_ratio":
		return h.CPUAllocationRatio, true
	case "disk_allocation_ratio":
		return h.DiskAllocationRatio, true
	case "metrics":
		return h.metricsObject(), true
	case "instances":
		return h.instancesDict(), true
	case "limits":
		return &pyval.Dict{Values: map[string]any{}}, true
	case "aggregates":
		return h.object("list", "[<aggregates>]", "aggregates", false), true
	case "service":
		return h.object("ReadOnlyDict", h.serviceRepr(), "service", false), true
	case "_lock_name":
		return h.object("tuple", "("+pyval.StrRepr(h.Host)+", "+pyval.StrRepr(h.Nodename)+")", "_lock_name", false), true
	case "pci_stats", "numa_topology", "updated":
		return nil, true
	}
	if hostMethods[name] {
		repr := "<bound method HostState." + name + " of " + h.repr() + ">"
		return h.object("method", repr, name, false), true
	}
	return nil, false
}

// serviceFields are the fields of HostState.service modelled, in the
// order of the record a compute service's row gives (the scenario carries
// no id, uuid, report count, version or timestamps; disabled_reason is
// modelled only where it is None, on an enabled service).
var serviceFields = []string{"host", "binary", "topic", "disabled", "disabled_reason", "forced_down"}

// ServiceField is HostState.service.get(name): the service record's field
// (ok false for one not modelled, which reads as None).
func (h *HostAttrs) ServiceField(name string) (v any, ok bool) {
	switch name {
	case "host":
		return h.Host, true
	case "binary":
		return "nova-compute", true
	case "topic":
		return "compute", true
	case "disabled":
		return h.ServiceDisabled, true
	case "disabled_reason":
		return nil, !h.ServiceDisabled
	case "forced_down":
		return false, true // a service down is not forced down
	}
	return nil, false
}

// serviceRepr is str(HostState.service): its fields as a dict's repr.
func (h *HostAttrs) serviceRepr() string {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for _, f := range serviceFields {
		v, ok := h.ServiceField(f)
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(pyval.StrRepr(f) + ": " + pyval.Repr(v))
	}
	b.WriteByte('}')
	return b.String()
}

// repr is HostState.__repr__.
func (h *HostAttrs) repr() string {
	return fmt.Sprintf("(%s, %s) ram: %dMB disk: %dMB io_ops: %d instances: %d",
		h.Host, h.Nodename, h.FreeRAMMB, h.FreeDiskMB, h.NumIOOps, h.NumInstances)
}

func (h *HostAttrs) object(typ, repr, attr string, falsy bool) *pyval.Object {
	return &pyval.Object{Type: typ, Repr: repr, Identity: h.Host + "\x00" + h.Nodename + "\x00" + attr, Falsy: falsy}
}

// metricsObject is HostState.metrics, a MonitorMetricList.
func (h *HostAttrs) metricsObject() *pyval.Object {
	n := len(h.metrics())
	repr := "MonitorMetricList(objects=["
	for i := 0; i < n; i++ {
		if i > 0 {
			repr += ","
		}
		repr += "MonitorMetric"
	}
	return h.object("MonitorMetricList", repr+"])", "metrics", n == 0)
}

// instancesDict is HostState.instances: uuid -> Instance object.
func (h *HostAttrs) instancesDict() *pyval.Dict {
	o := &pyval.Dict{Values: map[string]any{}}
	for _, u := range h.instances() {
		o.Set(u, h.object("Instance", "Instance(uuid="+u+")", "instance\x00"+u, false))
	}
	return o
}

// instanceFields are nova.objects.Instance's fields (Nova 26): .get of
// one of them on the host manager's Instance(uuid=...) objects is the
// uuid for "uuid" and None for the others, which are not set; .get of any
// other name raises AttributeError.
var instanceFields = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`access_ip_v4 access_ip_v6 architecture auto_disk_config
		availability_zone cell_name cleaned config_drive created_at default_ephemeral_device
		default_swap_device deleted deleted_at device_metadata disable_terminate
		display_description display_name ec2_ids ephemeral_gb ephemeral_key_uuid fault flavor
		hidden host hostname id image_ref info_cache instance_type_id kernel_id key_data key_name
		keypairs launch_index launched_at launched_on locked locked_by memory_mb metadata
		migration_context new_flavor node numa_topology old_flavor os_type pci_devices
		pci_requests power_state progress project_id ramdisk_id reservation_id resources
		root_device_name root_gb security_groups services shutdown_terminate system_metadata tags
		task_state terminated_at trusted_certs updated_at user_data user_id uuid vcpu_model vcpus
		vm_mode vm_state`) {
		instanceFields[f] = true
	}
}

// instanceGet is Instance.get(name, None) on o, one of instancesDict's
// objects (Repr "Instance(uuid=<uuid>)").
func instanceGet(o *pyval.Object, name string) (any, error) {
	if !instanceFields[name] {
		return nil, pyErr("AttributeError", "'Instance' object has no attribute '%s'", name)
	}
	if name == "uuid" {
		return strings.TrimSuffix(strings.TrimPrefix(o.Repr, "Instance(uuid="), ")"), nil
	}
	return nil, nil // not set
}

func optStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// stringDict turns a string map into a dict with sorted keys.
func stringDict(m map[string]string) *pyval.Dict {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := &pyval.Dict{Keys: keys, Values: make(map[string]any, len(m))}
	for _, k := range keys {
		o.Values[k] = m[k]
	}
	return o
}

// parseIPAddress is netaddr.IPAddress(text) as Nova's IPAddressField builds
// it; text netaddr refuses stays a plain string.
func parseIPAddress(text string) any {
	ip, err := parseNetaddrIP(text)
	if err != nil {
		return text
	}
	return ip
}
