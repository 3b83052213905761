package scenario

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
)

func ptr[T any](v T) *T { return &v }

// TestDecodeDefaults checks every default of SCENARIO.md on the smallest
// scenario there is.
func TestDecodeDefaults(t *testing.T) {
	s := mustDecode(t, `{"hosts": [{"host": "h1", "memory_mb": 1, "free_ram_mb": 1,
		"vcpus": 1, "vcpus_used": 0, "local_gb": 1, "free_disk_gb": 1}],
		"aggregates": [{}], "request": {"flavor": {}}}`)
	want := &Scenario{
		Cloud: engine.Cloud{
			Config: engine.DefaultConfig(),
			Hosts: []engine.Host{{
				Host: "h1", Node: "h1", UUID: MadeUpUUID("host", "h1", "h1"), Cell: "cell1",
				MemoryMB: 1, FreeRAMMB: 1, VCPUs: 1, LocalGB: 1, FreeDiskGB: 1,
			}},
			Aggregates: []engine.Aggregate{{Name: "agg0"}},
		},
		Request: engine.Request{NumInstances: 1, InstanceUUIDs: []string{"inst-0"}},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", *s, *want)
	}
	c := s.Cloud.Config
	if len(c.Filters) != 9 || c.Filters[0] != "ComputeFilter" || len(c.Weighers) != 10 ||
		c.IoOpsWeightMultiplier != -1 || c.BuildFailureWeightMultiplier != 1e6 ||
		c.MetricsWeightOfUnavailable != -10000 || !c.MetricsRequired || c.HostSubsetSize != 1 ||
		c.MaxAttempts != 3 || c.MaxIoOpsPerHost != 8 || c.MaxInstancesPerHost != 50 ||
		c.DefaultAvailabilityZone != "nova" || c.CPUAllocationRatio != 16 || c.RAMAllocationRatio != 1.5 ||
		c.DiskAllocationRatio != 1 || !c.RestrictIsolatedHostsToIsolatedImages ||
		c.AggregateImagePropertiesIsolationSep != "." || c.AggregateImagePropertiesIsolationNS != nil {
		t.Errorf("config defaults differ from SCENARIO.md: %+v", c)
	}
}

// TestMadeUpUUID pins the oracle's made_up_uuid (values from Python's
// uuid.uuid5 in the oracle's namespace).
func TestMadeUpUUID(t *testing.T) {
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{"host", "compute-0000", "compute-0000"}, "0e9e8d59-1aa7-5bf7-ac9b-537c025589a8"},
		{[]string{"group"}, "e0e0bff1-4fd0-5b58-bb2e-4dfd41e96796"},
	} {
		if got := MadeUpUUID(tc.parts...); got != tc.want {
			t.Errorf("MadeUpUUID(%q) = %s, want %s", tc.parts, got, tc.want)
		}
	}
}

// goodCase is a valid scenario and what Decode must make of it.
type goodCase struct {
	name  string
	text  string
	check func(t *testing.T, s *Scenario)
}

