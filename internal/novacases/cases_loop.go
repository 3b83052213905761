package novacases

import (
	"math/rand/v2"

	"github.com/placer/placer/engine"
)

// loopCases are the rules of the scheduling loop (manager.py
// _legacy_find_hosts, _consume_selected_host, _get_alternate_hosts;
// host_manager.py get_filtered_hosts) and placer's rules for ties and
// random choices.
func loopCases() []Case {
	var out []Case
	for _, group := range [][]Case{consumptionCases(), groupLoopCases(), alternateCases(),
		prefilterCases(), noValidHostCases(), choiceCases(), errorCases()} {
		out = append(out, group...)
	}
	return out
}

// freeRAMHosts are hosts h1, h2, ... with 16 GiB of which these are free.
func freeRAMHosts(free ...int64) []engine.Host {
	var hs []engine.Host
	for i, f := range free {
		hs = append(hs, host(hname(i), ram(16384, f)))
	}
	return hs
}

func consumptionCases() []Case {
	capReq := with(func(r *engine.Request) {
		r.NumInstances = 2
		r.Flavor.ExtraSpecs = map[string]string{"free_ram_mb": ">= 2048"}
	})
	disk3 := with(func(r *engine.Request) { r.NumInstances = 3; r.Flavor.Swap = 1024 })
	return []Case{
		{
			// The chosen host stays in play, with its resources consumed.
			Name:  "loop/consumption-between-instances",
			Cloud: engine.Cloud{Config: config(nil, names(engine.RAMWeigher)), Hosts: freeRAMHosts(4096, 3072)},
			Req:   request(3),
			Want:  Want{Hosts: names("h1", "h1", "h2"), Weights: []float64{1, 1, 1}, Candidates: []int{2, 2, 2}},
		},
		{
			// ComputeCapabilitiesFilter runs for instance 0 only: h1 no
			// longer has 2048 MB free for instance 1 but is not re-checked.
			Name: "loop/once-per-request-filter-not-rerun",
			Cloud: engine.Cloud{
				Config: config(names(engine.ComputeCapabilitiesFilter, engine.RamFilter), names(engine.RAMWeigher)),
				Hosts:  []engine.Host{host("h1", ram(4096, 2560), ramRatio(1)), host("h2", ram(4096, 1024), ramRatio(1))},
			},
			Req:  capReq,
			Want: Want{Hosts: names("h1", "h1"), Candidates: []int{1, 1}},
		},
		{
			// consume_from_request does not subtract swap; DiskFilter asks
			// for it.
			Name: "loop/swap-not-consumed",
			Cloud: engine.Cloud{Config: config(names(engine.DiskFilter), nil),
				Hosts: []engine.Host{host("h1", disk(3, 3), diskRatio(1))}},
			Req: disk3,
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 2, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.DiskFilter, 1, 0)}, Tentative: names("h1", "h1")}},
		},
		{
			Name: "loop/io-ops-consumed",
			Cloud: engine.Cloud{Config: config(names(engine.IoOpsFilter), nil, func(c *engine.Config) { c.MaxIoOpsPerHost = 2 }),
				Hosts: []engine.Host{host("h1")}},
			Req: request(3),
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 2, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.IoOpsFilter, 1, 0)}, Tentative: names("h1", "h1")}},
		},
		{
			Name: "loop/num-instances-consumed",
			Cloud: engine.Cloud{Config: config(names(engine.NumInstancesFilter), nil, func(c *engine.Config) { c.MaxInstancesPerHost = 3 }),
				Hosts: []engine.Host{host("h1", numInst(1))}},
			Req: request(3),
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 2, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.NumInstancesFilter, 1, 0)}, Tentative: names("h1", "h1")}},
		},
		{
			// vcpus_used grows; limits stay what the filter computes.
			Name: "loop/vcpus-consumed",
			Cloud: engine.Cloud{Config: config(names(engine.CoreFilter), names(engine.CPUWeigher)),
				Hosts: []engine.Host{host("h1", cpu(3, 0), cpuRatio(1)), host("h2", cpu(4, 0), cpuRatio(1))}},
			Req: with(func(r *engine.Request) { r.NumInstances = 4; r.Flavor.VCPUs = 2 }),
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 3, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.CoreFilter, 1, 0)}, Tentative: names("h2", "h1", "h2")}},
		},
	}
}

