package novacases_test

import (
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
	for _, name := range append(append([]string{}, engine.FilterCatalogue...), engine.WeigherCatalogue...) {
		if !used[name] {
			t.Errorf("no case enables %s", name)
		}
	}
}
