package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestRankerMatchesBaseline checks that the incremental ranker (cached
// weights, block statistics, rescoring only what moved) makes exactly the
// baseline's decisions; the baseline rescores every candidate for every
// instance, as Nova does.
func TestRankerMatchesBaseline(t *testing.T) {
	cases := 0
	for _, profile := range []string{"basic", "rich", "edge"} {
		for seed := uint64(1); seed <= 80; seed++ {
			hosts := 300 + int(seed%5)*200
			if profile == "edge" {
				hosts = 30
			}
			cloud, req := synth.Scenario(synth.Options{Hosts: hosts, Instances: 1 + int(seed%4)*20, Seed: seed, Profile: profile})
			snap, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatalf("%s/%d: %v", profile, seed, err)
			}
			engine.SetBaseline(true)
			want, wantErr := engine.PlaceBatch(context.Background(), snap, req)
			engine.SetBaseline(false)
			got, gotErr := engine.PlaceBatch(context.Background(), snap, req)
			name := fmt.Sprintf("%s/seed=%d", profile, seed)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: ranker differs from baseline\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
			}
			cases++
		}
	}
	if cases < 240 {
		t.Fatalf("only %d cases ran", cases)
	}
}