func groupLoopCases() []Case {
	group := func(n int, policy string, members ...string) engine.Request {
		return with(func(r *engine.Request) {
			r.NumInstances = n
			r.InstanceGroup = &engine.InstanceGroup{Policy: policy, Members: members}
		})
	}
	anti := config(names(engine.ServerGroupAntiAffinityFilter), names(engine.RAMWeigher))
	aff := config(names(engine.ServerGroupAffinityFilter), names(engine.RAMWeigher))
	return []Case{
		{
			// x fails anti-affinity for inst-0 (it runs member m1); for
			// inst-1 it would pass (it runs inst-1 itself) and it has the
			// most RAM, but a host removed stays removed.
			Name: "loop/removed-hosts-stay-removed",
			Cloud: engine.Cloud{Config: anti, Hosts: []engine.Host{
				host("x", ram(16384, 16384), instances("m1", "inst-1")), host("y", ram(16384, 8192)), host("z", ram(16384, 4096))}},
			Req:  group(2, engine.PolicyAntiAffinity, "m1"),
			Want: Want{Hosts: names("y", "z"), Candidates: []int{2, 1}},
		},
		{
			// The request's own instances are members: anti-affinity
			// spreads them, then runs out of hosts.
			Name:  "loop/anti-affinity-spreads-then-fails",
			Cloud: engine.Cloud{Config: anti, Hosts: freeRAMHosts(8192, 6144, 4096)},
			Req:   group(4, engine.PolicyAntiAffinity),
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 3, InPlay: 1, Prefiltered: 1,
				Filters:   []engine.FilterCount{fc(engine.ServerGroupAntiAffinityFilter, 1, 0)},
				Tentative: names("h1", "h2", "h3")}},
		},
		{
			// group.hosts gets the first choice; the others follow it, and
			// no alternate is left after the last instance.
			Name:  "loop/affinity-follows-first-choice",
			Cloud: engine.Cloud{Config: aff, Hosts: freeRAMHosts(4096, 8192, 6144)},
			Req:   group(3, engine.PolicyAffinity),
			Want: Want{Hosts: names("h2", "h2", "h2"), Candidates: []int{3, 1, 1},
				Alternates: [][]string{nil, nil, nil}},
		},
		{
			// Nodes of one host share its instances.
			Name: "loop/nodes-share-instances",
			Cloud: engine.Cloud{Config: anti, Hosts: []engine.Host{
				host("h", node("n1"), ram(16384, 8192)), host("h", node("n2"), ram(16384, 6144)), host("k", ram(16384, 2048))}},
			Req:  group(2, engine.PolicyAntiAffinity),
			Want: Want{Hosts: names("h/n1", "k"), Candidates: []int{3, 1}},
		},
		{
			// group.hosts holds host names: every node of the host passes.
			Name: "loop/affinity-by-host-name",
			Cloud: engine.Cloud{Config: aff, Hosts: []engine.Host{
				host("h", node("n1"), ram(16384, 8192)), host("h", node("n2"), ram(16384, 7680)), host("k", ram(16384, 2048))}},
			Req:  group(2, engine.PolicyAffinity),
			Want: Want{Hosts: names("h/n1", "h/n2"), Candidates: []int{3, 2}},
		},
		{
			// Soft anti-affinity counts the instances placed earlier in the
			// request.
			Name: "loop/soft-anti-affinity-counts-earlier-instances",
			Cloud: engine.Cloud{Config: config(nil, names(engine.RAMWeigher, engine.ServerGroupSoftAntiAffinityWeigher)),
				Hosts: freeRAMHosts(8192, 4096)},
			Req:  group(2, engine.PolicySoftAntiAffinity),
			Want: Want{Hosts: names("h1", "h2"), Weights: []float64{1.0, 4096.0/7168.0 + 1.0}},
		},
		{
			Name: "loop/soft-affinity-packs",
			Cloud: engine.Cloud{Config: config(nil, names(engine.RAMWeigher, engine.ServerGroupSoftAffinityWeigher), func(c *engine.Config) {
				c.SoftAffinityWeightMultiplier = 2
			}), Hosts: freeRAMHosts(8192, 7168)},
			Req:  group(3, engine.PolicySoftAffinity),
			Want: Want{Hosts: names("h1", "h1", "h1"), Weights: []float64{1.0, 2.0 + 1.0, 6144.0/7168.0 + 2.0}},
		},
	}
}

