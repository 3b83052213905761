package engine

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/placer/placer/bitmap"
)

// TestUsageDeltaRuns checks the usage delta's two runs against a map:
// after every commit's worth of hosts (a few, sometimes ones already in
// the delta, now and then more than maxRecent at once), lookup finds each
// host's newest usage and no other host, len counts the hosts, each
// visits them in id order once, an overlay seeded with it (overlay.reset)
// holds them in that order; and every delta made earlier still reads
// as it did (a delta is never changed once made).
func TestUsageDeltaRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	type state struct {
		d    *usageDelta
		want map[uint32]hostRes
	}
	check := func(step int, st state) {
		t.Helper()
		if got := st.d.len(); got != len(st.want) {
			t.Fatalf("step %d: len %d, want %d", step, got, len(st.want))
		}
		var seen []uint32
		st.d.each(func(id uint32, r hostRes) {
			if w, ok := st.want[id]; !ok || w != r {
				t.Fatalf("step %d: each gave %d %+v, want %+v (held %v)", step, id, r, w, ok)
			}
			seen = append(seen, id)
		})
		if want := slices.Sorted(maps.Keys(st.want)); !slices.Equal(seen, want) {
			t.Fatalf("step %d: each visited %v, want %v", step, seen, want)
		}
		// An overlay seeded with the delta holds its entries in each's
		// order, indexed, and no other host.
		o := overlay{in: bitmap.NewSet(600), idx: make([]int32, 600)}
		o.put(599, hostRes{freeRAM: -1}) // a previous batch's entry, emptied by reset
		o.reset(st.d)
		if !slices.Equal(o.ids, seen) {
			t.Fatalf("step %d: overlay holds %v, want %v", step, o.ids, seen)
		}
		for id := range uint32(600) {
			w, in := st.want[id]
			if o.has(id) != in || in && *o.at(id) != w {
				t.Fatalf("step %d: overlay has(%d) = %v, want %v (%+v)", step, id, o.has(id), in, w)
			}
		}
		for id := range uint32(600) {
			r, ok := st.d.lookup(id)
			if w, in := st.want[id]; ok != in || r != w {
				t.Fatalf("step %d: lookup(%d) = %+v %v, want %+v %v", step, id, r, ok, w, in)
			}
		}
	}
	for round := range 20 {
		var history []state
		cur := state{d: nil, want: map[uint32]hostRes{}}
		if round%2 == 1 { // a base made whole, as a build makes wide deltas
			cur.d = &usageDelta{}
			for id := uint32(0); id < 600; id += 37 {
				r := hostRes{freeRAM: int64(id)}
				cur.d.ids, cur.d.res = append(cur.d.ids, id), append(cur.d.res, r)
				cur.want[id] = r
			}
		}
		for step := range 120 {
			n := 1 + rng.IntN(6)
			if rng.IntN(15) == 0 {
				n = maxRecent + rng.IntN(20)
			}
			ov := pendingUsage{res: map[uint32]hostRes{}}
			for range n {
				id := uint32(rng.IntN(600))
				if rng.IntN(3) == 0 && len(cur.want) > 0 { // a host already in the delta
					keys := slices.Sorted(maps.Keys(cur.want))
					id = keys[rng.IntN(len(keys))]
				}
				if _, dup := ov.res[id]; !dup {
					ov.ids = append(ov.ids, id)
				}
				ov.res[id] = hostRes{freeRAM: int64(step), numIOOps: int64(rng.IntN(1000))}
			}
			next := state{d: cur.d.with(&ov), want: maps.Clone(cur.want)}
			maps.Copy(next.want, ov.res)
			check(step, next)
			history = append(history, cur)
			cur = next
		}
		for i, st := range history {
			check(-i, st)
		}
	}
}

// BenchmarkUsageDeltaWith is a run of 16 commits of four hosts each onto
// a delta that 128 commits of one host made (half of maxDelta, the mean
// before a compaction): ns/op is per commit.
func BenchmarkUsageDeltaWith(b *testing.B) {
	var base *usageDelta
	for i := range 128 {
		id := uint32(i * 300)
		base = base.with(&pendingUsage{ids: []uint32{id}, res: map[uint32]hostRes{id: {freeRAM: 1}}})
	}
	var commits [16]pendingUsage
	for c := range commits {
		commits[c].res = map[uint32]hostRes{}
		for k := range 4 {
			id := uint32(c*1000 + k*77 + 1)
			commits[c].ids = append(commits[c].ids, id)
			commits[c].res[id] = hostRes{freeRAM: int64(c)}
		}
	}
	b.Run("entries=128/commits=16/hosts=4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d := base
			for c := range commits {
				d = d.with(&commits[c])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(commits)), "ns/commit")
	})
}
