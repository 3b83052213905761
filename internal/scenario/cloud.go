package scenario

import (
	"github.com/placer/placer/engine"
)

// aggregateFields is the oracle's AGGREGATE record. A missing name becomes
// agg<index> afterwards.
var aggregateFields = []field[engine.Aggregate]{
	{"name", false, func(d *decoder, p string, v *node, a *engine.Aggregate) {
		a.Name = d.nonemptyString(p, v)
	}},
	{"hosts", false, func(d *decoder, p string, v *node, a *engine.Aggregate) {
		a.Hosts = d.stringList(p, v, false)
	}},
	{"metadata", false, func(d *decoder, p string, v *node, a *engine.Aggregate) {
		a.Metadata = d.stringMap(p, v)
	}},
}

// service is the scenario's service object; engine.Service has Down where
// the scenario has up.
type service struct{ disabled, up bool }

var serviceFields = []field[service]{
	{"disabled", false, func(d *decoder, p string, v *node, s *service) { s.disabled = d.boolean(p, v) }},
	{"up", false, func(d *decoder, p string, v *node, s *service) { s.up = d.boolean(p, v) }},
}

// hostInts are the host resource fields: any JSON number, truncated toward
// zero (Nova's ComputeNode IntegerFields).
func hostIntField(name string, required, nonneg bool, at func(*engine.Host) *int64) field[engine.Host] {
	return field[engine.Host]{name, required, func(d *decoder, p string, v *node, h *engine.Host) {
		*at(h) = d.hostInt(p, v, nonneg)
	}}
}

func hostRatioField(name string, at func(*engine.Host) **float64) field[engine.Host] {
	return field[engine.Host]{name, false, func(d *decoder, p string, v *node, h *engine.Host) {
		if v.kind != kNull {
			r := d.nonnegNumber(p, v)
			*at(h) = &r
		}
	}}
}

func hostCounterField(name string, at func(*engine.Host) *int64) field[engine.Host] {
	return field[engine.Host]{name, false, func(d *decoder, p string, v *node, h *engine.Host) {
		*at(h) = d.nonnegInteger(p, v)
	}}
}

func hostStringField(name string, at func(*engine.Host) **string) field[engine.Host] {
	return field[engine.Host]{name, false, func(d *decoder, p string, v *node, h *engine.Host) {
		*at(h) = d.nullableString(p, v, false)
	}}
}

