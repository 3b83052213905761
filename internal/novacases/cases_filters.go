package novacases

import (
	"strings"

	"github.com/placer/placer/engine"
)

// filterCases are the non-resource filters of the catalogue, with Nova's
// unit-test cases where it has them (NOVA-SEMANTICS.md §5).
func filterCases() []Case {
	var out []Case
	for _, group := range [][]Case{
		computeAndAZCases(), capabilityCases(), imageCases(), groupFilterCases(),
		aggregateFilterCases(), hintFilterCases(), countFilterCases(), jsonCases(),
		miscFilterCases(),
	} {
		out = append(out, group...)
	}
	return out
}

// with returns the default one-instance request changed by f.
func with(f func(*engine.Request)) engine.Request {
	r := request(1)
	f(&r)
	return r
}

// oneOf is a case where, of hosts h1..hn, exactly the hosts in want pass
// the filter (the first of them is chosen: no weigher runs).
func oneOf(name string, cfg engine.Config, hosts []engine.Host, aggs []engine.Aggregate, req engine.Request, want ...string) Case {
	c := Case{Name: name, Cloud: engine.Cloud{Config: cfg, Hosts: hosts, Aggregates: aggs}, Req: req}
	if len(want) == 0 {
		c.Want = Want{Err: nvh(0, len(hosts), len(hosts), fc(cfg.Filters[len(cfg.Filters)-1], len(hosts), 0))}
		return c
	}
	c.Want = Want{Hosts: want[:1], Candidates: []int{len(want)}}
	return c
}

func computeAndAZCases() []Case {
	f := engine.ComputeFilter
	az := engine.AvailabilityZoneFilter
	inAZ := func(name string, aggs []engine.Aggregate, zone string, pass bool) Case {
		c := single(name, az, host("h1"), with(func(r *engine.Request) { r.AvailabilityZone = strp(zone) }), pass, engine.Limits{})
		c.Cloud.Aggregates = aggs
		return c
	}
	return []Case{
		single("ComputeFilter/enabled-and-up-passes", f, host("h1"), request(1), true, engine.Limits{}),
		single("ComputeFilter/disabled-fails", f, host("h1", disabled()), request(1), false, engine.Limits{}),
		single("ComputeFilter/down-fails", f, host("h1", down()), request(1), false, engine.Limits{}),
		oneOf("ComputeFilter/keeps-only-enabled-up", config(names(f), nil),
			[]engine.Host{host("h1", disabled()), host("h2", down()), host("h3")}, nil, request(1), "h3"),
		single("AllHostsFilter/passes", engine.AllHostsFilter, host("h1", disabled()), request(1), true, engine.Limits{}),

		inAZ("AvailabilityZoneFilter/aggregate-nova-request-nova", []engine.Aggregate{agg("a", names("h1"), "availability_zone", "nova")}, "nova", true),
		inAZ("AvailabilityZoneFilter/two-aggregates-nova-nova2", []engine.Aggregate{
			agg("a", names("h1"), "availability_zone", "nova"), agg("b", names("h1"), "availability_zone", "nova2")}, "nova", true),
		inAZ("AvailabilityZoneFilter/comma-split-values", []engine.Aggregate{agg("a", names("h1"), "availability_zone", "nova2, nova")}, "nova", true),
		inAZ("AvailabilityZoneFilter/aggregate-nova-request-bad", []engine.Aggregate{agg("a", names("h1"), "availability_zone", "nova")}, "bad", false),
		inAZ("AvailabilityZoneFilter/no-aggregate-default-zone", nil, "nova", true),
		inAZ("AvailabilityZoneFilter/no-aggregate-other-zone", nil, "az1", false),
		inAZ("AvailabilityZoneFilter/aggregate-zone-hides-default", []engine.Aggregate{agg("a", names("h1"), "availability_zone", "az1")}, "nova", false),
		single("AvailabilityZoneFilter/no-zone-requested", az, host("h1"), request(1), true, engine.Limits{}),
	}
}

