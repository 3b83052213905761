package nova

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestCapabilitySpecsWalkAsCheck holds the spec-by-spec walk the engine
// makes (CapabilitySpecs in order, Check on each, stopping at the first
// that fails or raises) to CapabilitiesCheck, on random specs and hosts,
// and Reads to what Check reads: a skipped spec passes every host.
func TestCapabilitySpecsWalkAsCheck(t *testing.T) {
	keys := []string{
		"capabilities:hypervisor_type", "hypervisor_type", "capabilities:cpu_info:vendor",
		"capabilities:cpu_info:features", "capabilities:cpu_info", "capabilities:hypervisor_version",
		"capabilities:num_instances", "num_instances", "capabilities:free_ram_mb", "free_disk_mb",
		"capabilities:stats:gpu", "capabilities:opt1", "opt1", "nosuch", "capabilities:nosuch",
		"capabilities:free_ram_mb:x", "trust:trusted_host", "capabilities:update", "capabilities:instances",
	}
	values := []string{
		"QEMU", "s== Intel", "<in> aes", "<all-in> aes avx", ">= 4", "<= 1024", "= 2", "<or> QEMU <or> kvm",
		"true", "1", "s!= Intel", ">=", "<in>", "== 6002000", "> 512",
	}
	r := rand.New(rand.NewPCG(18, 2))
	hosts := compileHosts(r, 24)
	walks, raised := 0, 0
	for range 3000 {
		specs := map[string]string{}
		for range 1 + r.IntN(4) {
			specs[keys[r.IntN(len(keys))]] = values[r.IntN(len(values))]
		}
		walk := CapabilitySpecs(specs, nil)
		for i := 1; i < len(walk); i++ {
			if walk[i-1].Key >= walk[i].Key {
				t.Fatalf("specs out of order: %q before %q", walk[i-1].Key, walk[i].Key)
			}
		}
		for _, h := range hosts {
			got, gotErr := true, error(nil)
			for i := range walk {
				ok, err := walk[i].Check(h)
				if _, _, skipped := walk[i].Reads(); skipped && (!ok || err != nil) {
					t.Fatalf("spec %q, skipped by the filter, gives %v, %v", walk[i].Key, ok, err)
				}
				if err != nil || !ok {
					got, gotErr = false, err
					break
				}
			}
			want, wantErr := CapabilitiesCheck(specs, nil, h)
			walks++
			if wantErr != nil {
				raised++
			}
			var gp, wp *ErrPython
			if got != want || (gotErr == nil) != (wantErr == nil) ||
				gotErr != nil && (!errors.As(gotErr, &gp) || !errors.As(wantErr, &wp) || gp.Error() != wp.Error()) {
				t.Fatalf("specs %v: walk %v, %v; CapabilitiesCheck %v, %v", specs, got, gotErr, want, wantErr)
			}
		}
	}
	t.Logf("%d walks, %d raised", walks, raised)
	if raised == 0 {
		t.Fatal("no walk raised: the test does not reach the exceptions")
	}
}
