package fuzz

import (
	"strings"
	"testing"

	"github.com/placer/placer/internal/plandiff"
)

// FuzzPlaceBatch checks whole batches on a generated cloud and request:
// engine.PlaceBatch and reference.PlaceBatch make the same placements
// (hosts, weights bit for bit, candidates, limits, alternates) or fail
// alike (kind, instance, per-filter counts, tentative placements).
func FuzzPlaceBatch(f *testing.F) {
	addSceneSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := sceneOf(data)
		e := plandiff.RunEngine(s.Cloud, s.Req)
		r := plandiff.RunReference(s.Cloud, s.Req)
		if d := plandiff.Compare(e, r); len(d) > 0 {
			t.Fatalf("engine %s, reference %s; %d difference(s):\n\t%s\nscenario:\n%s",
				plandiff.Kind(e), plandiff.Kind(r), len(d), strings.Join(d, "\n\t"), describe(s))
		}
	})
}
