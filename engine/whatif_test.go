package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestCapacityIsOneByOne holds engine.Capacity to its simple oracle: a
// Store of the cloud, and PlaceBatch of a request of one instance (the
// drained hosts in its ignore_hosts) committed again and again. The same placements (host, node,
// weight, candidates), the same stop (the NoValidHost's filter counts),
// on the differential test's scenarios with a few hosts drained.
func TestCapacityIsOneByOne(t *testing.T) {
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := range n {
		c := diffCaseOf(*diffSeed + uint64(i))
		if c.opts.Hosts > 1000 {
			continue // keep the oracle's rebuilds cheap
		}
		g := synth.New(c.opts)
		cloud, req := g.Cloud(), g.Request()
		req.InstanceGroup = nil
		if err := capacityAgrees(cloud, req, 40); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
}

// capacityAgrees compares Capacity with the oracle on cloud, draining
// every fifth host (by name).
func capacityAgrees(cloud engine.Cloud, req engine.Request, max int) error {
	ctx := context.Background()
	s, err := engine.NewSnapshot(cloud)
	if err != nil {
		return nil // an invalid cloud
	}
	var drain []string
	for i, h := range cloud.Hosts {
		if i%5 == 2 {
			drain = append(drain, h.Host)
		}
	}
	rep, err := engine.Capacity(ctx, s, req, engine.CapacityOptions{Max: max, Drain: drain})
	if cloud.Config.SchedulerDriver == engine.DriverChanceScheduler {
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != "config.scheduler_driver" {
			return fmt.Errorf("chance_scheduler: Capacity gave %v, want a ValidationError on config.scheduler_driver", err)
		}
		return nil
	}

	// The oracle.
	st, serr := engine.NewStore(cloud, engine.StoreOptions{})
	if serr != nil {
		return fmt.Errorf("store: %v", serr)
	}
	one := req
	one.NumInstances, one.InstanceUUIDs = 1, nil
	one.IgnoreHosts = append(slices.Clone(req.IgnoreHosts), drain...)
	var want []engine.Placement
	var stop *engine.NoValidHostError
	for len(want) < max {
		one.InstanceUUIDs = []string{fmt.Sprintf("capacity-%d", len(want))}
		plan, perr := engine.PlaceBatch(ctx, st.Snapshot(), one)
		if errors.As(perr, &stop) {
			break
		}
		if perr != nil {
			if err == nil || reflect.TypeOf(errors.Unwrap(err)) != reflect.TypeOf(errors.Unwrap(perr)) && reflect.TypeOf(err) != reflect.TypeOf(perr) {
				return fmt.Errorf("placement %d: oracle %v, Capacity %v", len(want), perr, err)
			}
			return nil
		}
		if _, cerr := st.Commit(plan); cerr != nil {
			return fmt.Errorf("commit %d: %v", len(want), cerr)
		}
		want = append(want, plan.Placements[0])
	}
	if err != nil {
		return fmt.Errorf("Capacity: %v; oracle placed %d", err, len(want))
	}
	if rep.Fit != len(want) || len(rep.Placements) != len(want) || rep.Full != (stop != nil) {
		return fmt.Errorf("Capacity fit %d (full %v), oracle %d (stop %v)", rep.Fit, rep.Full, len(want), stop)
	}
	for k, p := range rep.Placements {
		w := want[k]
		if p.Host != w.Host || p.Node != w.Node || p.Weight != w.Weight || p.Candidates != w.Candidates {
			return fmt.Errorf("placement %d: Capacity %s/%s %v of %d, oracle %s/%s %v of %d",
				k, p.Host, p.Node, p.Weight, p.Candidates, w.Host, w.Node, w.Weight, w.Candidates)
		}
	}
	if stop != nil && !slices.Equal(rep.Stop.Filters, stop.Filters) {
		return fmt.Errorf("stop: Capacity %v, oracle %v", rep.Stop.Filters, stop.Filters)
	}
	total := 0
	for _, h := range rep.PerHost {
		total += h.Count
	}
	if total != rep.Fit {
		return fmt.Errorf("per host counts sum to %d, fit %d", total, rep.Fit)
	}
	return nil
}

// TestCapacityBadInput: the fields Capacity refuses are named.
func TestCapacityBadInput(t *testing.T) {
	s, err := engine.NewSnapshot(smallCloud())
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{Flavor: engine.Flavor{MemoryMB: 512}}
	for _, tc := range []struct {
		opts  engine.CapacityOptions
		req   engine.Request
		field string
	}{
		{engine.CapacityOptions{Max: 0}, req, "max"},
		{engine.CapacityOptions{Max: 3, Drain: []string{"haa", "nope"}}, req, "drain[1]"},
		{engine.CapacityOptions{Max: 3}, engine.Request{Flavor: req.Flavor, InstanceGroup: &engine.InstanceGroup{Policy: engine.PolicyAffinity}}, "request.instance_group"},
		{engine.CapacityOptions{Max: 3}, engine.Request{Flavor: engine.Flavor{MemoryMB: -1}}, "request.flavor.memory_mb"},
	} {
		_, err := engine.Capacity(context.Background(), s, tc.req, tc.opts)
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("%+v: %v, want a ValidationError on %s", tc.opts, err, tc.field)
		}
	}
}