func capabilityCases() []Case {
	f := engine.ComputeCapabilitiesFilter
	specs := func(kv ...string) engine.Request {
		return with(func(r *engine.Request) {
			r.Flavor.ExtraSpecs = map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				r.Flavor.ExtraSpecs[kv[i]] = kv[i+1]
				r.Flavor.ExtraSpecOrder = append(r.Flavor.ExtraSpecOrder, kv[i]) // Nova walks them so
			}
		})
	}
	opts := host("h1", stats("opt1", "1", "opt2", "2"))
	none := engine.Limits{}
	return []Case{
		single("ComputeCapabilitiesFilter/stats-match", f, opts, specs("opt1", "1", "opt2", "2"), true, none),
		single("ComputeCapabilitiesFilter/stats-mismatch", f, opts, specs("opt1", "1", "opt2", "222"), false, none),
		single("ComputeCapabilitiesFilter/capabilities-scope", f, opts, specs("capabilities:opt1", "1"), true, none),
		single("ComputeCapabilitiesFilter/unknown-key-ignored", f, opts, specs("XXYY", "1"), true, none),
		single("ComputeCapabilitiesFilter/other-scope-ignored", f, opts, specs("wrong_scope:opt1", "1"), true, none),
		single("ComputeCapabilitiesFilter/capabilities-scope-missing-fails", f, opts, specs("capabilities:opt3", "1"), false, none),
		single("ComputeCapabilitiesFilter/host-attribute-ge", f, host("h1", ram(2048, 1024)), specs("free_ram_mb", ">= 300"), true, none),
		single("ComputeCapabilitiesFilter/host-attribute-le", f, host("h1", ram(2048, 1024)), specs("free_ram_mb", "<= 300"), false, none),
		single("ComputeCapabilitiesFilter/cpu-info-json", f, host("h1", cpuInfo(`{"vendor": "Intel", "features": ["aes", "mmx"]}`)),
			specs("capabilities:cpu_info:vendor", "Intel"), true, none),
		single("ComputeCapabilitiesFilter/cpu-info-not-json", f, host("h1", cpuInfo("Intel")),
			specs("capabilities:cpu_info:vendor", "Intel"), false, none),
		single("ComputeCapabilitiesFilter/no-extra-specs", f, opts, request(1), true, none),
		// HostState.instances maps uuids to the host manager's
		// Instance(context, uuid=...) objects, which the walk reads with
		// getattr: the uuid is set; a name the object lacks is None, then
		// .stats of it an AttributeError: no capability. (Another field
		// is lazy-loaded from Nova's database: not modelled.)
		single("ComputeCapabilitiesFilter/placer/instance-uuid", f, host("h1", instances("u1")),
			specs("capabilities:instances:u1:uuid", "s== u1"), true, none),
		single("ComputeCapabilitiesFilter/placer/instance-no-such-attribute", f, host("h1", instances("u1")),
			specs("capabilities:instances:u1:colour", "s== red"), false, none),
		// str(host_ip) is netaddr's, through glibc's inet_ntop: an
		// IPv4-compatible IPv6 address prints its last 32 bits dotted.
		single("ComputeCapabilitiesFilter/placer/host-ip-v4-compatible-text", f, host("h1", hostIP("::102:304")),
			specs("capabilities:host_ip", "s== ::1.2.3.4"), true, none),
		single("ComputeCapabilitiesFilter/placer/host-ip-v6-text", f, host("h1", hostIP("::ff:1.2.3.4")),
			specs("capabilities:host_ip", "s== ::ff:102:304"), true, none),
		single("ComputeCapabilitiesFilter/placer/host-ip-low-v6-text", f, host("h1", hostIP("::0.0.1.0")),
			specs("capabilities:host_ip", "s== ::100"), true, none),
		// json.loads converts an integer with int(): past 4,300 digits
		// that raises ValueError, which the walk takes as no capability.
		single("ComputeCapabilitiesFilter/placer/cpu-info-int-past-4300-digits-fails", f,
			host("h1", cpuInfo(`{"vendor": "Intel", "n": 1`+strings.Repeat("0", 4300)+`}`)),
			specs("capabilities:cpu_info:vendor", "Intel"), false, none),
		single("ComputeCapabilitiesFilter/placer/cpu-info-int-of-4300-digits-parses", f,
			host("h1", cpuInfo(`{"vendor": "Intel", "n": 1`+strings.Repeat("0", 4299)+`}`)),
			specs("capabilities:cpu_info:vendor", "Intel"), true, none),
		single("ComputeCapabilitiesFilter/stats-counter-num-instances", f, host("h1", numInst(3)),
			specs("capabilities:stats:num_instances", "3"), true, none),
		// The specs are walked in the flavor's order, and the first that
		// fails or raises decides: "s== xen" fails on QEMU, ">= 8c" raises
		// (float("8c")).
		single("ComputeCapabilitiesFilter/placer/flavor-order-fails-first", f, host("h1", hvType("QEMU"), cpuInfo(`{"topology": {"cores": 8}}`)),
			specs("capabilities:hypervisor_type", "s== xen", "capabilities:cpu_info:topology:cores", ">= 8c"), false, none),
		{Name: "ComputeCapabilitiesFilter/placer/flavor-order-raises-first",
			Cloud: engine.Cloud{Config: config(names(f), nil), Hosts: []engine.Host{host("h1", hvType("QEMU"), cpuInfo(`{"topology": {"cores": 8}}`))}},
			Req:   specs("capabilities:cpu_info:topology:cores", ">= 8c", "capabilities:hypervisor_type", "s== xen"),
			Want:  Want{Err: &WantErr{Kind: "ValueError", Index: 0}}},
	}
}

