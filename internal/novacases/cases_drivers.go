package novacases

import (
	"math/rand/v2"

	"github.com/placer/placer/engine"
)

// The drivers of older Nova releases (issue 20). Nova's own unit tests of
// the last release that had each are transcribed here, with the commit;
// the cases named "placer/..." pin what the code says where those tests
// say nothing. The oracle runs Nova 26, which has none of this code, so
// Case.Feature marks the cases it cannot judge.
//
//   - chance.py and tests/unit/scheduler/test_chance_scheduler.py at
//     rocky-eol (c7c85dff5fecc1d6470fe6a534a2930a75df12c8);
//   - ironic_host_manager.py, tests/unit/scheduler/test_ironic_host_manager.py
//     and ironic_fakes.py at queens-eol
//     (6d7646be5319d724a22aa76a6abe2d092de53ec7);
//   - filters/exact_{ram,core,disk}_filter.py and
//     tests/unit/scheduler/filters/test_exact_{ram,core,disk}_filter.py at
//     queens-eol.

// chancePick is placer's draw for the chance scheduler (the reference's
// doc): n distinct nodes by CPython's random.sample pool algorithm when
// there are at least n candidates, else an independent choice per
// instance, each randbelow(k) being IntN(k) of the seeded PCG.
func chancePick(seed int64, candidates []string, n int) []string {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	var out []string
	if len(candidates) >= n {
		pool := append([]string(nil), candidates...)
		for i := 0; i < n; i++ {
			j := rng.IntN(len(pool) - i)
			out = append(out, pool[j])
			pool[j] = pool[len(pool)-i-1]
		}
		return out
	}
	for i := 0; i < n; i++ {
		out = append(out, candidates[rng.IntN(len(candidates))])
	}
	return out
}

// chanceWant is a chance scheduler's outcome: the picked hosts, each
// weighing 0 with no limits and no alternate, with this many candidates.
func chanceWant(hosts []string, candidates int) Want {
	w := Want{Hosts: hosts}
	for range hosts {
		w.Weights = append(w.Weights, 0)
		w.Candidates = append(w.Candidates, candidates)
		w.Limits = append(w.Limits, engine.Limits{})
		w.Alternates = append(w.Alternates, nil)
	}
	return w
}

func chanceCfg(opts ...func(*engine.Config)) engine.Config {
	return config(nil, nil, append([]func(*engine.Config){func(c *engine.Config) {
		c.SchedulerDriver = engine.DriverChanceScheduler
	}}, opts...)...)
}

func seeded(seed int64) func(*engine.Config) { return func(c *engine.Config) { c.Seed = seed } }

// namedHosts are default hosts of these names.
func namedHosts(ns ...string) []engine.Host {
	var hs []engine.Host
	for _, n := range ns {
		hs = append(hs, host(n))
	}
	return hs
}

