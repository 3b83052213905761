package synth

import (
	"sort"
	"strconv"

	"github.com/placer/placer/engine"
)

// The requests of the basic and rich profiles: gen.py's _request.

type spec struct{ key, value string }

var capabilitySpecs = []spec{
	{"capabilities:hypervisor_version", ">= 5002000"},
	{"capabilities:cpu_info:vendor", "s== Intel"},
	{"capabilities:cpu_info:features", "<in> avx512f"},
	{"capabilities:cpu_info:topology:cores", ">= 16"},
	{"capabilities:hypervisor_type", "<or> QEMU <or> KVM"},
	{"capabilities:cpu_info:arch", "s== x86_64"},
	{"capabilities:num_vm_active", "<= 20"},
	{"capabilities:free_ram_mb", ">= 16384"},
	{"capabilities:vcpus_total", ">= 32"},
	{"hw:cpu_policy", "shared"},
}

var aggregateSpecs = []spec{
	{"aggregate_instance_extra_specs:ssd", "true"},
	{"aggregate_instance_extra_specs:cpu_class", "<in> fast"},
	{"aggregate_instance_extra_specs:ssd", "<or> true <or> yes"},
}

var realisticQueries = []string{
	`[">=", "$free_ram_mb", 16384]`,
	`["and", [">=", "$free_ram_mb", 8192], [">=", "$free_disk_mb", 204800], ["<", "$num_io_ops", 6]]`,
	`["or", ["=", "$hypervisor_type", "QEMU"], [">", "$vcpus_total", 64]]`,
	`["not", ["<", "$vcpus_total", 32]]`,
	`["<=", "$num_instances", 10]`,
}

var (
	projects     = []string{"proj-a", "proj-b", "proj-c", "proj-d"}
	projectShare = []float64{0.15, 0.1, 0.5, 0.25}
	policies     = []string{engine.PolicyAffinity, engine.PolicyAntiAffinity,
		engine.PolicySoftAffinity, engine.PolicySoftAntiAffinity}
)

// existingInstance returns the host index and uuid of the k-th existing
// instance of the cloud (0 <= k < total).
func (m *meta) existingInstance(c *engine.Cloud, k int) (int, string) {
	i := sort.SearchInts(m.instCum, k+1)
	before := 0
	if i > 0 {
		before = m.instCum[i-1]
	}
	return i, c.Hosts[i].Instances[k-before]
}

func (m *meta) numInstances() int {
	if len(m.instCum) == 0 {
		return 0
	}
	return m.instCum[len(m.instCum)-1]
}

// sampleInstances draws k distinct existing instances: host indexes and
// uuids.
func (m *meta) sampleInstances(r rng, c *engine.Cloud, k int) ([]int, []string) {
	idx := r.sampleIdx(m.numInstances(), k)
	hosts, uuids := make([]int, len(idx)), make([]string, len(idx))
	for j, x := range idx {
		hosts[j], uuids[j] = m.existingInstance(c, x)
	}
	return hosts, uuids
}

func strp(s string) *string { return &s }

