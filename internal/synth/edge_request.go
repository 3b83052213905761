package synth

import (
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
)

// Edge requests: every request field Nova reads, with values chosen to hit
// the corners of the filters (uuids already on a host, names in the wrong
// case, destinations that do not exist, JsonFilter queries of every
// command, CIDRs from /0 to /32...).

var edgeExtraSpecs = []spec{
	{"capabilities:hypervisor_type", "<or> QEMU <or> kvm"},
	{"capabilities:cpu_info:vendor", "s== Intel"},
	{"capabilities:cpu_info:features", "<in> aes"},
	{"capabilities:cpu_info:features", "<all-in> aes avx"},
	{"capabilities:cpu_info:topology:cores", ">= 4"},
	{"capabilities:cpu_info", "<in> Intel"},
	{"capabilities:hypervisor_version", ">= 6000000"},
	{"capabilities:hypervisor_version", "= 4002000"},
	{"capabilities:num_instances", "<= 3"},
	{"capabilities:free_disk_mb", "= 1024"},
	{"capabilities:host_ip", "<in> 10.0"},
	{"capabilities:supported_instances", "<in> x86_64"},
	{"capabilities:hypervisor_hostname", "s!= hv-alpha-0"},
	{"capabilities:vcpus_total", "= 2"},
	{"capabilities:total_usable_ram_mb", ">= 1024"},
	{"capabilities:cpu_allocation_ratio", "== 16.0"},
	{"capabilities:stats:gpu", "true"},
	{"capabilities:opt2", "2"},
	{"capabilities:nosuch", "1"},
	{"free_ram_mb", ">= 512"},
	{"vcpus_used", "<= 2"},
	{"opt1", "1"},
	{"gpu", "true"},
	{"num_io_ops", "<or> 1 <or> 2 <or> 3"},
	{"nosuch_unscoped", "x"},
	{"aggregate_instance_extra_specs:ssd", "true"},
	{"aggregate_instance_extra_specs:os_distro", "<or> ubuntu <or> windows"},
	{"aggregate_instance_extra_specs:cpu_class", "s>= fast"},
	{"aggregate_instance_extra_specs:gpu", ""},
	{"ssd", "yes"},
	{"trust:trusted_host", "trusted"},
	{"hw:cpu_policy", "dedicated"},
	{"capabilities:free_ram_mb", ">="},
}

var edgeImageProps = []struct {
	key    string
	values []any
}{
	{"hw_architecture", []any{"x86_64", "aarch64", "AMD64", "i386"}},
	{"architecture", []any{"x86_64", "aarch64"}},
	{"img_hv_type", []any{"kvm", "qemu", "QEMU", "xen"}},
	{"hypervisor_type", []any{"kvm", "qemu"}},
	{"hw_vm_mode", []any{"hvm", "xen", "HV", "exe"}},
	{"vm_mode", []any{"hvm"}},
	{"img_hv_requested_version", []any{">=6.0", "<7.0", ">=4.0,<6.2", "==6.2.0", "!=7.2"}},
	{"os_distro", []any{"ubuntu", "windows", "centos"}},
	{"os_type", []any{"linux", "windows"}},
}

