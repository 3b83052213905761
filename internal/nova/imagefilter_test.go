package nova

import (
	"errors"
	"testing"
)

// TestImagePropertiesPass: NOVA-SEMANTICS.md §5 ImageProperties cases and
// more, each expected value from running Nova 26's ImagePropertiesFilter
// (ImageMeta.from_dict of the properties, the host's supported_instances
// and hypervisor_version, image_properties_default_architecture).
func TestImagePropertiesPass(t *testing.T) {
	cases := []struct {
		name        string
		props       map[string]any
		supported   [][3]string
		version     *int64
		defaultArch *string
		want        string
	}{
		{"x86_64/kvm/hvm >=6.0,<6.2", map[string]any{"hw_architecture": "x86_64", "img_hv_type": "kvm", "hw_vm_mode": "hvm", "img_hv_requested_version": ">=6.0,<6.2"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), nil, "True"},
		{"armv7/qemu/hvm", map[string]any{"hw_architecture": "armv7l", "img_hv_type": "qemu", "hw_vm_mode": "hvm"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), nil, "False"},
		{">=6.2", map[string]any{"hw_architecture": "x86_64", "img_hv_type": "kvm", "hw_vm_mode": "hvm", "img_hv_requested_version": ">=6.2"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), nil, "False"},
		{"no image props", map[string]any{}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), nil, "True"},
		{"host without supported_instances", map[string]any{"hw_architecture": "x86_64"}, [][3]string{}, intPtr(6000000), nil, "False"},
		{">=6.0 without host version", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": ">=6.0"}, [][3]string{{"x86_64", "kvm", "hvm"}}, nil, nil, "True"},
		{"version only", map[string]any{"img_hv_requested_version": ">=9.0"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), nil, "True"},
		{"default arch matches", map[string]any{}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), strPtr("x86_64"), "True"},
		{"default arch mismatch", map[string]any{}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), strPtr("aarch64"), "False"},
		{"image arch beats default", map[string]any{"hw_architecture": "x86_64"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), strPtr("aarch64"), "True"},
		{"legacy aliases", map[string]any{"architecture": "amd64", "hypervisor_type": "KVM", "vm_mode": "HV"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6000000), nil, "True"},
		{"second supported matches", map[string]any{"img_hv_type": "qemu"}, [][3]string{{"x86_64", "kvm", "hvm"}, {"x86_64", "qemu", "hvm"}}, intPtr(6000000), nil, "True"},
		{"cross position membership", map[string]any{"img_hv_type": "xen", "hw_vm_mode": "xen"}, [][3]string{{"x86_64", "xen", "hvm"}}, intPtr(6000000), nil, "True"},
		{"version 12 not StrictVersion", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": ">=1.0"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(12), nil, "ValueError"},
		{"version zero skips check", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": ">=9.0"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(0), nil, "True"},
		{"four part version", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": ">=1.0"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(1002003004), nil, "ValueError"},
		{"prerelease", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": "<6.2a1"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6001999), nil, "True"},
		{"!= exact", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": "!=6.2"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6002000), nil, "False"},
		{"== two part", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": "==6.2.0"}, [][3]string{{"x86_64", "kvm", "hvm"}}, intPtr(6002000), nil, "True"},
		{"version mismatch on first spec only", map[string]any{"hw_architecture": "x86_64", "img_hv_requested_version": ">=7.0"}, [][3]string{{"x86_64", "kvm", "hvm"}, {"x86_64", "qemu", "hvm"}}, intPtr(6002000), nil, "False"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, err := ParseImage(tc.props)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ImagePropertiesCheck(img, tc.defaultArch, tc.supported, tc.version)
			if tc.want != "True" && tc.want != "False" {
				var pe *ErrPython
				if !errors.As(err, &pe) || pe.Exception != tc.want {
					t.Fatalf("ImagePropertiesCheck = %v, %v; want %s", got, err, tc.want)
				}
				return
			}
			if err != nil || got != (tc.want == "True") {
				t.Fatalf("ImagePropertiesCheck = %v, %v; want %s", got, err, tc.want)
			}
			if ImagePropertiesPass(img, tc.defaultArch, tc.supported, tc.version) != got {
				t.Fatal("Pass disagrees with Check")
			}
		})
	}
}

// TestAggregateImagePropertiesIsolation: expected values from running
// Nova 26's AggregateImagePropertiesIsolation on the same image and
// aggregates.
func TestAggregateImagePropertiesIsolation(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]any
		aggs  []map[string]string
		ns    *string
		sep   string
		want  bool
	}{
		{"match", map[string]any{"os_distro": "ubuntu"}, []map[string]string{{"os_distro": "ubuntu"}}, nil, ".", true},
		{"mismatch", map[string]any{"os_distro": "centos"}, []map[string]string{{"os_distro": "ubuntu"}}, nil, ".", false},
		{"comma list", map[string]any{"os_distro": "centos"}, []map[string]string{{"os_distro": "ubuntu, centos"}}, nil, ".", true},
		{"prop unset passes", map[string]any{}, []map[string]string{{"os_distro": "ubuntu"}}, nil, ".", true},
		{"non-field key skipped", map[string]any{"os_distro": "x"}, []map[string]string{{"ssd": "true", "availability_zone": "az1"}}, nil, ".", true},
		{"namespace excludes", map[string]any{"os_distro": "centos"}, []map[string]string{{"os_distro": "ubuntu"}}, strPtr("isolation"), ".", true},
		{"namespace includes os_", map[string]any{"os_distro": "centos"}, []map[string]string{{"os_distro": "ubuntu"}}, strPtr("os"), "_", false},
		{"bool prop str True", map[string]any{"hw_qemu_guest_agent": "yes"}, []map[string]string{{"hw_qemu_guest_agent": "True"}}, nil, ".", true},
		{"bool prop yes vs True", map[string]any{"hw_qemu_guest_agent": "yes"}, []map[string]string{{"hw_qemu_guest_agent": "yes"}}, nil, ".", false},
		{"false bool skipped", map[string]any{"hw_qemu_guest_agent": "no"}, []map[string]string{{"hw_qemu_guest_agent": "True"}}, nil, ".", true},
		{"canonical arch", map[string]any{"architecture": "amd64"}, []map[string]string{{"hw_architecture": "x86_64"}}, nil, ".", true},
		{"int prop", map[string]any{"hw_video_ram": "64"}, []map[string]string{{"hw_video_ram": "64"}}, nil, ".", true},
		{"int zero skipped", map[string]any{"hw_video_ram": "0"}, []map[string]string{{"hw_video_ram": "64"}}, nil, ".", true},
		{"empty namespace", map[string]any{"os_distro": "centos"}, []map[string]string{{"os_distro": "ubuntu"}}, strPtr(""), ".", false},
		{"two aggregates union", map[string]any{"os_distro": "centos"}, []map[string]string{{"os_distro": "ubuntu"}, {"os_distro": "centos"}}, nil, ".", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, err := ParseImage(tc.props)
			if err != nil {
				t.Fatal(err)
			}
			if got := AggregateImagePropertiesIsolationPass(img, MetadataByHost(tc.aggs), tc.ns, tc.sep); got != tc.want {
				t.Fatalf("AggregateImagePropertiesIsolationPass = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCanonicalHVSpec: expected values from Nova 26's
// HVSpec.from_list(...).to_list().
func TestCanonicalHVSpec(t *testing.T) {
	cases := []struct {
		in, want [3]string
		refused  bool
	}{
		{[3]string{"amd64", "QEMU", "HV"}, [3]string{"x86_64", "qemu", "hvm"}, false},
		{[3]string{"i386", "xapi", "pv"}, [3]string{"i686", "xen", "xen"}, false},
		{[3]string{"x86_64", "kvm", "hvm"}, [3]string{"x86_64", "kvm", "hvm"}, false},
		{[3]string{"sparc", "kvm", "hvm"}, [3]string{"sparc", "kvm", "hvm"}, false},
		{[3]string{"x86_64", "kvm", "pvh"}, [3]string{}, true},
		{[3]string{"x86_64", "hyperkit", "hvm"}, [3]string{}, true},
		{[3]string{"AARCH64", "LXC", "EXE"}, [3]string{"aarch64", "lxc", "exe"}, false},
		{[3]string{"", "kvm", "hvm"}, [3]string{}, true},
		{[3]string{"x86_32p", "baremetal", "baremetal"}, [3]string{"i686", "baremetal", "hvm"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.in[0]+"/"+tc.in[1]+"/"+tc.in[2], func(t *testing.T) {
			got, err := CanonicalHVSpec(tc.in)
			if (err != nil) != tc.refused || got != tc.want {
				t.Fatalf("CanonicalHVSpec(%v) = %v, %v; want %v, refused %v", tc.in, got, err, tc.want, tc.refused)
			}
		})
	}
}

func TestHVVersionSatisfies(t *testing.T) {
	cases := []struct {
		name    string
		version int64
		req     string
		want    bool
		err     bool
	}{
		{"range", 6000000, ">=6.0,<6.2", true, false},
		{"too old", 6000000, ">=6.2", false, false},
		{"zero version skips", 0, ">=6.2", true, false},
		{"empty requirement", 6000000, "", true, false},
		{"two digit parts", 10002000, ">9.99", true, false},
		{"one part version raises", 12, ">=1.0", false, true},
		{"negative version raises", -1, ">=1.0", false, true},
		{"bad predicate raises", 6000000, "6.0", false, true},
		{"prerelease below release", 6002000, ">6.2b1", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HVVersionSatisfies(tc.version, tc.req)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("HVVersionSatisfies(%d, %q) = %v, %v", tc.version, tc.req, got, err)
			}
		})
	}
}

func TestParseImageErrorNamesProperty(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]any
		key   string
	}{
		{"legacy", map[string]any{"architecture": "nope"}, "architecture"},
		{"current", map[string]any{"hw_video_ram": "x"}, "hw_video_ram"},
		{"numa", map[string]any{"hw_numa_mem.0": "x"}, "hw_numa_mem.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseImage(tc.props)
			if err == nil || !containsWord(err.Error(), tc.key) {
				t.Fatalf("ParseImage(%v) error %v does not name %s", tc.props, err, tc.key)
			}
		})
	}
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w {
			return true
		}
	}
	return false
}