func alternateCases() []Case {
	cells := []engine.Host{
		host("a", cell("c1"), ram(16384, 8192)), host("b", cell("c1"), ram(16384, 4096)),
		host("c", cell("c2"), ram(16384, 6144)), host("d", cell("c1"), ram(16384, 2048)),
		host("e", cell("c1"), ram(16384, 1024)), host("f", cell("c2"), ram(16384, 512)),
	}
	ramW := names(engine.RAMWeigher)
	attempts := func(n int) func(*engine.Config) { return func(c *engine.Config) { c.MaxAttempts = n } }
	antiReq := with(func(r *engine.Request) {
		r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity}
	})
	return []Case{
		{
			Name:  "alternates/same-cell-in-rank-order",
			Cloud: engine.Cloud{Config: config(nil, ramW), Hosts: cells},
			Req:   request(1),
			Want:  Want{Hosts: names("a"), Alternates: [][]string{names("b", "d")}},
		},
		{
			Name:  "alternates/max-attempts-1-none",
			Cloud: engine.Cloud{Config: config(nil, ramW, attempts(1)), Hosts: cells},
			Req:   request(1),
			Want:  Want{Hosts: names("a"), Alternates: [][]string{nil}},
		},
		{
			Name:  "alternates/fewer-than-wanted",
			Cloud: engine.Cloud{Config: config(nil, ramW, attempts(10)), Hosts: cells},
			Req:   with(func(r *engine.Request) { r.IgnoreHosts = names("a") }),
			Want:  Want{Hosts: names("c"), Alternates: [][]string{names("f")}},
		},
		{
			// Several instances: the hosts in play after the last one,
			// re-weighed; no selected host is an alternate of any.
			Name:  "alternates/several-instances-each-own-cell",
			Cloud: engine.Cloud{Config: config(nil, ramW, attempts(3)), Hosts: cells},
			Req:   with(func(r *engine.Request) { r.NumInstances = 3; r.Flavor.MemoryMB = 3000 }),
			Want: Want{Hosts: names("a", "c", "a"),
				Alternates: [][]string{names("b", "d"), names("f"), names("b", "d")}},
		},
		{
			// One instance: instance 0's candidates are not filtered again,
			// so the other node of the chosen host is an alternate although
			// anti-affinity would now refuse it.
			Name: "alternates/one-instance-not-refiltered",
			Cloud: engine.Cloud{Config: config(names(engine.ServerGroupAntiAffinityFilter), ramW), Hosts: []engine.Host{
				host("h", node("n1"), ram(16384, 8192)), host("h", node("n2"), ram(16384, 6144)), host("k", ram(16384, 2048))}},
			Req:  antiReq,
			Want: Want{Hosts: names("h/n1"), Alternates: [][]string{names("h/n2", "k")}},
		},
		{
			// Two instances: the alternates come from the hosts in play
			// after the last one; h/n2 was removed at instance 1.
			Name: "alternates/several-instances-from-last-hosts",
			Cloud: engine.Cloud{Config: config(names(engine.ServerGroupAntiAffinityFilter), ramW, attempts(4)), Hosts: []engine.Host{
				host("h", node("n1"), ram(16384, 8192)), host("h", node("n2"), ram(16384, 7680)),
				host("k", ram(16384, 6144)), host("l", ram(16384, 1024))}},
			Req: with(func(r *engine.Request) {
				r.NumInstances = 2
				r.InstanceGroup = &engine.InstanceGroup{Policy: engine.PolicyAntiAffinity}
			}),
			Want: Want{Hosts: names("h/n1", "k"), Candidates: []int{4, 2}, Alternates: [][]string{names("l"), names("l")}},
		},
	}
}

