package engine

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/placer/placer/internal/nova"
)

// ErrInvalid is matched by every *ValidationError.
var ErrInvalid = errors.New("invalid input")

// ErrNotImplemented is matched by the *ValidationError the engine would
// return for a valid configuration it does not implement yet. The engine
// implements every configuration it validates today (the chance
// scheduler, the ironic host manager and the Exact* filters since issue
// 20); the error stays for what comes next, and novacases.SkipFeatures
// expects it of a case it is told to skip.
var ErrNotImplemented = errors.New("not implemented by the engine yet")

// ValidationError is bad input: it names the offending field with a
// scenario-style path (hosts[17].free_ram_mb, request.flavor.vcpus).
// Nothing is consumed or committed when it is returned.
type ValidationError struct {
	Field string
	Msg   string
	// notImplemented makes errors.Is(err, ErrNotImplemented) true.
	notImplemented bool
	// notFound makes errors.Is(err, ErrNotFound) true.
	notFound bool
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Is makes errors.Is(err, ErrInvalid) true, errors.Is(err,
// ErrNotImplemented) for what the engine does not implement yet and
// errors.Is(err, ErrNotFound) for a node or instance the store lacks.
func (e *ValidationError) Is(target error) bool {
	return target == ErrInvalid || e.notImplemented && target == ErrNotImplemented ||
		e.notFound && target == ErrNotFound
}

// invalid is the *ValidationError of field, its message formatted.
func invalid(field, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// notImplemented is invalid for a valid configuration the engine does not
// implement yet; it matches ErrNotImplemented.
func notImplemented(field, format string, args ...any) *ValidationError {
	e := invalid(field, format, args...)
	e.notImplemented = true
	return e
}

// ValidateCloud checks a Cloud and returns a *ValidationError naming the
// first bad field with a scenario-style path (hosts[3].memory_mb,
// config.filters[2]). It does not change c.
func ValidateCloud(c *Cloud) error { return validateCloud(c, 0) }

// validateCloud is ValidateCloud, but for the per-host checks of the
// first trusted hosts (validateHost), which a Store's rebuild knows to
// hold already: they are the hosts of its cloud, validated when they
// joined it, whose fields it never changes. The checks across hosts
// (duplicates, one service per host) cover every host; the trusted ones
// passed them together, so a few joining hosts are checked against the
// others by a scan (validateJoining), none when none joins.
func validateCloud(c *Cloud, trusted int) error {
	if err := validateConfig(&c.Config); err != nil {
		return err
	}
	names := make(map[string]int, len(c.Aggregates))
	for i, a := range c.Aggregates {
		p := fmt.Sprintf("aggregates[%d]", i)
		if a.Name == "" {
			return invalid(p+".name", "want a non-empty string")
		}
		if j, dup := names[a.Name]; dup {
			return invalid(p+".name", "duplicate aggregate name %q (also aggregates[%d])", a.Name, j)
		}
		names[a.Name] = i
		if err := validateAggregateNumbers(p, a.Metadata); err != nil {
			return err
		}
	}
	if len(c.Hosts)-trusted <= joiningFew {
		// The trusted hosts passed the checks across hosts together (a
		// store's, or some of them): those that join are checked
		// against the hosts before them, one by one, without the maps.
		for i := trusted; i < len(c.Hosts); i++ {
			if err := validateJoining(c, i); err != nil {
				return err
			}
		}
		return nil
	}
	type key struct{ host, node string }
	seen := make(map[key]int, len(c.Hosts))
	uuids := make(map[string]int, len(c.Hosts))
	service := make(map[string]int, len(c.Hosts))
	for i := range c.Hosts {
		h := &c.Hosts[i]
		p := func() string { return "hosts[" + strconv.Itoa(i) + "]" } // on an error only
		if h.Host == "" {
			return invalid(p()+".host", "want a non-empty string")
		}
		k := key{h.Host, nodeName(h)}
		if j, dup := seen[k]; dup {
			return invalid(p(), "duplicate host %q node %q (also hosts[%d])", k.host, k.node, j)
		}
		seen[k] = i
		if h.UUID != "" {
			if j, dup := uuids[h.UUID]; dup {
				return invalid(p()+".uuid", "duplicate uuid %q (also hosts[%d])", h.UUID, j)
			}
			uuids[h.UUID] = i
		}
		if j, ok := service[h.Host]; ok && c.Hosts[j].Service != h.Service {
			return invalid(p()+".service", "differs from hosts[%d].service of the same host; Nova has one compute service per host", j)
		}
		service[h.Host] = i
		if i < trusted {
			continue
		}
		if err := validateHost(p, h); err != nil {
			return err
		}
	}
	return nil
}

// joiningFew is how many hosts validateCloud checks against the trusted
// ones one by one (a host's checks scan the hosts before it).
const joiningFew = 8

// validateJoining is validateCloud's checks of host i, with every host
// before it: those across hosts by a scan (the same errors as the maps':
// a duplicate names its first occurrence, a service the last host of the
// same name), then its own.
func validateJoining(c *Cloud, i int) error {
	h := &c.Hosts[i]
	p := func() string { return "hosts[" + strconv.Itoa(i) + "]" }
	if h.Host == "" {
		return invalid(p()+".host", "want a non-empty string")
	}
	node := nodeName(h)
	for j := range c.Hosts[:i] {
		if o := &c.Hosts[j]; o.Host == h.Host && nodeName(o) == node {
			return invalid(p(), "duplicate host %q node %q (also hosts[%d])", h.Host, node, j)
		}
	}
	if h.UUID != "" {
		for j := range c.Hosts[:i] {
			if c.Hosts[j].UUID == h.UUID {
				return invalid(p()+".uuid", "duplicate uuid %q (also hosts[%d])", h.UUID, j)
			}
		}
	}
	for j := i - 1; j >= 0; j-- {
		if o := &c.Hosts[j]; o.Host == h.Host {
			if o.Service != h.Service {
				return invalid(p()+".service", "differs from hosts[%d].service of the same host; Nova has one compute service per host", j)
			}
			break
		}
	}
	return validateHost(p, h)
}

// validateAggregateNumbers refuses aggregate overrides that parse to
// numbers no result can carry: a NaN or infinite weigher multiplier makes
// NaN weights, which Nova's sort cannot order and JSON cannot hold, and an
// infinite allocation ratio an infinite limit; past MaxFactor (MaxRatio
// for a ratio), a finite one can overflow to them (limits.go). (Nova itself accepts them; a NaN ratio is accepted
// here too, with Nova's semantics.)
func validateAggregateNumbers(p string, meta map[string]string) error {
	for _, key := range slices.Sorted(maps.Keys(meta)) {
		v := meta[key]
		f, ok := nova.PyFloat(v)
		if !ok {
			continue // Nova falls back to the configured value
		}
		switch {
		case slices.Contains(multiplierKeys[:], key) && !(math.Abs(f) <= MaxFactor):
			return invalid(p+".metadata."+key, "want a number from -%g to %g, got %q", MaxFactor, MaxFactor, v)
		case slices.Contains(ratioKeys[:], key) && math.Abs(f) > MaxRatio: // another *_allocation_ratio is an opaque string to Nova
			return invalid(p+".metadata."+key, "want a number from -%d to %d (or NaN), got %q", MaxRatio, MaxRatio, v)
		}
	}
	return nil
}

// validateHost checks one host's own fields; path names it (called only
// for an error's field: building it for every host cost more than the
// checks).
func validateHost(path func() string, h *Host) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"memory_mb", h.MemoryMB}, {"vcpus", h.VCPUs}, {"vcpus_used", h.VCPUsUsed},
		{"local_gb", h.LocalGB}, {"num_instances", h.NumInstances},
		{"num_io_ops", h.NumIOOps}, {"failed_builds", h.FailedBuilds},
	} {
		if f.v < 0 {
			return invalid(path()+"."+f.name, "want a number >= 0, got %d", f.v)
		}
	}
	for _, f := range []struct {
		name  string
		v     int64
		bound int64
	}{
		{"memory_mb", h.MemoryMB, MaxMB}, {"free_ram_mb", h.FreeRAMMB, MaxMB}, {"vcpus", h.VCPUs, MaxMB},
		{"vcpus_used", h.VCPUsUsed, MaxMB}, {"local_gb", h.LocalGB, MaxGB}, {"free_disk_gb", h.FreeDiskGB, MaxGB},
		{"num_instances", h.NumInstances, MaxMB}, {"num_io_ops", h.NumIOOps, MaxMB}, {"failed_builds", h.FailedBuilds, MaxMB},
	} {
		if f.v < -f.bound || f.v > f.bound {
			return bounded(path()+".", f.name, f.v, f.bound)
		}
	}
	if d := h.DiskAvailableLeast; d != nil {
		if *d < -MaxGB || *d > MaxGB {
			return bounded(path()+".", "disk_available_least", *d, MaxGB)
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{
		{"ram_allocation_ratio", h.RAMAllocationRatio},
		{"cpu_allocation_ratio", h.CPUAllocationRatio},
		{"disk_allocation_ratio", h.DiskAllocationRatio},
	} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= MaxRatio) {
			return invalid(path()+"."+f.name, "want a number from 0 to %d, got %v", MaxRatio, *f.v)
		}
	}
	if h.HypervisorVersion != nil && *h.HypervisorVersion < 0 {
		return invalid(path()+".hypervisor_version", "want an integer >= 0, got %d", *h.HypervisorVersion)
	}
	if h.HostIP != nil {
		if _, err := nova.ParseHostIP(*h.HostIP); err != nil {
			return invalid(path()+".host_ip", "Nova refuses it: %v", err)
		}
	}
	for j, s := range h.SupportedInstances {
		if _, err := nova.CanonicalHVSpec([3]string{s.Arch, s.HVType, s.VMMode}); err != nil {
			return invalid(fmt.Sprintf("%s.supported_instances[%d]", path(), j), "Nova refuses it: %v", err)
		}
	}
	for _, v := range h.Metrics {
		if math.Abs(v) <= MaxFactor {
			continue
		}
		// Report the first by name, whatever the map's order.
		for _, name := range slices.Sorted(maps.Keys(h.Metrics)) {
			if v := h.Metrics[name]; !(math.Abs(v) <= MaxFactor) {
				return invalid(path()+".metrics["+strconv.Quote(name)+"]", "want a number from -%g to %g, got %v", MaxFactor, MaxFactor, v)
			}
		}
	}
	if _, err := nova.SchedulerMetrics(h.Metrics); err != nil {
		return invalid(path()+".metrics", "%v", err)
	}
	return nil
}

