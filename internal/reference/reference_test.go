package reference_test

import (
	"context"
	"errors"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"

	"github.com/placer/placer/internal/novacases"
	"github.com/placer/placer/internal/reference"
)

// TestNovaCases runs Nova's unit-test cases against the reference.
func TestNovaCases(t *testing.T) {
	novacases.Run(t, reference.PlaceBatch)
}

// TestDriversOnGeneratedClouds places synth's chance and ironic clouds:
// no bad input, every chance placement on an enabled, up node, and every
// ironic node chosen by the filter scheduler consumed whole (it is not
// chosen twice when ExactRamFilter runs).
func TestDriversOnGeneratedClouds(t *testing.T) {
	for _, p := range synth.Profiles {
		for seed := uint64(1); seed <= 8; seed++ {
			g := synth.New(synth.Options{Seed: seed, Profile: p, Hosts: 40, SchedulerDriver: engine.DriverChanceScheduler})
			cloud := g.Cloud()
			for _, req := range g.Requests(3) {
				plan, err := reference.PlaceBatch(context.Background(), cloud, req)
				if err != nil && !errors.Is(err, engine.ErrNoValidHost) {
					t.Fatalf("%s/%d chance: %v", p, seed, err)
				}
				for _, pl := range plan.Placements {
					if s := cloud.Hosts[pl.HostID].Service; s.Disabled || s.Down {
						t.Errorf("%s/%d chance: placed on %s, whose service is %+v", p, seed, pl.Host, s)
					}
				}
			}

			g = synth.New(synth.Options{Seed: seed, Profile: p, Hosts: 40, IronicNodes: 0.5})
			cloud = g.Cloud()
			cloud.Config.Filters = append(cloud.Config.Filters, engine.ExactRamFilter)
			for _, req := range g.Requests(3) {
				plan, err := reference.PlaceBatch(context.Background(), cloud, req)
				var ve *engine.ValidationError
				if errors.As(err, &ve) {
					t.Fatalf("%s/%d ironic: %v", p, seed, err)
				}
				seen := map[uint32]bool{}
				for _, pl := range plan.Placements {
					h := cloud.Hosts[pl.HostID]
					if h.HypervisorType != nil && *h.HypervisorType == engine.HVTypeIronic && seen[pl.HostID] {
						t.Errorf("%s/%d ironic: node %s/%s chosen twice", p, seed, pl.Host, pl.Node)
					}
					seen[pl.HostID] = true
				}
			}
		}
	}
}