func prefilterCases() []Case {
	fake := []engine.Host{
		host("fake_host1", ram(16384, 8192)), host("fake_host2", ram(16384, 2048)),
		host("fake_host3", ram(16384, 6144)), host("fake_host4", ram(16384, 4096)),
	}
	cfg := config(names(engine.ComputeFilter, engine.RamFilter), names(engine.RAMWeigher))
	multi := []engine.Host{host("h", node("n1")), host("h", node("N2")), host("g")}
	req := func(f func(*engine.Request)) engine.Request { return with(f) }
	return []Case{
		{
			Name:  "get_filtered_hosts/ignore-hosts-case-insensitive",
			Cloud: engine.Cloud{Config: cfg, Hosts: fake},
			Req:   req(func(r *engine.Request) { r.IgnoreHosts = names("FAKE_HOST1", "FaKe_HoSt3") }),
			Want:  Want{Hosts: names("fake_host4"), Candidates: []int{2}, Weights: []float64{1.0}},
		},
		{
			Name:  "get_filtered_hosts/ignore-everything",
			Cloud: engine.Cloud{Config: cfg, Hosts: fake[:2]},
			Req:   req(func(r *engine.Request) { r.IgnoreHosts = names("fake_host1", "FAKE_HOST2") }),
			Want:  Want{Err: nvh(0, 2, 0)},
		},
		{
			// Forced hosts skip every filter: a disabled host without RAM
			// is used, and gets no limits.
			Name: "get_filtered_hosts/force-hosts-skip-filters",
			Cloud: engine.Cloud{Config: cfg, Hosts: []engine.Host{
				host("h1"), host("Host2", disabled(), ram(1024, 0)), host("h3")}},
			Req: req(func(r *engine.Request) { r.NumInstances = 2; r.ForceHosts = names("hOST2") }),
			Want: Want{Hosts: names("Host2", "Host2"), Candidates: []int{1, 1},
				Limits: []engine.Limits{{}, {}}, Weights: []float64{0, 0}},
		},
		{
			Name:  "get_filtered_hosts/forced-hosts-are-weighed",
			Cloud: engine.Cloud{Config: cfg, Hosts: fake},
			Req:   req(func(r *engine.Request) { r.ForceHosts = names("fake_host2", "fake_host4") }),
			Want:  Want{Hosts: names("fake_host4"), Candidates: []int{2}, Weights: []float64{1.0}},
		},
		{
			Name:  "get_filtered_hosts/force-absent-host",
			Cloud: engine.Cloud{Config: cfg, Hosts: fake},
			Req:   req(func(r *engine.Request) { r.ForceHosts = names("fake_host5") }),
			Want:  Want{Err: nvh(0, 4, 0)},
		},
		{
			Name:  "get_filtered_hosts/force-nodes-exact",
			Cloud: engine.Cloud{Config: cfg, Hosts: multi},
			Req:   req(func(r *engine.Request) { r.ForceNodes = names("N2") }),
			Want:  Want{Hosts: names("h/N2"), Candidates: []int{1}},
		},
		{
			Name:  "get_filtered_hosts/force-nodes-case-sensitive",
			Cloud: engine.Cloud{Config: cfg, Hosts: multi},
			Req:   req(func(r *engine.Request) { r.ForceNodes = names("n2") }),
			Want:  Want{Err: nvh(0, 3, 0)},
		},
		{
			Name:  "get_filtered_hosts/force-hosts-and-nodes-intersect",
			Cloud: engine.Cloud{Config: cfg, Hosts: multi},
			Req:   req(func(r *engine.Request) { r.ForceHosts = names("H"); r.ForceNodes = names("N2", "g") }),
			Want:  Want{Hosts: names("h/N2"), Candidates: []int{1}},
		},
		{
			Name:  "get_filtered_hosts/ignore-then-force",
			Cloud: engine.Cloud{Config: cfg, Hosts: fake},
			Req: req(func(r *engine.Request) {
				r.IgnoreHosts = names("fake_host1")
				r.ForceHosts = names("fake_host1", "fake_host3")
			}),
			Want: Want{Hosts: names("fake_host3"), Candidates: []int{1}},
		},
		{
			Name:  "get_filtered_hosts/requested-destination",
			Cloud: engine.Cloud{Config: cfg, Hosts: fake},
			Req:   req(func(r *engine.Request) { r.RequestedDestination = &engine.Destination{Host: "fake_host2"} }),
			Want:  Want{Hosts: names("fake_host2"), Candidates: []int{1}, Limits: []engine.Limits{limits("memory_mb", 24576)}},
		},
		{
			// The filters still run on the requested destination.
			Name: "get_filtered_hosts/requested-destination-filtered",
			Cloud: engine.Cloud{Config: cfg, Hosts: []engine.Host{
				host("h1"), host("h2", ram(1024, 0), ramRatio(1))}},
			Req:  req(func(r *engine.Request) { r.RequestedDestination = &engine.Destination{Host: "h2"} }),
			Want: Want{Err: nvh(0, 2, 1, fc(engine.ComputeFilter, 1, 1), fc(engine.RamFilter, 1, 0))},
		},
		{
			Name:  "get_filtered_hosts/requested-destination-node",
			Cloud: engine.Cloud{Config: cfg, Hosts: multi},
			Req:   req(func(r *engine.Request) { r.RequestedDestination = &engine.Destination{Host: "h", Node: "N2"} }),
			Want:  Want{Hosts: names("h/N2"), Candidates: []int{1}},
		},
		{
			Name:  "get_filtered_hosts/requested-destination-is-case-sensitive",
			Cloud: engine.Cloud{Config: cfg, Hosts: multi},
			Req:   req(func(r *engine.Request) { r.RequestedDestination = &engine.Destination{Host: "H"} }),
			Want:  Want{Err: nvh(0, 3, 0, fc(engine.ComputeFilter, 0, 0))},
		},
	}
}