func validateConfig(c *Config) error {
	if err := validateNames("config.filters", c.Filters, KnownFilters, "filter"); err != nil {
		return err
	}
	if err := validateNames("config.baremetal_enabled_filters", c.BaremetalEnabledFilters, KnownFilters, "filter"); err != nil {
		return err
	}
	switch c.SchedulerDriver {
	case "", DriverFilterScheduler, DriverChanceScheduler:
	default:
		return invalid("config.scheduler_driver", "want %s or %s, got %q",
			DriverFilterScheduler, DriverChanceScheduler, c.SchedulerDriver)
	}
	switch c.HostManager {
	case "", HostManagerDefault, HostManagerIronic:
	default:
		return invalid("config.host_manager", "want %s or %s, got %q",
			HostManagerDefault, HostManagerIronic, c.HostManager)
	}
	if err := validateNames("config.weighers", c.Weighers, WeigherCatalogue, "weigher"); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"ram_weight_multiplier", c.RAMWeightMultiplier},
		{"cpu_weight_multiplier", c.CPUWeightMultiplier},
		{"disk_weight_multiplier", c.DiskWeightMultiplier},
		{"io_ops_weight_multiplier", c.IoOpsWeightMultiplier},
		{"num_instances_weight_multiplier", c.NumInstancesWeightMultiplier},
		{"soft_affinity_weight_multiplier", c.SoftAffinityWeightMultiplier},
		{"soft_anti_affinity_weight_multiplier", c.SoftAntiAffinityWeightMultiplier},
		{"build_failure_weight_multiplier", c.BuildFailureWeightMultiplier},
		{"metrics_weight_multiplier", c.MetricsWeightMultiplier},
		{"metrics_weight_of_unavailable", c.MetricsWeightOfUnavailable},
	} {
		if !(math.Abs(f.v) <= MaxFactor) {
			return invalid("config."+f.name, "want a number from -%g to %g, got %v", MaxFactor, MaxFactor, f.v)
		}
	}
	// Nova's options (nova/conf/scheduler.py) have min=0.0 for these two.
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"soft_affinity_weight_multiplier", c.SoftAffinityWeightMultiplier},
		{"soft_anti_affinity_weight_multiplier", c.SoftAntiAffinityWeightMultiplier},
	} {
		if f.v < 0 {
			return invalid("config."+f.name, "want a number >= 0 (Nova's minimum), got %v", f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"cpu_allocation_ratio", c.CPUAllocationRatio},
		{"ram_allocation_ratio", c.RAMAllocationRatio},
		{"disk_allocation_ratio", c.DiskAllocationRatio},
	} {
		if !(f.v >= 0 && f.v <= MaxRatio) {
			return invalid("config."+f.name, "want a number from 0 to %d, got %v", MaxRatio, f.v)
		}
	}
	for i, m := range c.MetricsWeightSetting {
		p := fmt.Sprintf("config.metrics_weight_setting[%d]", i)
		if m.Name == "" {
			return invalid(p+"[0]", "want a non-empty string")
		}
		if strings.ContainsAny(m.Name, "=,") {
			return invalid(p+"[0]", `a metric name cannot hold "=" or ","`)
		}
		if !(math.Abs(m.Ratio) <= MaxFactor) {
			return invalid(p+"[1]", "want a number from -%g to %g, got %v", MaxFactor, MaxFactor, m.Ratio)
		}
	}
	if a := c.ImagePropertiesDefaultArchitecture; a != nil {
		// Nova's option has choices=arch.ALL: exact names, no aliases.
		if canon, err := nova.CanonicalArch(*a); err != nil || canon != *a {
			return invalid("config.image_properties_default_architecture",
				"Nova refuses %q: not one of its architecture names (x86_64, aarch64, i686, ...)", *a)
		}
	}
	switch {
	case c.HostSubsetSize < 1:
		return invalid("config.host_subset_size", "want an integer >= 1, got %d", c.HostSubsetSize)
	case c.MaxAttempts < 1:
		return invalid("config.max_attempts", "want an integer >= 1, got %d", c.MaxAttempts)
	case c.MaxIoOpsPerHost < 0:
		return invalid("config.max_io_ops_per_host", "want an integer >= 0, got %d", c.MaxIoOpsPerHost)
	case c.MaxInstancesPerHost < 1: // Nova's option has min=1
		return invalid("config.max_instances_per_host", "want an integer >= 1, got %d", c.MaxInstancesPerHost)
	case c.DefaultAvailabilityZone == "":
		return invalid("config.default_availability_zone", "want a non-empty string")
	}
	return nil
}

