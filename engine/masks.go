package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
)

// The host masks of the static filters: sets of the hosts that pass,
// built per aggregate class or per categorical column in one pass over
// the shards, and memoised per snapshot's static host data when they
// depend on nothing else (availability zone, tenant, flavor type); and
// the masks of the instance hints (same_host, different_host).

// classMask is the set of hosts whose aggregate class passes pred (called
// once per class, in class order).
func classMask(b *batch, pred func(c *aggClass) bool) *bitmap.Set {
	m := b.set()
	classMaskInto(b, m, pred)
	return m
}

// classMaskInto adds to m the hosts whose class passes pred.
func classMaskInto(b *batch, m *bitmap.Set, pred func(c *aggClass) bool) {
	info := b.s.info
	pass := make([]uint64, len(info.classes))
	for i := range info.classes {
		if pred(&info.classes[i]) {
			pass[i] = 1
		}
	}
	columnMaskInto(b, m, &info.class, pass)
}

// columnMaskInto adds to m the hosts whose value in col (a small category
// id per host) has pass[value] = 1: one pass over the column, shard by
// shard in parallel, building the words without a branch.
func columnMaskInto(b *batch, m *bitmap.Set, col *hostcols.Idx, pass []uint64) {
	s := b.s
	some, all := false, true
	for _, p := range pass {
		some, all = some || p == 1, all && p == 1
	}
	switch {
	case all:
		m.Fill()
		return
	case !some:
		return
	}
	// Every shard is filled: the pass is not cut short by cancellation.
	_ = bitmap.ForShards(context.WithoutCancel(b.ctx), s.n, func(k int) error {
		lo := k * bitmap.ShardSize
		col.MaskWordsOf(lo, min(lo+bitmap.ShardSize, s.n), m.ShardWordsOf(k), pass)
		return nil
	})
}

// maxMasks bounds the masks a hostInfo memoises.
const maxMasks = 256

// memoMask returns the mask of key, built by build into an empty set on
// first use, for masks that depend on nothing but the snapshot's static
// host data and key (the request's parameters they read, spelled out):
// built once per hostInfo (every snapshot a Store derives by commits
// shares it) and shared, read-only, by every batch after. build returns
// false when the mask cannot stand for the filter (a Nova exception would
// surface); memoMask then returns nil, and remembers that too.
func memoMask(b *batch, key string, build func(m *bitmap.Set) bool) *bitmap.Set {
	info := b.s.info
	if m, ok := info.masks.Load(key); ok {
		return m.(*bitmap.Set)
	}
	m := bitmap.NewSet(b.s.n)
	if !build(m) {
		m = nil
	}
	if info.nMasks.Add(1) <= maxMasks {
		if prev, loaded := info.masks.LoadOrStore(key, m); loaded {
			return prev.(*bitmap.Set)
		}
	}
	return m
}

// memoClassMask is classMask, memoised under key (memoMask).
func memoClassMask(b *batch, key string, pred func(c *aggClass) bool) *bitmap.Set {
	return memoMask(b, key, func(m *bitmap.Set) bool {
		classMaskInto(b, m, pred)
		return true
	})
}

// hintGiven is Nova's truth test of a uuid-list hint: RequestSpec's
// get_scheduler_hint unwraps a one-element list, so [""] is no hint.
func hintGiven(uuids []string) bool {
	return len(uuids) > 1 || (len(uuids) == 1 && uuids[0] != "")
}

// azMask is AvailabilityZoneFilter's mask (nil: no zone requested).
func azMask(b *batch) *bitmap.Set {
	az := b.req.AvailabilityZone
	if az == nil || *az == "" {
		return nil
	}
	def := b.cfg.DefaultAvailabilityZone
	return memoClassMask(b, "az\x00"+*az+"\x00"+def, func(c *aggClass) bool {
		if zones, ok := c.meta["availability_zone"]; ok {
			return slices.Contains(zones, *az)
		}
		return *az == def
	})
}

// tenantMask is AggregateMultiTenancyIsolation's mask.
func tenantMask(b *batch) *bitmap.Set {
	project := b.req.ProjectID
	key := "tenant\x00"
	if project != nil {
		key += "\x01" + *project
	}
	return memoClassMask(b, key, func(c *aggClass) bool {
		tenants, ok := c.meta["filter_tenant_id"]
		if !ok || len(tenants) == 0 {
			return true
		}
		return project != nil && slices.Contains(tenants, *project)
	})
}

// typeAffinityMask is AggregateTypeAffinityFilter's mask.
func typeAffinityMask(b *batch) *bitmap.Set {
	name := b.req.Flavor.Name
	return memoClassMask(b, "type\x00"+name, func(c *aggClass) bool {
		vals := c.instanceTypes
		for _, v := range vals {
			for _, x := range strings.Split(v, ",") {
				if strings.TrimSpace(x) == name {
					return true
				}
			}
		}
		return len(vals) == 0
	})
}

// uuidHostsMask is the set of hosts running any of uuids (instance 0's
// view: once-per-request filters never see the batch's own placements).
func uuidHostsMask(b *batch, uuids []string) *bitmap.Set {
	m := b.set()
	var one [1]uint32
	for _, u := range uuids {
		for nid := range b.s.info.instances.NamesOf(u) {
			for _, id := range b.s.info.instNodes(nid, &one) {
				m.Add(id)
			}
		}
	}
	return m
}

// noDifferentHost reports that the request gives no different_host hint,
// which DifferentHostFilter passes without looking at a host.
func noDifferentHost(b *batch) bool { return !hintGiven(b.req.SchedulerHints.DifferentHost) }
