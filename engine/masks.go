package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/nova"
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

// memoMask returns the mask of key, built by build into an empty set on
// first use, for masks that depend on nothing but the snapshot's static
// host data and key (the request's parameters they read, spelled out):
// built once per hostInfo (every snapshot a Store derives by commits
// shares it) and shared, read-only, by every batch after.
func memoMask(b *batch, key string, build func(m *bitmap.Set)) *bitmap.Set {
	return b.s.info.memo.get(key, func() any {
		m := bitmap.NewSet(b.s.n)
		build(m)
		return m
	}).(*bitmap.Set)
}

// memoClassMask is classMask, memoised under key (memoMask).
func memoClassMask(b *batch, key string, pred func(c *aggClass) bool) *bitmap.Set {
	return memoMask(b, key, func(m *bitmap.Set) { classMaskInto(b, m, pred) })
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
				if nova.PyStrip(x) == name { // x.strip(), as type_filter.py
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
		for key := range b.s.instanceKeys(u) {
			for _, id := range b.s.info.instNodes(key, &one) {
				m.Add(id)
			}
		}
	}
	return m
}

// noDifferentHost reports that the request gives no different_host hint,
// which DifferentHostFilter passes without looking at a host.
func noDifferentHost(b *batch) bool { return !hintGiven(b.req.SchedulerHints.DifferentHost) }

// aggSpecsVerdict is AggregateInstanceExtraSpecsFilter's verdict for the
// flavor's extra specs, judged once per aggregate class and memoised by
// the specs in the flavor's order (which decides where a class fails one
// spec and raises on another).
func aggSpecsVerdict(b *batch) *verdict {
	f := &b.req.Flavor
	keys := f.SpecKeys()
	return classVerdict(b, "aggspecs\x00"+specsKey(f.ExtraSpecs, keys), func(c *aggClass) (bool, error) {
		return nova.AggregateInstanceExtraSpecsCheck(f.ExtraSpecs, keys, c.meta)
	})
}

// aggSpecsPlan is AggregateInstanceExtraSpecsFilter's fused stage.
func aggSpecsPlan(b *batch) (stage, bool) {
	if noExtraSpecs(b) {
		return stage{}, true
	}
	return aggSpecsVerdict(b).stage()
}

// aggSpecsApply is AggregateInstanceExtraSpecsFilter over set: the
// exception, if any, is that of the first host in play that raises.
func aggSpecsApply(b *batch, set *bitmap.Set) error {
	if noExtraSpecs(b) {
		return nil
	}
	id, raised := aggSpecsVerdict(b).keep(set)
	if !raised {
		return nil
	}
	info := b.s.info
	_, err := nova.AggregateInstanceExtraSpecsCheck(b.req.Flavor.ExtraSpecs, b.req.Flavor.ExtraSpecOrder, info.classes[info.class.At(id)].meta)
	return raisedAt(AggregateInstanceExtraSpecsFilter, err)
}

// aggImagePropsMask is AggregateImagePropertiesIsolation's mask, judged
// once per aggregate class and memoised by what it reads of the image.
func aggImagePropsMask(b *batch) *bitmap.Set {
	ns, sep := b.cfg.AggregateImagePropertiesIsolationNS, b.cfg.AggregateImagePropertiesIsolationSep
	key := "aggimage\x00" + strconv.Quote(sep)
	if ns != nil {
		key += strconv.Quote(*ns)
	}
	return memoClassMask(b, key+"\x00"+nova.AggregateImagePropertiesIsolationSignature(b.img), func(c *aggClass) bool {
		return nova.AggregateImagePropertiesIsolationPass(b.img, c.meta, ns, sep)
	})
}

// metricsMask is MetricsFilter's mask: the hosts that report every metric
// of metrics_weight_setting (memoised: they are the snapshot's).
// metricsPlan is MetricsFilter's column form: the memoised mask, unless
// the snapshot has ironic nodes, whose metrics (None) make the filter raise
// (its apply tests host by host).
func metricsPlan(b *batch) (stage, bool) {
	if b.s.info.ironic != nil {
		return stage{}, false
	}
	return stage{mask: metricsMask(b)}, true
}

func metricsMask(b *batch) *bitmap.Set {
	if len(b.cfg.MetricsWeightSetting) == 0 {
		return nil
	}
	// The key leaves the setting out: a configuration change always
	// builds a new hostInfo, and with it a new memo (derive.go).
	return memoMask(b, "metrics", func(m *bitmap.Set) {
		info := b.s.info
		forHosts(b, func() struct{} { return struct{}{} }, func(_ struct{}, id uint32) {
			for _, mw := range b.cfg.MetricsWeightSetting {
				if _, ok := info.metrics.Get(id, mw.Name); !ok {
					return
				}
			}
			m.Add(id)
		})
	})
}

// specsKey is extra specs as a memo key: in keys' order, each part
// quoted.
func specsKey(specs map[string]string, keys []string) string {
	var s strings.Builder
	for _, k := range keys {
		s.WriteString(strconv.Quote(k))
		s.WriteString(strconv.Quote(specs[k]))
	}
	return s.String()
}