func imageCases() []Case {
	f := engine.ImagePropertiesFilter
	kvm := host("h1", supports(engine.HVSpec{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"}), hvVersion(6000000))
	img := func(kv ...any) engine.Request {
		return with(func(r *engine.Request) {
			r.Image.Properties = map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				r.Image.Properties[kv[i].(string)] = kv[i+1]
			}
		})
	}
	props := func(arch, hv, mode, version string) engine.Request {
		kv := []any{"hw_architecture", arch, "img_hv_type", hv, "hw_vm_mode", mode}
		if version != "" {
			kv = append(kv, "img_hv_requested_version", version)
		}
		return img(kv...)
	}
	none := engine.Limits{}
	noVersion := host("h1", supports(engine.HVSpec{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"}))
	bare := host("h1", hvVersion(6000000))
	return []Case{
		single("ImagePropertiesFilter/all-match", f, kvm, props("x86_64", "kvm", "hvm", ">=6.0,<6.2"), true, none),
		single("ImagePropertiesFilter/arch-mismatch", f, kvm, props("armv7l", "qemu", "hvm", ""), false, none),
		single("ImagePropertiesFilter/version-too-low", f, kvm, props("x86_64", "kvm", "hvm", ">=6.2"), false, none),
		single("ImagePropertiesFilter/no-image-properties", f, kvm, request(1), true, none),
		single("ImagePropertiesFilter/host-without-supported-instances", f, bare, props("x86_64", "kvm", "hvm", ""), false, none),
		single("ImagePropertiesFilter/no-host-version", f, noVersion, props("x86_64", "kvm", "hvm", ">=6.0"), true, none),
		single("ImagePropertiesFilter/legacy-name-and-canonical-value", f, kvm, img("architecture", "amd64"), true, none),
		single("ImagePropertiesFilter/partial-match", f, kvm, img("hw_vm_mode", "hvm"), true, none),
	}
}

func groupFilterCases() []Case {
	anti := engine.ServerGroupAntiAffinityFilter
	aff := engine.ServerGroupAffinityFilter
	antiGroup := func(max int, members ...string) engine.Request {
		return with(func(r *engine.Request) {
			r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity, MaxServerPerHost: max, Members: members}
		})
	}
	busy := host("h1", instances("inst1", "inst2"))
	none := engine.Limits{}
	return []Case{
		single("ServerGroupAntiAffinityFilter/max-1-one-member-on-host", anti, busy, antiGroup(1, "inst1"), false, none),
		single("ServerGroupAntiAffinityFilter/max-2-two-members-on-host", anti, busy, antiGroup(2, "inst1", "inst2"), false, none),
		single("ServerGroupAntiAffinityFilter/max-1-no-member-on-host", anti, busy, antiGroup(1), true, none),
		single("ServerGroupAntiAffinityFilter/max-2-one-member-on-host", anti, busy, antiGroup(2, "inst1"), true, none),
		single("ServerGroupAntiAffinityFilter/default-max-is-1", anti, busy, antiGroup(0, "inst2"), false, none),
		single("ServerGroupAntiAffinityFilter/own-instance-on-host-passes", anti, busy,
			with(func(r *engine.Request) {
				r.InstanceUUIDs = names("inst2")
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity, Members: names("inst1")}
			}), true, none),
		single("ServerGroupAntiAffinityFilter/other-policy-passes", anti, busy,
			with(func(r *engine.Request) {
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAffinity, Members: names("inst1")}
			}), true, none),
		oneOf("ServerGroupAffinityFilter/group-hosts-only", config(names(aff), nil),
			[]engine.Host{host("h1"), host("h2"), host("h3")}, nil,
			with(func(r *engine.Request) {
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAffinity, Hosts: names("h2")}
			}), "h2"),
		oneOf("ServerGroupAffinityFilter/no-group-hosts-all-pass", config(names(aff), nil),
			[]engine.Host{host("h1"), host("h2")}, nil,
			with(func(r *engine.Request) {
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAffinity}
			}), "h1", "h2"),
		oneOf("ServerGroupAffinityFilter/soft-affinity-not-filtered", config(names(aff), nil),
			[]engine.Host{host("h1"), host("h2")}, nil,
			with(func(r *engine.Request) {
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicySoftAffinity, Hosts: names("h2")}
			}), "h1", "h2"),
	}
}

