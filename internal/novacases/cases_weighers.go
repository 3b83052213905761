package novacases

import "github.com/placer/placer/engine"

// weigherCases are nova/tests/unit/scheduler/weights/*'s cases: several
// hosts, only that weigher enabled, no filter; the winner and its weight.
func weigherCases() []Case {
	var out []Case
	for _, group := range [][]Case{ramWeigherCases(), otherWeigherCases(), metricsWeigherCases()} {
		out = append(out, group...)
	}
	return out
}

// weighed is a case with one weigher and the given hosts.
func weighed(name, weigher string, hosts []engine.Host, aggs []engine.Aggregate, req engine.Request,
	opts []func(*engine.Config), winner string, weight float64) Case {
	return Case{
		Name:  name,
		Cloud: engine.Cloud{Config: config(nil, names(weigher), opts...), Hosts: hosts, Aggregates: aggs},
		Req:   req,
		Want:  Want{Hosts: names(winner), Weights: []float64{weight}, Candidates: []int{len(hosts)}},
	}
}

func ramWeigherCases() []Case {
	w := engine.RAMWeigher
	free := func(values ...int64) []engine.Host {
		var hs []engine.Host
		for i, v := range values {
			hs = append(hs, host(hname(i), ram(16384, v)))
		}
		return hs
	}
	mult := func(m float64) []func(*engine.Config) {
		return []func(*engine.Config){func(c *engine.Config) { c.RAMWeightMultiplier = m }}
	}
	std := free(512, 1024, 3072, 8192)
	return []Case{
		weighed("RAMWeigher/most-free-wins-1.0", w, std, nil, request(1), nil, "h4", 1.0),
		weighed("RAMWeigher/least-free-0.0625", w, std, nil, request(1), mult(-1), "h1", -0.0625),
		weighed("RAMWeigher/multiplier-2", w, std, nil, request(1), mult(2), "h4", 2.0),
		weighed("RAMWeigher/negative-free-clamped-to-0", w, free(512, 1024, 3072, 8192, -512), nil, request(1), mult(-1), "h5", 0),
		weighed("RAMWeigher/aggregate-multiplier-1.5", w, std,
			[]engine.Aggregate{agg("a", names("h4"), "ram_weight_multiplier", "1.5")}, request(1), nil, "h4", 1.5),
		weighed("RAMWeigher/aggregate-multiplier-min-of-2-and-1.5", w, std,
			[]engine.Aggregate{agg("a", names("h4"), "ram_weight_multiplier", "2"), agg("b", names("h4"), "ram_weight_multiplier", "1.5")},
			request(1), nil, "h4", 1.5),
		weighed("RAMWeigher/aggregate-multiplier-bad-value-uses-config", w, std,
			[]engine.Aggregate{agg("a", names("h4"), "ram_weight_multiplier", "2"), agg("b", names("h4"), "ram_weight_multiplier", "x")},
			request(1), nil, "h4", 1.0),
		// An aggregate multiplier turns the ranking round for its hosts.
		weighed("RAMWeigher/aggregate-multiplier-per-host", w, std,
			[]engine.Aggregate{agg("a", names("h4"), "ram_weight_multiplier", "0.1")}, request(1), nil, "h3", 0.375),
	}
}

