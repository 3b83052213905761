package reference_test

import (
	"testing"

	"github.com/placer/placer/internal/novacases"
	"github.com/placer/placer/internal/reference"
)

// TestNovaCases runs Nova's unit-test cases against the reference.
func TestNovaCases(t *testing.T) {
	novacases.Run(t, reference.PlaceBatch)
}