func aggregateFilterCases() []Case {
	three := []engine.Host{host("h1"), host("h2"), host("h3")}
	cfg := func(f string, opts ...func(*engine.Config)) engine.Config { return config(names(f), nil, opts...) }
	specs := func(kv ...string) engine.Request {
		return with(func(r *engine.Request) {
			r.Flavor.ExtraSpecs = map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				r.Flavor.ExtraSpecs[kv[i]] = kv[i+1]
				r.Flavor.ExtraSpecOrder = append(r.Flavor.ExtraSpecOrder, kv[i]) // Nova walks them so
			}
		})
	}
	ssd := []engine.Aggregate{agg("fast", names("h2"), "ssd", "true"), agg("slow", names("h3"), "ssd", "false")}
	aies := engine.AggregateInstanceExtraSpecsFilter
	amt := engine.AggregateMultiTenancyIsolation
	tenants := []engine.Aggregate{agg("t", names("h1", "h2"), "filter_tenant_id", "p1, p2")}
	project := func(p *string) engine.Request { return with(func(r *engine.Request) { r.ProjectID = p }) }
	ata := engine.AggregateTypeAffinityFilter
	types := []engine.Aggregate{agg("t", names("h1", "h2"), "instance_type", "medium, small"), agg("u", names("h2"), "instance_type", "large")}
	flavorName := func(n string) engine.Request { return with(func(r *engine.Request) { r.Flavor.Name = n }) }
	aipi := engine.AggregateImagePropertiesIsolation
	distro := []engine.Aggregate{agg("win", names("h1"), "os_distro", "windows"), agg("lin", names("h2"), "os_distro", "ubuntu")}
	image := func(kv ...any) engine.Request {
		return with(func(r *engine.Request) {
			r.Image.Properties = map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				r.Image.Properties[kv[i].(string)] = kv[i+1]
			}
		})
	}
	return []Case{
		oneOf("AggregateInstanceExtraSpecsFilter/scoped", cfg(aies), three, ssd, specs("aggregate_instance_extra_specs:ssd", "true"), "h2"),
		oneOf("AggregateInstanceExtraSpecsFilter/unscoped-must-be-in-aggregate", cfg(aies), three, ssd, specs("ssd", "true"), "h2"),
		oneOf("AggregateInstanceExtraSpecsFilter/other-scope-ignored", cfg(aies), three, ssd, specs("capabilities:ssd", "true"), "h1", "h2", "h3"),
		oneOf("AggregateInstanceExtraSpecsFilter/operator", cfg(aies), three, ssd, specs("ssd", "<or> false <or> true"), "h2", "h3"),
		oneOf("AggregateInstanceExtraSpecsFilter/no-extra-specs", cfg(aies), three, ssd, request(1), "h1", "h2", "h3"),
		// In the flavor's order: on h2 "ssd" passes and "disk" (metadata
		// "fast") raises under ">="; on h3 "ssd" fails first, unless "disk"
		// comes first.
		{Name: "AggregateInstanceExtraSpecsFilter/placer/flavor-order-fails-first", Cloud: engine.Cloud{Config: cfg(aies), Hosts: three[2:],
			Aggregates: []engine.Aggregate{agg("slow", names("h3"), "ssd", "false", "disk", "fast")}},
			Req: specs("ssd", "true", "disk", ">= 100"), Want: Want{Err: nvh(0, 1, 1, fc(aies, 1, 0))}},
		{Name: "AggregateInstanceExtraSpecsFilter/placer/flavor-order-raises-first", Cloud: engine.Cloud{Config: cfg(aies), Hosts: three[2:],
			Aggregates: []engine.Aggregate{agg("slow", names("h3"), "ssd", "false", "disk", "fast")}},
			Req: specs("disk", ">= 100", "ssd", "true"), Want: Want{Err: &WantErr{Kind: "ValueError", Index: 0}}},
		oneOf("AggregateMultiTenancyIsolation/listed-project", cfg(amt), three, tenants, project(strp("p2")), "h1", "h2", "h3"),
		oneOf("AggregateMultiTenancyIsolation/other-project", cfg(amt), three, tenants, project(strp("p3")), "h3"),
		oneOf("AggregateMultiTenancyIsolation/no-project", cfg(amt), three, tenants, request(1), "h3"),
		oneOf("AggregateMultiTenancyIsolation/only-exact-key", cfg(amt), three,
			[]engine.Aggregate{agg("t", names("h1"), "filter_tenant_id_2", "p1")}, project(strp("p3")), "h1", "h2", "h3"),
		oneOf("AggregateTypeAffinityFilter/listed-flavor", cfg(ata), three, types, flavorName("small"), "h1", "h2", "h3"),
		oneOf("AggregateTypeAffinityFilter/any-aggregate-lists-it", cfg(ata), three, types, flavorName("large"), "h2", "h3"),
		oneOf("AggregateTypeAffinityFilter/unlisted-flavor", cfg(ata), three, types, flavorName("tiny"), "h3"),
		// x.strip() strips U+001C..U+001F too (strings.TrimSpace does not).
		oneOf("AggregateTypeAffinityFilter/placer/python-strip", cfg(ata), three,
			[]engine.Aggregate{agg("t", names("h1"), "instance_type", "tiny\x1f, big")}, flavorName("tiny"), "h1", "h2", "h3"),
		oneOf("AggregateImagePropertiesIsolation/matching-property", cfg(aipi), three, distro, image("os_distro", "ubuntu"), "h2", "h3"),
		oneOf("AggregateImagePropertiesIsolation/no-property", cfg(aipi), three, distro, request(1), "h1", "h2", "h3"),
		oneOf("AggregateImagePropertiesIsolation/non-image-key-ignored", cfg(aipi), three,
			[]engine.Aggregate{agg("x", names("h1"), "ssd", "true")}, image("os_distro", "ubuntu"), "h1", "h2", "h3"),
		oneOf("AggregateImagePropertiesIsolation/namespace", cfg(aipi, func(c *engine.Config) {
			c.AggregateImagePropertiesIsolationNS = strp("os")
			c.AggregateImagePropertiesIsolationSep = "_"
		}), three, append(distro, agg("arch", names("h2"), "hw_architecture", "aarch64")),
			image("os_distro", "windows", "hw_architecture", "x86_64"), "h1", "h3"),
	}
}

