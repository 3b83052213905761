package nova

import (
	"errors"
	"strings"
	"testing"

	"github.com/placer/placer/internal/pyval"
)

func strPtr(s string) *string { return &s }
func intPtr(i int64) *int64   { return &i }

const testCPUInfo = `{"vendor": "Intel", "features": ["aes", "mmx"], "topology": {"cores": 4, "threads": 2}, "model": "Skylake"}`

// capsHost is the host the capabilities cases ran against in Nova 26.
func capsHost() *HostAttrs {
	return &HostAttrs{
		Host: "h1", Nodename: "n1", CellUUID: "c",
		FreeRAMMB:          1024,
		VCPUsTotal:         16,
		Stats:              map[string]string{"opt1": "1", "opt2": "2"},
		CPUInfo:            strPtr(testCPUInfo),
		HypervisorType:     strPtr("QEMU"),
		HypervisorVersion:  intPtr(6002000),
		HostIP:             strPtr("10.0.0.5"),
		SupportedInstances: [][3]string{{"x86_64", "kvm", "hvm"}},
		RAMAllocationRatio: 1.5,
	}
}

// TestCapabilitiesPass: NOVA-SEMANTICS.md §5 cases plus cases whose
// expected value came from running Nova 26's ComputeCapabilitiesFilter on
// the same HostState (exc: the exception Nova raised).
func TestCapabilitiesPass(t *testing.T) {
	cases := []struct {
		name  string
		specs map[string]string
		mod   func(h *HostAttrs)
		want  bool
		exc   string
	}{
		{"opt1=1 opt2=2", map[string]string{"opt1": "1", "opt2": "2"}, nil, true, ""},
		{"opt1=1 opt2=222", map[string]string{"opt1": "1", "opt2": "222"}, nil, false, ""},
		{"capabilities:opt1=1", map[string]string{"capabilities:opt1": "1"}, nil, true, ""},
		{"XXYY=1", map[string]string{"XXYY": "1"}, nil, true, ""},
		{"wrong_scope:opt1=1", map[string]string{"wrong_scope:opt1": "1"}, nil, true, ""},
		{"free_ram_mb=>= 300", map[string]string{"free_ram_mb": ">= 300"}, nil, true, ""},
		{"free_ram_mb=<= 300", map[string]string{"free_ram_mb": "<= 300"}, nil, false, ""},
		{"capabilities:free_ram_mb=>= 300", map[string]string{"capabilities:free_ram_mb": ">= 300"}, nil, true, ""},
		{"capabilities:cpu_info:vendor=Intel", map[string]string{"capabilities:cpu_info:vendor": "Intel"}, nil, true, ""},
		{"capabilities:cpu_info:vendor=AMD", map[string]string{"capabilities:cpu_info:vendor": "AMD"}, nil, false, ""},
		{"capabilities:cpu_info:features=<all-in> aes mmx", map[string]string{"capabilities:cpu_info:features": "<all-in> aes mmx"}, nil, true, ""},
		{"capabilities:cpu_info:topology:cores=>= 4", map[string]string{"capabilities:cpu_info:topology:cores": ">= 4"}, nil, true, ""},
		{"capabilities:cpu_info:topology:cores=s== 4", map[string]string{"capabilities:cpu_info:topology:cores": "s== 4"}, nil, true, ""},
		{"capabilities:cpu_info:nope=x", map[string]string{"capabilities:cpu_info:nope": "x"}, nil, false, ""},
		{"capabilities:cpu_info:topology={'cores': 4, 'threads': 2}", map[string]string{"capabilities:cpu_info:topology": "{'cores': 4, 'threads': 2}"}, nil, true, ""},
		{"capabilities:hypervisor_type=QEMU", map[string]string{"capabilities:hypervisor_type": "QEMU"}, nil, true, ""},
		{"hypervisor_type=s== QEMU", map[string]string{"hypervisor_type": "s== QEMU"}, nil, true, ""},
		{"capabilities:hypervisor_version=>= 6000000", map[string]string{"capabilities:hypervisor_version": ">= 6000000"}, nil, true, ""},
		{"capabilities:host_ip=10.0.0.5", map[string]string{"capabilities:host_ip": "10.0.0.5"}, nil, true, ""},
		{"capabilities:supported_instances=<in> x86_64", map[string]string{"capabilities:supported_instances": "<in> x86_64"}, nil, true, ""},
		{"supported_instances=[['x86_64', 'kvm', 'hvm']]", map[string]string{"supported_instances": "[['x86_64', 'kvm', 'hvm']]"}, nil, true, ""},
		{"capabilities:stats:opt1=1", map[string]string{"capabilities:stats:opt1": "1"}, nil, true, ""},
		{"capabilities:nothing=1", map[string]string{"capabilities:nothing": "1"}, nil, false, ""},
		{"hypervisor_hostname=x", map[string]string{"hypervisor_hostname": "x"}, nil, false, ""},
		{"capabilities:hypervisor_hostname=x", map[string]string{"capabilities:hypervisor_hostname": "x"}, nil, false, ""},
		{"free_ram_mb=>= abc", map[string]string{"free_ram_mb": ">= abc"}, nil, false, "ValueError"},
		{"capabilities:free_ram_mb:real=1024", map[string]string{"capabilities:free_ram_mb:real": "1024"}, nil, true, ""},
		{"capabilities:free_ram_mb:imag=0", map[string]string{"capabilities:free_ram_mb:imag": "0"}, nil, true, ""},
		{"capabilities:free_ram_mb:foo=0", map[string]string{"capabilities:free_ram_mb:foo": "0"}, nil, false, ""},
		{"ram_allocation_ratio=1.5", map[string]string{"ram_allocation_ratio": "1.5"}, nil, true, ""},
		{"capabilities:ram_allocation_ratio:real=1.5", map[string]string{"capabilities:ram_allocation_ratio:real": "1.5"}, nil, true, ""},
		{"vcpus_total=16", map[string]string{"vcpus_total": "16"}, nil, true, ""},
		{"opt1=s== 1", map[string]string{"opt1": "s== 1"}, nil, true, ""},
		{"opt1=", map[string]string{"opt1": ""}, nil, false, ""},
		{"capabilities:opt1:x=1", map[string]string{"capabilities:opt1:x": "1"}, nil, false, ""},
		{"capabilities:=1", map[string]string{"capabilities:": "1"}, nil, false, ""},
		{"capabilities::=1", map[string]string{"capabilities::": "1"}, nil, false, ""},
		{"update=<in> bound method HostState.update of (h1, n1) ram: 1024MB", map[string]string{"update": "<in> bound method HostState.update of (h1, n1) ram: 1024MB"}, nil, true, ""},
		{"capabilities:cpu_info:model:x=1", map[string]string{"capabilities:cpu_info:model:x": "1"}, nil, false, ""},
		{"capabilities:host_ip:version=4", map[string]string{"capabilities:host_ip:version": "4"}, nil, true, ""},
		{"empty", map[string]string{}, nil, true, ""},
		{"cpu_info not JSON", map[string]string{"capabilities:cpu_info:vendor": "Intel"},
			func(h *HostAttrs) { h.CPUInfo = strPtr("not json") }, false, ""},
		{"cpu_info not JSON but not descended", map[string]string{"capabilities:cpu_info": "not json"},
			func(h *HostAttrs) { h.CPUInfo = strPtr("not json") }, true, ""},
		{"non-None attribute wins over stats", map[string]string{"free_ram_mb": "1024"},
			func(h *HostAttrs) { h.Stats["free_ram_mb"] = "5" }, true, ""},
		{"None attribute falls back to stats", map[string]string{"hypervisor_hostname": "hh"},
			func(h *HostAttrs) { h.Stats["hypervisor_hostname"] = "hh" }, true, ""},
		{"scoped None attribute falls back to stats", map[string]string{"capabilities:hypervisor_hostname": "hh"},
			func(h *HostAttrs) { h.Stats["hypervisor_hostname"] = "hh" }, true, ""},
		{"JSON string in stats", map[string]string{"capabilities:cpu_info:a": "1"},
			func(h *HostAttrs) { h.Stats["cpu_info"] = `{"a": 1}`; h.CPUInfo = nil }, true, ""},
		{"stats free_ram_mb semantics case", map[string]string{"free_ram_mb": ">= 300"}, nil, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := capsHost()
			if tc.mod != nil {
				tc.mod(h)
			}
			got, err := CapabilitiesCheck(tc.specs, nil, h)
			if tc.exc != "" {
				var pe *ErrPython
				if !errors.As(err, &pe) || pe.Exception != tc.exc {
					t.Fatalf("CapabilitiesCheck error = %v, want %s", err, tc.exc)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("CapabilitiesCheck(%v) = %v, %v; want %v", tc.specs, got, err, tc.want)
			}
			if CapabilitiesPass(tc.specs, h) != (tc.want && tc.exc == "") {
				t.Fatal("CapabilitiesPass disagrees with CapabilitiesCheck")
			}
		})
	}
}