func noValidHostCases() []Case {
	return []Case{
		{
			// At instance 3 only the hosts that passed instance 2 are in
			// play and the once-per-request ComputeFilter does not run.
			Name: "NoValidHost/later-instance-counts-and-tentative",
			Cloud: engine.Cloud{
				Config: config(names(engine.ComputeFilter, engine.RamFilter), names(engine.RAMWeigher)),
				Hosts: []engine.Host{
					host("a", ram(2048, 2048), ramRatio(1)), host("b", ram(2048, 1024), ramRatio(1)),
					host("c", disabled()),
				},
			},
			Req: request(4),
			Want: Want{Err: &WantErr{Kind: NoValidHost, Index: 3, InPlay: 1, Prefiltered: 1,
				Filters: []engine.FilterCount{fc(engine.RamFilter, 1, 0)}, Tentative: names("a", "a", "b")}},
		},
		{
			// The counts stop at the first filter that leaves no host.
			Name: "NoValidHost/counts-stop-at-first-empty",
			Cloud: engine.Cloud{
				Config: config(names(engine.ComputeFilter, engine.RamFilter, engine.CoreFilter), nil),
				Hosts: []engine.Host{
					host("a", disabled()), host("b", ram(512, 512)), host("c", ram(1024, 0), ramRatio(1)),
				},
			},
			Req:  request(1),
			Want: Want{Err: nvh(0, 3, 3, fc(engine.ComputeFilter, 3, 2), fc(engine.RamFilter, 2, 0))},
		},
		{
			Name:  "NoValidHost/no-hosts",
			Cloud: engine.Cloud{Config: config(names(engine.ComputeFilter), nil)},
			Req:   request(1),
			Want:  Want{Err: nvh(0, 0, 0, fc(engine.ComputeFilter, 0, 0))},
		},
		{
			Name:  "NoValidHost/no-filters-no-hosts",
			Cloud: engine.Cloud{Config: config(nil, nil)},
			Req:   request(1),
			Want:  Want{Err: nvh(0, 0, 0)},
		},
	}
}

// pcgIntN is placer's draw for one instance without shuffling.
func pcgIntN(seed int64, n int) int {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)).IntN(n)
}

