package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestRankerMatchesBaseline checks that the dense ranker (host-indexed
// columns under a candidate mask, block statistics, rescoring only what
// moved, lazy bounds refined from the root down), with
// and without scaled weights, makes exactly the baseline's decisions, for
// every weigher (metrics and soft groups included). The baseline rescores
// every candidate for every instance, as Nova does. Every search
// of the dense ranker on its best tree is also compared with the scan
// over the blocks it stands for.
func TestRankerMatchesBaseline(t *testing.T) {
	t.Parallel()
	cases, denseBatches := 0, 0
	// The cases weighing metrics (with metrics_required, where Nova
	// raises for a host lacking one) and soft groups with members placed:
	// the dense ranker's non-column weighers.
	metrics, required, soft := 0, 0, 0
	violations, current, scaled, searchBestChecked := 0, "", 0, 0
	refines := 0
	check := func(err error) {
		if violations++; violations <= 5 {
			t.Errorf("%s: %v", current, err)
		}
	}
	for _, profile := range []string{"basic", "rich", "edge", "big"} {
		for seed := uint64(1); seed <= 80; seed++ {
			opts := synth.Options{Hosts: 300 + int(seed%5)*200, Instances: 1 + int(seed%4)*20, Seed: seed, Profile: profile}
			switch profile {
			case "edge":
				opts.Hosts = 30
			case "big": // several shards, blocks cut by the last shard
				if seed > 12 {
					continue
				}
				opts.Profile, opts.Hosts, opts.Instances = "basic", 2*4096+1000+int(seed), 1+int(seed%3)*150
			}
			cloud, req := synth.Scenario(opts)
			snap, err := engine.NewSnapshot(cloud)
			if err != nil {
				t.Fatalf("%s/%d: %v", profile, seed, err)
			}
			want, wantErr := engine.PlaceBatchWith(context.Background(), snap, req, engine.Ranking{Baseline: true})
			if len(cloud.Config.MetricsWeightSetting) > 0 {
				metrics++
				if cloud.Config.MetricsRequired {
					required++
				}
			}
			if g := req.InstanceGroup; g != nil && (g.Policy == engine.PolicySoftAffinity || g.Policy == engine.PolicySoftAntiAffinity) && len(g.Hosts) > 0 {
				soft++
			}
			for _, v := range []struct{ scaled bool }{{false}, {true}} {
				current = fmt.Sprintf("%s/seed=%d/scaled=%v", profile, seed, v.scaled)
				got, gotErr := engine.PlaceBatchWith(context.Background(), snap, req, engine.Ranking{
					Scaled: &v.scaled, DenseBatches: &denseBatches,
					Check: check, ScaledRefreshes: &scaled, SearchBestChecked: &searchBestChecked,
					Refines: &refines,
				})
				name := current
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: ranker differs from baseline\n got %+v %v\nwant %+v %v", name, got.Placements, gotErr, want.Placements, wantErr)
				}
			}
			cases++
		}
	}
	if cases < 250 {
		t.Fatalf("only %d cases ran", cases)
	}
	if denseBatches < cases/3 {
		t.Fatalf("the dense ranker ranked only %d of %d batches", denseBatches, cases)
	}
	if metrics < 20 || required < 5 || soft < 20 {
		t.Fatalf("too few cases weigh metrics (%d, %d required) or soft groups (%d)", metrics, required, soft)
	}
	if scaled == 0 {
		t.Fatal("no refresh of the dense ranker used scaled weights")
	}
	if refines < cases {
		t.Fatalf("the lazy bounds refined only %d leaves in %d cases", refines, cases)
	}
	if searchBestChecked < cases {
		t.Fatalf("only %d searches on the best tree were compared with the scan", searchBestChecked)
	}
	t.Logf("%d cases, %d ranked by the dense ranker, %d refreshes with scaled weights; %d weigh metrics (%d required), %d soft groups; %d lazy leaves refined",
		cases, denseBatches, scaled, metrics, required, soft, refines)
}
