package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/nova"
)

// filterImpl is one filter of the catalogue.
//
// apply removes from set the hosts that fail, evaluating them on the
// batch's current state; it is how the whole set is filtered (instance 0,
// or the explanation of a NoValidHost). host re-tests one host on the
// current state; it is set only for the filters whose verdict can change
// when a host consumes resources or the group changes, and is what later
// instances run on the few hosts that changed. whole, when set, is a
// set-wide update later instances need (the affinity filter's group.hosts);
// it reports whether it may have removed hosts.
//
// mask and kernel are the two forms runChain fuses into one pass over the
// shards (applyFused). mask, for filters that read only the snapshot's
// static host data, returns the set of the hosts that pass (nil: all);
// kernel is the column version of host. keepsAll, when set, reports that
// the filter keeps every host for b's request (Nova's filter returns
// before looking at a host), so runChain records it without a pass.
type filterImpl struct {
	name     string
	once     bool
	rule     *resourceRule // a resource filter's rule (nil: not one)
	mask     func(b *batch) *bitmap.Set
	kernel   shardKernel
	keepsAll func(b *batch) bool
	apply    func(b *batch, set *bitmap.Set) error
	host     func(b *batch, id uint32) (bool, error)
	whole    func(b *batch, set *bitmap.Set) bool
}

// fusable reports whether runChain can run f inside a fused pass.
func (f *filterImpl) fusable() bool { return f.kernel != nil || f.mask != nil }

var filterByName = map[string]*filterImpl{}

func register(f *filterImpl) {
	f.once = OncePerRequest(f.name)
	if f.apply == nil && f.mask != nil {
		f.apply = applyMask(f.mask)
	}
	if f.apply == nil && f.kernel != nil {
		// runChain runs column filters in fused runs; alone, one is a run
		// of one.
		f.apply = func(b *batch, set *bitmap.Set) error {
			_, _, err := b.applyFused(set, []*filterImpl{f})
			return err
		}
	}
	if f.apply == nil {
		host := f.host
		f.apply = func(b *batch, set *bitmap.Set) error { return applyHost(b, set, host) }
	}
	filterByName[f.name] = f
}

// applyHost runs a per-host predicate over set, shard by shard in
// parallel; each shard worker only clears bits of its own words.
func applyHost(b *batch, set *bitmap.Set, pass func(*batch, uint32) (bool, error)) error {
	return applyHostWith(b, set, func() func(*batch, uint32) (bool, error) { return pass })
}

// applyHostWith is applyHost with the predicate made afresh for each shard,
// for state one shard's walk keeps (a memo) without locks.
func applyHostWith(b *batch, set *bitmap.Set, newPass func() func(*batch, uint32) (bool, error)) error {
	return bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
		pass := newPass()
		words := set.ShardWordsOf(k)
		base := uint32(k * bitmap.ShardSize)
		for wi, w := range words {
			for w != 0 {
				t := uint32(bits.TrailingZeros64(w))
				w &= w - 1
				id := base + uint32(wi)*64 + t
				ok, err := pass(b, id)
				if err != nil {
					return err
				}
				if !ok {
					words[wi] &^= 1 << t
				}
			}
		}
		return nil
	})
}

// applyMask keeps the hosts of set that are in mask.
func applyMask(mask func(b *batch) *bitmap.Set) func(*batch, *bitmap.Set) error {
	return func(b *batch, set *bitmap.Set) error {
		if m := mask(b); m != nil {
			set.And(m)
		}
		return nil
	}
}

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