// chanceCases: nova/scheduler/chance.py and test_chance_scheduler.py at
// rocky-eol.
func chanceCases() []Case {
	c := func(name string, cloud engine.Cloud, req engine.Request, want Want) Case {
		return Case{Name: name, Cloud: cloud, Req: req, Want: want, Feature: FeatureChance}
	}
	reqN := func(n int, f func(*engine.Request)) engine.Request {
		r := request(n)
		if f != nil {
			f(&r)
		}
		return r
	}
	three := namedHosts("host1", "host2", "host3")
	four := namedHosts("host0", "host1", "host2", "host3")
	twenty := make([]string, 20)
	for i := range twenty {
		twenty[i] = "host" + itoa(i)
	}
	out := []Case{
		// test_filter_hosts_avoid: ignore_hosts removes host2.
		c("chance/filter-hosts-avoid", engine.Cloud{Config: chanceCfg(), Hosts: three},
			reqN(2, func(r *engine.Request) { r.IgnoreHosts = names("host2") }),
			chanceWant(chancePick(0, names("host1", "host3"), 2), 2)),
		// test_filter_hosts_no_avoid.
		c("chance/filter-hosts-no-avoid", engine.Cloud{Config: chanceCfg(seeded(5)), Hosts: three},
			reqN(1, func(r *engine.Request) { r.IgnoreHosts = []string{} }),
			chanceWant(chancePick(5, names("host1", "host2", "host3"), 1), 3)),
		// _filter_hosts is `host not in ignore_hosts`: exact names, unlike
		// the FilterScheduler's case-insensitive ignore_hosts.
		c("chance/placer/ignore-hosts-is-case-sensitive", engine.Cloud{Config: chanceCfg(seeded(2)), Hosts: three},
			reqN(3, func(r *engine.Request) { r.IgnoreHosts = names("HOST2") }),
			chanceWant(chancePick(2, names("host1", "host2", "host3"), 3), 3)),
		// test_select_destinations_no_valid_host: nothing left after
		// _filter_hosts ("Could not find another compute").
		{Name: "chance/select-destinations-no-valid-host", Feature: FeatureChance,
			Cloud: engine.Cloud{Config: chanceCfg(), Hosts: four},
			Req:   reqN(1, func(r *engine.Request) { r.IgnoreHosts = names("host0", "host1", "host2", "host3") }),
			Want:  Want{Err: nvh(0, 4, 0)}},
		// hosts_up empty ("Is the appropriate service running?").
		{Name: "chance/placer/no-service-up", Feature: FeatureChance,
			Cloud: engine.Cloud{Config: chanceCfg(), Hosts: []engine.Host{host("h1", down()), host("h2", disabled())}},
			Req:   request(1),
			Want:  Want{Err: nvh(0, 2, 0)}},
		// hosts_up: ServiceList.get_by_topic reads enabled services only,
		// and service_is_up drops the down ones. Fewer hosts than
		// instances: random.choice per instance, repeats allowed.
		c("chance/placer/only-enabled-and-up-services", engine.Cloud{Config: chanceCfg(seeded(3)),
			Hosts: []engine.Host{host("h1", disabled()), host("h2", down()), host("h3"), host("h4")}},
			request(4), chanceWant(chancePick(3, names("h3", "h4"), 4), 2)),
		c("chance/placer/fewer-hosts-than-instances-repeat", engine.Cloud{Config: chanceCfg(seeded(11)), Hosts: namedHosts("a", "b")},
			request(5), chanceWant(chancePick(11, names("a", "b"), 5), 2)),
		// "we don't claim in the chance scheduler": a host without room
		// takes every instance.
		c("chance/placer/no-claim", engine.Cloud{Config: chanceCfg(), Hosts: []engine.Host{host("h1", ram(1024, 1024))}},
			reqN(3, func(r *engine.Request) { r.Flavor.MemoryMB = 1024 }),
			chanceWant(names("h1", "h1", "h1"), 1)),
		// No filter and no weigher runs, whatever the configuration.
		c("chance/placer/no-filters-no-weighers", engine.Cloud{
			Config: chanceCfg(seeded(1), func(c *engine.Config) {
				c.Filters = names(engine.ComputeFilter, engine.RamFilter, engine.CoreFilter, engine.DiskFilter)
				c.Weighers = names(engine.RAMWeigher)
			}),
			Hosts: []engine.Host{host("full", ram(8192, 0), cpu(8, 8), disk(100, 0)), host("empty")}},
			request(2), chanceWant(chancePick(1, names("full", "empty"), 2), 2)),
		// Only ignore_hosts is read: force_hosts, force_nodes and
		// requested_destination are not.
		c("chance/placer/forced-hosts-not-read", engine.Cloud{Config: chanceCfg(seeded(7)), Hosts: three},
			reqN(3, func(r *engine.Request) {
				r.ForceHosts = names("host1")
				r.ForceNodes = names("host1")
				r.RequestedDestination = &engine.Destination{Host: "host1"}
			}),
			chanceWant(chancePick(7, names("host1", "host2", "host3"), 3), 3)),
		// A server group is not read either (and not updated).
		c("chance/placer/server-group-not-read", engine.Cloud{Config: chanceCfg(), Hosts: namedHosts("h1")},
			reqN(2, func(r *engine.Request) {
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity}
			}),
			chanceWant(names("h1", "h1"), 1)),
		// placer lists nodes, one per HostState as the unit tests do.
		c("chance/placer/every-node-is-a-candidate", engine.Cloud{Config: chanceCfg(seeded(4)),
			Hosts: []engine.Host{host("h", node("n1")), host("h", node("n2")), host("k")}},
			request(2), chanceWant(chancePick(4, names("h/n1", "h/n2", "k"), 2), 3)),
	}
	// test_select_destinations: two instances on four hosts get two
	// different hosts.
	for seed := int64(0); seed < 4; seed++ {
		out = append(out, c("chance/select-destinations-seed-"+itoa(int(seed)),
			engine.Cloud{Config: chanceCfg(seeded(seed)), Hosts: four}, request(2),
			chanceWant(chancePick(seed, names("host0", "host1", "host2", "host3"), 2), 4)))
	}
	// test_schedule_success_single_instance, its last part: without
	// return_alternates (select_destinations never passes it on) one host
	// per instance, whatever max_attempts.
	out = append(out, c("chance/schedule-success-single-instance-no-alternates",
		engine.Cloud{Config: chanceCfg(seeded(9), func(c *engine.Config) { c.MaxAttempts = 5 }), Hosts: namedHosts(twenty...)},
		request(1), chanceWant(chancePick(9, twenty, 1), 20)))
	// test_schedule_success_multiple_instances: four instances on twenty
	// hosts, distinct.
	out = append(out, c("chance/schedule-success-multiple-instances",
		engine.Cloud{Config: chanceCfg(seeded(6), func(c *engine.Config) { c.MaxAttempts = 2 }), Hosts: namedHosts(twenty...)},
		request(4), chanceWant(chancePick(6, twenty, 4), 20)))
	return out
}

