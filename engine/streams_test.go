package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/placer/placer/engine"
)

// Helpers of the tests that place Store streams.

// ownUUIDs returns req with instance uuids of its own (as many as it asks
// for, at least one), made from i and tag, so that every plan of a
// test's stream can be committed: no two of a stream's requests share
// one as long as their (i, tag) differ.
func ownUUIDs(req engine.Request, i, tag int) engine.Request {
	n := max(len(req.InstanceUUIDs), req.NumInstances, 1)
	req.InstanceUUIDs, req.NumInstances = make([]string, n), n
	for j := range n {
		req.InstanceUUIDs[j] = fmt.Sprintf("%08x-0000-4000-8000-%04x%08x", i, tag, j)
	}
	return req
}

// placeAlike places req on snap ranking as want and as got says, every
// refresh of both checked against plain loops (Ranking.Check), fails t
// (naming the case) unless both give the same plan or the same error, and
// returns got's.
func placeAlike(t *testing.T, name string, snap *engine.Snapshot, req engine.Request, want, got engine.Ranking) (engine.Plan, error) {
	t.Helper()
	var bad error
	check := func(err error) {
		if bad == nil {
			bad = err
		}
	}
	want.Check, got.Check = check, check
	ctx := context.Background()
	wantPlan, wantErr := engine.PlaceBatchWith(ctx, snap, req, want)
	gotPlan, gotErr := engine.PlaceBatchWith(ctx, snap, req, got)
	if bad != nil {
		t.Fatalf("%s: %v", name, bad)
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotPlan, wantPlan) {
		t.Fatalf("%s:\n got %+v %v\nwant %+v %v", name, gotPlan.Placements, gotErr, wantPlan.Placements, wantErr)
	}
	return gotPlan, gotErr
}
