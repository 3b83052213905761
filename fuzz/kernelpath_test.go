package fuzz

import (
	"os"
	"testing"

	"github.com/placer/placer/internal/kernels"
)

// TestKernelPathForced checks that PLACER_KERNELS, when set, chose the
// kernels the package's other tests run on (CI runs them on the AVX2 and
// archsimd kernels by it). Reading the variable inside a test puts it in
// go test's cache key: the kernels read it at package initialisation,
// before go test records the environment, so without this test a run on
// one path could be answered from the cache of a run on another.
func TestKernelPathForced(t *testing.T) {
	want, set := os.LookupEnv(kernels.EnvVar)
	if !set {
		t.Logf("%s not set: the kernels' own choice for this CPU, %s", kernels.EnvVar, kernels.Path())
		return
	}
	if got := kernels.Path(); got != want {
		t.Fatalf("%s=%s, but the fuzz tests run on the %s kernels", kernels.EnvVar, want, got)
	}
}
