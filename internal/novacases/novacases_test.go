package novacases_test

import (
	"slices"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/novacases"
)

// TestCasesAreNotVacuous makes sure every case asserts something: an
// empty outcome must fail it.
func TestCasesAreNotVacuous(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range novacases.Cases() {
		if seen[c.Name] {
			t.Errorf("duplicate case name %s", c.Name)
		}
		seen[c.Name] = true
		if c.Want.Hosts == nil && c.Want.Err == nil {
			t.Errorf("%s: wants neither hosts nor an error", c.Name)
		}
		if len(novacases.Check(c, engine.Plan{}, nil, false)) == 0 {
			t.Errorf("%s: an empty plan passes", c.Name)
		}
	}
}

// TestEveryFilterAndWeigherIsCovered checks that each filter and weigher
// of the catalogue is enabled in some case.
func TestEveryFilterAndWeigherIsCovered(t *testing.T) {
	used := map[string]bool{}
	for _, c := range novacases.Cases() {
		for _, f := range c.Cloud.Config.Filters {
			used[f] = true
		}
		for _, w := range c.Cloud.Config.Weighers {
			used[w] = true
		}
	}
	for _, name := range append(append([]string{}, engine.KnownFilters...), engine.WeigherCatalogue...) {
		if !used[name] {
			t.Errorf("no case enables %s", name)
		}
	}
}

// TestEveryFeatureIsCovered checks that the older drivers each have cases,
// and that a case marked with a feature does use it (so that the oracle
// and the engine skip only what they must).
func TestEveryFeatureIsCovered(t *testing.T) {
	count := map[string]int{}
	for _, c := range novacases.Cases() {
		cfg := &c.Cloud.Config
		uses := map[string]bool{
			novacases.FeatureChance: cfg.SchedulerDriver == engine.DriverChanceScheduler,
			novacases.FeatureIronic: cfg.HostManager == engine.HostManagerIronic,
		}
		for _, f := range cfg.LoadFilters() {
			if slices.Contains(engine.BaremetalFilters, f) {
				uses[novacases.FeatureExactFilters] = true
			}
		}
		if c.Feature != "" {
			count[c.Feature]++
			if !uses[c.Feature] {
				t.Errorf("%s: marked %s but does not use it", c.Name, c.Feature)
			}
		}
		for f, used := range uses {
			// A case needing several features is marked with the one the
			// engine lacks first (checkImplemented's order).
			if used && c.Feature == "" {
				t.Errorf("%s: uses %s but is not marked", c.Name, f)
			}
		}
	}
	for _, f := range []string{novacases.FeatureChance, novacases.FeatureIronic, novacases.FeatureExactFilters} {
		if count[f] == 0 {
			t.Errorf("no case for %s", f)
		}
	}
	t.Logf("cases per feature: %v", count)
}
