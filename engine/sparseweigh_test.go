package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestSparseWeighMatchesKernel places Store streams with the shards that
// hold few candidates weighed host by host (weighSparse) and with every
// shard weighed by the column kernels, on the same snapshots, every
// refresh checked against plain loops over the candidates: the plans and
// errors must be the same, and shards must have been weighed host by
// host. Each request is placed twice, so that the second finds the first's
// kept rescoring, which holds no shard weighed host by host. Exact
// weights on every kernel path (scaled weights weigh every shard).
func TestSparseWeighMatchesKernel(t *testing.T) {
	t.Parallel()
	sparse, cases := 0, 0
	exact := false // not the scaled weights, which the portable kernels take
	for pi, profile := range []string{synth.Basic, synth.Rich} {
		gen := synth.New(synth.Options{Hosts: 3*4096 + 200, Seed: 12, Profile: profile})
		st, err := engine.NewStore(gen.Cloud(), engine.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		reqs := gen.Requests(50)
		for i := range 2 * len(reqs) {
			req := reqs[i/2]
			name := fmt.Sprintf("%s/request=%d", profile, i)
			req = ownUUIDs(req, i, pi)
			got, gotErr := placeAlike(t, name+", shards weighed host by host", st.Snapshot(), req,
				engine.Ranking{NoSparseWeigh: true, Scaled: &exact}, engine.Ranking{SparseWeighed: &sparse, Scaled: &exact})
			cases++
			if gotErr == nil && i%2 == 1 {
				// The stream moves on: candidates and the usage delta
				// change under the kept rescorings.
				if _, err := st.Commit(got); err != nil && !errors.Is(err, engine.ErrConflict) {
					t.Fatalf("%s: commit: %v", name, err)
				}
			}
		}
	}
	if sparse == 0 {
		t.Fatalf("no shard was weighed host by host in %d cases", cases)
	}
	t.Logf("%d cases, %d shards weighed host by host", cases, sparse)
}
