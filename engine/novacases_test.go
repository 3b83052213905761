package engine_test

import (
	"context"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/novacases"
)

// TestNovaCases runs Nova's unit-test cases (NOVA-SEMANTICS.md §5 and one
// table per filter and weigher) against the engine, on both of its ranking
// paths.
func TestNovaCases(t *testing.T) {
	place := func(ctx context.Context, c engine.Cloud, r engine.Request) (engine.Plan, error) {
		s, err := engine.NewSnapshot(c)
		if err != nil {
			return engine.Plan{}, err
		}
		return engine.PlaceBatch(ctx, s, r)
	}
	t.Run("ranker", func(t *testing.T) { novacases.Run(t, place) })
	t.Run("baseline", func(t *testing.T) {
		engine.SetBaseline(true)
		defer engine.SetBaseline(false)
		novacases.Run(t, place)
	})
}