func hintFilterCases() []Case {
	hosts := []engine.Host{host("h1", instances("u1")), host("h2", instances("u2", "u3")), host("h3")}
	hints := func(h engine.Hints) engine.Request { return with(func(r *engine.Request) { r.SchedulerHints = h }) }
	cidr := []engine.Host{host("h1", hostIP("10.0.0.7")), host("h2", hostIP("10.0.1.7")), host("h3", hostIP("10.1.0.7"))}
	return []Case{
		oneOf("SameHostFilter/with-listed-instance", config(names(engine.SameHostFilter), nil), hosts, nil,
			hints(engine.Hints{SameHost: names("u3", "u9")}), "h2"),
		oneOf("SameHostFilter/no-hint", config(names(engine.SameHostFilter), nil), hosts, nil, request(1), "h1", "h2", "h3"),
		oneOf("SameHostFilter/unknown-instance", config(names(engine.SameHostFilter), nil), hosts, nil,
			hints(engine.Hints{SameHost: names("u9")})),
		// get_scheduler_hint returns a one-element list as its string, and
		// an empty string is no hint.
		oneOf("SameHostFilter/one-empty-uuid-is-no-hint", config(names(engine.SameHostFilter), nil), hosts, nil,
			hints(engine.Hints{SameHost: names("")}), "h1", "h2", "h3"),
		oneOf("DifferentHostFilter/one-empty-uuid-is-no-hint", config(names(engine.DifferentHostFilter), nil),
			[]engine.Host{host("h1", instances("")), host("h2")}, nil,
			hints(engine.Hints{DifferentHost: names("")}), "h1", "h2"),
		oneOf("DifferentHostFilter/without-listed-instances", config(names(engine.DifferentHostFilter), nil), hosts, nil,
			hints(engine.Hints{DifferentHost: names("u1", "u2")}), "h3"),
		oneOf("DifferentHostFilter/no-hint", config(names(engine.DifferentHostFilter), nil), hosts, nil, request(1), "h1", "h2", "h3"),
		oneOf("SimpleCIDRAffinityFilter/default-24", config(names(engine.SimpleCIDRAffinityFilter), nil), cidr, nil,
			hints(engine.Hints{BuildNearHostIP: "10.0.0.200"}), "h1"),
		oneOf("SimpleCIDRAffinityFilter/cidr-16", config(names(engine.SimpleCIDRAffinityFilter), nil), cidr, nil,
			hints(engine.Hints{BuildNearHostIP: "10.0.0.200", CIDR: "/16"}), "h1", "h2"),
		oneOf("SimpleCIDRAffinityFilter/no-hint", config(names(engine.SimpleCIDRAffinityFilter), nil), cidr, nil, request(1), "h1", "h2", "h3"),
		// get_scheduler_hint('cidr', '/24') unwraps [""] to "": the
		// network is IPNetwork of the address alone, a /32.
		oneOf("SimpleCIDRAffinityFilter/placer/empty-cidr-is-the-address-alone", config(names(engine.SimpleCIDRAffinityFilter), nil), cidr, nil,
			hints(engine.Hints{BuildNearHostIP: "10.0.0.7", EmptyCIDR: true}), "h1"),
		oneOf("SimpleCIDRAffinityFilter/placer/empty-cidr-another-address", config(names(engine.SimpleCIDRAffinityFilter), nil), cidr, nil,
			hints(engine.Hints{BuildNearHostIP: "10.0.0.8", EmptyCIDR: true})),
		// A build_near_host_ip given as a network: its prefix and the cidr
		// hint's make a second "/", whose IPAddress() raises ValueError.
		{Name: "SimpleCIDRAffinityFilter/placer/near-ip-with-a-prefix-raises", Cloud: engine.Cloud{Config: config(names(engine.SimpleCIDRAffinityFilter), nil), Hosts: cidr},
			Req: hints(engine.Hints{BuildNearHostIP: "10.0.0.0/8"}), Want: Want{Err: &WantErr{Kind: "ValueError", Index: 0}}},
	}
}

