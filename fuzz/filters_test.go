package fuzz

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/reference"
)

// FuzzFilters checks every filter of the catalogue alone, and the scene's
// own filter chain, on a generated cloud and request: engine.FilterHosts
// and reference.FilterHosts pass the same hosts, count the same, and fail
// alike.
func FuzzFilters(f *testing.F) {
	addSceneSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := sceneOf(data)
		chains := make([][]string, 0, len(engine.FilterCatalogue)+1)
		for _, name := range engine.FilterCatalogue {
			chains = append(chains, []string{name})
		}
		chains = append(chains, s.Cloud.Config.Filters)
		for _, chain := range chains {
			if d := diffFilters(withFilters(s.Cloud, chain...), s.Req); d != "" {
				t.Fatalf("filters %v: %s\nscenario:\n%s", chain, d, describe(s))
			}
		}
	})
}

// diffFilters is the first difference between the engine's and the
// reference's filter pass, "" when they agree.
func diffFilters(cloud engine.Cloud, req engine.Request) string {
	ctx := context.Background()
	refIDs, refCounts, refErr := reference.FilterHosts(ctx, cloud, req)
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		return sameError(err, refErr)
	}
	set, counts, err := engine.FilterHosts(ctx, snap, req)
	if d := sameError(err, refErr); d != "" || err != nil {
		return d
	}
	var ids []int
	set.ForEach(func(i uint32) { ids = append(ids, int(i)) })
	if !slices.Equal(ids, refIDs) {
		return fmt.Sprintf("pass set: engine %v, reference %v", ids, refIDs)
	}
	if e, r := plandiff.FormatFilters(counts), plandiff.FormatFilters(refCounts); e != r {
		return fmt.Sprintf("counts: engine %s, reference %s", e, r)
	}
	// FilterHostsInto, on scratch sets, must agree with FilterHosts.
	into := bitmap.NewSet(snap.Len())
	into.Fill()
	intoCounts, err := engine.FilterHostsInto(ctx, snap, req, into)
	if err != nil || !slices.Equal(into.Words(), set.Words()) || plandiff.FormatFilters(intoCounts) != plandiff.FormatFilters(counts) {
		return fmt.Sprintf("FilterHostsInto: %v, counts %s, differs from FilterHosts", err, plandiff.FormatFilters(intoCounts))
	}
	return ""
}
