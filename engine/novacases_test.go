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
	t.Parallel()
	// The cases of the drivers of older releases (issue 20: Case.Feature)
	// run too: the engine implements them.
	for _, tc := range []struct {
		name string
		r    engine.Ranking
	}{{"ranker", engine.Ranking{}}, {"baseline", engine.Ranking{Baseline: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			novacases.Run(t, func(ctx context.Context, c engine.Cloud, r engine.Request) (engine.Plan, error) {
				s, err := engine.NewSnapshot(c)
				if err != nil {
					return engine.Plan{}, err
				}
				return engine.PlaceBatchWith(ctx, s, r, tc.r)
			})
		})
	}
}
