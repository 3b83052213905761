package synth

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
)

func TestDeterministic(t *testing.T) {
	for _, p := range Profiles {
		t.Run(p, func(t *testing.T) {
			for seed := uint64(0); seed < 20; seed++ {
				o := Options{Hosts: 0, Seed: seed, Profile: p}
				if p != Edge {
					o.Hosts = 120
				}
				a, b := New(o), New(o)
				if !reflect.DeepEqual(a.Cloud(), b.Cloud()) {
					t.Fatalf("seed %d: two clouds differ", seed)
				}
				ra, rb := a.Requests(5), b.Requests(5)
				if !reflect.DeepEqual(ra, rb) {
					t.Fatalf("seed %d: two request streams differ", seed)
				}
				// The request stream does not depend on the cloud having
				// been read, nor on how many clouds were made.
				c := New(o)
				if rc := c.Requests(5); !reflect.DeepEqual(ra, rc) {
					t.Fatalf("seed %d: request stream depends on call order", seed)
				}
				o.Seed += 1000
				d := New(o)
				if reflect.DeepEqual(a.Cloud(), d.Cloud()) && reflect.DeepEqual(ra, d.Requests(5)) {
					t.Fatalf("seeds %d and %d give the same scenario", seed, o.Seed)
				}
			}
		})
	}
}

func TestRequestsVary(t *testing.T) {
	g := New(Options{Hosts: 200, Seed: 7, Profile: Basic})
	sizes, flavors, groups := map[int]bool{}, map[string]bool{}, 0
	uuids := map[string]bool{}
	for _, r := range g.Requests(300) {
		sizes[r.NumInstances] = true
		flavors[r.Flavor.Name] = true
		if r.InstanceGroup != nil {
			groups++
		}
		for _, u := range r.InstanceUUIDs {
			if uuids[u] {
				t.Fatalf("uuid %s in two requests of one stream", u)
			}
			uuids[u] = true
		}
		if r.NumInstances < 1 || r.NumInstances > 20 {
			t.Fatalf("request size %d", r.NumInstances)
		}
	}
	if len(sizes) < 10 || len(flavors) < 8 || groups < 50 {
		t.Fatalf("too little variety: %d sizes, %d flavors, %d groups", len(sizes), len(flavors), groups)
	}
	fixed := New(Options{Hosts: 50, Instances: 4, Seed: 1})
	for _, r := range fixed.Requests(20) {
		if r.NumInstances != 4 || len(r.InstanceUUIDs) != 4 {
			t.Fatalf("Instances: 4 gave a request of %d", r.NumInstances)
		}
	}
}

func TestScenariosAreValid(t *testing.T) {
	for _, p := range Profiles {
		t.Run(p, func(t *testing.T) {
			seeds := 300
			if p != Edge {
				seeds = 40
			}
			for seed := uint64(0); seed < uint64(seeds); seed++ {
				o := Options{Seed: seed, Profile: p}
				if p != Edge {
					o.Hosts = 60 + int(seed)*7
				}
				g := New(o)
				c := g.Cloud()
				if err := engine.ValidateCloud(&c); err != nil {
					t.Fatalf("seed %d: cloud: %v", seed, err)
				}
				for i, r := range g.Requests(4) {
					if _, err := engine.PrepareRequest(&c.Config, r); err != nil {
						t.Fatalf("seed %d: request %d: %v", seed, i, err)
					}
				}
			}
		})
	}
}

// TestEdgeCoverage checks that the edge profile reaches the corners it
// promises, over a few hundred seeds.
func TestEdgeCoverage(t *testing.T) {
	seen := map[string]int{}
	for seed := uint64(0); seed < 400; seed++ {
		g := New(Options{Seed: seed, Profile: Edge})
		c := g.Cloud()
		mark := func(what string, ok bool) {
			if ok {
				seen[what]++
			}
		}
		nodes := map[string]int{}
		for _, h := range c.Hosts {
			nodes[h.Host]++
			mark("zero vcpus", h.VCPUs == 0)
			mark("zero memory", h.MemoryMB == 0)
			mark("negative free ram", h.FreeRAMMB < 0)
			mark("free disk above total", h.FreeDiskGB > h.LocalGB)
			mark("disk_available_least below free", h.DiskAvailableLeast != nil && *h.DiskAvailableLeast < h.FreeDiskGB)
			mark("disk_available_least above free", h.DiskAvailableLeast != nil && *h.DiskAvailableLeast > h.FreeDiskGB)
			mark("no metrics", len(h.Metrics) == 0)
			mark("bad cpu_info", h.CPUInfo != nil && *h.CPUInfo == "not json at all")
		}
		for _, k := range nodes {
			mark("several nodes per host", k > 1)
		}
		mark("empty filter list", len(c.Config.Filters) == 0)
		mark("all filters", len(c.Config.Filters) == len(engine.FilterCatalogue))
		mark("shuffle", c.Config.ShuffleBestSameWeighedHosts)
		mark("several cells", func() bool {
			cells := map[string]bool{}
			for _, h := range c.Hosts {
				cells[h.Cell] = true
			}
			return len(cells) > 1
		}())
		for _, a := range c.Aggregates {
			mark("unparsable override", a.Metadata["ram_allocation_ratio"] == "abc" || a.Metadata["max_io_ops_per_host"] == "x")
		}
		r := g.Request()
		mark("group", r.InstanceGroup != nil)
		mark("anti-affinity max 3", r.InstanceGroup != nil && r.InstanceGroup.MaxServerPerHost == 3)
		mark("query", r.SchedulerHints.Query != "")
		mark("cidr", r.SchedulerHints.BuildNearHostIP != "")
		mark("force", len(r.ForceHosts)+len(r.ForceNodes) > 0)
		mark("ignore", len(r.IgnoreHosts) > 0)
		mark("destination", r.RequestedDestination != nil)
		mark("retry", r.Retry != nil)
		mark("default uuids", r.InstanceUUIDs == nil)
		on := map[string]bool{}
		for _, h := range c.Hosts {
			for _, u := range h.Instances {
				on[u] = true
			}
		}
		for _, u := range r.InstanceUUIDs {
			mark("uuid already on a host", on[u])
		}
		if r.InstanceUUIDs == nil {
			mark("uuid already on a host", on["inst-0"])
		}
	}
	for _, what := range []string{"zero vcpus", "zero memory", "negative free ram",
		"free disk above total", "disk_available_least below free",
		"disk_available_least above free", "no metrics", "bad cpu_info",
		"several nodes per host", "empty filter list", "all filters", "shuffle",
		"several cells", "unparsable override", "group", "anti-affinity max 3",
		"query", "cidr", "force", "ignore", "destination", "retry",
		"default uuids", "uuid already on a host"} {
		if seen[what] < 3 {
			t.Errorf("edge profile: %q seen %d times in 400 seeds", what, seen[what])
		}
	}
}