func validateNames(path string, names, catalogue []string, what string) error {
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		known := false
		for _, c := range catalogue {
			if c == n {
				known = true
				break
			}
		}
		if !known {
			return invalid(fmt.Sprintf("%s[%d]", path, i), "unknown %s %q", what, n)
		}
		if seen[n] {
			return invalid(fmt.Sprintf("%s[%d]", path, i), "duplicate %s %q", what, n)
		}
		seen[n] = true
	}
	return nil
}

// PrepareRequest validates a request and returns it with defaults filled
// in: NumInstances (len(InstanceUUIDs), else 1) and InstanceUUIDs (inst-0,
// inst-1, ...). Errors are *ValidationError with paths like
// request.flavor.vcpus. The caller's slices are not modified. No check
// depends on the configuration today; cfg is where such checks would read
// it (PlaceBatch validates with the snapshot's).
func PrepareRequest(cfg *Config, r Request) (Request, error) {
	r, _, err := prepareRequest(cfg, r)
	return r, err
}

// parsedRequest is what prepareRequest parses of a request to validate it,
// kept for the batch.
type parsedRequest struct {
	img   nova.ImageRequest
	query *nova.Query
}

// prepareRequest is PrepareRequest, also returning the request's image
// properties and query as parsed.
func prepareRequest(cfg *Config, r Request) (Request, parsedRequest, error) {
	var p parsedRequest
	switch {
	case r.NumInstances < 0:
		return r, p, invalid("request.num_instances", "want an integer >= 1, got %d", r.NumInstances)
	case r.NumInstances > MaxInstances:
		return r, p, invalid("request.num_instances", "want an integer <= %d, got %d", MaxInstances, r.NumInstances)
	case r.NumInstances == 0 && len(r.InstanceUUIDs) > MaxInstances:
		return r, p, invalid("request.instance_uuids", "want at most %d uuids, got %d", MaxInstances, len(r.InstanceUUIDs))
	case r.NumInstances == 0 && len(r.InstanceUUIDs) > 0:
		r.NumInstances = len(r.InstanceUUIDs)
	case r.NumInstances == 0:
		r.NumInstances = 1
	}
	if r.InstanceUUIDs == nil {
		r.InstanceUUIDs = make([]string, r.NumInstances)
		for i := range r.InstanceUUIDs {
			r.InstanceUUIDs[i] = "inst-" + strconv.Itoa(i)
		}
	} else if len(r.InstanceUUIDs) != r.NumInstances {
		return r, p, invalid("request.instance_uuids", "want %d uuids (one per instance), got %d", r.NumInstances, len(r.InstanceUUIDs))
	}
	seen := make(map[string]int, len(r.InstanceUUIDs))
	for i, u := range r.InstanceUUIDs {
		if u == "" {
			return r, p, invalid(fmt.Sprintf("request.instance_uuids[%d]", i), "want a non-empty string")
		}
		if j, dup := seen[u]; dup {
			return r, p, invalid(fmt.Sprintf("request.instance_uuids[%d]", i), "duplicate uuid %q (also instance_uuids[%d])", u, j)
		}
		seen[u] = i
	}
	f := &r.Flavor
	for _, x := range []struct {
		name  string
		v     int64
		bound int64
	}{
		{"memory_mb", f.MemoryMB, MaxMB}, {"vcpus", f.VCPUs, MaxMB}, {"root_gb", f.RootGB, MaxGB},
		{"ephemeral_gb", f.EphemeralGB, MaxGB}, {"swap", f.Swap, MaxMB},
	} {
		if x.v < 0 {
			return r, p, invalid("request.flavor."+x.name, "want an integer >= 0, got %d", x.v)
		}
		if x.v > x.bound {
			return r, p, bounded("request.flavor.", x.name, x.v, x.bound)
		}
	}
	var err error
	if p.img, err = nova.ParseImage(r.Image.Properties); err != nil {
		return r, p, invalid("request.image.properties", "%v", err)
	}
	if g := r.InstanceGroup; g != nil {
		switch g.Policy {
		case PolicyAffinity, PolicyAntiAffinity, PolicySoftAffinity, PolicySoftAntiAffinity:
		default:
			return r, p, invalid("request.instance_group.policy",
				"want one of affinity, anti-affinity, soft-affinity, soft-anti-affinity, got %q", g.Policy)
		}
		if g.MaxServerPerHost < 0 {
			return r, p, invalid("request.instance_group.rules.max_server_per_host", "want an integer >= 1, got %d", g.MaxServerPerHost)
		}
	}
	if d := r.RequestedDestination; d != nil && d.Host == "" {
		return r, p, invalid("request.requested_destination.host", "want a non-empty string")
	}
	// A query that is not JSON raises in JsonFilter, at the first host it
	// is asked of, as Nova parses it there.
	p.query = nova.SharedQuery(r.SchedulerHints.Query)
	return r, p, nil
}
