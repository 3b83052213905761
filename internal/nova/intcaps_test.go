package nova

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestIntCapabilitiesMatchCheck checks the column form of
// ComputeCapabilitiesFilter against CapabilitiesCheck: whenever
// IntCapabilities accepts the extra specs, every host passes them all
// exactly when CapabilitiesCheck says so (and it never raises).
func TestIntCapabilitiesMatchCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	keys := []string{"capabilities:free_ram_mb", "free_disk_mb", "capabilities:vcpus_used",
		"capabilities:num_instances", "num_io_ops", "capabilities:total_usable_ram_mb",
		"capabilities:disk_mb_used", "hw:cpu_policy", "capabilities:hypervisor_type",
		"capabilities:cpu_info:arch", "trait:CUSTOM", "failed_builds", "vcpus_total"}
	ops := []string{">=", "<=", "==", "!=", "=", "s==", "<in>", "", ">= ", "<or>"}
	args := []string{"1024", "0", "-5", "16384.5", "1e3", "nan", "inf", "x", "  7 ", "9007199254740993"}
	accepted := 0
	for rep := 0; rep < 4000; rep++ {
		specs := map[string]string{}
		for range 1 + rng.IntN(3) {
			op, arg := ops[rng.IntN(len(ops))], args[rng.IntN(len(args))]
			specs[keys[rng.IntN(len(keys))]] = op + " " + arg
		}
		caps, ok := IntCapabilities(specs)
		if !ok {
			continue
		}
		accepted++
		for range 20 {
			h := randomIntHost(rng)
			want, err := CapabilitiesCheck(specs, nil, h)
			if err != nil {
				t.Fatalf("%v: CapabilitiesCheck raised %v where IntCapabilities promised it cannot", specs, err)
			}
			got := true
			for _, c := range caps {
				v, _ := h.Attr(c.Attr)
				got = got && c.Pass(v.(int64))
			}
			if got != want {
				t.Fatalf("%v on %+v: IntCapabilities %v, CapabilitiesCheck %v", specs, h, got, want)
			}
		}
	}
	if accepted < 200 {
		t.Fatalf("only %d spec sets took the integer path", accepted)
	}
}

func randomIntHost(rng *rand.Rand) *HostAttrs {
	v := func() int64 {
		switch rng.IntN(6) {
		case 0:
			return int64(rng.IntN(3)) - 1
		case 1:
			return 1024 + int64(rng.IntN(3)) - 1
		case 2:
			return 16384
		case 3:
			return math.MaxInt64 - int64(rng.IntN(2))
		case 4:
			return 9007199254740993 + int64(rng.IntN(3)) - 1
		}
		return int64(rng.IntN(1 << 20))
	}
	hv := "QEMU"
	return &HostAttrs{
		Host: fmt.Sprint("h", rng.IntN(9)), FreeRAMMB: v(), FreeDiskMB: v(), TotalUsableRAMMB: v(),
		TotalUsableDiskGB: v(), DiskMBUsed: v(), VCPUsTotal: v(), VCPUsUsed: v(),
		NumInstances: v(), NumIOOps: v(), FailedBuilds: v(), HypervisorType: &hv,
		Stats: map[string]string{"num_instances": "3"},
	}
}

// TestInt32RangeMatchesTest checks Int32Range against Test on every int32
// value near the operand and at the ends of int32, for operands that are
// integers, fractions, past int32, infinite and NaN, under every operator.
func TestInt32RangeMatchesTest(t *testing.T) {
	args := []float64{0, 7, -7, 7.5, -7.5, 0.25, -0.25, 1e3, 16384, 16384.5,
		math.MaxInt32, math.MaxInt32 + 0.5, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 0.5,
		math.MinInt32 - 1, 1 << 40, -(1 << 40), 9007199254740993, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Copysign(0, -1)}
	checked := 0
	for _, op := range []string{"=", ">=", "<=", "==", "!="} {
		for _, arg := range args {
			c := IntCapability{Attr: "free_ram_mb", Op: op, Arg: arg}
			test := c.Test()
			lo, hi, invert := c.Int32Range()
			var vs []int64
			for _, base := range []float64{0, math.MaxInt32, math.MinInt32, math.Max(math.MinInt32, math.Min(math.MaxInt32, arg))} {
				if base != base {
					continue
				}
				for d := int64(-3); d <= 3; d++ {
					vs = append(vs, int64(base)+d)
				}
			}
			for _, v := range vs {
				if v < math.MinInt32 || v > math.MaxInt32 {
					continue
				}
				x := int32(v)
				got := (lo <= x && x <= hi) != invert
				if want := test(float64(x)); got != want {
					t.Fatalf("%s %v: Int32Range [%d, %d] invert=%v says %d passes: %v, Test: %v", op, arg, lo, hi, invert, x, got, want)
				}
				checked++
			}
		}
	}
	if checked < 2000 {
		t.Fatalf("only %d values checked", checked)
	}
}