var goodCases = []goodCase{
	{"fractional host numbers are truncated toward zero", hostsDoc(host(
		"memory_mb", "1024.9", "free_ram_mb", "-1.7", "vcpus", "4.5", "vcpus_used", "0.99",
		"local_gb", "1e2", "free_disk_gb", "-0.5", "disk_available_least", "10.5")),
		func(t *testing.T, s *Scenario) {
			h := s.Cloud.Hosts[0]
			got := []int64{h.MemoryMB, h.FreeRAMMB, h.VCPUs, h.VCPUsUsed, h.LocalGB, h.FreeDiskGB, *h.DiskAvailableLeast}
			if want := []int64{1024, -1, 4, 0, 100, 0, 10}; !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		}},
	{"integral floats are integers", doc("config", `{"host_subset_size": 2.0, "seed": -3}`,
		"request", `{"flavor": {"memory_mb": 2048.0, "swap": 1e3}, "num_instances": 2.0}`),
		func(t *testing.T, s *Scenario) {
			c, r := s.Cloud.Config, s.Request
			if c.HostSubsetSize != 2 || c.Seed != -3 || r.Flavor.MemoryMB != 2048 || r.Flavor.Swap != 1000 || r.NumInstances != 2 {
				t.Errorf("got %+v %+v", c, r)
			}
		}},
	{"node, uuid, cell given", hostsDoc(host("node", `"n1"`, "uuid", `"u1"`, "cell", `"c2"`),
		host("node", `"n2"`), host("host", `"h2"`, "uuid", "null", "node", "null")),
		func(t *testing.T, s *Scenario) {
			h := s.Cloud.Hosts
			if h[0].Node != "n1" || h[0].UUID != "u1" || h[0].Cell != "c2" ||
				h[1].Node != "n2" || h[1].UUID != MadeUpUUID("host", "h1", "n2") ||
				h[2].Node != "h2" || h[2].UUID != MadeUpUUID("host", "h2", "h2") {
				t.Errorf("got %+v", h)
			}
		}},
	{"service up maps to Down", hostsDoc(host("service", `{"up": false}`), host("host", `"h2"`, "service", `{"disabled": true, "up": true}`)),
		func(t *testing.T, s *Scenario) {
			h := s.Cloud.Hosts
			if h[0].Service != (engine.Service{Down: true}) || h[1].Service != (engine.Service{Disabled: true}) {
				t.Errorf("got %+v %+v", h[0].Service, h[1].Service)
			}
		}},
	{"one service for the nodes of a host", hostsDoc(host("node", `"n1"`, "service", `{"up": false}`),
		host("node", `"n2"`, "service", `{"up": false, "disabled": false}`)),
		func(t *testing.T, s *Scenario) {}},
	{"cpu_info object is stored as Python's json.dumps", hostsDoc(host("cpu_info",
		`{"vendor":"Intel","topology":{"cores":8,"threads":2},"f":1.0,"g":1e16,"u":"é\u2028","l":[2.5e-05,true,null,100000000000000000000]}`)),
		func(t *testing.T, s *Scenario) {
			want := `{"vendor": "Intel", "topology": {"cores": 8, "threads": 2}, "f": 1.0, "g": 1e+16, ` +
				`"u": "\u00e9\u2028", "l": [2.5e-05, true, null, 100000000000000000000]}`
			if got := *s.Cloud.Hosts[0].CPUInfo; got != want {
				t.Errorf("cpu_info\n got %s\nwant %s", got, want)
			}
		}},
	{"cpu_info string is kept as it is", hostsDoc(host("cpu_info", `"not json {"`)),
		func(t *testing.T, s *Scenario) {
			if got := *s.Cloud.Hosts[0].CPUInfo; got != "not json {" {
				t.Errorf("cpu_info %q", got)
			}
		}},
	{"host details", hostsDoc(host("hypervisor_type", `"QEMU"`, "hypervisor_version", "6002000",
		"hypervisor_hostname", `"hv1"`, "supported_instances", `[["x86_64", "kvm", "hvm"]]`,
		"stats", `{"gpu": "1"}`, "metrics", `{"cpu.percent": 0.57, "cpu.frequency": 2400}`,
		"host_ip", `"10.0.0.1"`, "instances", `["a", "b"]`, "num_instances", "2", "num_io_ops", "1",
		"failed_builds", "3", "ram_allocation_ratio", "2", "cpu_allocation_ratio", "null", "disk_allocation_ratio", "1.5")),
		func(t *testing.T, s *Scenario) {
			h := s.Cloud.Hosts[0]
			want := engine.Host{Host: "h1", Node: "h1", UUID: h.UUID, Cell: "cell1", MemoryMB: 1024, FreeRAMMB: 1024,
				VCPUs: 4, LocalGB: 10, FreeDiskGB: 10, RAMAllocationRatio: ptr(2.0), DiskAllocationRatio: ptr(1.5),
				NumInstances: 2, NumIOOps: 1, FailedBuilds: 3, HypervisorType: ptr("QEMU"), HypervisorVersion: ptr(int64(6002000)),
				HypervisorHostname: ptr("hv1"), SupportedInstances: []engine.HVSpec{{Arch: "x86_64", HVType: "kvm", VMMode: "hvm"}},
				Stats: map[string]string{"gpu": "1"}, Metrics: map[string]float64{"cpu.percent": 0.57, "cpu.frequency": 2400},
				HostIP: ptr("10.0.0.1"), Instances: []string{"a", "b"}}
			if !reflect.DeepEqual(h, want) {
				t.Errorf("got\n%+v\nwant\n%+v", h, want)
			}
		}},
	{"config", doc("config", `{"filters": [], "weighers": ["RAMWeigher"], "ram_weight_multiplier": -0.0,
		"metrics_weight_setting": [["cpu.percent", -1], ["cpu.frequency", 0.001]], "metrics_required": false,
		"shuffle_best_same_weighed_hosts": true, "isolated_images": ["i1"], "isolated_hosts": ["h1"],
		"aggregate_image_properties_isolation_namespace": "os", "aggregate_image_properties_isolation_separator": "_",
		"image_properties_default_architecture": "x86_64", "seed": 9007199254740993}`),
		func(t *testing.T, s *Scenario) {
			c := s.Cloud.Config
			if c.Filters != nil || !reflect.DeepEqual(c.Weighers, []string{"RAMWeigher"}) ||
				!math.Signbit(c.RAMWeightMultiplier) || c.MetricsRequired || !c.ShuffleBestSameWeighedHosts ||
				!reflect.DeepEqual(c.MetricsWeightSetting, []engine.MetricWeight{{Name: "cpu.percent", Ratio: -1}, {Name: "cpu.frequency", Ratio: 0.001}}) ||
				!reflect.DeepEqual(c.IsolatedImages, []string{"i1"}) || *c.AggregateImagePropertiesIsolationNS != "os" ||
				c.AggregateImagePropertiesIsolationSep != "_" || *c.ImagePropertiesDefaultArchitecture != "x86_64" ||
				c.Seed != 9007199254740993 {
				t.Errorf("got %+v", c)
			}
		}},
	{"request", doc("request", `{"num_instances": 2, "instance_uuids": ["a", "b"],
		"flavor": {"name": "m1", "memory_mb": 512, "vcpus": 1, "root_gb": 1, "ephemeral_gb": 2, "swap": 3, "extra_specs": {"hw:x": "1"}},
		"image": {"id": "img", "properties": {"s": "x", "i": 7, "f": 2.0, "b": true, "n": null, "inf": 1e400}},
		"project_id": "p", "user_id": null, "availability_zone": "az1",
		"instance_group": {"policy": "anti-affinity", "rules": {"max_server_per_host": 2}, "hosts": ["h1"], "members": ["m"]},
		"ignore_hosts": null, "force_hosts": ["H1"], "force_nodes": [],
		"requested_destination": {"host": "h1", "node": null},
		"scheduler_hints": {"same_host": "u1", "different_host": ["u2", "u3"], "query": ["[\"=\", \"$free_ram_mb\", 1]"],
			"build_near_host_ip": "10.0.0.1", "cidr": ["/16"]},
		"retry": {"hosts": [["h1", "h1"]]}}`),
		func(t *testing.T, s *Scenario) {
			want := engine.Request{NumInstances: 2, InstanceUUIDs: []string{"a", "b"},
				Flavor: engine.Flavor{Name: "m1", MemoryMB: 512, VCPUs: 1, RootGB: 1, EphemeralGB: 2, Swap: 3,
					ExtraSpecs: map[string]string{"hw:x": "1"}},
				Image: engine.Image{ID: ptr("img"), Properties: map[string]any{
					"s": "x", "i": int64(7), "f": 2.0, "b": true, "n": nil, "inf": math.Inf(1)}},
				ProjectID: ptr("p"), AvailabilityZone: ptr("az1"),
				InstanceGroup: &engine.InstanceGroup{UUID: MadeUpUUID("group"), Policy: "anti-affinity",
					MaxServerPerHost: 2, Hosts: []string{"h1"}, Members: []string{"m"}},
				ForceHosts:           []string{"H1"},
				RequestedDestination: &engine.Destination{Host: "h1"},
				SchedulerHints: engine.Hints{SameHost: []string{"u1"}, DifferentHost: []string{"u2", "u3"},
					Query: `["=", "$free_ram_mb", 1]`, BuildNearHostIP: "10.0.0.1", CIDR: "/16"},
				Retry: &engine.Retry{NumAttempts: 1, Hosts: []engine.HostNode{{Host: "h1", Node: "h1"}}},
			}
			if !reflect.DeepEqual(s.Request, want) {
				t.Errorf("got\n%+v\nwant\n%+v", s.Request, want)
			}
		}},
	{"nulls where the contract allows them", doc("request", `{"flavor": {}, "instance_uuids": null, "image": null,
		"instance_group": null, "requested_destination": null, "scheduler_hints": null, "retry": null,
		"force_hosts": null}`, "config", `{"aggregate_image_properties_isolation_namespace": null}`),
		func(t *testing.T, s *Scenario) {
			if !reflect.DeepEqual(s.Request, engine.Request{NumInstances: 1, InstanceUUIDs: []string{"inst-0"}}) {
				t.Errorf("got %+v", s.Request)
			}
		}},
	{"a cidr hint given empty", doc("request", request("scheduler_hints", `{"build_near_host_ip": "10.0.0.1", "cidr": [""]}`)),
		func(t *testing.T, s *Scenario) {
			// Nova appends it as given: the network is the address alone.
			if h := s.Request.SchedulerHints; h.CIDR != "" || !h.EmptyCIDR || h.AffinityCIDR() != "" {
				t.Errorf("got %+v", h)
			}
		}},
	{"extra specs in the flavor's order", doc("request", `{"flavor": {"extra_specs": {"b": "1", "a": "2", "c": "3"}}}`),
		func(t *testing.T, s *Scenario) {
			f := s.Request.Flavor
			if !slices.Equal(f.ExtraSpecOrder, []string{"b", "a", "c"}) || !slices.Equal(f.SpecKeys(), []string{"b", "a", "c"}) {
				t.Errorf("got %+v", f)
			}
		}},
	{"an extra spec whose value is its key", doc("request", `{"flavor": {"extra_specs": {"b": "b", "a": "a", "": ""}}}`),
		func(t *testing.T, s *Scenario) {
			if f := s.Request.Flavor; !slices.Equal(f.SpecKeys(), []string{"b", "a", ""}) || f.ExtraSpecs[""] != "" {
				t.Errorf("got %+v", f)
			}
		}},
	{"extra specs sorted", doc("request", `{"flavor": {"extra_specs": {"a": "1", "b": "2"}}}`),
		func(t *testing.T, s *Scenario) {
			if f := s.Request.Flavor; f.ExtraSpecOrder != nil || !slices.Equal(f.SpecKeys(), []string{"a", "b"}) {
				t.Errorf("got %+v", f)
			}
		}},
	{"no cidr hint", doc("request", request("scheduler_hints", `{"build_near_host_ip": "10.0.0.1"}`)),
		func(t *testing.T, s *Scenario) {
			if h := s.Request.SchedulerHints; h.EmptyCIDR || h.AffinityCIDR() != "/24" {
				t.Errorf("got %+v", h)
			}
		}},
	{"group uuid given", doc("request", request("instance_group", `{"uuid": "g1", "policy": "soft-affinity"}`)),
		func(t *testing.T, s *Scenario) {
			if g := s.Request.InstanceGroup; g.UUID != "g1" || g.MaxServerPerHost != 0 {
				t.Errorf("got %+v", g)
			}
		}},
	{"no hosts", `{"request": {"flavor": {}}, "hosts": []}`,
		func(t *testing.T, s *Scenario) {
			if s.Cloud.Hosts != nil {
				t.Errorf("hosts %v", s.Cloud.Hosts)
			}
		}},
	{"unicode and escapes in names", hostsDoc(host("host", `"h\u00e9\"1"`)),
		func(t *testing.T, s *Scenario) {
			if s.Cloud.Hosts[0].Host != `hé"1` {
				t.Errorf("host %q", s.Cloud.Hosts[0].Host)
			}
		}},
}