func countFilterCases() []Case {
	none := engine.Limits{}
	maxIO := func(c *engine.Config) { c.MaxIoOpsPerHost = 8 }
	maxInst := func(c *engine.Config) { c.MaxInstancesPerHost = 5 }
	withCfg := func(c Case, o func(*engine.Config)) Case { o(&c.Cloud.Config); return c }
	withAggs := func(c Case, aggs ...engine.Aggregate) Case { c.Cloud.Aggregates = aggs; return c }
	return []Case{
		withCfg(single("IoOpsFilter/7-of-8-passes", engine.IoOpsFilter, host("h1", ioOps(7)), request(1), true, none), maxIO),
		withCfg(single("IoOpsFilter/8-of-8-fails", engine.IoOpsFilter, host("h1", ioOps(8)), request(1), false, none), maxIO),
		withCfg(single("NumInstancesFilter/4-of-5-passes", engine.NumInstancesFilter, host("h1", numInst(4)), request(1), true, none), maxInst),
		withCfg(single("NumInstancesFilter/5-of-5-fails", engine.NumInstancesFilter, host("h1", numInst(5)), request(1), false, none), maxInst),
		withAggs(single("AggregateIoOpsFilter/aggregate-3-fails-3", engine.AggregateIoOpsFilter, host("h1", ioOps(3)), request(1), false, none),
			agg("a", names("h1"), "max_io_ops_per_host", "3")),
		withAggs(single("AggregateIoOpsFilter/min-of-aggregates", engine.AggregateIoOpsFilter, host("h1", ioOps(3)), request(1), false, none),
			agg("a", names("h1"), "max_io_ops_per_host", "5"), agg("b", names("h1"), "max_io_ops_per_host", "2")),
		withAggs(single("AggregateIoOpsFilter/no-aggregate-uses-config", engine.AggregateIoOpsFilter, host("h1", ioOps(7)), request(1), true, none)),
		withAggs(single("AggregateIoOpsFilter/bad-value-uses-config", engine.AggregateIoOpsFilter, host("h1", ioOps(3)), request(1), true, none),
			agg("a", names("h1"), "max_io_ops_per_host", "2.0")),
		withAggs(single("AggregateNumInstancesFilter/aggregate-4-fails-4", engine.AggregateNumInstancesFilter, host("h1", numInst(4)), request(1), false, none),
			agg("a", names("h1"), "max_instances_per_host", "4")),
		withAggs(single("AggregateNumInstancesFilter/aggregate-5-passes-4", engine.AggregateNumInstancesFilter, host("h1", numInst(4)), request(1), true, none),
			agg("a", names("h1"), "max_instances_per_host", "5")),
		withAggs(single("AggregateNumInstancesFilter/no-aggregate-uses-config", engine.AggregateNumInstancesFilter, host("h1", numInst(49)), request(1), true, none)),
		// int() keeps a value past int64 exactly: an operator's "no limit"
		// holds as such, a huge negative one refuses every host (placer
		// once took them for unparsable, the configured limit applying).
		withCfg(withAggs(single("AggregateIoOpsFilter/placer/past-int64-is-no-limit", engine.AggregateIoOpsFilter, host("h1", ioOps(10)), request(1), true, none),
			agg("a", names("h1"), "max_io_ops_per_host", "99999999999999999999")), maxIO),
		withAggs(single("AggregateNumInstancesFilter/placer/below-int64-refuses", engine.AggregateNumInstancesFilter, host("h1", numInst(0)), request(1), false, none),
			agg("a", names("h1"), "max_instances_per_host", "-99999999999999999999")),
		// Past 4,300 digits int() raises ValueError (Python 3.11's limit):
		// the value does not parse, the configured limit applies.
		withCfg(withAggs(single("AggregateIoOpsFilter/placer/past-4300-digits-uses-config", engine.AggregateIoOpsFilter, host("h1", ioOps(10)), request(1), false, none),
			agg("a", names("h1"), "max_io_ops_per_host", "1"+strings.Repeat("0", 4300))), maxIO),
	}
}

