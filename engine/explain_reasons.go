package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/placer/placer/internal/nova"
	"github.com/placer/placer/internal/pyval"
)

// The reasons Explain gives for a rejected host: the line Nova's filter
// logs for it where placer can write it word for word (HostState's repr
// and the filter's LOG.debug format, with Python's formatting of the
// values), else placer's own words. The resource filters' lines are those
// of the last releases that shipped them (19.x Stein for RamFilter,
// CoreFilter and DiskFilter; docs/nova-semantics.md); the others are Nova
// 26's.

// sprintf is fmt.Sprintf.
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// hostStateRepr is HostState.__repr__ for host id with its current usage.
func (b *batch) hostStateRepr(id uint32) string {
	r := b.cur(id)
	return sprintf("(%s, %s) ram: %dMB disk: %dMB io_ops: %d instances: %d",
		b.s.info.hostOf(id), b.s.info.nodeOf(id), r.freeRAM, r.freeDiskMB, r.numIOOps, r.numInstances)
}

// pyInt is Python's '%d' of a float: truncated toward zero.
func pyInt(x float64) string { return sprintf("%d", int64(x)) }

// pySet is the repr of a Python set of strings. Python's order depends
// on the strings' hashes; placer's is sorted, so it is Python's only for
// one element or none.
func pySet(xs []string) string {
	xs = slices.Sorted(slices.Values(xs))
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = pyval.StrRepr(x)
	}
	if len(parts) == 0 {
		return "set()"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// rejection is why filter f rejected host id, on the batch's current
// state (instance 0's: the snapshot's usage).
func (b *batch) rejection(f *filterImpl, id uint32) HostRejection {
	h := HostRejection{ID: id, Host: b.s.info.hostOf(id), Node: b.s.info.nodeOf(id), Filter: f.name}
	hs := b.hostStateRepr(id)
	if rule, ok := resourceRules[f.name]; ok {
		h.Reason, h.NovaLog, h.Check = b.resourceReason(rule, id, hs)
		return h
	}
	h.NovaLog = true
	switch f.name {
	case AvailabilityZoneFilter:
		c := &b.s.info.classes[b.s.info.class.At(id)]
		hostAZ := b.cfg.DefaultAvailabilityZone
		if zones, ok := c.meta["availability_zone"]; ok {
			hostAZ = pySet(zones)
			h.NovaLog = len(zones) <= 1
		}
		az := ""
		if b.req.AvailabilityZone != nil {
			az = *b.req.AvailabilityZone
		}
		h.Reason = sprintf("Availability Zone '%s' requested. %s has AZs: %s", az, hs, hostAZ)
	case AggregateMultiTenancyIsolation:
		h.Reason = hs + " fails tenant id on aggregate"
	case MetricsFilter:
		// Nova lists the metrics the host has and the setting does not
		// name (metrics_on_host - keys), not the missing ones.
		var unavail []string
		for name := range b.s.info.metrics.Of(id) {
			if !slices.ContainsFunc(b.cfg.MetricsWeightSetting, func(m MetricWeight) bool { return m.Name == name }) {
				unavail = append(unavail, name)
			}
		}
		slices.Sort(unavail)
		h.NovaLog = len(unavail) <= 1
		h.Reason = sprintf("%s does not have the following metrics: %s", hs, strings.Join(unavail, ", "))
	case ImagePropertiesFilter:
		h.Reason = hs + " does not support requested instance_properties"
	case ComputeFilter:
		if d := b.s.info.serviceDisabled; d != nil && d.Has(id) {
			// Nova's "%s is disabled, reason: %s": the scenario carries no
			// reason.
			h.Reason, h.NovaLog = hs+" is disabled", false
		} else {
			h.Reason = hs + " has not been heard from in a while"
		}
	case AggregateInstanceExtraSpecsFilter:
		h.Reason, h.NovaLog = b.extraSpecsReason(id, hs)
	default:
		h.NovaLog = false
		h.Reason = hs + " " + otherReasons[f.name]
	}
	return h
}

// otherReasons are placer's words for the filters whose Nova log line
// placer does not reproduce.
var otherReasons = map[string]string{
	ComputeCapabilitiesFilter:         "fails the flavor's extra_specs against its capabilities",
	AggregateImagePropertiesIsolation: "fails the image's properties against its aggregates' metadata",
	AggregateTypeAffinityFilter:       "is in an aggregate whose instance_type does not name the flavor",
	IsolatedHostsFilter:               "fails host and image isolation (isolated_hosts, isolated_images)",
	ServerGroupAffinityFilter:         "is not a host of the server group (affinity)",
	ServerGroupAntiAffinityFilter:     "already runs as many of the server group's members as max_server_per_host allows (anti-affinity)",
	SameHostFilter:                    "runs none of the same_host instances",
	DifferentHostFilter:               "runs one of the different_host instances",
	SimpleCIDRAffinityFilter:          "has a host_ip outside build_near_host_ip/cidr",
	JsonFilter:                        "does not satisfy the query scheduler hint",
	RetryFilter:                       "was already tried (the request's retry hosts)",
}

// extraSpecsReason is AggregateInstanceExtraSpecsFilter's line for host
// id: the first extra spec, in the flavor's order (nova.AggregateInstanceExtraSpecsCheck's),
// that its aggregates' metadata lacks or no value of which matches.
func (b *batch) extraSpecsReason(id uint32, hs string) (string, bool) {
	meta := b.s.info.classes[b.s.info.class.At(id)].meta
	specs := b.req.Flavor.ExtraSpecs
	for _, full := range b.req.Flavor.SpecKeys() {
		key := full
		if scope, rest, ok := strings.Cut(full, ":"); ok {
			if scope != "aggregate_instance_extra_specs" {
				continue
			}
			key = rest
		}
		vals := meta[key]
		if len(vals) == 0 {
			return sprintf("%s fails flavor extra_specs requirements. Extra_spec %s is not in aggregate.", hs, key), true
		}
		if !slices.ContainsFunc(vals, func(v string) bool { ok, err := nova.MatchErr(v, specs[full]); return ok && err == nil }) {
			distinct := slices.Compact(slices.Sorted(slices.Values(vals)))
			return sprintf("%s fails flavor extra_specs requirements. '%s' do not match '%s'", hs, pySet(distinct), specs[full]), len(distinct) <= 1
		}
	}
	return hs + " fails the flavor's extra_specs against its aggregates' metadata", false
}

// resourceReason is why resource rule r rejected host id (hs its repr):
// the line the filter logs, and the values it compared.
func (b *batch) resourceReason(r *resourceRule, id uint32, hs string) (string, bool, *ResourceCheck) {
	line, nova, rc := b.resourceLine(r, id, hs)
	if r.aggKey != "" {
		rc.SetBy = b.s.info.classes[b.s.info.class.At(id)].limitFrom[r.aggKey]
	}
	return line, nova, rc
}

// resourceLine is resourceReason but for the aggregates that set the
// ratio or limit.
func (b *batch) resourceLine(r *resourceRule, id uint32, hs string) (string, bool, *ResourceCheck) {
	sh, j := b.s.at(id)
	u := b.cur(id)
	c := &b.claim
	switch r.res {
	case resRAM:
		total, ratio := sh.totalRAM.At(j), r.ratio(sh).At(j)
		limit := float64(float64(total) * ratio) // rounded: no FMA
		used := total - u.freeRAM
		rc := &ResourceCheck{Requested: float64(c.MemoryMB), Total: float64(total), Used: float64(used),
			Ratio: ratio, Limit: limit, Usable: limit - float64(used)}
		if !(total >= c.MemoryMB) {
			return sprintf("%s does not have %d MB usable ram before overcommit, it only has %d MB.", hs, c.MemoryMB, total), true, rc
		}
		// usable_ram is a float, printed with %s: its repr.
		return sprintf("%s does not have %d MB usable ram, it only has %s MB usable ram.", hs, c.MemoryMB, pyval.FloatRepr(rc.Usable)), true, rc
	case resCore:
		total, ratio := sh.vcpusTotal.At(j), r.ratio(sh).At(j)
		limit := float64(float64(total) * ratio) // rounded: no FMA
		rc := &ResourceCheck{Requested: float64(c.VCPUs), Total: float64(total), Used: float64(u.vcpusUsed),
			Ratio: ratio, Limit: limit, Usable: limit - float64(u.vcpusUsed)}
		if limit > 0 && c.VCPUs > total {
			return sprintf("%s does not have %d total cpus before overcommit, it only has %d", hs, c.VCPUs, total), true, rc
		}
		return sprintf("%s does not have %d usable vcpus, it only has %s usable vcpus", hs, c.VCPUs, pyInt(rc.Usable)), true, rc
	case resDisk:
		totalMB, ratio := sh.totalDiskGB.At(j)*1024, r.ratio(sh).At(j)
		limit := float64(float64(totalMB) * ratio) // rounded: no FMA
		used := totalMB - u.freeDiskMB
		rc := &ResourceCheck{Requested: float64(c.DiskRequestMB), Total: float64(totalMB), Used: float64(used),
			Ratio: ratio, Limit: limit, Usable: limit - float64(used)}
		if totalMB < c.DiskRequestMB {
			return sprintf("%s does not have %d MB usable disk space before overcommit, it only has %d MB.", hs, c.DiskRequestMB, totalMB), true, rc
		}
		return sprintf("%s does not have %d MB usable disk, it only has %s MB usable disk.", hs, c.DiskRequestMB, pyval.FloatRepr(rc.Usable)), true, rc
	case resExactRAM: // Nova 17.x Queens's ExactRamFilter, as the Exact* below
		rc := &ResourceCheck{Requested: float64(c.MemoryMB), Total: float64(sh.totalRAM.At(j)), Used: float64(sh.totalRAM.At(j) - u.freeRAM),
			Usable: float64(u.freeRAM)}
		return sprintf("%s does not have exactly %d MB usable RAM, it has %d MB.", hs, c.MemoryMB, u.freeRAM), true, rc
	case resExactCore:
		total := sh.vcpusTotal.At(j)
		rc := &ResourceCheck{Requested: float64(c.VCPUs), Total: float64(total), Used: float64(u.vcpusUsed),
			Usable: float64(total - u.vcpusUsed)}
		if total == 0 { // Nova logs a warning without the host and fails it
			return hs + " has no vcpus_total: VCPUs not set; assuming CPU collection broken", false, rc
		}
		return sprintf("%s does not have exactly %d cores of usable vcpu, it has %d.", hs, c.VCPUs, total-u.vcpusUsed), true, rc
	case resExactDisk:
		totalMB := sh.totalDiskGB.At(j) * 1024
		rc := &ResourceCheck{Requested: float64(c.DiskRequestMB), Total: float64(totalMB), Used: float64(totalMB - u.freeDiskMB),
			Usable: float64(u.freeDiskMB)}
		return sprintf("%s does not have exactly %d MB usable disk, it has %d.", hs, c.DiskRequestMB, u.freeDiskMB), true, rc
	case resIOOps, resInstances:
	default:
		panic(sprintf("engine: no reason for resource rule %s", r.name))
	}
	count, what, msg := u.numIOOps, "I/O ops", "Max IOs per host"
	if r.res == resInstances {
		count, what, msg = u.numInstances, "num_instances", "Max instances per host"
	}
	limit := r.limit(sh, j, b.cfg)
	rc := &ResourceCheck{Used: float64(count), Limit: float64(limit), Usable: float64(limit) - float64(count)} // no int64 wrap at a saturated limit
	return sprintf("%s fails %s check: %s is set to %d", hs, what, msg, limit), true, rc
}