func init() {
	register(&filterImpl{name: AllHostsFilter, apply: func(*batch, *bitmap.Set) error { return nil }})
	register(&filterImpl{name: ComputeFilter, mask: func(b *batch) *bitmap.Set { return b.s.info.serviceUp }})

	for name := range resourceRules {
		registerResource(name)
	}

	register(&filterImpl{name: ServerGroupAffinityFilter, keepsAll: affinityKeepsAll,
		apply: func(b *batch, set *bitmap.Set) error {
			affinityWhole(b, set)
			return nil
		},
		whole: affinityWhole})
	register(&filterImpl{name: ServerGroupAntiAffinityFilter, keepsAll: antiAffinityKeepsAll, host: antiAffinityPasses, apply: antiAffinityApply})

	register(&filterImpl{name: AvailabilityZoneFilter, mask: azMask})
	register(&filterImpl{name: AggregateMultiTenancyIsolation, mask: tenantMask})
	register(&filterImpl{name: AggregateTypeAffinityFilter, mask: typeAffinityMask})
	register(&filterImpl{name: AggregateInstanceExtraSpecsFilter, keepsAll: noExtraSpecs, apply: func(b *batch, set *bitmap.Set) error {
		if noExtraSpecs(b) {
			return nil
		}
		specs := b.req.Flavor.ExtraSpecs
		var err error
		m := classMask(b, func(c *aggClass) bool {
			if !bitmap.IntersectsRoaring(set, c.hosts) {
				return false // no host in play: Nova never evaluates it
			}
			ok, e := nova.AggregateInstanceExtraSpecsCheck(specs, c.meta)
			if e != nil && err == nil {
				err = e
			}
			return ok
		})
		set.And(m)
		return pyError(err)
	}})
	register(&filterImpl{name: AggregateImagePropertiesIsolation, mask: func(b *batch) *bitmap.Set {
		ns, sep := b.cfg.AggregateImagePropertiesIsolationNS, b.cfg.AggregateImagePropertiesIsolationSep
		return classMask(b, func(c *aggClass) bool {
			return nova.AggregateImagePropertiesIsolationPass(b.img, c.meta, ns, sep)
		})
	}})
	register(&filterImpl{name: IsolatedHostsFilter, host: isolatedPasses})
	register(&filterImpl{name: ImagePropertiesFilter, keepsAll: imagePropsKeepAll, apply: imagePropsApply})
	register(&filterImpl{name: ComputeCapabilitiesFilter, keepsAll: noExtraSpecs, apply: capabilitiesApply})
	register(&filterImpl{name: SameHostFilter, mask: func(b *batch) *bitmap.Set {
		if !hintGiven(b.req.SchedulerHints.SameHost) {
			return nil
		}
		return uuidHostsMask(b, b.req.SchedulerHints.SameHost)
	}})
	register(&filterImpl{name: DifferentHostFilter, keepsAll: noDifferentHost, apply: func(b *batch, set *bitmap.Set) error {
		if !noDifferentHost(b) {
			set.AndNot(uuidHostsMask(b, b.req.SchedulerHints.DifferentHost))
		}
		return nil
	}})
	register(&filterImpl{name: SimpleCIDRAffinityFilter, apply: func(b *batch, set *bitmap.Set) error {
		hints := &b.req.SchedulerHints
		if hints.BuildNearHostIP == "" {
			return nil
		}
		return applyHost(b, set, func(b *batch, id uint32) (bool, error) {
			ok, err := nova.SimpleCIDRCheck(b.s.info.hostIP(id), hints.BuildNearHostIP, hints.CIDR)
			return ok, pyError(err)
		})
	}})
	register(&filterImpl{name: MetricsFilter, apply: func(b *batch, set *bitmap.Set) error {
		return applyHost(b, set, func(b *batch, id uint32) (bool, error) {
			for _, mw := range b.cfg.MetricsWeightSetting {
				if _, ok := b.s.info.metrics.Get(id, mw.Name); !ok {
					return false, nil
				}
			}
			return true, nil
		})
	}})
	register(&filterImpl{name: RetryFilter, apply: func(b *batch, set *bitmap.Set) error {
		if r := b.req.Retry; r != nil {
			for _, hn := range r.Hosts {
				if id, ok := b.s.info.byHostNode(hn); ok {
					set.Remove(id)
				}
			}
		}
		return nil
	}})
	register(&filterImpl{name: JsonFilter,
		apply: func(b *batch, set *bitmap.Set) error {
			if b.query == nil {
				return nil
			}
			return applyHost(b, set, jsonPasses)
		},
		host: func(b *batch, id uint32) (bool, error) {
			if b.query == nil {
				return true, nil
			}
			return jsonPasses(b, id)
		}})
}

// registerResource registers resource filter name (resources.go): its
// column pass is the rule's on the snapshot's columns, its test of one
// host the rule's on the batch's current usage of it.
func registerResource(name string) {
	rule := resourceRules[name]
	register(&filterImpl{name: name, rule: rule,
		kernel: func(b *batch, sh *shard, words []uint64) { rule.pass(sh, &b.claim, b.cfg, words) },
		host: func(b *batch, id uint32) (bool, error) {
			sh, j := b.s.at(id)
			r := b.cur(id)
			return rule.fits(sh, j, &r, &b.claim, b.cfg), nil
		}})
}