func jsonCases() []Case {
	f := engine.JsonFilter
	none := engine.Limits{}
	query := func(q string) engine.Request {
		return with(func(r *engine.Request) { r.SchedulerHints.Query = q })
	}
	and := `["and", [">=", "$free_ram_mb", 1024], [">=", "$free_disk_mb", 204800]]`
	return []Case{
		single("JsonFilter/and-both-hold", f, host("h1", ram(4096, 1024), disk(300, 200)), query(and), true, none),
		single("JsonFilter/and-ram-short", f, host("h1", ram(4096, 1023), disk(300, 200)), query(and), false, none),
		single("JsonFilter/not-returns-list", f, host("h1"), query(`["not", true, false, true, false]`), true, none),
		single("JsonFilter/one-argument-compare-false", f, host("h1"), query(`[">", 1]`), false, none),
		single("JsonFilter/unresolved-variable-dropped", f, host("h1"), query(`["=", "$........", 1, 1]`), true, none),
		single("JsonFilter/no-query", f, host("h1"), request(1), true, none),
		single("JsonFilter/or", f, host("h1", numInst(3)), query(`["or", ["=", "$num_instances", 2], ["=", "$num_instances", 3]]`), true, none),
		single("JsonFilter/in", f, host("h1", hostIP("10.0.0.1")), query(`["in", "$host", "h2", "h3"]`), false, none),
		// $service reads HostState.service (a ReadOnlyDict of the
		// service record): .get of its fields.
		oneOf("JsonFilter/placer/service-disabled", config(names(f), nil), []engine.Host{host("h1"), host("h2", disabled()), host("h3", down())}, nil,
			query(`["=", "$service.disabled", false]`), "h1", "h3"),
		oneOf("JsonFilter/placer/service-host-and-binary", config(names(f), nil), []engine.Host{host("h1"), host("h2", disabled())}, nil,
			query(`["and", ["=", "$service.host", "h2"], ["=", "$service.binary", "nova-compute"], ["=", "$service.topic", "compute"], ["not", "$service.forced_down"]]`), "h2"),
		oneOf("JsonFilter/placer/service-unknown-field-is-none", config(names(f), nil), []engine.Host{host("h1")}, nil,
			query(`["=", "$service.nothing", 1, 1]`), "h1"),
		{Name: "JsonFilter/placer/service-field-get-raises", Cloud: engine.Cloud{Config: config(names(f), nil), Hosts: []engine.Host{host("h1")}},
			Req: query(`["=", "$service.host.x", 1]`), Want: Want{Err: &WantErr{Kind: "AttributeError", Index: 0}}},
		// $instances.<uuid> is an Instance(uuid=...) object: .get of its
		// uuid, of another field (unset: None), of a name it lacks
		// (AttributeError).
		oneOf("JsonFilter/placer/instance-uuid", config(names(f), nil), []engine.Host{host("h1", instances("u1")), host("h2", instances("u2"))}, nil,
			query(`["=", "$instances.u2.uuid", "u2"]`), "h2"),
		oneOf("JsonFilter/placer/instance-field-unset", config(names(f), nil), []engine.Host{host("h1", instances("u1"))}, nil,
			query(`["=", "$instances.u1.vm_state", 1, 1]`), "h1"),
		{Name: "JsonFilter/placer/instance-no-such-field", Cloud: engine.Cloud{Config: config(names(f), nil), Hosts: []engine.Host{host("h1", instances("u1"))}},
			Req: query(`["=", "$instances.u1.colour", 1]`), Want: Want{Err: &WantErr{Kind: "AttributeError", Index: 0}}},
		// host_passes parses the hint (jsonutils.loads) at each host: a
		// query that is not JSON raises there, and nowhere else.
		{Name: "JsonFilter/placer/not-json-raises-at-a-host", Cloud: engine.Cloud{Config: config(names(f), nil), Hosts: []engine.Host{host("h1")}},
			Req: query(`[">=", "$free_ram_mb"`), Want: Want{Err: &WantErr{Kind: "JSONDecodeError", Index: 0}}},
		// An integer past 4,300 digits: json.loads raises ValueError (its
		// int()), not a JSONDecodeError; 4,300 digits parse.
		{Name: "JsonFilter/placer/int-past-4300-digits-raises", Cloud: engine.Cloud{Config: config(names(f), nil), Hosts: []engine.Host{host("h1")}},
			Req: query(`["<", "$free_ram_mb", 1` + strings.Repeat("0", 4300) + `]`), Want: Want{Err: &WantErr{Kind: "ValueError", Index: 0}}},
		oneOf("JsonFilter/placer/int-of-4300-digits-parses", config(names(f), nil), []engine.Host{host("h1")}, nil,
			query(`["<", "$free_ram_mb", 1`+strings.Repeat("0", 4299)+`]`), "h1"),
		{Name: "JsonFilter/placer/not-json-ignored-when-off", Cloud: engine.Cloud{Config: config(names(engine.RamFilter), nil), Hosts: []engine.Host{host("h1")}},
			Req: query(`[">=", "$free_ram_mb"`), Want: Want{Hosts: names("h1"), Candidates: []int{1}}},
		{Name: "JsonFilter/placer/not-json-no-host-reaches-it", Cloud: engine.Cloud{Config: config(names(engine.RamFilter, f), nil), Hosts: []engine.Host{host("h1", ram(1024, 0))}},
			Req: query(`[">=", "$free_ram_mb"`), Want: Want{Err: nvh(0, 1, 1, fc(engine.RamFilter, 1, 0))}},
	}
}

