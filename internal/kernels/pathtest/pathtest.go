// Package pathtest holds the check a package's tests make that they run
// on the kernel path PLACER_KERNELS asked for (internal/kernels).
package pathtest

import (
	"os"
	"testing"

	"github.com/placer/placer/internal/kernels"
)

// CheckForced fails t unless the kernels run on the path PLACER_KERNELS
// names, when it is set. It reads the variable through os.LookupEnv
// inside the test, which puts it in go test's cache key: the kernels read
// it at package initialisation, before go test records the environment,
// so without this check a run on one path could be answered from the
// cache of a run on another. Call it from one test of every package whose
// tests CI runs on a forced path.
func CheckForced(t testing.TB) {
	t.Helper()
	want, set := os.LookupEnv(kernels.EnvVar)
	if !set || want == "" { // empty: the kernels' own choice, as unset
		t.Logf("%s not set: the kernels' own choice for this CPU, %s", kernels.EnvVar, kernels.Path())
		return
	}
	if got := kernels.Path(); got != want {
		t.Fatalf("%s=%s, but the tests run on the %s kernels", kernels.EnvVar, want, got)
	}
}