func hvType(t string) hostOpt     { return func(h *engine.Host) { h.HypervisorType = &t } }
func hvHostname(n string) hostOpt { return func(h *engine.Host) { h.HypervisorHostname = &n } }
func ironicNode() hostOpt         { return hvType(engine.HVTypeIronic) }

// withIronic switches a configuration to the ironic host manager.
func withIronic(c *engine.Config) { c.HostManager = engine.HostManagerIronic }

// query is a request whose JsonFilter hint is q.
func queryReq(n int, q string, f func(*engine.Request)) engine.Request {
	r := request(n)
	r.SchedulerHints.Query = q
	if f != nil {
		f(&r)
	}
	return r
}

// ironicCases: nova/scheduler/ironic_host_manager.py and
// test_ironic_host_manager.py at queens-eol. Consumption is observed with
// JsonFilter, which runs for every instance.
func ironicCases() []Case {
	ic := func(name string, cfg engine.Config, hosts []engine.Host, req engine.Request, want Want) Case {
		withIronic(&cfg)
		return Case{Name: name, Cloud: engine.Cloud{Config: cfg, Hosts: hosts}, Req: req, Want: want, Feature: FeatureIronic}
	}
	jsonOnly := func(opts ...func(*engine.Config)) engine.Config {
		return config(names(engine.JsonFilter), nil, opts...)
	}
	// IronicHostManagerChangedNodesTestCase.setUp's compute node.
	fakeNode := func(opts ...hostOpt) engine.Host {
		base := []hostOpt{node("fakenode"), ironicNode(), ram(1024, 1024), cpu(1, 0), disk(10, 10),
			hvVersion(1), hvHostname("fake_host"), cpuInfo("baremetal cpu"),
			stats("ironic_driver", "nova.virt.ironic.driver.IronicDriver", "cpu_arch", "i386"),
			supports(engine.HVSpec{Arch: "i386", HVType: "baremetal", VMMode: "baremetal"}),
			ramRatio(1.5), cpuRatio(16), diskRatio(1)}
		return host("fakehost", append(base, opts...)...)
	}
	flavorReq := func(n int, rootGB, ramMB, vcpus int64, q string) engine.Request {
		return queryReq(n, q, func(r *engine.Request) {
			r.Flavor = engine.Flavor{Name: "bm", RootGB: rootGB, MemoryMB: ramMB, VCPUs: vcpus}
		})
	}
	// Before: the node as reported; after: consumed whole.
	const consumedOr1024 = `["or", ["=", "$free_ram_mb", 1024],
		["and", ["=", "$free_ram_mb", 0], ["=", "$free_disk_mb", 0], ["=", "$vcpus_used", 1]]]`
	const updated = `["and", ["=", "$free_ram_mb", 1024], ["=", "$total_usable_ram_mb", 1024],
		["=", "$free_disk_mb", 10240], ["=", "$vcpus_total", 1], ["=", "$vcpus_used", 0],
		["=", "$hypervisor_type", "ironic"], ["=", "$hypervisor_version", 1],
		["=", "$hypervisor_hostname", "fake_host"]]`
	fake := names("fakehost/fakenode", "fakehost/fakenode")

	// ironic_fakes.COMPUTE_NODES (the four good ones) and SERVICES: host2's
	// service is disabled.
	fakes := []engine.Host{}
	for i := 1; i <= 4; i++ {
		opts := []hostOpt{node("node" + itoa(i) + "uuid"), ironicNode(), ram(int64(1024*i), int64(1024*i)), cpu(1, 0),
			disk(int64(10*i), int64(10*i)), hostIP("127.0.0.1"), hvVersion(1), cpuInfo("baremetal cpu"),
			stats("ironic_driver", "nova.virt.ironic.driver.IronicDriver", "cpu_arch", "i386"),
			supports(engine.HVSpec{Arch: "i386", HVType: "baremetal", VMMode: "baremetal"}),
			cpuRatio(16), ramRatio(1.5), diskRatio(1)}
		if i == 2 {
			opts = append(opts, disabled())
		}
		fakes = append(fakes, host("host"+itoa(i), opts...))
	}
	exact := names(engine.ExactRamFilter, engine.ExactDiskFilter, engine.ExactCoreFilter)
	bm := func(ramMB, rootGB int64) engine.Request {
		return with(func(r *engine.Request) {
			r.Flavor = engine.Flavor{Name: "bm", MemoryMB: ramMB, RootGB: rootGB, VCPUs: 1}
		})
	}

	out := []Case{
		// test_update_from_compute_node, and the stats a ComputeCapabilities
		// extra spec reads.
		ic("ironic/update-from-compute-node", config(names(engine.ComputeCapabilitiesFilter, engine.JsonFilter), nil),
			[]engine.Host{fakeNode()},
			queryReq(1, updated, func(r *engine.Request) { r.Flavor.ExtraSpecs = map[string]string{"cpu_arch": "i386"} }),
			Want{Hosts: names("fakehost/fakenode"), Candidates: []int{1}}),
		// _update_from_compute_node of IronicNodeState does not read
		// disk_available_least nor the counters, and sets no disk_mb_used.
		ic("ironic/placer/update-skips-disk-least-and-counters", jsonOnly(),
			[]engine.Host{fakeNode(func(h *engine.Host) { least := int64(2); h.DiskAvailableLeast = &least }, numInst(3), ioOps(4), disk(10, 10))},
			queryReq(1, `["and", ["=", "$free_disk_mb", 10240], ["=", "$disk_mb_used", 0],
				["=", "$num_instances", 0], ["=", "$num_io_ops", 0]]`, nil),
			Want{Hosts: names("fakehost/fakenode"), Candidates: []int{1}}),
		// ... nor host_ip, which stays None: SimpleCIDRAffinityFilter raises.
		ic("ironic/placer/no-host-ip", config(names(engine.SimpleCIDRAffinityFilter), nil),
			[]engine.Host{fakeNode(hostIP("10.0.0.5"))},
			with(func(r *engine.Request) { r.SchedulerHints.BuildNearHostIP = "10.0.0.1" }),
			Want{Err: &WantErr{Kind: "AddrFormatError", Index: 0}}),
		// test_consume_identical_instance_from_compute.
		ic("ironic/consume-identical-instance", jsonOnly(), []engine.Host{fakeNode()},
			flavorReq(2, 10, 1024, 1, consumedOr1024), Want{Hosts: fake, Candidates: []int{1, 1}}),
		// test_consume_larger_instance_from_compute: vcpus_used is 1, not 2.
		ic("ironic/consume-larger-instance", jsonOnly(), []engine.Host{fakeNode()},
			flavorReq(2, 20, 2048, 2, consumedOr1024), Want{Hosts: fake, Candidates: []int{1, 1}}),
		// test_consume_smaller_instance_from_compute.
		ic("ironic/consume-smaller-instance", jsonOnly(), []engine.Host{fakeNode()},
			flavorReq(3, 5, 512, 1, consumedOr1024), Want{Hosts: names("fakehost/fakenode", "fakehost/fakenode", "fakehost/fakenode"), Candidates: []int{1, 1, 1}}),
		// test_create_ironic_node_state / test_create_non_ironic_host_state:
		// only hypervisor_type 'ironic' exactly makes an IronicNodeState.
		ic("ironic/placer/hypervisor-type-Ironic-is-a-host-state", jsonOnly(),
			[]engine.Host{fakeNode(hvType("Ironic"))}, flavorReq(2, 5, 512, 1, consumedOr1024),
			Want{Err: &WantErr{Kind: NoValidHost, Index: 1, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.JsonFilter, 1, 0)}, Tentative: names("fakehost/fakenode")}}),
		ic("ironic/placer/hypervisor-type-baremetal-is-a-host-state", jsonOnly(),
			[]engine.Host{fakeNode(hvType("baremetal"))}, flavorReq(2, 5, 512, 1, consumedOr1024),
			Want{Err: &WantErr{Kind: NoValidHost, Index: 1, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.JsonFilter, 1, 0)}, Tentative: names("fakehost/fakenode")}}),
		// Consumed whole, a node weighs as empty.
		ic("ironic/placer/consumed-node-weighs-empty", config(nil, names(engine.RAMWeigher)),
			[]engine.Host{host("a", ironicNode(), ram(16384, 8192)), host("b", ironicNode(), ram(16384, 4096))},
			request(2), Want{Hosts: names("a", "b"), Weights: []float64{1, 1}}),
		// test_get_instance_info_ironic_compute_return_empty_instance_dict:
		// the scheduler sees no instance on an ironic node.
		ic("ironic/get-instance-info-ironic-is-empty", config(names(engine.DifferentHostFilter), nil),
			[]engine.Host{host("h1", ironicNode(), instances("u1"))},
			with(func(r *engine.Request) { r.SchedulerHints.DifferentHost = names("u1") }),
			Want{Hosts: names("h1"), Candidates: []int{1}}),
		// test_get_instance_info_non_ironic_compute_call_super_class: a
		// non-ironic node keeps its instances.
		ic("ironic/get-instance-info-non-ironic-as-host-manager", config(names(engine.DifferentHostFilter), nil),
			[]engine.Host{host("vm", hvType("QEMU"), instances("u1")), host("bm", ironicNode(), instances("u1"))},
			with(func(r *engine.Request) { r.SchedulerHints.DifferentHost = names("u1") }),
			Want{Hosts: names("bm"), Candidates: []int{1}}),
		// Each ironic node gets its own empty dict: an instance placed on
		// one node is not seen by the other nodes of its host.
		ic("ironic/placer/instances-per-node", config(names(engine.ServerGroupAntiAffinityFilter), nil),
			[]engine.Host{host("conductor", node("n1"), ironicNode()), host("conductor", node("n2"), ironicNode())},
			with(func(r *engine.Request) {
				r.NumInstances = 2
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity}
			}),
			Want{Hosts: names("conductor/n1", "conductor/n2"), Candidates: []int{2, 1}}),
		// metrics stay None on an IronicNodeState: MetricsFilter iterates
		// them and raises TypeError; MetricsWeigher reads `metrics or []`.
		ic("ironic/placer/metrics-filter-raises", config(names(engine.MetricsFilter), nil),
			[]engine.Host{host("h1", ironicNode(), metrics(map[string]float64{"cpu.frequency": 1000}))},
			request(1), Want{Err: &WantErr{Kind: "TypeError", Index: 0}}),
		ic("ironic/placer/metrics-weigher-finds-none", config(nil, names(engine.MetricsWeigher), func(c *engine.Config) {
			c.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.frequency", Ratio: 1}}
		}),
			[]engine.Host{host("h1", ironicNode(), metrics(map[string]float64{"cpu.frequency": 1000})),
				host("h2", ironicNode(), metrics(map[string]float64{"cpu.frequency": 2000}))},
			request(1), Want{Err: &WantErr{Kind: MetricNotFound, Index: 0, Host: "h1"}}),
		// test_get_all_host_states: every node of ironic_fakes, disabled
		// host2 included, with free_disk_mb = free_disk_gb * 1024.
		ic("ironic/get-all-host-states-exact-match", config(exact, nil), fakes, bm(2048, 20),
			Want{Hosts: names("host2/node2uuid"), Candidates: []int{1},
				Limits: []engine.Limits{limits("memory_mb", 2048, "disk_gb", 20, "vcpu", 1)}}),
		ic("ironic/get-all-host-states-disabled-service", config(append(names(engine.ComputeFilter), exact...), nil), fakes, bm(2048, 20),
			Want{Err: nvh(0, 4, 4, fc(engine.ComputeFilter, 4, 3), fc(engine.ExactRamFilter, 3, 0))}),
		// The baremetal setup: Exact filters on whole-consumed nodes take
		// each node once.
		ic("ironic/placer/exact-filters-take-each-node-once", config(exact, nil),
			[]engine.Host{host("n1", ironicNode(), ram(4096, 4096), cpu(1, 0), disk(100, 100)),
				host("big", ironicNode(), ram(8192, 8192), cpu(1, 0), disk(100, 100)),
				host("n2", ironicNode(), ram(4096, 4096), cpu(1, 0), disk(100, 100)),
				host("n3", ironicNode(), ram(4096, 4096), cpu(1, 0), disk(100, 100))},
			with(func(r *engine.Request) {
				r.NumInstances = 4
				r.Flavor = engine.Flavor{Name: "bm", MemoryMB: 4096, VCPUs: 1, RootGB: 100}
			}),
			Want{Err: &WantErr{Kind: NoValidHost, Index: 3, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.ExactRamFilter, 1, 0)}, Tentative: names("n1", "n2", "n3")}}),
	}

	// IronicHostManagerTestFilters: use_baremetal_filters makes the ironic
	// host manager load baremetal_enabled_filters (test_load_filters,
	// test_load_filters_baremetal, test_host_manager_enabled_filters_uses_baremetal).
	node2048 := []engine.Host{host("bm", ironicNode(), ram(2048, 2048), ramRatio(1.5))}
	ramOnly := func(use bool) engine.Config {
		return config(names(engine.RamFilter), nil, func(c *engine.Config) { c.UseBaremetalFilters = use })
	}
	out = append(out,
		ic("ironic/load-filters-baremetal", ramOnly(true), node2048, request(1),
			Want{Err: nvh(0, 1, 1, fc(engine.RetryFilter, 1, 1), fc(engine.AvailabilityZoneFilter, 1, 1),
				fc(engine.ComputeFilter, 1, 1), fc(engine.ComputeCapabilitiesFilter, 1, 1),
				fc(engine.ImagePropertiesFilter, 1, 1), fc(engine.ExactRamFilter, 1, 0))}),
		ic("ironic/load-filters", ramOnly(false), node2048, request(1),
			Want{Hosts: names("bm"), Limits: []engine.Limits{limits("memory_mb", 3072)}}),
		ic("ironic/placer/baremetal-enabled-filters-set", config(names(engine.RamFilter), nil, func(c *engine.Config) {
			c.UseBaremetalFilters = true
			c.BaremetalEnabledFilters = names(engine.ExactCoreFilter)
		}), []engine.Host{host("bm", ironicNode(), cpu(4, 3))}, request(1),
			Want{Hosts: names("bm"), Limits: []engine.Limits{limits("vcpu", 4)}}),
	)

	// IronicHostManagerTestFilters.test_get_filtered_hosts_*: the base
	// class's get_filtered_hosts on ironic nodes (fake_host1..4 with node
	// fake-node, fake_multihost with fake-node1..4).
	var fh []engine.Host
	for i := 1; i <= 4; i++ {
		fh = append(fh, host("fake_host"+itoa(i), node("fake-node"), ironicNode()))
	}
	for i := 1; i <= 4; i++ {
		fh = append(fh, host("fake_multihost", node("fake-node"+itoa(i)), ironicNode()))
	}
	all := config(names(engine.AllHostsFilter), nil)
	out = append(out,
		ic("ironic/get-filtered-hosts-with-ignore", all, fh,
			with(func(r *engine.Request) {
				r.IgnoreHosts = names("fake_host1", "fake_host3", "fake_host5", "fake_multihost")
			}),
			Want{Hosts: names("fake_host2/fake-node"), Candidates: []int{2}}),
		ic("ironic/get-filtered-hosts-with-force-host-and-many-nodes", all, fh,
			with(func(r *engine.Request) { r.ForceHosts = names("fake_multihost") }),
			Want{Hosts: names("fake_multihost/fake-node1"), Candidates: []int{4}}),
		ic("ironic/get-filtered-hosts-with-force-hosts-and-nodes", all, fh,
			with(func(r *engine.Request) {
				r.ForceHosts = names("fake_host1", "fake_multihost")
				r.ForceNodes = names("fake-node2", "fake-node9")
			}),
			Want{Hosts: names("fake_multihost/fake-node2"), Candidates: []int{1}}),
		ic("ironic/get-filtered-hosts-with-ignore-hosts-and-force-same-nodes", all, fh,
			with(func(r *engine.Request) {
				r.IgnoreHosts = names("fake_multihost")
				r.ForceNodes = names("fake_node4", "fake_node2")
			}),
			Want{Err: nvh(0, 8, 0)}),
	)

	// The same clouds under the default host manager: the FilterScheduler
	// of Nova 26, which the oracle judges (no Feature).
	vm := func(name string, cfg engine.Config, hosts []engine.Host, req engine.Request, want Want) Case {
		return Case{Name: name, Cloud: engine.Cloud{Config: cfg, Hosts: hosts}, Req: req, Want: want}
	}
	out = append(out,
		vm("ironic/placer/default-host-manager-consumes-the-flavor", jsonOnly(), []engine.Host{fakeNode()},
			flavorReq(2, 5, 512, 1, consumedOr1024),
			Want{Err: &WantErr{Kind: NoValidHost, Index: 1, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.JsonFilter, 1, 0)}, Tentative: names("fakehost/fakenode")}}),
		vm("ironic/placer/default-host-manager-reads-disk-least", jsonOnly(),
			[]engine.Host{fakeNode(func(h *engine.Host) { least := int64(2); h.DiskAvailableLeast = &least })},
			queryReq(1, `["=", "$free_disk_mb", 2048]`, nil), Want{Hosts: names("fakehost/fakenode")}),
		vm("ironic/placer/default-host-manager-sees-instances", config(names(engine.DifferentHostFilter), nil),
			[]engine.Host{host("h1", ironicNode(), instances("u1"))},
			with(func(r *engine.Request) { r.SchedulerHints.DifferentHost = names("u1") }),
			Want{Err: nvh(0, 1, 1, fc(engine.DifferentHostFilter, 1, 0))}),
		vm("ironic/placer/default-host-manager-shares-instances", config(names(engine.ServerGroupAntiAffinityFilter), nil),
			[]engine.Host{host("conductor", node("n1"), ironicNode()), host("conductor", node("n2"), ironicNode())},
			with(func(r *engine.Request) {
				r.NumInstances = 2
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity}
			}),
			Want{Err: &WantErr{Kind: NoValidHost, Index: 1, InPlay: 2, Prefiltered: 2,
				Filters:   []engine.FilterCount{fc(engine.ServerGroupAntiAffinityFilter, 2, 0)},
				Tentative: names("conductor/n1")}}),
		// use_baremetal_filters is IronicHostManager's: the default host
		// manager ignores it.
		vm("ironic/placer/use-baremetal-filters-needs-the-ironic-host-manager", ramOnly(true), node2048, request(1),
			Want{Hosts: names("bm"), Limits: []engine.Limits{limits("memory_mb", 3072)}}),
		vm("ironic/placer/default-host-manager-weighs-what-is-left", config(nil, names(engine.RAMWeigher)),
			[]engine.Host{host("a", ironicNode(), ram(16384, 8192)), host("b", ironicNode(), ram(16384, 4096))},
			request(2), Want{Hosts: names("a", "a")}),
	)
	return out
}

