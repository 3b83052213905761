package engine

import (
	"context"
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
)

// Verdicts: what a filter reading only static host data (aggregate
// metadata, image properties against the hypervisor, capabilities of the
// hardware, ...) makes of every host for one request signature, judged
// once per distinct value of what it reads and memoised per snapshot
// lineage (memo.go). A verdict stands for the filter on any set of hosts:
// the hosts that pass, and those on which Nova raises, so that the
// exception surfaces at the same host as in Nova's host-by-host walk (the
// first raising host in play).

// verdict is a static filter's outcome on every host for one request
// signature. Invariants: raise is nil or holds at least one host; pass and
// raise are disjoint; neither is modified once memoised.
type verdict struct {
	pass  *bitmap.Set // the hosts that pass
	raise *bitmap.Set // the hosts on which Nova raises (nil: none)
}

// memoVerdict returns the verdict of key, built by build (into empty
// pass and raise sets) on first use and memoised with the snapshot's
// static data (memoTable).
func memoVerdict(b *batch, key string, build func(pass, raise *bitmap.Set)) *verdict {
	return b.s.info.memo.get(key, func() any {
		v := &verdict{pass: bitmap.NewSet(b.s.n), raise: bitmap.NewSet(b.s.n)}
		build(v.pass, v.raise)
		v.pass.AndNot(v.raise)
		if !v.raise.Any() {
			v.raise = nil
		}
		return v
	}).(*verdict)
}

// keep keeps the hosts of set that pass v. When Nova raises on a host of
// set, it returns the first such host instead (set is then left as it
// was).
func (v *verdict) keep(set *bitmap.Set) (raiseAt uint32, raised bool) {
	if v.raise != nil {
		if id, ok := firstCommon(set, v.raise); ok {
			return id, true
		}
	}
	set.And(v.pass)
	return 0, false
}

// stage is v as a fused stage: its pass mask; false when Nova raises on
// some host (the filter then runs through apply, where the exception
// surfaces at the right host).
func (v *verdict) stage() (stage, bool) {
	if v.raise != nil {
		return stage{}, false
	}
	return stage{mask: v.pass}, true
}

// firstCommon returns the smallest host in both a and b.
func firstCommon(a, b *bitmap.Set) (uint32, bool) {
	bw := b.Words()
	for i, w := range a.Words() {
		if x := w & bw[i]; x != 0 {
			return uint32(i*64 + bits.TrailingZeros64(x)), true
		}
	}
	return 0, false
}

// codeVerdictInto adds to pass and raise the hosts of each code of col
// (values 0..n-1, a small category per host) by eval's outcome for that
// code: eval is called once per code, in code order; a code it reports
// absent (ok false) is neither.
func codeVerdictInto(b *batch, pass, raise *bitmap.Set, col *hostcols.Idx, n int, eval func(code int) (ok, passes bool, err error)) {
	p, r := make([]uint64, n), make([]uint64, n)
	for code := range n {
		ok, passes, err := eval(code)
		switch {
		case !ok:
		case err != nil:
			r[code] = 1
		case passes:
			p[code] = 1
		}
	}
	columnMaskInto(b, pass, col, p)
	columnMaskInto(b, raise, col, r)
}

// classVerdict is the verdict of a predicate on aggregate classes (eval
// called once per class), memoised under key.
func classVerdict(b *batch, key string, eval func(c *aggClass) (bool, error)) *verdict {
	info := b.s.info
	return memoVerdict(b, key, func(pass, raise *bitmap.Set) {
		codeVerdictInto(b, pass, raise, &info.class, len(info.classes), func(code int) (bool, bool, error) {
			ok, err := eval(&info.classes[code])
			return true, ok, err
		})
	})
}

// forHosts calls fn for every host of the snapshot, shard by shard in
// parallel, with a value newShard makes for each shard (its memo); fn may
// write only its shard's words. Verdict builds use it: they run to the
// end whatever the batch's context.
func forHosts[T any](b *batch, newShard func() T, fn func(st T, id uint32)) {
	n := b.s.n
	_ = bitmap.ForShards(context.WithoutCancel(b.ctx), n, func(k int) error {
		st := newShard()
		lo := k * bitmap.ShardSize
		for id := lo; id < min(lo+bitmap.ShardSize, n); id++ {
			fn(st, uint32(id))
		}
		return nil
	})
}
