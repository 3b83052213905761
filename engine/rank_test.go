package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestRankerMatchesBaseline checks that the incremental ranker, on its
// linear and on its k-d tree path, makes exactly the baseline's decisions
// (the baseline rescores every candidate for every instance, as Nova does).
func TestRankerMatchesBaseline(t *testing.T) {
	defer engine.SetTreeThresholds(2048, 8)()
	cases := 0
	for _, profile := range []string{"basic", "rich", "edge"} {
		for seed := uint64(1); seed <= 40; seed++ {
			hosts := 300
			if profile == "edge" {
				hosts = 30
			}
			cloud, req := synth.Scenario(synth.Options{Hosts: hosts, Instances: 1 + int(seed%12), Seed: seed, Profile: profile})
			snap, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatalf("%s/%d: %v", profile, seed, err)
			}
			engine.SetBaseline(true)
			want, wantErr := engine.PlaceBatch(context.Background(), snap, req)
			engine.SetBaseline(false)
			for _, tree := range []bool{false, true} {
				engine.SetTreeThresholds(1<<30, 1<<30)
				if tree {
					engine.SetTreeThresholds(2, 1)
				}
				got, gotErr := engine.PlaceBatch(context.Background(), snap, req)
				name := fmt.Sprintf("%s/seed=%d/tree=%v", profile, seed, tree)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: ranker differs from baseline\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
				}
				cases++
			}
		}
	}
	if cases < 200 {
		t.Fatalf("only %d cases ran", cases)
	}
}
