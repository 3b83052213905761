package fuzz

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/reference"
)

// FuzzWeighers checks every weigher of the catalogue alone, and the
// scene's own weigher list, on a generated cloud and request:
// engine.WeighHosts and reference.WeighHosts give the same weights (bit
// for bit, plandiff.SameFloat) in the same order (ties by host id), over every host and over
// the hosts the scene's filters pass.
func FuzzWeighers(f *testing.F) {
	addSceneSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := sceneOf(data)
		lists := make([][]string, 0, len(engine.WeigherCatalogue)+1)
		for _, name := range engine.WeigherCatalogue {
			lists = append(lists, []string{name})
		}
		lists = append(lists, s.Cloud.Config.Weighers)
		// The hosts to weigh: all of them, and those the filters pass.
		all := make([]int, len(s.Cloud.Hosts))
		for i := range all {
			all[i] = i
		}
		sets := [][]int{all}
		if passed, _, err := reference.FilterHosts(context.Background(), s.Cloud, s.Req); err == nil {
			sets = append(sets, passed)
		}
		for _, ws := range lists {
			for _, ids := range sets {
				if d := diffWeighers(withWeighers(s.Cloud, ws...), s.Req, ids); d != "" {
					t.Fatalf("weighers %v over hosts %v: %s\nscenario:\n%s", ws, ids, d, describe(s))
				}
			}
		}
	})
}

// diffWeighers is the first difference between the engine's and the
// reference's weighing of the hosts ids, "" when they agree.
func diffWeighers(cloud engine.Cloud, req engine.Request, ids []int) string {
	ctx := context.Background()
	ref, refErr := reference.WeighHosts(ctx, cloud, req, ids)
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		return sameError(err, refErr)
	}
	set := bitmap.NewSet(snap.Len())
	for _, i := range ids {
		set.Add(uint32(i))
	}
	eng, err := engine.WeighHosts(ctx, snap, req, set)
	if d := sameError(err, refErr); d != "" || err != nil {
		return d
	}
	if len(eng) != len(ref) {
		return fmt.Sprintf("%d candidates, reference %d", len(eng), len(ref))
	}
	for k := range eng {
		e, r := eng[k], ref[k]
		if e.ID != r.ID || e.Host != r.Host {
			return fmt.Sprintf("rank %d: engine %v/%v (%v), reference %v/%v (%v); engine %v, reference %v",
				k, e.ID, e.Host, e.Weight, r.ID, r.Host, r.Weight, eng, ref)
		}
		if !plandiff.SameFloat(e.Weight, r.Weight) {
			return fmt.Sprintf("rank %d (host %d): weight engine %v (%#x), reference %v (%#x)",
				k, e.ID, e.Weight, math.Float64bits(e.Weight), r.Weight, math.Float64bits(r.Weight))
		}
	}
	return ""
}
