package bench

import (
	"fmt"
	"sync"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// Host counts and instance counts of the PlaceBatch matrix.
var (
	HostCounts     = []int{1000, 10000, 50000, 100000}
	InstanceCounts = []int{1, 10, 100, 1000}
	// ScalingHostCounts are the host counts of PlaceBatch with the
	// default filters at 1 and 10 instances: HostCounts and the steps
	// between them, for the time-against-hosts chart (placer plot).
	ScalingHostCounts = []int{1000, 2000, 5000, 10000, 20000, 50000, 100000}
)

// placeBatchHosts are the host counts of PlaceBatch at a filter set and
// instance count.
func placeBatchHosts(filters string, instances int) []int {
	if filters == FiltersDefault && instances <= 10 {
		return ScalingHostCounts
	}
	return HostCounts
}

// Filter sets of the matrix: Nova's defaults, or the whole catalogue with
// every weigher.
const (
	FiltersDefault = "default"
	FiltersRich    = "rich"
)

var (
	cloudMu sync.Mutex
	clouds  = map[string]engine.Cloud{}
	snaps   = map[string]*engine.Snapshot{}
)

// Cloud returns the synthetic cloud of a case (cached: building 100,000
// hosts once per process is enough).
func Cloud(hosts int, filters string) engine.Cloud {
	cloudMu.Lock()
	defer cloudMu.Unlock()
	key := fmt.Sprint(hosts, filters)
	if c, ok := clouds[key]; ok {
		return c
	}
	c := synth.Cloud(synth.Options{Hosts: hosts, Seed: 1, Profile: synth.Basic})
	c.Config = Config(filters)
	clouds[key] = c
	return c
}

// Snapshot returns the snapshot of Cloud(hosts, filters), cached.
func Snapshot(hosts int, filters string) (*engine.Snapshot, error) {
	c := Cloud(hosts, filters)
	cloudMu.Lock()
	defer cloudMu.Unlock()
	key := fmt.Sprint(hosts, filters)
	if s, ok := snaps[key]; ok {
		return s, nil
	}
	s, err := engine.NewSnapshot(c)
	if err == nil {
		snaps[key] = s
	}
	return s, err
}

// Config is the scheduler configuration of a filter set.
func Config(filters string) engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Seed = 7
	if filters == FiltersRich {
		cfg.Filters = append([]string(nil), engine.FilterCatalogue...)
		cfg.Weighers = append([]string(nil), engine.WeigherCatalogue...)
		cfg.HostSubsetSize = 2
		cfg.NumInstancesWeightMultiplier = -1
		cfg.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: -1}}
		cfg.MetricsRequired = false
		cfg.MaxIoOpsPerHost = 1 << 20 // I/O ops grow with every placement
		cfg.MaxInstancesPerHost = 1 << 20
	}
	return cfg
}

// Request is the request of a case: instances of a mid-size flavor; with
// the rich filters it also carries extra specs, image properties and a
// soft-anti-affinity group, so that every filter has work to do.
func Request(instances int, filters string) engine.Request {
	r := engine.Request{
		NumInstances: instances,
		Flavor:       engine.Flavor{Name: "m1.small", MemoryMB: 2048, VCPUs: 1, RootGB: 20},
	}
	if filters == FiltersRich {
		project := "proj-c"
		r.ProjectID = &project
		r.Flavor.ExtraSpecs = map[string]string{"capabilities:hypervisor_type": "<or> QEMU <or> KVM"}
		r.Image.Properties = map[string]any{"hw_architecture": "x86_64", "img_hv_type": "kvm"}
		r.InstanceGroup = &engine.InstanceGroup{UUID: "bench-group", Policy: engine.PolicySoftAntiAffinity}
		r.SchedulerHints.Query = `[">=", "$free_ram_mb", 2048]`
	}
	return r
}
