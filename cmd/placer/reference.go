package main

import (
	"context"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
	"github.com/placer/placer/internal/scenario"
)

func init() { impls["reference"] = placeReference }

// placeReference places with internal/reference, the per-host loop written
// the way Nova writes it; it builds its host states inside PlaceBatch, so
// that is timed too.
func placeReference(ctx context.Context, s *scenario.Scenario) (engine.Plan, time.Duration, error) {
	start := time.Now()
	plan, err := reference.PlaceBatch(ctx, s.Cloud, s.Request)
	return plan, time.Since(start), err
}
