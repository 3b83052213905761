//go:build amd64 && !purego

package kernels

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAssemblyText checks what the tests cannot run on this machine: that
// the AVX2 kernels use nothing of AVX-512 (registers X16-31, Y16-31,
// ZMM or opmask registers, or EVEX-only instructions), so that they run
// on AVX2-only CPUs; and that no kernel uses a fused multiply-add but the
// quotient kernels (accScalarQ, accMultQ, accCodedQ and accCodedQSmall,
// and their Set variants: quotient.go), whose
// two FMAs give the division's result exactly.
func TestAssemblyText(t *testing.T) {
	text, err := os.ReadFile("kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	fused := regexp.MustCompile(`\bVF(N?)M(ADD|SUB)`)
	avx512Reg := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	avx512Op := regexp.MustCompile(`^\s*(VRANGE|VPERMI2|VPERMT2|VCVTQQ2|VPTESTN?M|VPCMP[DQ]\b|VPCMPU|VPMAXSQ|VPMINSQ|VMOVDQ[UA](32|64)|VEXTRACT[FI](32|64)X|VPXOR[DQ]|VPOR[DQ]|VPAND[DQ]|VPANDN[DQ]|K[A-Z]+\b)`)
	fn, avx2Lines, funcs := "", 0, 0
	for i, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "TEXT ") {
			fn = line
			funcs++
		}
		if fused.MatchString(line) && !regexp.MustCompile(`^TEXT ·acc(Scalar|Mult|Coded)Q(Small)?(Set)?(AVX2|AVX512)\(SB\)`).MatchString(fn) {
			t.Errorf("line %d: fused multiply-add: %s", i+1, line)
		}
		if !strings.Contains(fn, "AVX2(SB)") {
			continue
		}
		avx2Lines++
		if avx512Reg.MatchString(line) || avx512Op.MatchString(line) {
			t.Errorf("line %d, in %s: AVX-512 in an AVX2 kernel: %s", i+1, fn, line)
		}
	}
	if funcs == 0 || avx2Lines == 0 {
		t.Fatalf("no kernels found (%d functions, %d AVX2 lines)", funcs, avx2Lines)
	}
}
