package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
)

// EncodeScenario writes s as a scenario document (format 1), one aggregate
// and one host per line, as `oracle gen` lays them out.
//
// Decoding the output gives s back: for a Scenario returned by Decode,
// Decode(EncodeScenario(s)) is deep-equal to s, floats included (bit for
// bit, -0 and image-property infinities too). For a Scenario built by
// hand, Decode fills in what s leaves to defaults (node, cell, uuids...)
// and gives nil for empty lists and maps. Every config field is written,
// so a nil Config.Filters stays "no filter". A value no scenario can hold
// (NaN, a property value of another type) is an error.
func EncodeScenario(w io.Writer, s *Scenario) error {
	var b bytes.Buffer
	b.WriteString("{\n  \"format\": 1,\n  \"config\": ")
	if err := writeCompact(&b, configOut(&s.Cloud.Config)); err != nil {
		return err
	}
	b.WriteString(",\n  \"aggregates\": ")
	if err := writeLines(&b, len(s.Cloud.Aggregates), func(i int) any { return aggregateOut(&s.Cloud.Aggregates[i]) }); err != nil {
		return err
	}
	b.WriteString(",\n  \"hosts\": ")
	if err := writeLines(&b, len(s.Cloud.Hosts), func(i int) any { return hostOut(&s.Cloud.Hosts[i]) }); err != nil {
		return err
	}
	b.WriteString(",\n  \"request\": ")
	if err := writeCompact(&b, requestOut(&s.Request)); err != nil {
		return err
	}
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func writeCompact(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("scenario: encoding a scenario: %w", err)
	}
	b.Truncate(b.Len() - 1) // the Encoder's newline
	return nil
}

func writeLines(b *bytes.Buffer, n int, item func(int) any) error {
	if n == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteString("[\n")
	for i := 0; i < n; i++ {
		b.WriteString("    ")
		if err := writeCompact(b, item(i)); err != nil {
			return err
		}
		if i < n-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]")
	return nil
}

// jfloat is a float written so that it decodes as a float again (with a
// fraction or an exponent), bit for bit; infinities are written 1e999,
// which Python and Decode read as infinite.
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return nil, fmt.Errorf("NaN has no JSON form")
	case math.IsInf(x, 1):
		return []byte("1e999"), nil
	case math.IsInf(x, -1):
		return []byte("-1e999"), nil
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return []byte(s), nil
}

func jfloatPtr(p *float64) *jfloat {
	if p == nil {
		return nil
	}
	f := jfloat(*p)
	return &f
}