// TestCapabilitiesInFlavorOrder: Nova walks the extra specs in the
// flavor's order, and the first that fails or raises decides: a host
// that fails one spec and raises on another raises only when the raising
// one comes first (hypervisor_type "s== xen" fails on QEMU; cores
// ">= 8c" raises: float("8c")).
func TestCapabilitiesInFlavorOrder(t *testing.T) {
	specs := map[string]string{"capabilities:hypervisor_type": "s== xen", "capabilities:cpu_info:topology:cores": ">= 8c"}
	for _, tc := range []struct {
		order []string
		exc   string
	}{
		{nil, "ValueError"}, // sorted: cpu_info first
		{[]string{"capabilities:hypervisor_type", "capabilities:cpu_info:topology:cores"}, ""},
		{[]string{"capabilities:hypervisor_type"}, ""}, // the rest after it
		{[]string{"capabilities:cpu_info:topology:cores", "nothing", "capabilities:cpu_info:topology:cores"}, "ValueError"},
	} {
		ok, err := CapabilitiesCheck(specs, tc.order, capsHost())
		var pe *ErrPython
		if ok || (tc.exc == "") != (err == nil) || err != nil && (!errors.As(err, &pe) || pe.Exception != tc.exc) {
			t.Errorf("order %q: %v, %v; want a failure raising %q", tc.order, ok, err, tc.exc)
		}
		if got := SpecKeys(specs, tc.order); len(got) != 2 || got[0] == got[1] {
			t.Errorf("SpecKeys(%q) = %q", tc.order, got)
		}
	}
}

