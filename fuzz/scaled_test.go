package fuzz

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
)

// FuzzPlaceBatchScaled is FuzzPlaceBatch on the generator's odd values at
// the scale the engine's block machinery works at: each generated host is
// copied into hundreds of hosts (scaledScene), so that a cloud spans many
// 512-host blocks and often two 4,096-host shards, and the block
// summaries, lazy bounds, kept rescorings and the top-k search over
// blocks meet negative free RAM, ratios of 0, usage past the int32
// columns, aggregate multipliers of every sign and metrics of every kind.
// engine.PlaceBatch and reference.PlaceBatch must make the same
// placements or fail alike (internal/plandiff). The first input byte
// sizes the cloud (about 500 to 6,100 hosts); the rest is the scene.
func FuzzPlaceBatchScaled(f *testing.F) {
	addSceneSeeds(f)
	for _, seed := range scaledSeeds {
		f.Add(seedBytes(seed, 2048))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		s := scaledScene(sceneOf(data[1:]), 500+int(data[0])*22)
		e := plandiff.RunEngine(s.Cloud, s.Req)
		r := plandiff.RunReference(s.Cloud, s.Req)
		if d := plandiff.Compare(e, r); len(d) > 0 {
			t.Fatalf("engine %s, reference %s on %d hosts; %d difference(s):\n\t%s\nscene before scaling (%d bytes of input):\n%s",
				plandiff.Kind(e), plandiff.Kind(r), len(s.Cloud.Hosts), len(d), strings.Join(d, "\n\t"), len(data), describe(sceneOf(data[1:])))
		}
	})
}

// scaledSeeds are inputs (seedBytes of 2,048 bytes) whose scaled scenes
// place a batch over candidates in several blocks, one of them in both
// shards (TestScaledSeedsPlace).
var scaledSeeds = []uint64{19, 87, 98, 236, 291, 327}

// scaledScene is s with its hosts copied until the cloud has about hosts
// hosts: copy j of host "h1" (node "n") is host "h1.j" (node "n.j"), in
// the aggregates the original is in, sharing its service, with its usage
// moved a little by j (free RAM down by j%5 × 256 MB, instances up by
// j%4, I/O operations by j%3, vCPUs used by j%2) so that the copies are
// not one class, and no instances (group members and hints stay with the
// original). The copies of a host are in its aggregates, isolated
// hosts, ignored and forced hosts; a requested destination, a forced
// node and a retry's hosts name the original alone. Copies follow their
// original, so that each block holds copies of a few hosts.
func scaledScene(s scene, hosts int) scene {
	orig := s.Cloud.Hosts
	if len(orig) == 0 {
		return s
	}
	r := max(hosts/len(orig), 1)
	out := make([]engine.Host, 0, r*len(orig))
	copies := map[string][]string{} // host name -> its copies' names
	named := map[string]bool{}
	for i := range orig {
		for j := range r {
			h := orig[i]
			if j > 0 {
				suffix := "." + strconv.Itoa(j)
				name := h.Host + suffix
				if !named[name] {
					named[name] = true
					copies[h.Host] = append(copies[h.Host], name)
				}
				h.Host = name
				if h.Node != "" {
					h.Node += suffix
				}
				if h.HypervisorHostname != nil {
					h.HypervisorHostname = ptr(*h.HypervisorHostname + suffix)
				}
				h.Instances = nil
				h.FreeRAMMB -= int64(j%5) * 256
				h.NumInstances += int64(j % 4)
				h.NumIOOps += int64(j % 3)
				h.VCPUsUsed += int64(j % 2)
			}
			out = append(out, h)
		}
	}
	s.Cloud.Hosts = out
	withCopies := func(names []string) []string {
		var out []string
		for _, h := range names {
			out = append(out, h)
			out = append(out, copies[h]...)
		}
		return out
	}
	s.Cloud.Aggregates = slices.Clone(s.Cloud.Aggregates)
	for i := range s.Cloud.Aggregates {
		a := &s.Cloud.Aggregates[i]
		a.Hosts = withCopies(a.Hosts)
	}
	s.Cloud.Config.IsolatedHosts = withCopies(s.Cloud.Config.IsolatedHosts)
	s.Req.IgnoreHosts = withCopies(s.Req.IgnoreHosts)
	s.Req.ForceHosts = withCopies(s.Req.ForceHosts)
	return s
}

// TestScaledSeedsPlace checks that FuzzPlaceBatchScaled's seeds reach what
// the target is for: each places a batch over candidates in several
// blocks, and one over candidates in both shards of its cloud.
func TestScaledSeedsPlace(t *testing.T) {
	shards := 0
	for _, seed := range scaledSeeds {
		data := seedBytes(seed, 2048)
		s := scaledScene(sceneOf(data[1:]), 500+int(data[0])*22)
		o := plandiff.RunEngine(s.Cloud, s.Req)
		if o.Err != nil || len(o.Plan.Placements) == 0 || o.Plan.Placements[0].Candidates <= 512 {
			t.Errorf("seed %d (%d hosts): %s, not placed over several blocks of candidates", seed, len(s.Cloud.Hosts), plandiff.Kind(o))
			continue
		}
		// More candidates than either shard holds: some in each.
		if n := len(s.Cloud.Hosts); n > 4096 && o.Plan.Placements[0].Candidates > max(4096, n-4096) {
			shards++
		}
	}
	if shards == 0 {
		t.Errorf("no seed places over candidates in both shards")
	}
}
