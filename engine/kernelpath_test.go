package engine_test

import (
	"os"
	"testing"

	"github.com/placer/placer/internal/kernels"
)

// TestKernelPathForced checks that PLACER_KERNELS, when set, chose the
// kernels every other test of the package runs on. It also reads the
// variable through os.LookupEnv inside a test, which puts it in go test's
// cache key: the kernels read it at package initialisation, before go
// test records the environment, so without this test a run with
// PLACER_KERNELS=avx2 could be answered from the cache of a run without.
func TestKernelPathForced(t *testing.T) {
	want, set := os.LookupEnv(kernels.EnvVar)
	if !set {
		t.Logf("%s not set: the kernels' own choice for this CPU, %s", kernels.EnvVar, kernels.Path())
		return
	}
	if got := kernels.Path(); got != want {
		t.Fatalf("%s=%s, but the engine's tests run on the %s kernels", kernels.EnvVar, want, got)
	}
}
