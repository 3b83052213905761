package engine_test

import (
	"context"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
	"github.com/placer/placer/internal/synth"
)

// TestKeepsAll checks each filter's keepsAll (runChain records such a
// filter without running it) against the reference: whenever it says the
// filter keeps every host, the reference's filter alone passes every host
// in play (what no filter at all passes).
// Both answers must come up for every such filter, so that the check has
// cases to bite on.
func TestKeepsAll(t *testing.T) {
	ctx := context.Background()
	seen := map[string][2]int{} // name -> cases where keepsAll was false, true
	for seed := uint64(1); seed <= 600; seed++ {
		profile := []string{synth.Edge, synth.Rich, synth.Basic}[seed%3]
		cloud, req := synth.Scenario(synth.Options{Seed: seed, Profile: profile, Hosts: 40})
		s, err := engine.NewSnapshot(cloud)
		if err != nil {
			continue // an invalid cloud: nothing to filter
		}
		keeps, err := engine.KeepsAll(s, req)
		if err != nil {
			continue // an invalid request
		}
		for name, k := range keeps {
			c := seen[name]
			if !k {
				c[0]++
				seen[name] = c
				continue
			}
			c[1]++
			seen[name] = c
			none, alone := cloud, cloud
			none.Config.Filters, alone.Config.Filters = []string{}, []string{name}
			all, _, err0 := reference.FilterHosts(ctx, none, req)
			ids, _, err := reference.FilterHosts(ctx, alone, req)
			if err0 != nil || err != nil || len(ids) != len(all) {
				t.Errorf("seed %d (%s), %s: keepsAll, but the reference passes %d of the %d hosts in play (%v, %v)",
					seed, profile, name, len(ids), len(all), err0, err)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no filter with keepsAll was checked")
	}
	for name, c := range seen {
		if c[0] == 0 || c[1] == 0 {
			t.Errorf("%s: keepsAll was %v in all %d cases: the scenarios do not exercise it", name, c[1] > 0, c[0]+c[1])
		}
	}
}