// TestWithAggregates: the changes apply in order, to a copy; a ratio
// lowered in an aggregate lowers the capacity of its hosts.
func TestWithAggregates(t *testing.T) {
	c := smallCloud()
	c.Config.Filters = []string{engine.AggregateRamFilter}
	c.Aggregates = []engine.Aggregate{{Name: "rack12", Hosts: []string{c.Hosts[0].Host, c.Hosts[1].Host},
		Metadata: map[string]string{"ram_allocation_ratio": "2.0", "x": "y"}}}
	changed := c.WithAggregates([]engine.AggregateChange{
		{Name: "rack12", Set: map[string]string{"ram_allocation_ratio": "0.5"}, Delete: []string{"x"}},
		{Name: "new", Set: map[string]string{"k": "v"}},
	})
	if c.Aggregates[0].Metadata["ram_allocation_ratio"] != "2.0" || len(c.Aggregates) != 1 {
		t.Fatalf("the cloud changed: %+v", c.Aggregates)
	}
	want := []engine.Aggregate{
		{Name: "rack12", Hosts: c.Aggregates[0].Hosts, Metadata: map[string]string{"ram_allocation_ratio": "0.5"}},
		{Name: "new", Metadata: map[string]string{"k": "v"}},
	}
	if !reflect.DeepEqual(changed.Aggregates, want) {
		t.Fatalf("got %+v, want %+v", changed.Aggregates, want)
	}
	fit := func(c engine.Cloud) int {
		s, err := engine.NewSnapshot(c)
		if err != nil {
			t.Fatal(err)
		}
		// 8 GB instances: rack12's hosts (64 GB, 1-2 GB free) take 8 at a
		// ratio of 2.0 (65536 + free usable), none at 0.5.
		rep, err := engine.Capacity(context.Background(), s, engine.Request{Flavor: engine.Flavor{MemoryMB: 8192}},
			engine.CapacityOptions{Max: 100000})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Fit
	}
	if before, after := fit(c), fit(changed); after != before-16 {
		t.Errorf("lowering rack12's ram ratio: %d fit before, %d after", before, after)
	}
}

// TestStorePreview: Preview's snapshot is the one SetAggregateMetadata
// publishes (the same capacity on both, after commits), and the store it
// previews does not change.
func TestStorePreview(t *testing.T) {
	ctx := context.Background()
	c := smallCloud()
	c.Config.Filters = []string{engine.AggregateRamFilter, engine.CoreFilter}
	c.Aggregates = []engine.Aggregate{{Name: "rack12", Hosts: []string{c.Hosts[0].Host, c.Hosts[1].Host, c.Hosts[7].Host},
		Metadata: map[string]string{"ram_allocation_ratio": "2.0"}}}
	var stores [2]*engine.Store
	for k := range stores {
		st, err := engine.NewStore(c, engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			plan, err := engine.PlaceBatch(ctx, st.Snapshot(), engine.Request{NumInstances: 3,
				InstanceUUIDs: []string{fmt.Sprint("a", i), fmt.Sprint("b", i), fmt.Sprint("c", i)}, Flavor: engine.Flavor{MemoryMB: 4096, VCPUs: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Commit(plan); err != nil {
				t.Fatal(err)
			}
		}
		stores[k] = st
	}
	change := []engine.AggregateChange{{Name: "rack12", Set: map[string]string{"ram_allocation_ratio": "1.25"}}}
	before, version := stores[0].Snapshot(), stores[0].Version()
	preview, err := stores[0].Preview(change)
	if err != nil {
		t.Fatal(err)
	}
	if stores[0].Snapshot() != before || stores[0].Version() != version {
		t.Errorf("Preview changed the store")
	}
	if base, after, err := stores[0].PreviewFrom(change); err != nil || base != before || after == before {
		t.Errorf("PreviewFrom: base %p, after %p, %v; want the store's snapshot %p as the base", base, after, err, before)
	}
	if _, err := stores[1].SetAggregateMetadata("rack12", change[0].Set, nil); err != nil {
		t.Fatal(err)
	}
	req := engine.Request{Flavor: engine.Flavor{MemoryMB: 8192, VCPUs: 1}}
	capOf := func(s *engine.Snapshot) *engine.CapacityReport {
		rep, err := engine.Capacity(ctx, s, req, engine.CapacityOptions{Max: 10000})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	got, want, old := capOf(preview), capOf(stores[1].Snapshot()), capOf(before)
	if !reflect.DeepEqual(got.PerHost, want.PerHost) || got.Fit != want.Fit {
		t.Errorf("Preview: %d fit, %v; SetAggregateMetadata: %d, %v", got.Fit, got.PerHost, want.Fit, want.PerHost)
	}
	if got.Fit == old.Fit {
		t.Errorf("the change changed nothing (%d fit): the test tests nothing", got.Fit)
	}
	// A plan made on the preview is refused, also once the store's
	// version has passed the preview's (versions are process-wide, so
	// BaseVersion alone would not tell it).
	plan, err := engine.PlaceBatch(ctx, preview, engine.Request{InstanceUUIDs: []string{"p"}, Flavor: engine.Flavor{MemoryMB: 1024, VCPUs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for stores[0].Version() <= preview.Version() {
		if _, err := stores[0].UpdateHost(engine.HostNode{Host: c.Hosts[3].Host, Node: c.Hosts[3].Host}, stores[0].Snapshot().Usage(3)); err != nil {
			t.Fatal(err)
		}
	}
	var ve *engine.ValidationError
	if _, err := stores[0].Commit(plan); !errors.As(err, &ve) || ve.Field != "plan" {
		t.Errorf("a plan made on a preview: %v", err)
	}
}