func edgeRequest(r rng, c *engine.Cloud, m *meta, n int) engine.Request {
	req := engine.Request{NumInstances: n}
	// strict scales how many constraining features the request has: some
	// requests are meant to be placed, so weighing and choice get tested,
	// others to fail, so the filter counts do.
	strict := pick(r, []float64{0.25, 0.5, 1})
	if r.chance(0.85) {
		req.InstanceUUIDs = r.uuids(n, new([]byte))
		if r.chance(0.25) && m.numInstances() > 0 {
			// An instance already on a host (a rebuild or a retry of it).
			_, u := m.existingInstance(c, r.IntN(m.numInstances()))
			if !contains(req.InstanceUUIDs, u) {
				req.InstanceUUIDs[r.IntN(n)] = u
			}
		}
	} // else nil: inst-0, inst-1... which the cloud sometimes holds already
	uuids := req.InstanceUUIDs
	if uuids == nil {
		for i := 0; i < n; i++ {
			uuids = append(uuids, "inst-"+strconv.Itoa(i))
		}
	}

	req.Flavor = engine.Flavor{
		Name:        pick(r, []string{"m1.tiny", "m1.small", "g1.large", "odd"}),
		MemoryMB:    pick(r, []int64{0, 256, 512, 1024, 2048}),
		VCPUs:       pick(r, []int64{0, 1, 1, 2, 4}),
		RootGB:      pick(r, []int64{0, 1, 5, 10}),
		EphemeralGB: pick(r, []int64{0, 0, 1, 5}),
		Swap:        pick(r, []int64{0, 0, 512, 1024}),
	}
	if r.chance(0.5 * strict) {
		req.Flavor.ExtraSpecs = map[string]string{}
		for _, s := range sample(r, edgeExtraSpecs, r.between(1, 3)) {
			req.Flavor.ExtraSpecs[s.key] = s.value
		}
	}

	if r.chance(0.6 * strict) {
		props := map[string]any{}
		for _, i := range r.sampleIdx(len(edgeImageProps), r.between(0, 4)) {
			p := edgeImageProps[i]
			props[p.key] = pick(r, p.values)
		}
		req.Image.Properties = props
		if r.chance(0.8) {
			id := r.uuid()
			if m.specialImage != "" && r.chance(0.4) {
				id = m.specialImage
			}
			req.Image.ID = &id
		}
	}
	if r.chance(0.35 * strict) {
		req.AvailabilityZone = strp(pick(r, []string{"az1", "az2", "az3", "nova", "AZ1"}))
	}
	if r.chance(0.8) {
		req.ProjectID = strp(pick(r, []string{"p1", "p2", "p3"}))
	}
	if r.chance(0.5) {
		req.UserID = strp("u1")
	}

	if r.chance(0.45) {
		req.InstanceGroup = edgeGroup(r, c, m, uuids)
	}
	edgeHints(r, c, m, &req, uuids, strict)
	edgeHostLists(r, c, m, &req, strict)
	return req
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func edgeGroup(r rng, c *engine.Cloud, m *meta, uuids []string) *engine.InstanceGroup {
	g := &engine.InstanceGroup{UUID: r.uuid(), Policy: pick(r, policies)}
	if g.Policy == engine.PolicyAntiAffinity || r.chance(0.1) {
		g.MaxServerPerHost = r.between(0, 3) // 0: Nova's default, 1
	}
	hostIdx, members := m.sampleInstances(r, c, r.between(0, 4))
	g.Members = members
	if r.chance(0.2) {
		g.Members = append(g.Members, uuids[r.IntN(len(uuids))]) // listed or not, they are members
	}
	if r.chance(0.1) {
		g.Members = append(g.Members, r.uuid()) // a member not on any host
	}
	switch x := r.Float64(); {
	case x < 0.6:
		g.Hosts = sortedHostNames(c, hostIdx)
	case x < 0.8 && len(m.hostNames) > 0:
		g.Hosts = sample(r, m.hostNames, r.between(1, 2))
	}
	if len(g.Hosts) > 0 && r.chance(0.1) {
		g.Hosts[0] = caseTwist(r, g.Hosts[0]) // ServerGroupAffinityFilter matches exactly
	}
	return g
}

func edgeHints(r rng, c *engine.Cloud, m *meta, req *engine.Request, uuids []string, strict float64) {
	h := &req.SchedulerHints
	someUUIDs := func() []string {
		var out []string
		if m.numInstances() > 0 {
			_, out = m.sampleInstances(r, c, r.between(1, 3))
		}
		if r.chance(0.2) {
			out = append(out, r.uuid())
		}
		if r.chance(0.1) {
			out = append(out, uuids[0])
		}
		if len(out) == 0 {
			out = append(out, r.uuid())
		}
		return out
	}
	if r.chance(0.15 * strict) {
		h.SameHost = someUUIDs()
	}
	if r.chance(0.15 * strict) {
		h.DifferentHost = someUUIDs()
	}
	if r.chance(0.3 * strict) {
		h.Query = edgeQuery(r)
	}
	if r.chance(0.2 * strict) {
		host := &c.Hosts[r.IntN(len(c.Hosts))]
		if host.HostIP != nil && r.chance(0.8) {
			h.BuildNearHostIP = *host.HostIP
		} else {
			h.BuildNearHostIP = pick(r, []string{"10.0.0.1", "10.9.9.9", "192.168.0.77"})
		}
		h.CIDR = pick(r, []string{"", "/24", "/16", "/8", "/32", "/0"})
		// "" near a host's own address is a cidr given empty (the address
		// alone), near the others no cidr at all (/24): no draw more, so
		// the stream of the rest is unchanged.
		h.EmptyCIDR = h.CIDR == "" && host.HostIP != nil && h.BuildNearHostIP == *host.HostIP
	}
}

func edgeHostLists(r rng, c *engine.Cloud, m *meta, req *engine.Request, strict float64) {
	hostName := func() string {
		if r.chance(0.1) || len(m.hostNames) == 0 {
			return "nowhere"
		}
		return caseTwist(r, pick(r, m.hostNames))
	}
	if r.chance(0.15 * strict) {
		for i := r.between(1, 3); i > 0; i-- {
			req.IgnoreHosts = append(req.IgnoreHosts, hostName())
		}
	}
	if r.chance(0.1 * strict) {
		for i := r.between(1, 2); i > 0; i-- {
			req.ForceHosts = append(req.ForceHosts, hostName())
		}
	}
	if r.chance(0.08 * strict) {
		for i := r.between(1, 2); i > 0; i-- {
			node := nodeOf(&c.Hosts[r.IntN(len(c.Hosts))])
			if r.chance(0.2) {
				node = caseTwist(r, node)
			}
			req.ForceNodes = append(req.ForceNodes, node)
		}
	}
	if r.chance(0.1 * strict) {
		h := &c.Hosts[r.IntN(len(c.Hosts))]
		d := &engine.Destination{Host: h.Host}
		switch x := r.Float64(); {
		case x < 0.4:
			d.Node = nodeOf(h)
		case x < 0.5:
			d.Node = h.Host + "-nope"
		case x < 0.6:
			d.Host = caseTwist(r, h.Host)
		}
		req.RequestedDestination = d
	}
	if r.chance(0.15 * strict) {
		retry := &engine.Retry{}
		for i := r.between(1, 3); i > 0; i-- {
			h := &c.Hosts[r.IntN(len(c.Hosts))]
			node := nodeOf(h)
			host := h.Host
			switch x := r.Float64(); {
			case x < 0.15:
				node = h.Host + "-other"
			case x < 0.25:
				host = caseTwist(r, host) // RetryFilter matches exactly
			}
			retry.Hosts = append(retry.Hosts, engine.HostNode{Host: host, Node: node})
		}
		retry.NumAttempts = len(retry.Hosts) + 1
		req.Retry = retry
	}
}

// JsonFilter queries. Variables are HostState attributes ($free_ram_mb),
// stats entries ($stats.gpu), or missing ($nosuch, dropped by Nova).
var (
	numericVars = []string{"$free_ram_mb", "$free_disk_mb", "$vcpus_used", "$vcpus_total",
		"$num_instances", "$num_io_ops", "$total_usable_ram_mb", "$total_usable_disk_gb",
		"$disk_mb_used", "$failed_builds", "$ram_allocation_ratio", "$hypervisor_version"}
	stringVars = []string{"$hypervisor_type", "$host", "$nodename", "$stats.gpu",
		"$stats.opt1", "$stats.num_instances", "$host_ip", "$hypervisor_hostname"}
	missingVars = []string{"$nosuch", "$stats.nosuch", ""}
	// Variables Nova cannot resolve without raising: metrics is a
	// MonitorMetricList and cpu_info a str (no .get), an int has no
	// attributes; and a bool.
	oddVars = []string{"$metrics.cpu.frequency", "$cpu_info.vendor", "$free_ram_mb.x",
		"$service.disabled", "$limits.memory_mb", "$aggregates"}
	compareOps = []string{"=", "<", ">", "<=", ">=", "in"}
	logicOps   = []string{"and", "or", "not"}
)

func edgeQuery(r rng) string {
	if r.chance(0.05) {
		return "[]"
	}
	var b strings.Builder
	queryExpr(r, &b, r.between(0, 3))
	return b.String()
}

func quote(s string) string { return strconv.Quote(s) }

func numberLiteral(r rng) string {
	return pick(r, []string{"0", "1", "2", "512", "1024", "2048", "4096", "10240", "1.5", "-1", "6000000"})
}

func stringLiteral(r rng) string {
	return quote(pick(r, []string{"QEMU", "kvm", "true", "1", "alpha-0", "Bravo-1", "10.0.0.1"}))
}

func queryExpr(r rng, b *strings.Builder, depth int) {
	if depth == 0 || r.chance(0.4) {
		op := pick(r, compareOps)
		b.WriteString("[" + quote(op))
		nargs := r.between(1, 3)
		if r.chance(0.05) {
			nargs = 0 // fewer than two arguments: False
		}
		numeric := r.chance(0.6)
		for i := 0; i < nargs; i++ {
			b.WriteString(", ")
			switch {
			case i == 0 && r.chance(0.1):
				b.WriteString(quote(pick(r, missingVars)))
			case r.chance(0.04):
				b.WriteString(quote(pick(r, oddVars)))
			case depth > 0 && r.chance(0.08):
				// A command's result as an operand: bools compare with
				// ints (True == 1), "not" gives a list.
				queryExpr(r, b, depth-1)
			case r.chance(0.03):
				b.WriteString(pick(r, []string{"true", "false", "null", "[]"}))
			case i == 0 && numeric:
				b.WriteString(quote(pick(r, numericVars)))
			case i == 0:
				b.WriteString(quote(pick(r, stringVars)))
			case numeric && r.chance(0.2):
				b.WriteString(quote(pick(r, numericVars)))
			case numeric:
				b.WriteString(numberLiteral(r))
			case r.chance(0.1):
				b.WriteString(numberLiteral(r)) // a str == int compares False
			default:
				b.WriteString(stringLiteral(r))
			}
		}
		b.WriteString("]")
		return
	}
	op := pick(r, logicOps)
	b.WriteString("[" + quote(op))
	for i := r.between(1, 3); i > 0; i-- {
		b.WriteString(", ")
		queryExpr(r, b, depth-1)
	}
	b.WriteString("]")
}