func TestDecodeGood(t *testing.T) {
	for _, tc := range goodCases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, mustDecode(t, tc.text))
		})
	}
}

// TestDecodeGenerated decodes scenarios written by `oracle gen` (20 hosts,
// 3 instances, seeds 1-3, both profiles).
func TestDecodeGenerated(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "gen-*.json"))
	if err != nil || len(files) != 6 {
		t.Fatalf("testdata: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := mustDecode(t, string(data))
			if len(s.Cloud.Hosts) != 20 || s.Request.NumInstances != 3 || len(s.Request.InstanceUUIDs) != 3 {
				t.Fatalf("%d hosts, %d instances", len(s.Cloud.Hosts), s.Request.NumInstances)
			}
			for _, h := range s.Cloud.Hosts {
				if h.UUID == "" || h.Node == "" || h.Cell == "" || h.CPUInfo == nil || !strings.HasPrefix(*h.CPUInfo, `{"arch": "`) {
					t.Fatalf("host %+v", h)
				}
			}
			if strings.Contains(f, "rich") && len(s.Cloud.Config.Filters) != len(engine.FilterCatalogue) {
				t.Errorf("rich profile: %d filters", len(s.Cloud.Config.Filters))
			}
		})
	}
}

// TestRoundTrip: Decode(EncodeScenario(s)) is s again, bit for bit, for
// every decoded scenario.
func TestRoundTrip(t *testing.T) {
	texts := map[string]string{}
	files, _ := filepath.Glob(filepath.Join("testdata", "gen-*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(data)
	}
	for _, tc := range goodCases {
		texts[tc.name] = tc.text
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			s := mustDecode(t, text)
			var b bytes.Buffer
			if err := EncodeScenario(&b, s); err != nil {
				t.Fatal(err)
			}
			again := mustDecode(t, b.String())
			if !reflect.DeepEqual(s, again) || !sameFloatBits(s, again) {
				t.Errorf("round trip differs\nfirst:  %+v\nsecond: %+v\ndoc: %s", *s, *again, b.String())
			}
			var b2 bytes.Buffer
			if err := EncodeScenario(&b2, again); err != nil || b2.String() != b.String() {
				t.Errorf("encoding is not stable: %v", err)
			}
		})
	}
}