func otherWeigherCases() []Case {
	cpus := []engine.Host{
		host("h1", cpu(8, 8), cpuRatio(1)), host("h2", cpu(4, 2), cpuRatio(1)),
		host("h3", cpu(6, 0), cpuRatio(1)), host("h4", cpu(8, 0), cpuRatio(2)),
	}
	cpuMult := func(m float64) []func(*engine.Config) {
		return []func(*engine.Config){func(c *engine.Config) { c.CPUWeightMultiplier = m }}
	}
	var io, dsk, fails, inst []engine.Host
	for i, v := range []int64{1, 2, 0, 4} {
		io = append(io, host(hname(i), ioOps(v)))
	}
	for i, v := range []int64{5, 10, 30, 80} {
		dsk = append(dsk, host(hname(i), disk(100, v)))
	}
	for i, v := range []int64{0, 1, 10, 100} {
		fails = append(fails, host(hname(i), failedBuilds(v)))
	}
	for i, v := range []int64{3, 1, 7, 5} {
		inst = append(inst, host(hname(i), numInst(v)))
	}
	instMult := func(m float64) []func(*engine.Config) {
		return []func(*engine.Config){func(c *engine.Config) { c.NumInstancesWeightMultiplier = m }}
	}
	soft := func(policy string) engine.Request {
		return with(func(r *engine.Request) {
			r.InstanceGroup = &engine.InstanceGroup{Policy: policy, Members: names("m1", "m2", "m3", "m4", "m5", "m6", "m7")}
		})
	}
	// Member counts [1, 4, 0, 2]; h2 also runs an instance outside the group.
	members := []engine.Host{
		host("h1", instances("m1")), host("h2", instances("m2", "m3", "m4", "m5", "x1")),
		host("h3", instances("x2")), host("h4", instances("m6", "m7")),
	}
	return []Case{
		weighed("CPUWeigher/most-free-wins", engine.CPUWeigher, cpus, nil, request(1), nil, "h4", 1.0),
		weighed("CPUWeigher/multiplier-minus-1", engine.CPUWeigher, cpus, nil, request(1), cpuMult(-1), "h1", 0),
		// The host's own ratio, not an aggregate's: 4*3 = 12 beats 8*1.
		weighed("CPUWeigher/uses-host-ratio", engine.CPUWeigher,
			[]engine.Host{host("h1", cpu(8, 0), cpuRatio(1)), host("h2", cpu(4, 0), cpuRatio(3))},
			[]engine.Aggregate{agg("a", names("h1"), "cpu_allocation_ratio", "4")}, request(1), nil, "h2", 1.0),
		weighed("CPUWeigher/overcommitted-clamped-to-0", engine.CPUWeigher,
			[]engine.Host{host("h1", cpu(4, 100), cpuRatio(1)), host("h2", cpu(4, 2), cpuRatio(1))},
			nil, request(1), cpuMult(-1), "h1", 0),
		weighed("IoOpsWeigher/fewest-io-ops-wins", engine.IoOpsWeigher, io, nil, request(1), nil, "h3", 0),
		weighed("IoOpsWeigher/positive-multiplier", engine.IoOpsWeigher, io, nil, request(1),
			[]func(*engine.Config){func(c *engine.Config) { c.IoOpsWeightMultiplier = 2 }}, "h4", 2.0),
		weighed("DiskWeigher/most-free-wins", engine.DiskWeigher, dsk, nil, request(1), nil, "h4", 1.0),
		weighed("DiskWeigher/least-free", engine.DiskWeigher, dsk, nil, request(1),
			[]func(*engine.Config){func(c *engine.Config) { c.DiskWeightMultiplier = -1 }}, "h1", -0.0625),
		weighed("ServerGroupSoftAffinityWeigher/most-members-wins", engine.ServerGroupSoftAffinityWeigher, members, nil,
			soft(engine.PolicySoftAffinity), nil, "h2", 1.0),
		weighed("ServerGroupSoftAffinityWeigher/other-policy-all-zero", engine.ServerGroupSoftAffinityWeigher, members, nil,
			soft(engine.PolicySoftAntiAffinity), nil, "h1", 0),
		weighed("ServerGroupSoftAntiAffinityWeigher/fewest-members-wins", engine.ServerGroupSoftAntiAffinityWeigher, members, nil,
			soft(engine.PolicySoftAntiAffinity), nil, "h3", 1.0),
		weighed("ServerGroupSoftAntiAffinityWeigher/multiplier-2", engine.ServerGroupSoftAntiAffinityWeigher, members, nil,
			soft(engine.PolicySoftAntiAffinity), []func(*engine.Config){func(c *engine.Config) { c.SoftAntiAffinityWeightMultiplier = 2 }}, "h3", 2.0),
		weighed("BuildFailureWeigher/no-failures-wins", engine.BuildFailureWeigher, fails, nil, request(1),
			[]func(*engine.Config){func(c *engine.Config) { c.BuildFailureWeightMultiplier = 1000 }}, "h1", 0),
		weighed("BuildFailureWeigher/aggregate-multiplier-negated", engine.BuildFailureWeigher, fails,
			[]engine.Aggregate{agg("a", names("h1", "h2", "h3", "h4"), "build_failure_weight_multiplier", "-1")}, request(1),
			nil, "h4", 1.0),
		weighed("NumInstancesWeigher/default-multiplier-0", engine.NumInstancesWeigher, inst, nil, request(1), nil, "h1", 0),
		weighed("NumInstancesWeigher/spread", engine.NumInstancesWeigher, inst, nil, request(1), instMult(-1), "h2", 0),
		weighed("NumInstancesWeigher/pack", engine.NumInstancesWeigher, inst, nil, request(1), instMult(1), "h3", 1.0),
		weighed("CrossCellWeigher/boot-weighs-0", engine.CrossCellWeigher,
			[]engine.Host{host("h1", cell("c1")), host("h2", cell("c2"))}, nil, request(1), nil, "h1", 0),
		{
			// Weighers add up: RAM 1.0*x, CPU 2.0*y on the same hosts.
			Name: "weighers/sum-of-multiplier-times-normalized",
			Cloud: engine.Cloud{
				Config: config(nil, names(engine.RAMWeigher, engine.CPUWeigher), func(c *engine.Config) {
					c.CPUWeightMultiplier = 2
				}),
				Hosts: []engine.Host{
					host("h1", ram(8192, 8192), cpu(8, 8), cpuRatio(1)),
					host("h2", ram(8192, 2048), cpu(8, 0), cpuRatio(1)),
					host("h3", ram(8192, 4096), cpu(8, 6), cpuRatio(1)),
				},
			},
			Req:  request(1),
			Want: Want{Hosts: names("h2"), Weights: []float64{0.25 + 2.0}},
		},
	}
}