// hostFields is the oracle's HOST record, in its order. Node, UUID and Cell
// get their defaults afterwards (they depend on other fields or on the
// host's index).
var hostFields = []field[engine.Host]{
	{"host", true, func(d *decoder, p string, v *node, h *engine.Host) { h.Host = d.nonemptyString(p, v) }},
	{"node", false, func(d *decoder, p string, v *node, h *engine.Host) {
		if s := d.nullableString(p, v, true); s != nil {
			h.Node = *s
		}
	}},
	{"uuid", false, func(d *decoder, p string, v *node, h *engine.Host) {
		if s := d.nullableString(p, v, true); s != nil {
			h.UUID = *s
		}
	}},
	{"cell", false, func(d *decoder, p string, v *node, h *engine.Host) { h.Cell = d.nonemptyString(p, v) }},
	hostIntField("memory_mb", true, true, func(h *engine.Host) *int64 { return &h.MemoryMB }),
	hostIntField("free_ram_mb", true, false, func(h *engine.Host) *int64 { return &h.FreeRAMMB }),
	hostIntField("vcpus", true, true, func(h *engine.Host) *int64 { return &h.VCPUs }),
	hostIntField("vcpus_used", true, true, func(h *engine.Host) *int64 { return &h.VCPUsUsed }),
	hostIntField("local_gb", true, true, func(h *engine.Host) *int64 { return &h.LocalGB }),
	hostIntField("free_disk_gb", true, false, func(h *engine.Host) *int64 { return &h.FreeDiskGB }),
	{"disk_available_least", false, func(d *decoder, p string, v *node, h *engine.Host) {
		if v.kind != kNull {
			x := d.hostInt(p, v, false)
			h.DiskAvailableLeast = &x
		}
	}},
	hostRatioField("ram_allocation_ratio", func(h *engine.Host) **float64 { return &h.RAMAllocationRatio }),
	hostRatioField("cpu_allocation_ratio", func(h *engine.Host) **float64 { return &h.CPUAllocationRatio }),
	hostRatioField("disk_allocation_ratio", func(h *engine.Host) **float64 { return &h.DiskAllocationRatio }),
	hostCounterField("num_instances", func(h *engine.Host) *int64 { return &h.NumInstances }),
	hostCounterField("num_io_ops", func(h *engine.Host) *int64 { return &h.NumIOOps }),
	hostCounterField("failed_builds", func(h *engine.Host) *int64 { return &h.FailedBuilds }),
	{"service", false, func(d *decoder, p string, v *node, h *engine.Host) {
		s := service{up: true}
		record(d, p, v, serviceFields, &s)
		h.Service = engine.Service{Disabled: s.disabled, Down: !s.up}
	}},
	hostStringField("hypervisor_type", func(h *engine.Host) **string { return &h.HypervisorType }),
	{"hypervisor_version", false, func(d *decoder, p string, v *node, h *engine.Host) {
		if v.kind != kNull {
			x := d.nonnegInteger(p, v)
			h.HypervisorVersion = &x
		}
	}},
	hostStringField("hypervisor_hostname", func(h *engine.Host) **string { return &h.HypervisorHostname }),
	{"supported_instances", false, func(d *decoder, p string, v *node, h *engine.Host) {
		h.SupportedInstances = d.hvSpecs(p, v)
	}},
	{"cpu_info", false, func(d *decoder, p string, v *node, h *engine.Host) {
		h.CPUInfo = d.cpuInfo(p, v)
	}},
	{"stats", false, func(d *decoder, p string, v *node, h *engine.Host) { h.Stats = d.stringMap(p, v) }},
	{"metrics", false, func(d *decoder, p string, v *node, h *engine.Host) {
		d.mapOf(p, v, func(p, k string, x *node) {
			f := d.number(p, x)
			if h.Metrics == nil {
				h.Metrics = make(map[string]float64, len(v.keys))
			}
			h.Metrics[k] = f
		})
	}},
	hostStringField("host_ip", func(h *engine.Host) **string { return &h.HostIP }),
	{"instances", false, func(d *decoder, p string, v *node, h *engine.Host) {
		h.Instances = d.stringList(p, v, false)
	}},
}

// hvSpecs reads supported_instances: a list of [architecture, hv_type,
// vm_mode] string triples.
func (d *decoder) hvSpecs(p string, v *node) []engine.HVSpec {
	var out []engine.HVSpec
	d.list(p, v, func(p string, x *node) {
		if x.kind != kList || len(x.items) != 3 {
			d.fail(p, "want [architecture, hv_type, vm_mode], got %s", show(x))
			return
		}
		out = append(out, engine.HVSpec{
			Arch:   d.string(indexPath(p, 0), x.items[0]),
			HVType: d.string(indexPath(p, 1), x.items[1]),
			VMMode: d.string(indexPath(p, 2), x.items[2]),
		})
	})
	if d.err != nil {
		return nil
	}
	return out
}

// cpuInfo reads cpu_info: null, a string kept as it is, or a JSON object
// stored as the text Nova would hold, json.dumps of it (key order kept,
// Python's separators, ensure_ascii).
func (d *decoder) cpuInfo(p string, v *node) *string {
	var s string
	switch v.kind {
	case kNull:
		return nil
	case kString:
		s = v.s
	case kObject:
		s = pyDump(v)
	default:
		d.fail(p, "want a JSON object, got %s", show(v))
		return nil
	}
	return &s
}