type configJSON struct {
	Filters                               []string `json:"filters"`
	Weighers                              []string `json:"weighers"`
	RAMWeightMultiplier                   jfloat   `json:"ram_weight_multiplier"`
	CPUWeightMultiplier                   jfloat   `json:"cpu_weight_multiplier"`
	DiskWeightMultiplier                  jfloat   `json:"disk_weight_multiplier"`
	IoOpsWeightMultiplier                 jfloat   `json:"io_ops_weight_multiplier"`
	NumInstancesWeightMultiplier          jfloat   `json:"num_instances_weight_multiplier"`
	SoftAffinityWeightMultiplier          jfloat   `json:"soft_affinity_weight_multiplier"`
	SoftAntiAffinityWeightMultiplier      jfloat   `json:"soft_anti_affinity_weight_multiplier"`
	BuildFailureWeightMultiplier          jfloat   `json:"build_failure_weight_multiplier"`
	MetricsWeightMultiplier               jfloat   `json:"metrics_weight_multiplier"`
	MetricsWeightSetting                  [][2]any `json:"metrics_weight_setting"`
	MetricsRequired                       bool     `json:"metrics_required"`
	MetricsWeightOfUnavailable            jfloat   `json:"metrics_weight_of_unavailable"`
	HostSubsetSize                        int      `json:"host_subset_size"`
	MaxAttempts                           int      `json:"max_attempts"`
	ShuffleBestSameWeighedHosts           bool     `json:"shuffle_best_same_weighed_hosts"`
	Seed                                  int64    `json:"seed"`
	MaxIoOpsPerHost                       int64    `json:"max_io_ops_per_host"`
	MaxInstancesPerHost                   int64    `json:"max_instances_per_host"`
	DefaultAvailabilityZone               string   `json:"default_availability_zone"`
	CPUAllocationRatio                    jfloat   `json:"cpu_allocation_ratio"`
	RAMAllocationRatio                    jfloat   `json:"ram_allocation_ratio"`
	DiskAllocationRatio                   jfloat   `json:"disk_allocation_ratio"`
	IsolatedImages                        []string `json:"isolated_images"`
	IsolatedHosts                         []string `json:"isolated_hosts"`
	RestrictIsolatedHostsToIsolatedImages bool     `json:"restrict_isolated_hosts_to_isolated_images"`
	AggregateImagePropertiesIsolationNS   *string  `json:"aggregate_image_properties_isolation_namespace"`
	AggregateImagePropertiesIsolationSep  string   `json:"aggregate_image_properties_isolation_separator"`
	ImagePropertiesDefaultArchitecture    *string  `json:"image_properties_default_architecture"`
	// placer's additions, written only when not the default.
	SchedulerDriver         string    `json:"scheduler_driver,omitempty"`
	HostManager             string    `json:"host_manager,omitempty"`
	UseBaremetalFilters     bool      `json:"use_baremetal_filters,omitempty"`
	BaremetalEnabledFilters *[]string `json:"baremetal_enabled_filters,omitempty"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func configOut(c *engine.Config) configJSON {
	out := configJSON{
		Filters: nonNil(c.Filters), Weighers: nonNil(c.Weighers),
		RAMWeightMultiplier:                   jfloat(c.RAMWeightMultiplier),
		CPUWeightMultiplier:                   jfloat(c.CPUWeightMultiplier),
		DiskWeightMultiplier:                  jfloat(c.DiskWeightMultiplier),
		IoOpsWeightMultiplier:                 jfloat(c.IoOpsWeightMultiplier),
		NumInstancesWeightMultiplier:          jfloat(c.NumInstancesWeightMultiplier),
		SoftAffinityWeightMultiplier:          jfloat(c.SoftAffinityWeightMultiplier),
		SoftAntiAffinityWeightMultiplier:      jfloat(c.SoftAntiAffinityWeightMultiplier),
		BuildFailureWeightMultiplier:          jfloat(c.BuildFailureWeightMultiplier),
		MetricsWeightMultiplier:               jfloat(c.MetricsWeightMultiplier),
		MetricsWeightSetting:                  make([][2]any, len(c.MetricsWeightSetting)),
		MetricsRequired:                       c.MetricsRequired,
		MetricsWeightOfUnavailable:            jfloat(c.MetricsWeightOfUnavailable),
		HostSubsetSize:                        c.HostSubsetSize,
		MaxAttempts:                           c.MaxAttempts,
		ShuffleBestSameWeighedHosts:           c.ShuffleBestSameWeighedHosts,
		Seed:                                  c.Seed,
		MaxIoOpsPerHost:                       c.MaxIoOpsPerHost,
		MaxInstancesPerHost:                   c.MaxInstancesPerHost,
		DefaultAvailabilityZone:               c.DefaultAvailabilityZone,
		CPUAllocationRatio:                    jfloat(c.CPUAllocationRatio),
		RAMAllocationRatio:                    jfloat(c.RAMAllocationRatio),
		DiskAllocationRatio:                   jfloat(c.DiskAllocationRatio),
		IsolatedImages:                        nonNil(c.IsolatedImages),
		IsolatedHosts:                         nonNil(c.IsolatedHosts),
		RestrictIsolatedHostsToIsolatedImages: c.RestrictIsolatedHostsToIsolatedImages,
		AggregateImagePropertiesIsolationNS:   c.AggregateImagePropertiesIsolationNS,
		AggregateImagePropertiesIsolationSep:  c.AggregateImagePropertiesIsolationSep,
		ImagePropertiesDefaultArchitecture:    c.ImagePropertiesDefaultArchitecture,
	}
	for i, m := range c.MetricsWeightSetting {
		out.MetricsWeightSetting[i] = [2]any{m.Name, jfloat(m.Ratio)}
	}
	// The additions are left out at their defaults ("" counts as the
	// default driver and host manager, as the engine reads it), so that
	// what placer gen writes stays what the oracle's parser accepts.
	if c.SchedulerDriver != engine.DriverFilterScheduler {
		out.SchedulerDriver = c.SchedulerDriver
	}
	if c.HostManager != engine.HostManagerDefault {
		out.HostManager = c.HostManager
	}
	out.UseBaremetalFilters = c.UseBaremetalFilters
	if !slices.Equal(c.BaremetalEnabledFilters, engine.DefaultBaremetalEnabledFilters) {
		list := nonNil(c.BaremetalEnabledFilters) // nil is the empty list, as for filters
		out.BaremetalEnabledFilters = &list
	}
	return out
}

type aggregateJSON struct {
	Name     string            `json:"name,omitempty"`
	Hosts    []string          `json:"hosts,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

func aggregateOut(a *engine.Aggregate) aggregateJSON {
	return aggregateJSON{Name: a.Name, Hosts: a.Hosts, Metadata: a.Metadata}
}

type serviceJSON struct {
	Disabled bool `json:"disabled"`
	Up       bool `json:"up"`
}

type hostJSON struct {
	Host                string            `json:"host"`
	Node                string            `json:"node,omitempty"`
	UUID                string            `json:"uuid,omitempty"`
	Cell                string            `json:"cell,omitempty"`
	MemoryMB            int64             `json:"memory_mb"`
	FreeRAMMB           int64             `json:"free_ram_mb"`
	VCPUs               int64             `json:"vcpus"`
	VCPUsUsed           int64             `json:"vcpus_used"`
	LocalGB             int64             `json:"local_gb"`
	FreeDiskGB          int64             `json:"free_disk_gb"`
	DiskAvailableLeast  *int64            `json:"disk_available_least,omitempty"`
	RAMAllocationRatio  *jfloat           `json:"ram_allocation_ratio,omitempty"`
	CPUAllocationRatio  *jfloat           `json:"cpu_allocation_ratio,omitempty"`
	DiskAllocationRatio *jfloat           `json:"disk_allocation_ratio,omitempty"`
	NumInstances        int64             `json:"num_instances,omitempty"`
	NumIOOps            int64             `json:"num_io_ops,omitempty"`
	FailedBuilds        int64             `json:"failed_builds,omitempty"`
	Service             *serviceJSON      `json:"service,omitempty"`
	HypervisorType      *string           `json:"hypervisor_type,omitempty"`
	HypervisorVersion   *int64            `json:"hypervisor_version,omitempty"`
	HypervisorHostname  *string           `json:"hypervisor_hostname,omitempty"`
	SupportedInstances  [][3]string       `json:"supported_instances,omitempty"`
	CPUInfo             *string           `json:"cpu_info,omitempty"`
	Stats               map[string]string `json:"stats,omitempty"`
	Metrics             map[string]jfloat `json:"metrics,omitempty"`
	HostIP              *string           `json:"host_ip,omitempty"`
	Instances           []string          `json:"instances,omitempty"`
}

func hostOut(h *engine.Host) hostJSON {
	out := hostJSON{
		Host: h.Host, UUID: h.UUID, Cell: h.Cell,
		MemoryMB: h.MemoryMB, FreeRAMMB: h.FreeRAMMB, VCPUs: h.VCPUs, VCPUsUsed: h.VCPUsUsed,
		LocalGB: h.LocalGB, FreeDiskGB: h.FreeDiskGB, DiskAvailableLeast: h.DiskAvailableLeast,
		RAMAllocationRatio:  jfloatPtr(h.RAMAllocationRatio),
		CPUAllocationRatio:  jfloatPtr(h.CPUAllocationRatio),
		DiskAllocationRatio: jfloatPtr(h.DiskAllocationRatio),
		NumInstances:        h.NumInstances, NumIOOps: h.NumIOOps, FailedBuilds: h.FailedBuilds,
		HypervisorType: h.HypervisorType, HypervisorVersion: h.HypervisorVersion,
		HypervisorHostname: h.HypervisorHostname, CPUInfo: h.CPUInfo,
		Stats: h.Stats, HostIP: h.HostIP, Instances: h.Instances,
	}
	if h.Node != h.Host {
		out.Node = h.Node
	}
	if h.Service != (engine.Service{}) {
		out.Service = &serviceJSON{Disabled: h.Service.Disabled, Up: !h.Service.Down}
	}
	for _, s := range h.SupportedInstances {
		out.SupportedInstances = append(out.SupportedInstances, [3]string{s.Arch, s.HVType, s.VMMode})
	}
	if len(h.Metrics) > 0 {
		out.Metrics = make(map[string]jfloat, len(h.Metrics))
		for k, v := range h.Metrics {
			out.Metrics[k] = jfloat(v)
		}
	}
	return out
}

type flavorJSON struct {
	Name        string        `json:"name"`
	MemoryMB    int64         `json:"memory_mb"`
	VCPUs       int64         `json:"vcpus"`
	RootGB      int64         `json:"root_gb"`
	EphemeralGB int64         `json:"ephemeral_gb"`
	Swap        int64         `json:"swap"`
	ExtraSpecs  *orderedSpecs `json:"extra_specs,omitempty"`
}

// orderedSpecs writes extra specs as an object in the flavor's order
// (engine.Flavor.SpecKeys), which Nova walks them in.
type orderedSpecs struct {
	specs map[string]string
	keys  []string
}

func (o *orderedSpecs) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeCompact(&b, k); err != nil {
			return nil, err
		}
		b.WriteString(": ")
		if err := writeCompact(&b, o.specs[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type imageJSON struct {
	ID         *string     `json:"id,omitempty"`
	Properties propertyMap `json:"properties,omitempty"`
}

// propertyMap writes image property values with their JSON type kept: a
// float64 as a float (2.0, not 2), an int64 as an integer.
type propertyMap map[string]any

func (m propertyMap) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		var v any
		switch x := m[k].(type) {
		case nil, bool, string, int64:
			v = x
		case float64:
			v = jfloat(x)
		default:
			return nil, fmt.Errorf("image property %q: a %T is not a string, number or boolean", k, x)
		}
		vj, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(vj)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type groupJSON struct {
	UUID    string     `json:"uuid,omitempty"`
	Policy  string     `json:"policy"`
	Rules   *rulesJSON `json:"rules,omitempty"`
	Hosts   []string   `json:"hosts,omitempty"`
	Members []string   `json:"members,omitempty"`
}

type rulesJSON struct {
	MaxServerPerHost int `json:"max_server_per_host"`
}

type destinationJSON struct {
	Host string `json:"host"`
	Node string `json:"node,omitempty"`
}

type hintsJSON struct {
	SameHost        []string `json:"same_host,omitempty"`
	DifferentHost   []string `json:"different_host,omitempty"`
	Query           string   `json:"query,omitempty"`
	BuildNearHostIP string   `json:"build_near_host_ip,omitempty"`
	CIDR            *string  `json:"cidr,omitempty"`
}

type retryJSON struct {
	NumAttempts int         `json:"num_attempts"`
	Hosts       [][2]string `json:"hosts"`
}

type requestJSON struct {
	NumInstances         int              `json:"num_instances"`
	InstanceUUIDs        []string         `json:"instance_uuids,omitempty"`
	Flavor               flavorJSON       `json:"flavor"`
	Image                *imageJSON       `json:"image,omitempty"`
	ProjectID            *string          `json:"project_id,omitempty"`
	UserID               *string          `json:"user_id,omitempty"`
	AvailabilityZone     *string          `json:"availability_zone,omitempty"`
	InstanceGroup        *groupJSON       `json:"instance_group,omitempty"`
	IgnoreHosts          []string         `json:"ignore_hosts,omitempty"`
	ForceHosts           []string         `json:"force_hosts,omitempty"`
	ForceNodes           []string         `json:"force_nodes,omitempty"`
	RequestedDestination *destinationJSON `json:"requested_destination,omitempty"`
	SchedulerHints       *hintsJSON       `json:"scheduler_hints,omitempty"`
	Retry                *retryJSON       `json:"retry,omitempty"`
}

func requestOut(r *engine.Request) requestJSON {
	f := &r.Flavor
	out := requestJSON{
		NumInstances:  r.NumInstances,
		InstanceUUIDs: r.InstanceUUIDs,
		Flavor: flavorJSON{Name: f.Name, MemoryMB: f.MemoryMB, VCPUs: f.VCPUs, RootGB: f.RootGB,
			EphemeralGB: f.EphemeralGB, Swap: f.Swap},
		ProjectID: r.ProjectID, UserID: r.UserID, AvailabilityZone: r.AvailabilityZone,
		IgnoreHosts: r.IgnoreHosts, ForceHosts: r.ForceHosts, ForceNodes: r.ForceNodes,
	}
	if len(f.ExtraSpecs) > 0 {
		out.Flavor.ExtraSpecs = &orderedSpecs{f.ExtraSpecs, f.SpecKeys()}
	}
	if out.NumInstances == 0 { // the engine's "0 means len(InstanceUUIDs), else 1"
		out.NumInstances = max(1, len(r.InstanceUUIDs))
	}
	if r.Image.ID != nil || len(r.Image.Properties) > 0 {
		out.Image = &imageJSON{ID: r.Image.ID, Properties: r.Image.Properties}
	}
	if g := r.InstanceGroup; g != nil {
		out.InstanceGroup = &groupJSON{UUID: g.UUID, Policy: g.Policy, Hosts: g.Hosts, Members: g.Members}
		if g.MaxServerPerHost != 0 {
			out.InstanceGroup.Rules = &rulesJSON{g.MaxServerPerHost}
		}
	}
	if d := r.RequestedDestination; d != nil {
		out.RequestedDestination = &destinationJSON{Host: d.Host, Node: d.Node}
	}
	if h := r.SchedulerHints; !hintsEmpty(&h) {
		out.SchedulerHints = &hintsJSON{SameHost: h.SameHost, DifferentHost: h.DifferentHost,
			Query: h.Query, BuildNearHostIP: h.BuildNearHostIP}
		if h.CIDR != "" || h.EmptyCIDR {
			out.SchedulerHints.CIDR = &h.CIDR
		}
	}
	if rt := r.Retry; rt != nil {
		out.Retry = &retryJSON{NumAttempts: rt.NumAttempts, Hosts: make([][2]string, len(rt.Hosts))}
		for i, hn := range rt.Hosts {
			out.Retry.Hosts[i] = [2]string{hn.Host, hn.Node}
		}
	}
	return out
}

func hintsEmpty(h *engine.Hints) bool {
	return len(h.SameHost) == 0 && len(h.DifferentHost) == 0 && h.Query == "" &&
		h.BuildNearHostIP == "" && h.CIDR == "" && !h.EmptyCIDR
}