// sameFloatBits compares the signs of zero DeepEqual cannot see.
func sameFloatBits(a, b *Scenario) bool {
	ca, cb := a.Cloud.Config, b.Cloud.Config
	return math.Signbit(ca.RAMWeightMultiplier) == math.Signbit(cb.RAMWeightMultiplier)
}

// TestEncodeHandBuilt: a Scenario built in Go, with the engine's own
// defaults left empty, decodes to its completed form.
func TestEncodeHandBuilt(t *testing.T) {
	s := &Scenario{
		Cloud: engine.Cloud{Config: engine.DefaultConfig(), Hosts: []engine.Host{
			{Host: "h1", MemoryMB: 4096, FreeRAMMB: 4096, VCPUs: 4, LocalGB: 40, FreeDiskGB: 40},
		}},
		Request: engine.Request{InstanceUUIDs: []string{"a", "b"}, Flavor: engine.Flavor{MemoryMB: 1},
			Image:          engine.Image{Properties: map[string]any{"hw_architecture": "x86_64"}},
			SchedulerHints: engine.Hints{SameHost: []string{}}},
	}
	var b bytes.Buffer
	if err := EncodeScenario(&b, s); err != nil {
		t.Fatal(err)
	}
	got := mustDecode(t, b.String())
	h := got.Cloud.Hosts[0]
	if h.Node != "h1" || h.Cell != "cell1" || h.UUID != MadeUpUUID("host", "h1", "h1") ||
		got.Request.NumInstances != 2 || got.Request.SchedulerHints.SameHost != nil ||
		got.Request.Image.Properties["hw_architecture"] != "x86_64" {
		t.Errorf("got %+v", got)
	}
	s.Cloud.Hosts[0].Metrics = map[string]float64{"cpu.percent": math.NaN()}
	if err := EncodeScenario(&b, s); err == nil {
		t.Error("NaN metric encoded")
	}
}
