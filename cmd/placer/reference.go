package main

import (
	"context"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
	"github.com/placer/placer/internal/scenario"
)

func init() { impls["reference"] = prepareReference }

// prepareReference places with internal/reference, the per-host loop
// written the way Nova writes it; it builds its host states inside
// PlaceBatch, so that is timed too.
func prepareReference(s *scenario.Scenario) (func(ctx context.Context) (engine.Plan, error), error) {
	return func(ctx context.Context) (engine.Plan, error) {
		return reference.PlaceBatch(ctx, s.Cloud, s.Request)
	}, nil
}
