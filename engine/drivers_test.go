package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/synth"
)

// driverVariant is one way TestDifferentialDrivers turns a generated
// scenario into one of the drivers of older releases (issue 20).
type driverVariant struct {
	name string
	opts func(o *synth.Options)
	// edit changes the cloud after synth made it (nil: nothing).
	edit func(c *engine.Cloud, req *engine.Request)
}

var driverVariants = []driverVariant{
	{name: "chance", opts: func(o *synth.Options) { o.SchedulerDriver = engine.DriverChanceScheduler }},
	{name: "chance+ironic", opts: func(o *synth.Options) {
		o.SchedulerDriver, o.IronicNodes = engine.DriverChanceScheduler, 0.5
	}},
	{name: "ironic", opts: func(o *synth.Options) { o.IronicNodes = 0.5 }},
	{name: "ironic+exact", opts: func(o *synth.Options) { o.IronicNodes = 0.5 },
		edit: func(c *engine.Cloud, req *engine.Request) {
			c.Config.Filters = append(slices.Clone(c.Config.Filters), engine.ExactRamFilter, engine.ExactCoreFilter, engine.ExactDiskFilter)
			matchFlavor(c, req)
		}},
	{name: "ironic+baremetal", opts: func(o *synth.Options) { o.IronicNodes = 0.7 },
		edit: func(c *engine.Cloud, req *engine.Request) {
			c.Config.UseBaremetalFilters = true
			matchFlavor(c, req)
		}},
	{name: "exact", opts: func(o *synth.Options) {},
		edit: func(c *engine.Cloud, req *engine.Request) {
			c.Config.Filters = append([]string{engine.ExactDiskFilter, engine.ExactCoreFilter},
				append(slices.Clone(c.Config.Filters), engine.ExactRamFilter)...)
			matchFlavor(c, req)
		}},
}

// matchFlavor makes every third host's free resources the request's
// flavor exactly (free RAM, free vCPUs, free disk with swap, when swap is
// whole GB), so that the Exact* filters pass some hosts.
func matchFlavor(c *engine.Cloud, req *engine.Request) {
	f := req.Flavor
	c.Hosts = slices.Clone(c.Hosts)
	for i := range c.Hosts {
		if i%3 != 0 {
			continue
		}
		h := &c.Hosts[i]
		h.MemoryMB, h.FreeRAMMB = max(h.MemoryMB, f.MemoryMB), f.MemoryMB
		h.VCPUs = max(h.VCPUs, f.VCPUs)
		h.VCPUsUsed = h.VCPUs - f.VCPUs
		if f.Swap%1024 == 0 {
			gb := f.RootGB + f.EphemeralGB + f.Swap/1024
			h.LocalGB, h.FreeDiskGB, h.DiskAvailableLeast = max(h.LocalGB, gb), gb, nil
		}
	}
}

// TestDifferentialDrivers is the differential test (engine against
// internal/reference) on the drivers of older releases: synth's chance
// and ironic clouds (synth.Options.SchedulerDriver, IronicNodes), the
// Exact* filters and use_baremetal_filters, over the differential test's
// generated scenarios. It also requires each variant to place somewhere
// and to fail somewhere, so that it compares both outcomes.
func TestDifferentialDrivers(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	bad := 0
	for _, v := range driverVariants {
		outcomes := map[string]int{}
		for i := range n {
			c := diffCaseOf(*diffSeed + uint64(i))
			v.opts(&c.opts)
			g := synth.New(c.opts)
			cloud, req := g.Cloud(), g.Request()
			if v.edit != nil {
				v.edit(&cloud, &req)
			}
			eng, ref := plandiff.RunEngine(cloud, req), plandiff.RunReference(cloud, req)
			outcomes[plandiff.Kind(ref)]++
			if diffs := plandiff.Compare(eng, ref); len(diffs) > 0 {
				if bad++; bad <= *diffReport {
					t.Errorf("%s %v (%d hosts, %d instances): %d difference(s):\n\t%s", v.name, c,
						len(cloud.Hosts), instances(req), len(diffs), strings.Join(capLines(diffs, 8), "\n\t"))
				}
			}
		}
		t.Logf("%s: %d scenarios; outcomes (reference): %v", v.name, n, sortedCounts(outcomes))
		if outcomes["ok"] == 0 || outcomes["ok"] == n {
			t.Errorf("%s: %s: want some placed and some not", v.name, fmt.Sprint(outcomes))
		}
	}
	if bad > 0 {
		t.Errorf("%d scenarios differ", bad)
	}
}

// TestChanceDraws holds the chance scheduler's draws to the reference's
// on every path of its host list: a few instances drawn by position from
// the set of hosts up (one and two shards, ignored hosts taken out, host
// names of two nodes), more than 64 from a list, and more instances than
// hosts (a choice per instance, by position and from a list).
func TestChanceDraws(t *testing.T) {
	cases := []struct {
		hosts, instances, ignored int
		paired                    bool // hosts 2k and 2k+1 share a host name
	}{
		{hosts: 40, instances: 3}, {hosts: 40, instances: 5, ignored: 7},
		{hosts: 5000, instances: 9, ignored: 3}, {hosts: 5000, instances: 64},
		{hosts: 600, instances: 65, ignored: 2}, {hosts: 300, instances: 200},
		{hosts: 12, instances: 30, ignored: 4}, {hosts: 12, instances: 12, ignored: 12},
		{hosts: 40, instances: 100, ignored: 3}, {hosts: 60, instances: 6, ignored: 5, paired: true},
		{hosts: 4100, instances: 70, ignored: 9, paired: true},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 3; seed++ {
			gen := synth.New(synth.Options{Hosts: c.hosts, Seed: seed, Profile: synth.Basic, SchedulerDriver: engine.DriverChanceScheduler})
			cloud := gen.Cloud()
			if c.paired {
				cloud.Hosts = slices.Clone(cloud.Hosts)
				for i := 0; i+1 < len(cloud.Hosts); i += 2 {
					a, b := &cloud.Hosts[i], &cloud.Hosts[i+1]
					b.Host, b.Node, b.Service = a.Host, a.Host+"-b", a.Service
				}
			}
			req := gen.Requests(1)[0]
			req.NumInstances, req.InstanceUUIDs = c.instances, nil
			req.ForceHosts, req.ForceNodes = nil, nil
			req.IgnoreHosts = nil
			for i := range c.ignored {
				req.IgnoreHosts = append(req.IgnoreHosts, cloud.Hosts[(i*7)%len(cloud.Hosts)].Host)
			}
			e := plandiff.RunEngine(cloud, req)
			r := plandiff.RunReference(cloud, req)
			if d := plandiff.Compare(e, r); len(d) > 0 {
				t.Fatalf("%+v seed %d: %d difference(s):\n\t%s", c, seed, len(d), strings.Join(d, "\n\t"))
			}
			if c.ignored < c.hosts && (e.Err != nil || len(e.Plan.Placements) != c.instances) {
				t.Fatalf("%+v seed %d: %s, %d placements", c, seed, plandiff.Kind(e), len(e.Plan.Placements))
			}
		}
	}
}