// exactCases: filters/exact_{ram,core,disk}_filter.py and their tests at
// queens-eol, on plain hosts (the filters do not look at the host
// manager).
func exactCases() []Case {
	x := func(c Case) Case { c.Feature = FeatureExactFilters; return c }
	withFlavor := func(f engine.Flavor) engine.Request { return with(func(r *engine.Request) { r.Flavor = f }) }
	none := engine.Limits{}
	least := host("h1", disk(20, 10))
	four := int64(4)
	least.DiskAvailableLeast = &four
	return []Case{
		// TestRamFilter (test_exact_ram_filter.py).
		x(single("ExactRamFilter/passes", engine.ExactRamFilter, host("h1", ram(1024, 1024)),
			withFlavor(engine.Flavor{MemoryMB: 1024}), true, limits("memory_mb", 1024))),
		x(single("ExactRamFilter/fails", engine.ExactRamFilter, host("h1", ram(1024, 1024)),
			withFlavor(engine.Flavor{MemoryMB: 512}), false, none)),
		x(single("ExactRamFilter/placer/limit-is-the-total-not-the-ratio", engine.ExactRamFilter, host("h1", ram(2048, 1024), ramRatio(1.5)),
			withFlavor(engine.Flavor{MemoryMB: 1024}), true, limits("memory_mb", 2048))),
		// TestExactCoreFilter.
		x(single("ExactCoreFilter/passes", engine.ExactCoreFilter, host("h1", cpu(3, 2)),
			withFlavor(engine.Flavor{VCPUs: 1}), true, limits("vcpu", 3))),
		x(single("ExactCoreFilter/fails", engine.ExactCoreFilter, host("h1", cpu(3, 2)),
			withFlavor(engine.Flavor{VCPUs: 2}), false, none)),
		x(single("ExactCoreFilter/fails-host-vcpus-not-set", engine.ExactCoreFilter, host("h1", cpu(0, 0)),
			withFlavor(engine.Flavor{VCPUs: 1}), false, none)),
		x(single("ExactCoreFilter/placer/no-vcpus-fails-even-a-zero-request", engine.ExactCoreFilter, host("h1", cpu(0, 0)),
			withFlavor(engine.Flavor{VCPUs: 0}), false, none)),
		x(single("ExactCoreFilter/placer/limit-is-the-total-not-the-ratio", engine.ExactCoreFilter, host("h1", cpu(4, 2), cpuRatio(16)),
			withFlavor(engine.Flavor{VCPUs: 2}), true, limits("vcpu", 4))),
		// TestExactDiskFilter: swap counts.
		x(single("ExactDiskFilter/passes", engine.ExactDiskFilter, host("h1", disk(3, 3)),
			withFlavor(engine.Flavor{RootGB: 1, EphemeralGB: 1, Swap: 1024}), true, limits("disk_gb", 3))),
		x(single("ExactDiskFilter/fails", engine.ExactDiskFilter, host("h1", disk(3, 2)),
			withFlavor(engine.Flavor{RootGB: 1, EphemeralGB: 1, Swap: 1024}), false, none)),
		// On a HostState free_disk_mb is capped by disk_available_least.
		x(single("ExactDiskFilter/placer/disk-available-least", engine.ExactDiskFilter, least,
			withFlavor(engine.Flavor{RootGB: 4}), true, limits("disk_gb", 20))),
		// The filters run for every instance, on the consumed host.
		x(Case{
			Name:  "ExactRamFilter/placer/runs-for-every-instance",
			Cloud: engine.Cloud{Config: config(names(engine.ExactRamFilter), nil), Hosts: []engine.Host{host("h1", ram(2048, 1024)), host("h2", ram(2048, 2048))}},
			Req:   with(func(r *engine.Request) { r.NumInstances = 2; r.Flavor.MemoryMB = 1024 }),
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 1, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.ExactRamFilter, 1, 0)}, Tentative: names("h1")}},
		}),
	}
}
