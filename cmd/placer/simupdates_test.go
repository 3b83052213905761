package main

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

// TestExternalUpdatesReportRefusals: an update the store refuses is
// returned as an error (simulate then does not verify), not dropped:
// here deletions of an instance no request committed, before any node is
// removed (after a removal, ErrInvalid is an instance gone with it).
func TestExternalUpdatesReportRefusals(t *testing.T) {
	store, err := engine.NewStore(synth.Cloud(synth.Options{Hosts: 20, Seed: 1, Profile: synth.Basic}), engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	committed := []string{"never-committed-1", "never-committed-2", "never-committed-3"}
	var done atomic.Int64 // progress 0: no node removed, added or aggregate changed
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	evs, errs := externalUpdates(ctx, store, 1, &mu, &committed, &done, 100)
	if len(errs) != 3 || !strings.Contains(errs[0], "never-committed") {
		t.Fatalf("refusals %q (and %d updates accepted); want the 3 deletions", errs, len(evs))
	}
	if len(evs) == 0 {
		t.Error("no report accepted in 300ms")
	}
}