func metricsWeigherCases() []Case {
	w := engine.MetricsWeigher
	setting := func(name string, ratio float64, extra ...func(*engine.Config)) []func(*engine.Config) {
		return append([]func(*engine.Config){func(c *engine.Config) {
			c.MetricsWeightSetting = []engine.MetricWeight{{Name: name, Ratio: ratio}}
		}}, extra...)
	}
	freq := func(values ...float64) []engine.Host {
		var hs []engine.Host
		for i, v := range values {
			hs = append(hs, host(hname(i), metrics(map[string]float64{"cpu.frequency": v})))
		}
		return hs
	}
	notRequired := func(c *engine.Config) { c.MetricsRequired = false }
	missing := []engine.Host{host("h1", metrics(map[string]float64{"cpu.frequency": 100})), host("h2")}
	// cpu.percent 0.57 is seen as int(0.57*100) = 56.
	pct := Case{
		Name: "MetricsWeigher/percent-times-100-truncated",
		Cloud: engine.Cloud{
			Config: config(nil, names(engine.MetricsWeigher, engine.BuildFailureWeigher), func(c *engine.Config) {
				c.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: 1}}
			}),
			Hosts: []engine.Host{
				host("h1", metrics(map[string]float64{"cpu.percent": 0}), failedBuilds(1)),
				host("h2", metrics(map[string]float64{"cpu.percent": 0.57})),
				host("h3", metrics(map[string]float64{"cpu.percent": 1.0}), failedBuilds(1)),
			},
		},
		Req:  request(1),
		Want: Want{Hosts: names("h2"), Weights: []float64{0.56}},
	}
	sum := Case{
		Name: "MetricsWeigher/sum-of-value-times-ratio",
		Cloud: engine.Cloud{
			Config: config(nil, names(w), func(c *engine.Config) {
				c.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.frequency", Ratio: 1}, {Name: "cpu.user.time", Ratio: -2}}
			}),
			Hosts: []engine.Host{
				host("h1", metrics(map[string]float64{"cpu.frequency": 2000, "cpu.user.time": 100})),
				host("h2", metrics(map[string]float64{"cpu.frequency": 3000, "cpu.user.time": 600})),
				host("h3", metrics(map[string]float64{"cpu.frequency": 2400.9, "cpu.user.time": 0})),
			},
		},
		Req:  request(1),
		Want: Want{Hosts: names("h3"), Weights: []float64{1.0}},
	}
	required := Case{
		Name:  "MetricsWeigher/required-missing-raises",
		Cloud: engine.Cloud{Config: config(nil, names(w), setting("cpu.frequency", 1)...), Hosts: missing},
		Req:   request(1),
		Want:  Want{Err: &WantErr{Kind: MetricNotFound, Index: 0, Host: "h2"}},
	}
	filtered := Case{
		Name: "MetricsWeigher/metrics-filter-prevents-error",
		Cloud: engine.Cloud{Config: config(names(engine.MetricsFilter), names(w), setting("cpu.frequency", 1)...),
			Hosts: append(missing, host("h3", metrics(map[string]float64{"cpu.frequency": 200})))},
		Req:  request(1),
		Want: Want{Hosts: names("h3"), Weights: []float64{1.0}, Candidates: []int{2}},
	}
	return []Case{
		weighed("MetricsWeigher/highest-wins", w, freq(2400.9, 3000, 1000), nil, request(1), setting("cpu.frequency", 1), "h2", 1.0),
		weighed("MetricsWeigher/negative-ratio", w, freq(2400.9, 3000, 1000), nil, request(1), setting("cpu.frequency", -1), "h3", 1.0),
		pct, sum, required, filtered,
		weighed("MetricsWeigher/not-required-weighs-unavailable", w, missing, nil, request(1),
			setting("cpu.frequency", 1, notRequired), "h1", 1.0),
		weighed("MetricsWeigher/not-required-unavailable-lowest", w, missing, nil, request(1),
			setting("cpu.frequency", 1, notRequired, func(c *engine.Config) { c.MetricsWeightMultiplier = -1 }), "h2", 0),
		weighed("MetricsWeigher/not-required-zero-multiplier-skips-metric", w,
			[]engine.Host{host("h1"), host("h2", metrics(map[string]float64{"cpu.frequency": 100}))}, nil, request(1),
			setting("cpu.frequency", 1, notRequired, func(c *engine.Config) { c.MetricsWeightMultiplier = 0 }), "h1", 0),
	}
}
