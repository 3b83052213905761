package engine_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/synth"
)

// TestCompactInfoFallBack places on clouds whose static per-host data
// takes the compact forms of hostInfo (narrow index columns, elisions) and
// on clouds made to need the general ones, checking the form the snapshot
// took and that the engine still agrees with the reference decision for
// decision.
func TestCompactInfoFallBack(t *testing.T) {
	const hosts = 700
	for _, tc := range []struct {
		name   string
		change func(c *engine.Cloud)
		want   map[string]int // bytes per host, of the columns named
	}{
		{"synthetic", func(*engine.Cloud) {},
			map[string]int{"cell": 1, "hvModel": 1, "stats": 1, "hvSig": 1, "class": 1}},
		{"tables past a byte", func(c *engine.Cloud) {
			// More than 256 cells, hypervisor models and signatures,
			// stats and aggregate classes.
			for i := range c.Hosts {
				h := &c.Hosts[i]
				h.Cell = fmt.Sprint("cell-", i%300)
				v := int64(1000 + i%290)
				h.HypervisorVersion = &v
				h.Stats = maps.Clone(h.Stats)
				if h.Stats == nil {
					h.Stats = map[string]string{}
				}
				h.Stats["rack"] = fmt.Sprint(i % 280)
			}
			for k := range 270 {
				agg := engine.Aggregate{Name: fmt.Sprint("wide-", k),
					Metadata: map[string]string{"k": fmt.Sprint(k % 3)}}
				for i := k; i < len(c.Hosts); i += 270 {
					agg.Hosts = append(agg.Hosts, c.Hosts[i].Host)
				}
				c.Aggregates = append(c.Aggregates, agg)
			}
		}, map[string]int{"cell": 2, "hvModel": 2, "stats": 2, "hvSig": 2, "class": 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := synth.Options{Hosts: hosts, Seed: 11, Profile: synth.Rich}
			cloud := synth.Cloud(opts)
			tc.change(&cloud)
			snap, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatal(err)
			}
			layout := engine.InfoLayout(snap)
			for col, want := range tc.want {
				if layout[col] != want {
					t.Errorf("%s: %d bytes per host, want %d", col, layout[col], want)
				}
			}
			g := synth.New(opts)
			for k := range 12 {
				req := g.Request()
				eng, ref := plandiff.RunEngine(cloud, req), plandiff.RunReference(cloud, req)
				if diffs := plandiff.Compare(eng, ref); len(diffs) > 0 {
					t.Fatalf("request %d (%s): engine and reference differ:\n%v", k, plandiff.Kind(ref), diffs)
				}
			}
		})
	}
}
