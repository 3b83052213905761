package bench

import (
	"fmt"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// BenchmarkStoreChange times a Store's changes of the host set on the
// 50,000-host basic cloud, each a new snapshot: a compute node added
// (change=add_host), one removed (change=remove_host), an aggregate's
// metadata changed, a key the shards resolve (change=aggregate: an
// allocation ratio) or one only filters read (change=aggregate_zone:
// availability_zone). The Store derives the new snapshot from its
// current one (engine/derive.go): the hosts it keeps are not parsed
// again, and with the same hosts their columns are shared, and the
// shards kept when no shard column changes. BenchmarkNewSnapshot, the
// whole build, is the baseline beside it. change=aggregate/committed=N
// is the aggregate change on a Store holding N committed instances.
func BenchmarkStoreChange(b *testing.B) {
	const hosts = 50000
	c := synth.Cloud(synth.Options{Hosts: hosts, Seed: 1, Profile: synth.Basic})
	agg := -1
	for i, a := range c.Aggregates {
		if len(a.Hosts) > 0 && (agg < 0 || len(a.Hosts) > len(c.Aggregates[agg].Hosts)) {
			agg = i
		}
	}
	if agg < 0 {
		b.Fatal("the cloud has no aggregate with hosts")
	}
	ratio := func(s *engine.Store, i int) (uint64, error) {
		return s.SetAggregateMetadata(c.Aggregates[agg].Name, map[string]string{"cpu_allocation_ratio": fmt.Sprint(2 + i%2)}, nil)
	}
	changes := []struct {
		name   string
		change func(s *engine.Store, i int) (uint64, error)
	}{
		{"add_host", func(s *engine.Store, i int) (uint64, error) {
			h := c.Hosts[i%hosts]
			h.Host, h.Node, h.UUID = fmt.Sprintf("bench-added-%d", i), "", ""
			return s.AddHosts(h)
		}},
		{"remove_host", func(s *engine.Store, i int) (uint64, error) {
			h := &c.Hosts[i%hosts]
			node := h.Node
			if node == "" {
				node = h.Host
			}
			return s.RemoveHosts(engine.HostNode{Host: h.Host, Node: node})
		}},
		{"aggregate", ratio},
		{"aggregate_zone", func(s *engine.Store, i int) (uint64, error) {
			return s.SetAggregateMetadata(c.Aggregates[agg].Name, map[string]string{"availability_zone": fmt.Sprint("az-", i%2)}, nil)
		}},
	}
	for _, ch := range changes {
		b.Run(fmt.Sprintf("change=%s/hosts=%d", ch.name, hosts), func(b *testing.B) {
			s, err := engine.NewStore(c, engine.StoreOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := ch.change(s, i); err != nil {
					b.Fatalf("%s %d: %v", ch.name, i, err)
				}
				i++
			}
		})
	}
	// An aggregate change on a Store that has committed instances (two a
	// host, put in its ledger from outside): what a rebuild does with the
	// instances committed through the store, per host, at every rebuild,
	// and under its mutex.
	b.Run(fmt.Sprintf("change=aggregate/hosts=%d/committed=%d", hosts, 2*hosts), func(b *testing.B) {
		s, err := engine.NewStore(c, engine.StoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		snap := s.Snapshot()
		var placed []engine.Instance
		for id := range uint32(snap.Len()) {
			for j := range uint32(2) {
				placed = append(placed, engine.Instance{UUID: fmt.Sprintf("00000000-0000-4000-8000-%04x%08x", j, id), Host: snap.HostNode(id)})
			}
		}
		if _, err := s.ApplyExternal(engine.ExternalChange{Placed: placed}); err != nil {
			b.Fatal(err)
		}
		if s.Instances() != 2*hosts {
			b.Fatalf("the ledger holds %d instances, want %d", s.Instances(), 2*hosts)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := ratio(s, i); err != nil {
				b.Fatalf("aggregate %d: %v", i, err)
			}
			i++
		}
	})
}
