package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestDerivedSnapshotsMatchBuilt changes Stores of every profile (and one
// with ironic nodes) the ways that rebuild their snapshot (hosts added,
// with and without uuids, stats or signatures no host had, a second node
// of a host; hosts removed, the first, an added one, that second node,
// and then every host; aggregates changed and created, once while
// commits and a deletion go on; rebuilds after an external cloud replaced
// the hosts, and after one reset them), with commits in between (so that
// some hosts' instance lists change and others' do not), and compares
// each derived snapshot's static host data with a whole build's
// (engine/derive.go): equal, field by field; and a preview of aggregate
// changes with a build of the changed cloud. Shards are built and usage
// carried over as before the derivation.
func TestDerivedSnapshotsMatchBuilt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for pi, cs := range derivedCases() {
		profile := cs.name
		gen := synth.New(synth.Options{Hosts: 300, Seed: 11, Profile: cs.profile, IronicNodes: cs.ironic})
		c := gen.Cloud()
		st, err := engine.NewStore(c, engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		reqs := gen.Requests(60)
		var held []string // uuids committed
		commit := func(step int) {
			for i := range 5 {
				req := ownUUIDs(reqs[(5*step+i)%len(reqs)], 5*step+i, pi)
				if plan, err := engine.PlaceBatch(ctx, st.Snapshot(), req); err == nil {
					if _, err := st.Commit(plan); err != nil && !errors.Is(err, engine.ErrConflict) {
						t.Fatalf("%s: commit: %v", profile, err)
					} else if err == nil {
						held = append(held, req.InstanceUUIDs...)
					}
				}
			}
		}
		node := func(h *engine.Host) engine.HostNode {
			if h.Node == "" {
				return engine.HostNode{Host: h.Host, Node: h.Host}
			}
			return engine.HostNode{Host: h.Host, Node: h.Node}
		}
		version := int64(99999999)
		added := func(k int) engine.Host {
			h := c.Hosts[k%len(c.Hosts)]
			h.Host, h.Node = fmt.Sprintf("added-%d", k), ""
			switch k % 3 {
			case 0:
				h.UUID = ""
			case 1:
				h.UUID = fmt.Sprintf("00000000-1111-4000-8000-%012d", k)
				h.Stats = map[string]string{"added": fmt.Sprint(k)} // stats no host had
			case 2:
				h.HypervisorVersion = &version // a signature no host had
				h.Metrics = nil
			}
			return h
		}
		// keeps runs a change after which the shards resolve the same
		// values: the rebuild must keep every shard and the lineage.
		keeps := func(change func() error) error {
			before := st.Snapshot()
			if err := change(); err != nil {
				return err
			}
			if !engine.KeptShards(before, st.Snapshot()) {
				return fmt.Errorf("the rebuild did not keep the shards")
			}
			return nil
		}
		aggName := "derive-test"
		if len(c.Aggregates) > 0 {
			aggName = c.Aggregates[0].Name
		}
		changes := []struct {
			name string
			do   func() error
		}{
			{"add three", func() error { _, err := st.AddHosts(added(0), added(1), added(2)); return err }},
			{"remove the first and an added one", func() error {
				_, err := st.RemoveHosts(node(&c.Hosts[0]), engine.HostNode{Host: "added-1", Node: "added-1"})
				return err
			}},
			{"change an aggregate", func() error {
				_, err := st.SetAggregateMetadata(aggName, map[string]string{"cpu_allocation_ratio": "3.5", "availability_zone": "derived"}, nil)
				return err
			}},
			{"change a multiplier and a limit", func() error {
				_, err := st.SetAggregateMetadata(aggName, map[string]string{"ram_weight_multiplier": "-3", "max_io_ops_per_host": "5"}, nil)
				return err
			}},
			{"create an aggregate", func() error {
				return keeps(func() error {
					_, err := st.SetAggregateMetadata("derive-new", map[string]string{"max_instances_per_host": "7"}, nil)
					return err
				})
			}},
			{"rename a zone", func() error {
				return keeps(func() error {
					_, err := st.SetAggregateMetadata(aggName, map[string]string{"availability_zone": "renamed"}, nil)
					return err
				})
			}},
			{"remove the last", func() error { _, err := st.RemoveHosts(node(&c.Hosts[len(c.Hosts)-1])); return err }},
			{"add a second node of a host", func() error {
				h := c.Hosts[5]
				h.Node, h.UUID = "second-node", ""
				h.Instances = []string{"00000000-2222-4000-8000-000000000005"}
				_, err := st.AddHosts(h)
				return err
			}},
			{"remove that second node", func() error {
				_, err := st.RemoveHosts(engine.HostNode{Host: c.Hosts[5].Host, Node: "second-node"})
				return err
			}},
			{"add one", func() error { _, err := st.AddHosts(added(3)); return err }},
			{"preview aggregate changes", func() error {
				return engine.PreviewMatchesBuilt(st, []engine.AggregateChange{
					{Name: aggName, Set: map[string]string{"ram_weight_multiplier": "-2"}},
					{Name: "derive-preview", Set: map[string]string{"availability_zone": "p"}},
				})
			}},
			{"preview a zone", func() error {
				return engine.PreviewMatchesBuilt(st, []engine.AggregateChange{{Name: aggName, Set: map[string]string{"availability_zone": "previewed"}}})
			}},
			{"apply an external cloud", func() error {
				ext := c // the hosts after the tenth, in reverse
				ext.Hosts = slices.Clone(c.Hosts[10:])
				slices.Reverse(ext.Hosts)
				_, err := st.ApplyExternal(engine.ExternalChange{Cloud: &ext})
				return err
			}},
			{"add after it", func() error { _, err := st.AddHosts(added(4), added(5)); return err }},
			{"remove after it", func() error { _, err := st.RemoveHosts(node(&c.Hosts[20])); return err }},
			{"change an aggregate while commits and a deletion go on", func() error {
				engine.WhileRebuilding(st, func() {
					commit(100)
					for _, u := range held {
						if _, err := st.DeleteInstance(u); err == nil {
							break
						}
					}
				})
				defer engine.WhileRebuilding(st, nil)
				_, err := st.SetAggregateMetadata(aggName, map[string]string{"cpu_allocation_ratio": "2.5"}, nil)
				return err
			}},
			{"change an aggregate after it", func() error {
				_, err := st.SetAggregateMetadata(aggName, nil, []string{"cpu_allocation_ratio"})
				return err
			}},
			{"reset to an external cloud", func() error {
				ext := c
				ext.Hosts = slices.Clone(c.Hosts[:250])
				_, err := st.ApplyExternal(engine.ExternalChange{Cloud: &ext, Reset: true})
				return err
			}},
			{"add after the reset", func() error { _, err := st.AddHosts(added(7)); return err }},
			{"delete and place from outside, then rebuild", func() error {
				snap := st.Snapshot()
				var del []string
				for i, u := range held { // a third deleted from outside, a third here
					switch i % 3 {
					case 0:
						del = append(del, u)
					case 1:
						_, _ = st.DeleteInstance(u) // fails when forgotten already (its host removed, a reset)
					}
				}
				ext := engine.ExternalChange{Deleted: del}
				for i := range 4 {
					ext.Placed = append(ext.Placed, engine.Instance{
						UUID: fmt.Sprintf("00000000-3333-4000-8000-%04x%08x", pi, i),
						Host: snap.HostNode(uint32(i % 2)),
					})
				}
				if _, err := st.ApplyExternal(ext); err != nil {
					return err
				}
				if err := engine.CommittedMatchesLedger(st); err != nil {
					return err
				}
				_, err := st.SetAggregateMetadata(aggName, map[string]string{"cpu_allocation_ratio": "4"}, nil)
				return err
			}},
			{"reset without a cloud, then rebuild", func() error {
				if _, err := st.ApplyExternal(engine.ExternalChange{Reset: true}); err != nil {
					return err
				}
				if err := engine.CommittedMatchesLedger(st); err != nil {
					return err
				}
				_, err := st.SetAggregateMetadata(aggName, nil, []string{"cpu_allocation_ratio"})
				return err
			}},
			{"remove every host", func() error {
				snap := st.Snapshot()
				all := make([]engine.HostNode, snap.Len())
				for id := range all {
					all[id] = snap.HostNode(uint32(id))
				}
				_, err := st.RemoveHosts(all...)
				return err
			}},
			{"add to none", func() error { _, err := st.AddHosts(added(6)); return err }},
		}
		// After these the instance lists lag behind the ledger (no rebuild,
		// or commits while one built) until the next rebuild.
		lags := map[string]bool{"preview aggregate changes": true, "preview a zone": true, "change an aggregate while commits and a deletion go on": true}
		for step, ch := range changes {
			commit(step)
			if err := ch.do(); err != nil {
				t.Fatalf("%s: %s: %v", profile, ch.name, err)
			}
			if err := engine.CommittedMatchesLedger(st); err != nil {
				t.Fatalf("%s: after %s: %v", profile, ch.name, err)
			}
			if lags[ch.name] {
				continue
			}
			if err := engine.DerivedMatchesBuilt(st); err != nil {
				t.Fatalf("%s: after %s: %v", profile, ch.name, err)
			}
		}
	}
}

// derivedCase is one of TestDerivedSnapshotsMatchBuilt's clouds.
type derivedCase struct {
	name, profile string
	ironic        float64 // synth.Options.IronicNodes
}

// derivedCases are every profile, and the basic one with ironic nodes.
func derivedCases() []derivedCase {
	var cases []derivedCase
	for _, p := range synth.Profiles {
		cases = append(cases, derivedCase{p, p, 0})
	}
	return append(cases, derivedCase{"basic/ironic=0.4", synth.Basic, 0.4})
}

// TestDerivedBuildWithChangedAggregates derives snapshots whose hosts
// change (one removed, one joining) while aggregates change too, which no
// Store rebuild does today, and compares them with whole builds: a
// derived class whose aggregates changed must not keep its old metadata
// and limits (the classes of hosts added or removed alone keep them).
func TestDerivedBuildWithChangedAggregates(t *testing.T) {
	for _, profile := range synth.Profiles {
		c := synth.Cloud(synth.Options{Hosts: 200, Seed: 5, Profile: profile})
		var withHosts []int // the aggregates that have hosts
		for a := range c.Aggregates {
			if len(c.Aggregates[a].Hosts) > 0 {
				withHosts = append(withHosts, a)
			}
		}
		if len(withHosts) < 2 {
			t.Fatalf("%s: %d aggregates with hosts, want two or more", profile, len(withHosts))
		}
		a0, a1 := withHosts[0], withHosts[1]
		for _, tc := range []struct {
			name string
			aggs func(c engine.Cloud) engine.Cloud
		}{
			{"aggregates unchanged", func(c engine.Cloud) engine.Cloud { return c }},
			{"a ratio and a name changed", func(c engine.Cloud) engine.Cloud {
				c = c.WithAggregates([]engine.AggregateChange{{Name: c.Aggregates[a0].Name,
					Set: map[string]string{"cpu_allocation_ratio": "7.5", "ram_allocation_ratio": "x"}}})
				aggs := slices.Clone(c.Aggregates)
				aggs[a1].Name += "-renamed"
				c.Aggregates = aggs
				return c
			}},
		} {
			err := engine.DerivedBuildMatches(c, func(c engine.Cloud) (engine.Cloud, []int32) {
				var hosts []engine.Host
				var old []int32
				for i := range c.Hosts {
					if i != 3 {
						hosts, old = append(hosts, c.Hosts[i]), append(old, int32(i))
					}
				}
				h := c.Hosts[7]
				h.Host, h.Node, h.UUID = "joining", "", ""
				c.Hosts, old = append(hosts, h), append(old, -1)
				return tc.aggs(c), old
			})
			if err != nil {
				t.Errorf("%s, %s: %v", profile, tc.name, err)
			}
		}
	}
}