// hintGiven is Nova's truth test of a uuid-list hint: RequestSpec's
// get_scheduler_hint unwraps a one-element list, so [""] is no hint.
func hintGiven(uuids []string) bool {
	return len(uuids) > 1 || (len(uuids) == 1 && uuids[0] != "")
}

func antiAffinityPasses(b *batch, id uint32) (bool, error) {
	g := b.group
	if g == nil || g.policy != PolicyAntiAffinity {
		return true, nil
	}
	nid := b.s.info.nameOf(id)
	if b.hasInstance(nid, b.uuid) {
		return true, nil
	}
	return g.count[nid] < g.maxPerHost, nil
}

// antiAffinityApply is antiAffinityPasses over a whole set: only the host
// names already holding members can fail, so only their nodes are tested
// (removals commute: the map's order does not matter).
// affinityKeepsAll reports that ServerGroupAffinityFilter passes every
// host: no affinity group, or one with no hosts yet.
func affinityKeepsAll(b *batch) bool {
	g := b.group
	return g == nil || g.policy != PolicyAffinity || len(g.hostNames) == 0
}

// affinityWhole keeps the hosts of set in the affinity group's hosts,
// unless affinityKeepsAll.
func affinityWhole(b *batch, set *bitmap.Set) bool {
	if affinityKeepsAll(b) {
		return false
	}
	return set.And(b.group.hostsSet)
}

// noDifferentHost reports that the request gives no different_host hint,
// which DifferentHostFilter passes without looking at a host.
func noDifferentHost(b *batch) bool { return !hintGiven(b.req.SchedulerHints.DifferentHost) }

// antiAffinityKeepsAll reports that ServerGroupAntiAffinityFilter passes
// every host: no anti-affinity group.
func antiAffinityKeepsAll(b *batch) bool {
	g := b.group
	return g == nil || g.policy != PolicyAntiAffinity
}

// noExtraSpecs reports that the flavor has no extra specs, which the
// extra-spec filters pass without looking at a host.
func noExtraSpecs(b *batch) bool { return len(b.req.Flavor.ExtraSpecs) == 0 }

// imagePropsKeepAll reports that the image requests no architecture,
// hypervisor type or VM mode (and no default architecture is set), which
// ImagePropertiesFilter passes without looking at a host.
func imagePropsKeepAll(b *batch) bool {
	return nova.ImageRequestsNothing(b.img, b.cfg.ImagePropertiesDefaultArchitecture)
}

func antiAffinityApply(b *batch, set *bitmap.Set) error {
	if antiAffinityKeepsAll(b) {
		return nil
	}
	g := b.group
	if g.maxPerHost <= 0 { // every host can fail
		return applyHost(b, set, antiAffinityPasses)
	}
	var one [1]uint32
	for nid, c := range g.count {
		if c >= g.maxPerHost && !b.hasInstance(nid, b.uuid) {
			for _, id := range b.s.info.nodesOf(nid, &one) {
				set.Remove(id)
			}
		}
	}
	return nil
}

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

func isolatedPasses(b *batch, id uint32) (bool, error) {
	cfg := b.cfg
	hostIso := slices.Contains(cfg.IsolatedHosts, b.s.info.hostOf(id))
	if len(cfg.IsolatedImages) == 0 {
		return !cfg.RestrictIsolatedHostsToIsolatedImages || !hostIso, nil
	}
	imgIso := b.req.Image.ID != nil && slices.Contains(cfg.IsolatedImages, *b.req.Image.ID)
	if cfg.RestrictIsolatedHostsToIsolatedImages {
		return imgIso == hostIso, nil
	}
	return !imgIso || hostIso, nil
}

// uuidHostsMask is the set of hosts running any of uuids (instance 0's
// view: once-per-request filters never see the batch's own placements).
func uuidHostsMask(b *batch, uuids []string) *bitmap.Set {
	m := b.set()
	var one [1]uint32
	for _, u := range uuids {
		for nid := range b.s.info.instances.NamesOf(u) {
			for _, id := range b.s.info.nodesOf(nid, &one) {
				m.Add(id)
			}
		}
	}
	return m
}