func miscFilterCases() []Case {
	three := []engine.Host{host("h1"), host("h2"), host("h3")}
	isoCfg := func(restrict bool) engine.Config {
		return config(names(engine.IsolatedHostsFilter), nil, func(c *engine.Config) {
			c.IsolatedImages = names("img1")
			c.IsolatedHosts = names("h1")
			c.RestrictIsolatedHostsToIsolatedImages = restrict
		})
	}
	image := func(id string) engine.Request { return with(func(r *engine.Request) { r.Image.ID = strp(id) }) }
	metricsCfg := config(names(engine.MetricsFilter), nil, func(c *engine.Config) {
		c.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.frequency", Ratio: 1}}
	})
	return []Case{
		oneOf("IsolatedHostsFilter/isolated-image-isolated-host", isoCfg(true), three, nil, image("img1"), "h1"),
		oneOf("IsolatedHostsFilter/other-image-restricted", isoCfg(true), three, nil, image("img2"), "h2", "h3"),
		oneOf("IsolatedHostsFilter/other-image-unrestricted", isoCfg(false), three, nil, image("img2"), "h1", "h2", "h3"),
		oneOf("IsolatedHostsFilter/isolated-image-unrestricted", isoCfg(false), three, nil, image("img1"), "h1"),
		oneOf("IsolatedHostsFilter/no-isolated-images-restricted", config(names(engine.IsolatedHostsFilter), nil, func(c *engine.Config) {
			c.IsolatedHosts = names("h1")
		}), three, nil, request(1), "h2", "h3"),
		oneOf("MetricsFilter/host-without-metric", metricsCfg,
			[]engine.Host{host("h1"), host("h2", metrics(map[string]float64{"cpu.frequency": 2400}))}, nil, request(1), "h2"),
		oneOf("RetryFilter/tried-node-out", config(names(engine.RetryFilter), nil),
			[]engine.Host{host("h1"), host("h2"), host("h2", node("n2"))}, nil,
			with(func(r *engine.Request) {
				r.Retry = &engine.Retry{NumAttempts: 1, Hosts: []engine.HostNode{{Host: "h1", Node: "h1"}, {Host: "h2", Node: "n2"}}}
			}), "h2"),
		oneOf("RetryFilter/no-retry", config(names(engine.RetryFilter), nil), three, nil, request(1), "h1", "h2", "h3"),
	}
}
