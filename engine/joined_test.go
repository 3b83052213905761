package engine_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/placer/placer/engine"
)

// TestReaddedHostIsAnotherHost: a node removed and added again under its
// name, here with its service disabled, is another host for the plans
// made before: their placements on it are refused (HostRemoved, and the
// Scheduler places again) rather than re-checked on resources alone,
// which accepted an instance on a disabled host. So is a node whose
// record an external rebuild changed (the records compared, or named by
// ExternalChange.ChangedHosts), but not one it left as it was; a plan
// made after the change commits.
func TestReaddedHostIsAnotherHost(t *testing.T) {
	ctx := context.Background()
	one := func() engine.Cloud {
		c := engine.Cloud{Config: engine.DefaultConfig()}
		c.Hosts = []engine.Host{{Host: "c1", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}}
		return c
	}
	req := func(uuid string) engine.Request {
		return engine.Request{InstanceUUIDs: []string{uuid}, Flavor: engine.Flavor{MemoryMB: 512, VCPUs: 1, RootGB: 1}}
	}
	disabled := one().Hosts[0]
	disabled.Service.Disabled = true
	for _, tc := range []struct {
		name    string
		change  func(st *engine.Store) error
		refused bool
	}{
		{"removed and added again", func(st *engine.Store) error {
			if _, err := st.RemoveHosts(engine.HostNode{Host: "c1", Node: "c1"}); err != nil {
				return err
			}
			_, err := st.AddHosts(disabled)
			return err
		}, true},
		{"changed by an external rebuild, records compared", func(st *engine.Store) error {
			c := one()
			c.Hosts[0] = disabled
			_, err := st.ApplyExternal(engine.ExternalChange{Cloud: &c})
			return err
		}, true},
		{"changed by an external rebuild, named", func(st *engine.Store) error {
			c := one()
			c.Hosts[0] = disabled
			_, err := st.ApplyExternal(engine.ExternalChange{Cloud: &c, ChangedHosts: []engine.HostNode{{Host: "c1", Node: "c1"}}})
			return err
		}, true},
		{"an external rebuild that changes its usage alone", func(st *engine.Store) error {
			c := one()
			h := &c.Hosts[0]
			h.FreeRAMMB, h.VCPUsUsed, h.NumInstances, h.Instances = 4096, 1, 1, []string{"vm-x"}
			h.Stats = map[string]string{"num_vm_active": "1"}
			_, err := st.ApplyExternal(engine.ExternalChange{Cloud: &c})
			return err
		}, false},
		{"an external rebuild that leaves it", func(st *engine.Store) error {
			c := one()
			c.Aggregates = []engine.Aggregate{{Name: "a", Hosts: []string{"c1"}, Metadata: map[string]string{"k": "v"}}}
			_, err := st.ApplyExternal(engine.ExternalChange{Cloud: &c})
			return err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := engine.NewStore(one(), engine.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := engine.PlaceBatch(ctx, st.Snapshot(), req("before"))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.change(st); err != nil {
				t.Fatal(err)
			}
			_, err = st.Commit(plan)
			var ce *engine.ConflictError
			switch {
			case tc.refused && (!errors.As(err, &ce) || !slices.Equal(ce.Reasons, []string{"HostRemoved"})):
				t.Fatalf("a plan made before: %v, want a HostRemoved conflict", err)
			case !tc.refused && err != nil:
				t.Fatalf("a plan made before: %v", err)
			}
			if !tc.refused {
				return
			}
			after := one()
			after.Config.Filters = []string{engine.RamFilter} // no ComputeFilter: the disabled host passes
			if _, err := st.ApplyExternal(engine.ExternalChange{Cloud: func() *engine.Cloud { after.Hosts[0] = disabled; return &after }()}); err != nil {
				t.Fatal(err)
			}
			plan, err = engine.PlaceBatch(ctx, st.Snapshot(), req("after"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Commit(plan); err != nil {
				t.Fatalf("a plan made after the change: %v", err)
			}
		})
	}
}

// TestPlanLiteralRechecked: a Plan not made by PlaceBatch (a literal,
// of no snapshot) has its hosts found by name and re-checked: its base
// version said the host was unchanged, and 1 TB of RAM was committed on
// an 8 GB host unchecked.
func TestPlanLiteralRechecked(t *testing.T) {
	c := engine.Cloud{Config: engine.DefaultConfig()}
	c.Config.Filters = []string{engine.RamFilter}
	c.Hosts = []engine.Host{{Host: "c1", MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 4, LocalGB: 100, FreeDiskGB: 100}}
	st, err := engine.NewStore(c, engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan := engine.Plan{BaseVersion: st.Version(), Claim: engine.Claim{MemoryMB: 1 << 20, VCPUs: 1},
		Placements: []engine.Placement{{InstanceUUID: "big", HostID: 0, Host: "c1", Node: "c1"}}}
	_, err = st.Commit(plan)
	var ce *engine.ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Reasons, []string{engine.RamFilter}) {
		t.Fatalf("a plan literal asking 1 TB of an 8 GB host: %v, want a RamFilter conflict", err)
	}
	plan.Claim.MemoryMB = 1024
	if _, err := st.Commit(plan); err != nil {
		t.Fatalf("a plan literal that fits: %v", err)
	}
}
