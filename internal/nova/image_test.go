package nova

import (
	"testing"

	"github.com/placer/placer/internal/pyval"
)

// obj builds a *pyval.Dict from key, value pairs.
func obj(kv ...any) *pyval.Dict {
	o := &pyval.Dict{Values: map[string]any{}}
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// imageCases: the expected str() of each set field, or a refusal, came
// from running Nova 26's ImageMetaProps.from_dict on the same properties
// (traits_required is sorted here; Nova keeps the dict order).
var imageCases = []struct {
	name    string
	props   map[string]any
	want    map[string]string
	refused bool
}{
	{"empty", map[string]any{}, map[string]string{}, false},
	{"current names", map[string]any{"hw_architecture": "x86_64", "img_hv_type": "kvm", "hw_vm_mode": "hvm", "img_hv_requested_version": ">=6.0,<6.2", "os_distro": "ubuntu"}, map[string]string{"hw_architecture": "x86_64", "hw_vm_mode": "hvm", "img_hv_requested_version": ">=6.0,<6.2", "img_hv_type": "kvm", "os_distro": "ubuntu"}, false},
	{"legacy names", map[string]any{"architecture": "amd64", "hypervisor_type": "xapi", "vm_mode": "pv", "hypervisor_version_requires": ">=4.0"}, map[string]string{"hw_architecture": "x86_64", "hw_vm_mode": "xen", "img_hv_requested_version": ">=4.0", "img_hv_type": "xen"}, false},
	{"current wins over legacy", map[string]any{"architecture": "i386", "hw_architecture": "aarch64"}, map[string]string{"hw_architecture": "aarch64"}, false},
	{"arch aliases", map[string]any{"hw_architecture": "X86_32"}, map[string]string{"hw_architecture": "i686"}, false},
	{"vm mode hv", map[string]any{"hw_vm_mode": "HV"}, map[string]string{"hw_vm_mode": "hvm"}, false},
	{"vm mode baremetal", map[string]any{"hw_vm_mode": "baremetal"}, map[string]string{"hw_vm_mode": "hvm"}, false},
	{"hv type upper", map[string]any{"img_hv_type": "QEMU"}, map[string]string{"img_hv_type": "qemu"}, false},
	{"unknown dropped", map[string]any{"foo": "bar", "hw_foo": int64(1)}, map[string]string{}, false},
	{"bad arch", map[string]any{"hw_architecture": "sparc128"}, nil, true},
	{"bad legacy arch", map[string]any{"architecture": "nope", "hw_architecture": "x86_64"}, nil, true},
	{"bad hv type", map[string]any{"img_hv_type": "hyperkit"}, nil, true},
	{"bad vm mode", map[string]any{"hw_vm_mode": "pvh"}, nil, true},
	{"int field from string", map[string]any{"hw_video_ram": "64"}, map[string]string{"hw_video_ram": "64"}, false},
	{"int field from float", map[string]any{"hw_video_ram": 64.9}, map[string]string{"hw_video_ram": "64"}, false},
	{"int field refuses fraction text", map[string]any{"hw_video_ram": "64.0"}, nil, true},
	{"int field refuses list", map[string]any{"hw_video_ram": []any{int64(1)}}, nil, true},
	{"bool field", map[string]any{"hw_qemu_guest_agent": "yes", "hw_pointer_model": "usbtablet", "os_require_quiesce": "no", "img_use_agent": int64(1)}, map[string]string{"hw_pointer_model": "usbtablet", "hw_qemu_guest_agent": "True", "img_use_agent": "True", "os_require_quiesce": "False"}, false},
	{"bool field odd", map[string]any{"hw_qemu_guest_agent": "maybe"}, map[string]string{"hw_qemu_guest_agent": "False"}, false},
	{"string field from int", map[string]any{"os_distro": int64(7), "img_version": 1.5, "os_admin_user": true}, map[string]string{"img_version": "1", "os_admin_user": "True", "os_distro": "7"}, false},
	{"string field refuses list", map[string]any{"os_distro": []any{"a"}}, nil, true},
	{"string None", map[string]any{"os_distro": nil}, nil, true},
	{"enum ok", map[string]any{"hw_disk_bus": "virtio", "hw_cdrom_bus": "ide"}, map[string]string{"hw_cdrom_bus": "ide", "hw_disk_bus": "virtio"}, false},
	{"enum case", map[string]any{"hw_disk_bus": "VIRTIO"}, nil, true},
	{"enum int", map[string]any{"hw_disk_bus": int64(1)}, nil, true},
	{"vmware adapter ide", map[string]any{"vmware_adaptertype": "ide"}, map[string]string{"hw_disk_bus": "ide"}, false},
	{"vmware adapter lsi", map[string]any{"vmware_adaptertype": "lsiLogic"}, map[string]string{"hw_disk_bus": "scsi", "hw_scsi_model": "lsilogic"}, false},
	{"vmware adapter bad", map[string]any{"vmware_adaptertype": "weird"}, nil, true},
	{"vmware adapter overridden", map[string]any{"vmware_adaptertype": "lsiLogic", "hw_disk_bus": "virtio"}, map[string]string{"hw_disk_bus": "virtio", "hw_scsi_model": "lsilogic"}, false},
	{"version predicate bad", map[string]any{"img_hv_requested_version": "6.0"}, nil, true},
	{"version predicate empty", map[string]any{"img_hv_requested_version": ""}, nil, true},
	{"version predicate spaces", map[string]any{"img_hv_requested_version": " >= 6.0 , != 6.1b2 "}, map[string]string{"img_hv_requested_version": " >= 6.0 , != 6.1b2 "}, false},
	{"version predicate int", map[string]any{"img_hv_requested_version": int64(6)}, nil, true},
	{"numa", map[string]any{"hw_numa_nodes": "2", "hw_numa_mem.0": "1024", "hw_numa_mem.1": int64(2048), "hw_numa_cpus.0": "0-3,^2", "hw_numa_cpus.1": "4,5", "hw_numa_mem.3": "9"}, map[string]string{"hw_numa_nodes": "2", "hw_numa_cpus": "[CoercedSet({0, 1, 3}), CoercedSet({4, 5})]", "hw_numa_mem": "[1024, 2048]"}, false},
	{"numa bad cpus", map[string]any{"hw_numa_cpus.0": "3-1"}, nil, true},
	{"numa plain key ignored", map[string]any{"hw_numa_mem": "5"}, map[string]string{}, false},
	{"traits", map[string]any{"trait:HW_CPU_X86_AVX2": "required", "trait:B": "forbidden", "trait:A": "required"}, map[string]string{"traits_required": "['A', 'HW_CPU_X86_AVX2']"}, false},
	{"list of strings", map[string]any{"img_mappings": []any{obj("a", "b", "c", nil, "d", int64(1))}}, map[string]string{"img_mappings": "[{'a': 'b', 'c': None, 'd': '1'}]"}, false},
	{"uuid lenient", map[string]any{"img_signature_certificate_uuid": "not-a-uuid"}, map[string]string{"img_signature_certificate_uuid": "not-a-uuid"}, false},
	{"mixed arch legacy only", map[string]any{"architecture": "ARMv7"}, nil, true},
	{"kelvin", map[string]any{"img_hv_type": "\u212avm"}, map[string]string{"img_hv_type": "kvm"}, false},
}

func TestParseImage(t *testing.T) {
	for _, tc := range imageCases {
		t.Run(tc.name, func(t *testing.T) {
			img, err := ParseImage(tc.props)
			if tc.refused {
				if err == nil {
					t.Fatalf("ParseImage(%v) = %v, want an error", tc.props, img.Props)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseImage(%v): %v", tc.props, err)
			}
			if len(img.Props) != len(tc.want) {
				t.Fatalf("ParseImage(%v) set %v, want %v", tc.props, img.Props, tc.want)
			}
			for k, want := range tc.want {
				if got := pyval.Str(img.Props[k]); got != want {
					t.Fatalf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}