func TestHostAttrsAttr(t *testing.T) {
	h := capsHost()
	h.Instances = []string{"u2", "u1"}
	cases := []struct {
		name, str string
		ok        bool
	}{
		{"host", "h1", true},
		{"free_ram_mb", "1024", true},
		{"hypervisor_hostname", "None", true},
		{"hypervisor_version", "6002000", true},
		{"cpu_info", testCPUInfo, true},
		{"supported_instances", "[['x86_64', 'kvm', 'hvm']]", true},
		{"host_ip", "10.0.0.5", true},
		{"stats", "{'opt1': '1', 'opt2': '2'}", true},
		{"ram_allocation_ratio", "1.5", true},
		{"cpu_allocation_ratio", "0.0", true},
		{"_lock_name", "('h1', 'n1')", true},
		{"metrics", "MonitorMetricList(objects=[])", true},
		{"limits", "{}", true},
		{"numa_topology", "None", true},
		{"consume_from_request", "<bound method HostState.consume_from_request of (h1, n1) ram: 1024MB disk: 0MB io_ops: 0 instances: 0>", true},
		{"nothing", "None", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := h.Attr(tc.name)
			if ok != tc.ok || (ok && pyval.Str(v) != tc.str) {
				t.Fatalf("Attr(%q) = %q, %v; want %q, %v", tc.name, pyval.Str(v), ok, tc.str, tc.ok)
			}
		})
	}
	v, _ := h.Attr("instances")
	if o, ok := v.(*pyval.Dict); !ok || strings.Join(o.Keys, ",") != "u2,u1" {
		t.Fatalf("instances = %#v", v)
	}
}

func BenchmarkCapabilitiesPass(b *testing.B) {
	h := capsHost()
	specs := map[string]string{
		"capabilities:cpu_info:vendor":       "Intel",
		"capabilities:free_ram_mb":           ">= 512",
		"opt1":                               "1",
		"capabilities:hypervisor_type":       "<or> QEMU <or> KVM",
		"aggregate_instance_extra_specs:ssd": "true",
	}
	if !CapabilitiesPass(specs, h) {
		b.Fatal("benchmark host does not pass")
	}
	b.ReportAllocs()
	for b.Loop() {
		CapabilitiesPass(specs, h)
	}
}
