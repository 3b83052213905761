package engine_test

import (
	"testing"

	"github.com/placer/placer/internal/kernels/pathtest"
)

// TestKernelPathForced checks that PLACER_KERNELS, when set, chose the
// kernels every other test of the package runs on, and puts the variable
// in go test's cache key (pathtest.CheckForced).
func TestKernelPathForced(t *testing.T) { pathtest.CheckForced(t) }