func BenchmarkCloud(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, p := range []string{Basic, Rich} {
			b.Run(fmt.Sprintf("profile=%s/hosts=%d", p, n), func(b *testing.B) {
				b.ReportAllocs()
				if c := Cloud(Options{Hosts: n, Seed: 1, Profile: p}); len(c.Hosts) != n {
					b.Fatalf("%d hosts, want %d", len(c.Hosts), n)
				}
				for b.Loop() {
					Cloud(Options{Hosts: n, Seed: 1, Profile: p})
				}
			})
		}
	}
}

func BenchmarkRequest(b *testing.B) {
	g := New(Options{Hosts: 100000, Seed: 1, Profile: Rich})
	b.ReportAllocs()
	for b.Loop() {
		g.Request()
	}
}

func TestBadInput(t *testing.T) {
	fields := map[string]bool{}
	for seed := uint64(0); seed < 400; seed++ {
		c, r, field := BadInput(seed)
		err := engine.ValidateCloud(&c)
		if err == nil {
			_, err = engine.PrepareRequest(&c.Config, r)
		}
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != field {
			t.Fatalf("seed %d: got %v, want a ValidationError naming %s", seed, err, field)
		}
		fields[field] = true
	}
	if len(fields) < 30 {
		t.Fatalf("only %d distinct bad fields in 400 seeds", len(fields))
	}
	// The generator's own cloud is not touched by BadInput.
	g := New(Options{Seed: 5, Profile: Edge})
	want := g.Cloud()
	for seed := uint64(0); seed < 50; seed++ {
		BadInput(seed)
	}
	if !reflect.DeepEqual(want, New(Options{Seed: 5, Profile: Edge}).Cloud()) {
		t.Fatal("BadInput changed a generated cloud")
	}
}

func TestHostName(t *testing.T) {
	for _, tc := range []struct {
		i, width int
		want     string
	}{{0, 4, "compute-0000"}, {42, 4, "compute-0042"}, {9999, 4, "compute-9999"},
		{12345, 5, "compute-12345"}, {7, 6, "compute-000007"}, {100000, 6, "compute-100000"}} {
		if got := hostName(tc.i, tc.width); got != tc.want {
			t.Errorf("hostName(%d, %d) = %q, want %q", tc.i, tc.width, got, tc.want)
		}
	}
}

// TestDriversOptions: the options of issue 20 change only what they set,
// and their clouds are valid.
func TestDriversOptions(t *testing.T) {
	for _, p := range Profiles {
		plain := New(Options{Seed: 3, Profile: p, Hosts: 60})
		g := New(Options{Seed: 3, Profile: p, Hosts: 60, SchedulerDriver: engine.DriverChanceScheduler, IronicNodes: 0.5})
		c := g.Cloud()
		if err := engine.ValidateCloud(&c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if c.Config.SchedulerDriver != engine.DriverChanceScheduler || c.Config.HostManager != engine.HostManagerIronic {
			t.Errorf("%s: config %q %q", p, c.Config.SchedulerDriver, c.Config.HostManager)
		}
		ironic := 0
		for i, h := range c.Hosts {
			ph := plain.Cloud().Hosts[i]
			if h.HypervisorType != nil && *h.HypervisorType == engine.HVTypeIronic {
				ironic++
				continue
			}
			if !reflect.DeepEqual(h, ph) {
				t.Errorf("%s: host %d changed", p, i)
			}
		}
		if ironic == 0 || ironic == len(c.Hosts) {
			t.Errorf("%s: %d ironic nodes of %d", p, ironic, len(c.Hosts))
		}
		if !reflect.DeepEqual(g.Requests(5), plain.Requests(5)) {
			t.Errorf("%s: the requests changed", p)
		}
	}
	if err := (Options{IronicNodes: 1.5}).Validate(); err == nil {
		t.Error("IronicNodes 1.5 accepted")
	}
}