func realisticRequest(r rng, c *engine.Cloud, m *meta, n int, rich bool) engine.Request {
	f := &flavors[pickIndexW(r, requestMix)]
	req := engine.Request{
		NumInstances: n,
		Flavor: engine.Flavor{Name: f.name, MemoryMB: f.memoryMB, VCPUs: f.vcpus,
			RootGB: f.rootGB, EphemeralGB: f.ephGB, Swap: f.swapMB,
			ExtraSpecs: map[string]string{}},
	}
	specs := req.Flavor.ExtraSpecs
	if r.chance(0.4) {
		for _, s := range sample(r, capabilitySpecs, r.between(1, 2)) {
			specs[s.key] = s.value
		}
	}
	if rich && r.chance(0.25) {
		s := pick(r, aggregateSpecs)
		specs[s.key] = s.value
	}
	if rich && r.chance(0.05) {
		specs["ssd"] = "true" // unscoped: aggregate metadata must match
	}
	req.InstanceUUIDs = r.uuids(n, new([]byte))

	if r.chance(0.6) {
		props := map[string]any{}
		if r.chance(0.5) {
			if r.chance(0.05) {
				props["hw_architecture"] = "aarch64"
			} else {
				props["hw_architecture"] = "x86_64"
			}
		}
		if r.chance(0.4) {
			props["img_hv_type"] = "kvm"
		}
		if r.chance(0.3) {
			props["hw_vm_mode"] = "hvm"
		}
		if r.chance(0.25) {
			props["img_hv_requested_version"] = pick(r, []string{">=5.0", ">=6.2", "<7.0"})
		}
		if r.chance(0.5) {
			props["os_distro"] = pick(r, []string{"ubuntu", "centos", "windows"})
		}
		var id string
		if m.specialImage != "" && r.chance(0.3) {
			id = m.specialImage
		} else {
			id = r.uuid()
		}
		req.Image = engine.Image{ID: &id, Properties: props}
	}

	if r.chance(0.4) {
		req.AvailabilityZone = strp(pick(r, []string{"az1", "az2", "az3", "az1", "az2", "az3", "nova"}))
	}
	req.ProjectID = strp(pickW(r, projects, projectShare))
	req.UserID = strp("user-" + strconv.Itoa(r.between(1, 9)))

	if r.chance(0.35) {
		policy := pick(r, policies)
		hostIdx, members := m.sampleInstances(r, c, r.between(0, 3))
		g := &engine.InstanceGroup{UUID: r.uuid(), Policy: policy, Members: members,
			Hosts: sortedHostNames(c, hostIdx)}
		if policy == engine.PolicyAntiAffinity && r.chance(0.5) {
			g.MaxServerPerHost = 2
		}
		req.InstanceGroup = g
	}

	p := 0.2
	if rich {
		p = 0.45
	}
	if r.chance(p) {
		h := &req.SchedulerHints
		switch kind := pick(r, []string{"same_host", "different_host", "query", "query", "near"}); {
		case kind == "same_host" && m.numInstances() > 0:
			_, h.SameHost = m.sampleInstances(r, c, r.between(1, 3))
		case kind == "different_host" && m.numInstances() > 0:
			_, h.DifferentHost = m.sampleInstances(r, c, r.between(1, 6))
		case kind == "query":
			h.Query = pick(r, realisticQueries)
		default: // "near", or no instance to name
			host := &c.Hosts[r.IntN(len(c.Hosts))]
			if host.HostIP != nil {
				h.BuildNearHostIP = *host.HostIP
			}
			h.CIDR = pick(r, []string{"/24", "/16"})
		}
	}

	switch x := r.Float64(); {
	case x < 0.1:
		for _, i := range r.sampleIdx(len(c.Hosts), r.between(1, 5)) {
			req.IgnoreHosts = append(req.IgnoreHosts, c.Hosts[i].Host)
		}
	case x < 0.13:
		req.ForceHosts = []string{c.Hosts[r.IntN(len(c.Hosts))].Host}
	case x < 0.16:
		h := &c.Hosts[r.IntN(len(c.Hosts))]
		req.RequestedDestination = &engine.Destination{Host: h.Host, Node: nodeOf(h)}
	}
	if rich && r.chance(0.1) {
		tried := r.sampleIdx(len(c.Hosts), r.between(1, 3))
		retry := &engine.Retry{NumAttempts: len(tried) + 1}
		for _, i := range tried {
			retry.Hosts = append(retry.Hosts, engine.HostNode{Host: c.Hosts[i].Host, Node: nodeOf(&c.Hosts[i])})
		}
		req.Retry = retry
	}
	return req
}

func nodeOf(h *engine.Host) string {
	if h.Node == "" {
		return h.Host
	}
	return h.Node
}

// sortedHostNames is sorted({hosts[i].Host for i in idx}).
func sortedHostNames(c *engine.Cloud, idx []int) []string {
	seen := map[string]bool{}
	var out []string
	for _, i := range idx {
		if h := c.Hosts[i].Host; !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}
