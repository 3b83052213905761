package novacases

import "github.com/placer/placer/engine"

// resourceCases are the Ram/Core/Disk filters and their Aggregate variants
// (nova/tests/unit/scheduler/filters/test_{ram,core,disk}_filters.py at
// stein-eol), with the limits they leave on a host that passes.
func resourceCases() []Case {
	const (
		ramF     = engine.RamFilter
		aggRamF  = engine.AggregateRamFilter
		coreF    = engine.CoreFilter
		aggCoreF = engine.AggregateCoreFilter
		diskF    = engine.DiskFilter
		aggDiskF = engine.AggregateDiskFilter
	)
	req := request(1) // 1024 MB, 1 vCPU
	vcpus := func(n int64) engine.Request {
		r := request(1)
		r.Flavor.VCPUs = n
		return r
	}
	diskReq := func(root, eph, swap int64) engine.Request {
		r := request(1)
		r.Flavor.RootGB, r.Flavor.EphemeralGB, r.Flavor.Swap = root, eph, swap
		return r
	}
	inAggs := func(c Case, values ...string) Case {
		key := map[string]string{aggRamF: "ram_allocation_ratio", aggCoreF: "cpu_allocation_ratio",
			aggDiskF: "disk_allocation_ratio"}[c.Cloud.Config.Filters[0]]
		for i, v := range values {
			c.Cloud.Aggregates = append(c.Cloud.Aggregates, agg("agg"+itoa(i+1), names("h1"), key, v))
		}
		return c
	}
	cases := []Case{
		single("RamFilter/1023-free-of-1024-fails", ramF, host("h1", ram(1024, 1023), ramRatio(1.0)), req, false, engine.Limits{}),
		single("RamFilter/1024-free-of-1024-passes", ramF, host("h1", ram(1024, 1024), ramRatio(1.0)), req, true, limits("memory_mb", 1024)),
		single("RamFilter/oversubscribed-passes-limit-4096", ramF, host("h1", ram(2048, -1024), ramRatio(2.0)), req, true, limits("memory_mb", 4096)),
		single("RamFilter/no-overcommit-against-itself", ramF, host("h1", ram(512, 512), ramRatio(2.0)), req, false, engine.Limits{}),
		single("RamFilter/config-ratio-1.5", ramF, host("h1", ram(2048, 0)), req, true, limits("memory_mb", 3072)),
		inAggs(single("AggregateRamFilter/no-aggregate-uses-host-ratio", aggRamF, host("h1", ram(1024, 1023), ramRatio(1.0)), req, false, engine.Limits{})),
		inAggs(single("AggregateRamFilter/aggregate-2.0", aggRamF, host("h1", ram(1024, 1023), ramRatio(1.0)), req, true, limits("memory_mb", 2048)), "2.0"),
		inAggs(single("AggregateRamFilter/min-of-1.5-and-2.0", aggRamF, host("h1", ram(1024, 1023), ramRatio(1.0)), req, true, limits("memory_mb", 1536)), "1.5", "2.0"),
		inAggs(single("AggregateRamFilter/bad-value-uses-host-ratio", aggRamF, host("h1", ram(1024, 1023), ramRatio(1.0)), req, false, engine.Limits{}), "2.0", "lots"),

		single("CoreFilter/4-total-7-used-ratio-2-passes", coreF, host("h1", cpu(4, 7), cpuRatio(2)), req, true, limits("vcpu", 8)),
		single("CoreFilter/4-total-8-used-ratio-2-fails", coreF, host("h1", cpu(4, 8), cpuRatio(2)), req, false, engine.Limits{}),
		single("CoreFilter/no-overcommit-against-itself", coreF, host("h1", cpu(1, 0), cpuRatio(2)), vcpus(2), false, engine.Limits{}),
		single("CoreFilter/zero-vcpus-passes-without-limit", coreF, host("h1", cpu(0, 5)), req, true, engine.Limits{}),
		single("CoreFilter/config-ratio-16", coreF, host("h1", cpu(2, 30)), req, true, limits("vcpu", 32)),
		inAggs(single("AggregateCoreFilter/no-aggregate-uses-host-ratio", aggCoreF, host("h1", cpu(4, 8), cpuRatio(2)), req, false, engine.Limits{})),
		inAggs(single("AggregateCoreFilter/aggregate-3-limit-12", aggCoreF, host("h1", cpu(4, 8), cpuRatio(2)), req, true, limits("vcpu", 12)), "3"),
		inAggs(single("AggregateCoreFilter/min-of-3-and-2", aggCoreF, host("h1", cpu(4, 8), cpuRatio(1)), req, false, engine.Limits{}), "3", "2"),

		single("DiskFilter/fits", diskF, host("h1", disk(13, 11), diskRatio(1.0)), diskReq(1, 1, 512), true, limits("disk_gb", 13)),
		single("DiskFilter/swap-counts", diskF, host("h1", disk(13, 11), diskRatio(1.0)), diskReq(10, 1, 1024), false, engine.Limits{}),
		single("DiskFilter/oversubscribed-limit-120", diskF, host("h1", disk(12, 1), diskRatio(10.0)), diskReq(3, 3, 1024), true, limits("disk_gb", 120)),
		single("DiskFilter/no-overcommit-against-itself", diskF, host("h1", disk(12, 11), diskRatio(10.0)), diskReq(10, 2, 1024), false, engine.Limits{}),
		inAggs(single("AggregateDiskFilter/aggregate-2.0", aggDiskF, host("h1", disk(10, 1), diskRatio(1.0)), diskReq(5, 0, 0), true, limits("disk_gb", 20)), "2.0"),
		inAggs(single("AggregateDiskFilter/no-aggregate-uses-host-ratio", aggDiskF, host("h1", disk(10, 1), diskRatio(1.0)), diskReq(5, 0, 0), false, engine.Limits{})),
	}

	// disk_available_least caps the free disk.
	thin := host("h1", disk(20, 10), diskRatio(1.0))
	least := int64(4)
	thin.DiskAvailableLeast = &least
	cases = append(cases,
		single("DiskFilter/disk-available-least-caps-free", diskF, thin, diskReq(5, 0, 0), false, engine.Limits{}),
		single("DiskFilter/disk-available-least-fits", diskF, thin, diskReq(4, 0, 0), true, limits("disk_gb", 20)))

	// Every resource filter together: all three limits.
	all := Case{
		Name: "limits/ram-core-disk-together",
		Cloud: engine.Cloud{
			Config: config(names(ramF, coreF, diskF), nil),
			Hosts:  []engine.Host{host("h1", ramRatio(1.5), cpuRatio(4), diskRatio(2))},
		},
		Req:  request(1),
		Want: Want{Hosts: names("h1"), Limits: []engine.Limits{limits("memory_mb", 12288, "vcpu", 32, "disk_gb", 200)}},
	}
	// CoreFilter records the vcpu limit before its checks; with both
	// variants the later one in filter order leaves its value.
	coreLater := func(name string, filters []string, want float64) Case {
		return Case{
			Name: name,
			Cloud: engine.Cloud{
				Config:     config(filters, nil),
				Hosts:      []engine.Host{host("h1", cpu(4, 0), cpuRatio(2))},
				Aggregates: []engine.Aggregate{agg("a", names("h1"), "cpu_allocation_ratio", "3")},
			},
			Req:  request(1),
			Want: Want{Hosts: names("h1"), Limits: []engine.Limits{limits("vcpu", want)}},
		}
	}
	ramLater := func(name string, filters []string, want float64) Case {
		return Case{
			Name: name,
			Cloud: engine.Cloud{
				Config:     config(filters, nil),
				Hosts:      []engine.Host{host("h1", ram(4096, 4096), ramRatio(1))},
				Aggregates: []engine.Aggregate{agg("a", names("h1"), "ram_allocation_ratio", "2")},
			},
			Req:  request(1),
			Want: Want{Hosts: names("h1"), Limits: []engine.Limits{limits("memory_mb", want)}},
		}
	}
	cases = append(cases, all,
		coreLater("limits/core-then-aggregate-core", names(coreF, aggCoreF), 12),
		coreLater("limits/aggregate-core-then-core", names(aggCoreF, coreF), 8),
		ramLater("limits/ram-then-aggregate-ram", names(ramF, aggRamF), 8192),
		ramLater("limits/aggregate-ram-then-ram", names(aggRamF, ramF), 4096),
	)
	return cases
}