func choiceCases() []Case {
	var out []Case
	subset := func(c *engine.Config) { c.HostSubsetSize = 2 }
	for seed := int64(0); seed < 4; seed++ {
		ws := []float64{1.0, 0.5}
		i := pcgIntN(seed, 2)
		out = append(out, Case{
			Name: "choice/host-subset-size-2-seed-" + itoa(int(seed)),
			Cloud: engine.Cloud{Config: config(nil, names(engine.RAMWeigher), subset, func(c *engine.Config) { c.Seed = seed }),
				Hosts: freeRAMHosts(4096, 8192, 1024)},
			Req:         request(1),
			Want:        Want{Hosts: names([]string{"h2", "h1"}[i]), Weights: []float64{ws[i]}},
			NovaDiffers: "placer's seeded generator, not Python's random",
		})
	}
	for seed := int64(0); seed < 3; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
		order := names("h1", "h2", "h3")
		rng.Shuffle(3, func(i, j int) { order[i], order[j] = order[j], order[i] })
		chosen := order[rng.IntN(1)]
		out = append(out, Case{
			Name: "choice/shuffle-best-same-weighed-seed-" + itoa(int(seed)),
			Cloud: engine.Cloud{Config: config(nil, names(engine.RAMWeigher), func(c *engine.Config) {
				c.Seed = seed
				c.ShuffleBestSameWeighedHosts = true
			}), Hosts: freeRAMHosts(4096, 4096, 4096, 1024)},
			Req:         request(1),
			Want:        Want{Hosts: names(chosen), Weights: []float64{1.0}},
			NovaDiffers: "placer's seeded generator, not Python's random",
		})
	}
	out = append(out, Case{
		// Of equal weights, the host chosen for the previous instance ranks
		// first: Nova's next list is [the chosen host] + the rest, sorted
		// stably. Both hosts end at one I/O operation: equal (-1, the
		// weigher normalising from 0).
		Name: "choice/ties-prefer-the-previous-choice",
		Cloud: engine.Cloud{Config: config(nil, names(engine.IoOpsWeigher)),
			Hosts: []engine.Host{host("h1", ioOps(1)), host("h2")}},
		Req:  request(2),
		Want: Want{Hosts: names("h2", "h2"), Weights: []float64{0, -1}},
	}, Case{
		// Hosts never chosen keep their order (host index), below the
		// chosen ones: three equal empty hosts, six instances, each host
		// worse once chosen until all are chosen once; then the most
		// recently chosen first (Nova's list: h3, h2, h1).
		Name: "choice/ties-second-round-most-recent-first",
		Cloud: engine.Cloud{Config: config(nil, names(engine.IoOpsWeigher)),
			Hosts: []engine.Host{host("h1"), host("h2"), host("h3")}},
		Req:  request(6),
		Want: Want{Hosts: names("h1", "h2", "h3", "h3", "h2", "h1")},
	}, Case{
		Name:  "choice/subset-larger-than-candidates",
		Cloud: engine.Cloud{Config: config(nil, nil, func(c *engine.Config) { c.HostSubsetSize = 5 }), Hosts: []engine.Host{host("h1")}},
		Req:   request(1),
		Want:  Want{Hosts: names("h1"), Weights: []float64{0}},
	})
	return out
}

// errorCases are the exceptions Nova lets escape the scheduler, and bad
// input.
func errorCases() []Case {
	raise := func(name, kind string, filter string, h engine.Host, req engine.Request) Case {
		return Case{
			Name:  name,
			Cloud: engine.Cloud{Config: config(names(filter), nil), Hosts: []engine.Host{host("h0"), h}},
			Req:   req,
			Want:  Want{Err: &WantErr{Kind: kind, Index: 0}},
		}
	}
	return []Case{
		raise("raises/json-filter-unknown-command", "KeyError", engine.JsonFilter, host("h1"),
			with(func(r *engine.Request) { r.SchedulerHints.Query = `["~", "$free_ram_mb", 1]` })),
		raise("raises/cidr-host-without-ip", "AddrFormatError", engine.SimpleCIDRAffinityFilter, host("h1"),
			with(func(r *engine.Request) { r.SchedulerHints.BuildNearHostIP = "10.0.0.1" })),
		raise("raises/capabilities-numeric-operator-on-text", "ValueError", engine.ComputeCapabilitiesFilter,
			host("h1", stats("foo", "fast")), with(func(r *engine.Request) { r.Flavor.ExtraSpecs = map[string]string{"foo": ">= 5"} })),
		{
			Name:  "invalid/unknown-filter",
			Cloud: engine.Cloud{Config: config(names("NoSuchFilter"), nil), Hosts: []engine.Host{host("h1")}},
			Req:   request(1),
			Want:  Want{Err: &WantErr{Kind: Invalid, Field: "config.filters[0]"}},
		},
		{
			Name:  "invalid/negative-flavor-ram",
			Cloud: engine.Cloud{Config: config(nil, nil), Hosts: []engine.Host{host("h1")}},
			Req:   with(func(r *engine.Request) { r.Flavor.MemoryMB = -1 }),
			Want:  Want{Err: &WantErr{Kind: Invalid, Field: "request.flavor.memory_mb"}},
		},
	}
}
