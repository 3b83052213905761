package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestMetricsKeptMatchesKernel places Store streams with MetricsWeigher
// weighing (its column's block extremes kept by the lineage and read
// back when a block's candidates are those they were found over) and
// without keeping them, on the same snapshots, every refresh checked
// against plain loops over the candidates: the plans and errors must be
// the same, and kept extremes must have been read, repeated requests
// among the stream's.
func TestMetricsKeptMatchesKernel(t *testing.T) {
	t.Parallel()
	kept, cases := 0, 0
	for pi, profile := range []string{synth.Basic, synth.Rich} {
		gen := synth.New(synth.Options{Hosts: 2*4096 + 300, Seed: 11, Profile: profile})
		cloud := gen.Cloud()
		cloud.Config.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.percent", Ratio: -1}}
		cloud.Config.MetricsRequired = false
		st, err := engine.NewStore(cloud, engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		reqs := gen.Requests(60)
		for i := range 2 * len(reqs) {
			req := reqs[i%len(reqs)] // each request twice: the second finds its blocks kept
			name := fmt.Sprintf("%s/request=%d", profile, i)
			req = ownUUIDs(req, i, pi)
			got, gotErr := placeAlike(t, name+", kept extremes", st.Snapshot(), req,
				engine.Ranking{NoMetricsKept: true}, engine.Ranking{MetricsKept: &kept})
			cases++
			if gotErr == nil && i%3 == 0 {
				// Commits now and then, so that candidates and the usage
				// delta move under the kept extremes.
				if _, err := st.Commit(got); err != nil && !errors.Is(err, engine.ErrConflict) {
					t.Fatalf("%s: commit: %v", name, err)
				}
			}
		}
	}
	if kept == 0 {
		t.Fatalf("no block's MetricsWeigher extremes were read from the kept ones in %d cases", cases)
	}
	t.Logf("%d cases, %d blocks' extremes read from the kept ones", cases, kept)
}
