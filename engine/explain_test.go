package engine_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
	"github.com/placer/placer/internal/synth"
)

var explainN = flag.Int("explain.n", 400, "explain agreement test: number of scenarios (the differential test's seeds)")

// TestExplainAgrees holds Explain to PlaceBatch, FilterHosts, WeighHosts
// and the reference implementation on the differential test's generated
// scenarios: the same per-filter counts, the same candidates, weights bit
// for bit, the same chosen host; every host reported once, each rejected
// host charged to a filter whose count it is part of.
func TestExplainAgrees(t *testing.T) {
	n := *explainN
	if testing.Short() {
		n = min(n, 100)
	}
	errs := make([][]string, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := diffCaseOf(*diffSeed + uint64(i))
				g := synth.New(c.opts)
				errs[i] = explainAgreement(g.Cloud(), g.Request())
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	bad := 0
	for i, e := range errs {
		if len(e) > 0 {
			bad++
			if bad <= 10 {
				t.Errorf("%v: %v", diffCaseOf(*diffSeed+uint64(i)), capLines(e, 6))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d scenarios disagree", bad, n)
	}
}

// explainAgreement lists where Explain disagrees with the others on one
// scenario.
func explainAgreement(cloud engine.Cloud, req engine.Request) (diffs []string) {
	bad := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	ctx := context.Background()
	s, err := engine.NewSnapshot(cloud)
	if err != nil {
		return nil // an invalid cloud: nothing to explain
	}
	e, err := engine.Explain(ctx, s, req, engine.ExplainOptions{})
	plan, perr := engine.PlaceBatch(ctx, s, req)
	var first *engine.Placement
	var nvh *engine.NoValidHostError
	switch {
	case perr == nil:
		first = &plan.Placements[0]
	case errors.As(perr, &nvh) && nvh.InstanceIndex > 0:
		first = &nvh.Tentative[0]
	}
	if err != nil {
		if perr == nil || reflect.TypeOf(err) != reflect.TypeOf(perr) {
			bad("Explain: %v; PlaceBatch: %v", err, perr)
		}
		return diffs
	}
	if perr != nil && first == nil && nvh == nil {
		// PlaceBatch raised where Explain did not: only after instance 0.
		if idx, ok := instanceIndex(perr); !ok || idx == 0 {
			bad("PlaceBatch: %v at instance 0; Explain found no error", perr)
		}
		return diffs
	}
	// Filters: FilterHosts's and the reference's counts, and candidates.
	ids, counts, ferr := engine.FilterHosts(ctx, s, req)
	rids, rcounts, rerr := reference.FilterHosts(ctx, cloud, req)
	if ferr != nil || rerr != nil {
		bad("FilterHosts: %v; reference: %v", ferr, rerr)
		return diffs
	}
	if !slices.Equal(e.Filters, counts) || !slices.Equal(e.Filters, rcounts) {
		bad("filter counts: explain %v, FilterHosts %v, reference %v", e.Filters, counts, rcounts)
	}
	if e.Candidates != ids.Count() || e.Candidates != len(rids) {
		bad("candidates: explain %d, FilterHosts %d, reference %d", e.Candidates, ids.Count(), len(rids))
	}
	if nvh != nil && nvh.InstanceIndex == 0 {
		if e.Candidates != 0 || !slices.Equal(e.Filters, nvh.Filters) || e.Prefiltered != nvh.Prefiltered || e.InPlay != nvh.InPlay {
			bad("NoValidHost %v; explain %d candidates, %d prefiltered, %v", nvh, e.Candidates, e.Prefiltered, e.Filters)
		}
	}
	// Every host once, rejected by a filter that removed hosts.
	seen := make([]int, s.Len())
	perFilter := map[string]int{}
	for _, r := range e.Rejected {
		seen[r.ID]++
		perFilter[r.Filter]++
		if ids.Has(r.ID) {
			bad("host %d both rejected (%s) and passing", r.ID, r.Filter)
		}
		if r.Reason == "" {
			bad("host %d rejected by %s without a reason", r.ID, r.Filter)
		}
		checkResourceValues(r, bad)
	}
	for _, c := range e.Filters {
		if perFilter[c.Name] != c.Start-c.End {
			bad("%s removed %d hosts, explain charges it %d", c.Name, c.Start-c.End, perFilter[c.Name])
		}
	}
	for _, w := range e.Weighed {
		seen[w.ID]++
	}
	for id, k := range seen {
		if k != 1 {
			bad("host %d reported %d times", id, k)
		}
	}
	if e.Candidates == 0 {
		if first != nil {
			bad("explain found no candidate, PlaceBatch placed on %s", first.Host)
		}
		return diffs
	}
	// Weights: WeighHosts's and the reference's, bit for bit, and each the
	// sum of its terms.
	ws, werr := engine.WeighHosts(ctx, s, req, ids)
	rws, rwerr := reference.WeighHosts(ctx, cloud, req, rids)
	if werr != nil || rwerr != nil {
		bad("WeighHosts: %v; reference: %v", werr, rwerr)
		return diffs
	}
	if len(ws) != len(e.Weighed) || len(rws) != len(e.Weighed) {
		bad("weighed: explain %d, WeighHosts %d, reference %d", len(e.Weighed), len(ws), len(rws))
		return diffs
	}
	for k, w := range e.Weighed {
		if w.Rank != k+1 || w.ID != ws[k].ID || w.ID != rws[k].ID ||
			math.Float64bits(w.Weight) != math.Float64bits(ws[k].Weight) || math.Float64bits(w.Weight) != math.Float64bits(rws[k].Weight) {
			bad("rank %d: explain %d %v, WeighHosts %d %v, reference %d %v", k+1, w.ID, w.Weight, ws[k].ID, ws[k].Weight, rws[k].ID, rws[k].Weight)
			break
		}
		sum := 0.0
		for _, term := range w.Terms {
			if term.Normalized != 0 || term.Contribution != 0 {
				sum += term.Contribution
			}
		}
		if math.Float64bits(sum) != math.Float64bits(w.Weight) && !(sum == 0 && w.Weight == 0) {
			bad("host %d: terms sum to %v, weight %v", w.ID, sum, w.Weight)
		}
	}
	// The choice: PlaceBatch's first placement, and the reference's.
	if first == nil {
		bad("explain chose %s, PlaceBatch: %v", e.Chosen.Host, perr)
		return diffs
	}
	if e.Chosen.ID != first.HostID || math.Float64bits(e.Chosen.Weight) != math.Float64bits(first.Weight) ||
		e.Candidates != first.Candidates || !e.Chosen.InSubset {
		bad("chosen: explain %d (%v, %d candidates), PlaceBatch %d (%v, %d candidates)",
			e.Chosen.ID, e.Chosen.Weight, e.Candidates, first.HostID, first.Weight, first.Candidates)
	}
	rplan, rperr := reference.PlaceBatch(ctx, cloud, req)
	var rfirst *engine.Placement
	var rnvh *engine.NoValidHostError
	switch {
	case rperr == nil:
		rfirst = &rplan.Placements[0]
	case errors.As(rperr, &rnvh) && rnvh.InstanceIndex > 0:
		rfirst = &rnvh.Tentative[0]
	}
	if rfirst != nil && (rfirst.Host != e.Chosen.Host || rfirst.Node != e.Chosen.Node ||
		math.Float64bits(rfirst.Weight) != math.Float64bits(e.Chosen.Weight)) {
		bad("chosen: explain %s/%s %v, reference %s/%s %v", e.Chosen.Host, e.Chosen.Node, e.Chosen.Weight, rfirst.Host, rfirst.Node, rfirst.Weight)
	}
	return diffs
}

// instanceIndex is the instance a placement error happened at.
func instanceIndex(err error) (int, bool) {
	var ne *engine.NovaError
	var me *engine.MetricNotFoundError
	switch {
	case errors.As(err, &ne):
		return ne.InstanceIndex, true
	case errors.As(err, &me):
		return me.InstanceIndex, true
	}
	return 0, false
}

// checkResourceValues checks that a resource filter's rejection carries
// values that fail it.
func checkResourceValues(r engine.HostRejection, bad func(string, ...any)) {
	c := r.Check
	switch r.Filter {
	case engine.RamFilter, engine.AggregateRamFilter, engine.DiskFilter, engine.AggregateDiskFilter:
		if c == nil || !(c.Total < c.Requested || c.Usable < c.Requested) {
			bad("host %d: %s with %+v", r.ID, r.Filter, c)
		}
	case engine.CoreFilter, engine.AggregateCoreFilter:
		if c == nil || !(c.Limit > 0 && c.Requested > c.Total || c.Usable < c.Requested) {
			bad("host %d: %s with %+v", r.ID, r.Filter, c)
		}
	case engine.IoOpsFilter, engine.AggregateIoOpsFilter, engine.NumInstancesFilter, engine.AggregateNumInstancesFilter:
		if c == nil || c.Used < c.Limit {
			bad("host %d: %s with %+v", r.ID, r.Filter, c)
		}
	default:
		if c != nil {
			bad("host %d: %s with resource values", r.ID, r.Filter)
		}
	}
}
