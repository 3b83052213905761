package fuzz

import (
	"testing"

	"github.com/placer/placer/internal/kernels/pathtest"
)

// TestKernelPathForced checks that PLACER_KERNELS, when set, chose the
// kernels the package's other tests run on (CI runs them on the AVX2 and
// archsimd kernels by it), and puts the variable in go test's cache key
// (pathtest.CheckForced).
func TestKernelPathForced(t *testing.T) { pathtest.CheckForced(t) }
