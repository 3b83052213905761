package engine_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
		// The same change to the requests, where it renames hosts.
		changeReq func(r *engine.Request)
	}{
		{"synthetic", func(*engine.Cloud) {},
			map[string]int{"cell": 1, "hvModel": 1, "stats": 1, "hvSig": 1, "class": 1, "diskGBUsed": 2,
				"nameID": 0, "nameEnds": 0, "nameOrders": 0}, nil},
		{"unsorted names of several lengths", func(c *engine.Cloud) {
			// compute-0042 -> compute-42, hosts listed backwards.
			for i := range c.Hosts {
				c.Hosts[i].Host = unpadded(c.Hosts[i].Host)
			}
			slices.Reverse(c.Hosts)
			for a := range c.Aggregates {
				c.Aggregates[a].Hosts = mapped(c.Aggregates[a].Hosts, unpadded)
			}
			c.Config.IsolatedHosts = mapped(c.Config.IsolatedHosts, unpadded)
		}, map[string]int{"nameID": 0, "nameEnds": 4, "nameOrders": 4}, func(r *engine.Request) {
			r.IgnoreHosts, r.ForceHosts = mapped(r.IgnoreHosts, unpadded), mapped(r.ForceHosts, unpadded)
			if d := r.RequestedDestination; d != nil {
				r.RequestedDestination = &engine.Destination{Host: unpadded(d.Host), Node: unpadded(d.Node)}
			}
			if rt := r.Retry; rt != nil {
				r.Retry = &engine.Retry{NumAttempts: rt.NumAttempts, Hosts: mapped(rt.Hosts, func(hn engine.HostNode) engine.HostNode {
					return engine.HostNode{Host: unpadded(hn.Host), Node: unpadded(hn.Node)}
				})}
			}
		}},
		{"several nodes per host name", func(c *engine.Cloud) {
			// Hosts 3k+1 and 3k+2 are further nodes of host 3k's
			// compute service.
			for i := range c.Hosts {
				if h := &c.Hosts[i]; i%3 != 0 {
					first := &c.Hosts[i-i%3]
					h.Node = fmt.Sprint(h.Host, "-node")
					h.Host, h.Service = first.Host, first.Service
				}
			}
		}, map[string]int{"nameID": 4}, nil},
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
		}, map[string]int{"cell": 2, "hvModel": 2, "stats": 2, "hvSig": 2, "class": 2}, nil},
		{"disk use past two bytes", func(c *engine.Cloud) {
			// 0 to ~105,000 GB used, and one host reporting more free
			// than its size.
			for i := range c.Hosts {
				h := &c.Hosts[i]
				h.LocalGB = 200000
				h.FreeDiskGB = h.LocalGB - int64(i)*150
			}
			c.Hosts[3].FreeDiskGB = c.Hosts[3].LocalGB + 20
		}, map[string]int{"diskGBUsed": 4}, nil},
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
			// disk_mb_used through ComputeCapabilitiesFilter's column pass
			// and JsonFilter, against the median host's.
			used := make([]int64, len(cloud.Hosts))
			for i, h := range cloud.Hosts {
				used[i] = (h.LocalGB - h.FreeDiskGB) * 1024
			}
			slices.Sort(used)
			median := used[len(used)/2]
			g := synth.New(opts)
			for k := range 16 {
				req := g.Request()
				if tc.changeReq != nil {
					tc.changeReq(&req)
				}
				switch k % 4 {
				case 1:
					req.Flavor.ExtraSpecs = map[string]string{"capabilities:disk_mb_used": fmt.Sprint("<= ", median)}
				case 2:
					req.SchedulerHints.Query = fmt.Sprintf(`[">=", "$disk_mb_used", %d]`, median)
				}
				eng, ref := plandiff.RunEngine(cloud, req), plandiff.RunReference(cloud, req)
				if diffs := plandiff.Compare(eng, ref); len(diffs) > 0 {
					t.Fatalf("request %d (%s): engine and reference differ:\n%v", k, plandiff.Kind(ref), diffs)
				}
			}
		})
	}
}

// unpadded drops the zeros padding a synthetic host name's number.
func unpadded(name string) string {
	if num, ok := strings.CutPrefix(name, "compute-"); ok {
		if num = strings.TrimLeft(num, "0"); num == "" {
			num = "0"
		}
		return "compute-" + num
	}
	return name
}

// mapped returns f of each of xs, in a new slice (nil for none).
func mapped[T any](xs []T, f func(T) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