// imagePropsApply evaluates ImagePropertiesFilter once per distinct
// (supported_instances, hypervisor_version) signature, on a host of it
// that is in play, and removes the hosts of the failing signatures through
// the signature index. Nova evaluates hosts in order and raises at the
// first that raises; signatures are tried in order of their first host in
// play, so the same exception surfaces.
func imagePropsApply(b *batch, set *bitmap.Set) error {
	if imagePropsKeepAll(b) {
		return nil
	}
	info := b.s.info
	def := b.cfg.ImagePropertiesDefaultArchitecture
	key := fmt.Sprintf("image\x00%#v\x00%#v", def != nil, b.req.Image.Properties)
	if def != nil {
		key += "\x00" + *def
	}
	if m := memoMask(b, key, func(m *bitmap.Set) bool {
		// Every signature passes or fails whichever of its hosts is
		// asked; if none raises, the mask of the passing ones is the
		// filter's whole effect.
		pass := make([]uint64, len(info.hvSigHost))
		for sig, rep := range info.hvSigRep {
			ok, err := nova.ImagePropertiesCheck(b.img, def, info.supported(rep), info.hvVersion(rep))
			if err != nil {
				return false
			}
			if ok {
				pass[sig] = 1
			}
		}
		columnMaskInto(b, m, &info.hvSig, pass)
		return true
	}); m != nil {
		set.And(m)
		return nil
	}
	type trial struct {
		sig   int
		first uint32
	}
	var trials []trial
	for sig, hosts := range info.hvSigHost {
		it := hosts.Iterator()
		for it.HasNext() {
			if id := it.Next(); set.Has(id) {
				trials = append(trials, trial{sig, id})
				break
			}
		}
	}
	slices.SortFunc(trials, func(x, y trial) int { return cmp.Compare(x.first, y.first) })
	for _, t := range trials {
		ok, err := nova.ImagePropertiesCheck(b.img, def, info.supported(t.first), info.hvVersion(t.first))
		if err != nil {
			return pyError(err)
		}
		if !ok {
			it := info.hvSigHost[t.sig].Iterator()
			for it.HasNext() {
				set.Remove(it.Next())
			}
		}
	}
	return nil
}

var attrsPool = sync.Pool{New: func() any { return new(nova.HostAttrs) }}

func capabilitiesApply(b *batch, set *bitmap.Set) error {
	if noExtraSpecs(b) {
		return nil
	}
	specs := b.req.Flavor.ExtraSpecs
	if caps, ok := nova.IntCapabilities(specs); ok {
		// Numeric comparisons of integer attributes: read the columns,
		// no host view, no text.
		return bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
			for _, c := range caps {
				intCapPass(b, c, k, set.ShardWordsOf(k))
			}
			return nil
		})
	}
	// Host by host, with one memo per shard: hosts of one hardware model
	// share their cpu_info text and matches.
	return applyHostWith(b, set, func() func(*batch, uint32) (bool, error) {
		cache := nova.NewCapCache(specs)
		var h nova.HostAttrs
		return func(b *batch, id uint32) (bool, error) {
			b.attrs(id, &h)
			ok, err := nova.CapabilitiesCheckCached(cache, &h)
			return ok, pyError(err)
		}
	})
}

func jsonPasses(b *batch, id uint32) (bool, error) {
	h := attrsPool.Get().(*nova.HostAttrs)
	defer attrsPool.Put(h)
	b.attrs(id, h)
	ok, err := b.query.Eval(h)
	return ok, pyError(err)
}

// pyError turns what a Nova helper reports as a Python exception into the
// *NovaError PlaceBatch returns (Kind is the exception's class, as the
// oracle reports it).
func pyError(err error) error {
	if err == nil {
		return nil
	}
	var pe *nova.ErrPython
	if errors.As(err, &pe) {
		return &NovaError{Kind: pe.Exception, Msg: pe.Msg}
	}
	return &NovaError{Kind: "JsonFilterError", Msg: err.Error()}
}

// limitsOf is what Nova's resource filters leave in HostState.limits for a
// host that passed them all (none when forced: no filter ran).
func (b *batch) limitsOf(id uint32) Limits {
	if b.forced {
		return Limits{}
	}
	sh, j := b.s.at(id)
	return limitsOf(sh, j, b.filters)
}
