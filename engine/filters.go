package engine

import (
	"errors"
	"math/bits"
	"slices"

	"github.com/placer/placer/bitmap"
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
// mask, kernel and plan are the forms runChain fuses into one pass over
// the shards (applyFused, stageOf). mask, for filters that read only the
// snapshot's static host data, returns the set of the hosts that pass
// (nil: all); kernel is the column version of host; plan, for filters
// whose form depends on the request, returns the stage it takes for b's
// request, or false when the filter must run through apply. keepsAll,
// when set, reports that the filter keeps every host for b's request
// (Nova's filter returns before looking at a host), so runChain records
// it without a pass.
type filterImpl struct {
	name string
	idx  int // in KnownFilters
	// afterTwin, for a ratio rule, is its kernel for a set whose hosts all
	// passed its twin (resources.go, Twin ratio rules), twinIdx the twin's
	// index.
	afterTwin shardKernel
	twinIdx   int
	// rule is a resource filter's rule, whose fits its host and kernel
	// judge by (nil for the other filters).
	rule     *resourceRule
	once     bool
	mask     func(b *batch) *bitmap.Set
	kernel   shardKernel
	plan     func(b *batch) (stage, bool)
	keepsAll func(b *batch) bool
	apply    func(b *batch, set *bitmap.Set) error
	host     func(b *batch, id uint32) (bool, error)
	whole    func(b *batch, set *bitmap.Set) bool
}

// fusable reports whether runChain may run f inside a fused pass (a plan
// may still refuse for a request: see stageOf).
func (f *filterImpl) fusable() bool { return f.kernel != nil || f.mask != nil || f.plan != nil }

// filterByName holds the catalogue's filters by name.
var filterByName = map[string]*filterImpl{}

// catalogueSize is the number of filters of KnownFilters (FilterCatalogue
// and BaremetalFilters).
const catalogueSize = 31

// filterTable holds the known filters by index in KnownFilters.
var filterTable [catalogueSize]*filterImpl

// register adds f to the catalogue, completing the forms of it that can
// be derived from the others.
func register(f *filterImpl) {
	f.once = OncePerRequest(f.name)
	if f.apply == nil && f.mask != nil {
		f.apply = applyMask(f.mask)
	}
	if f.apply == nil && f.kernel != nil {
		// runChain runs column filters in fused runs; alone, one is a run
		// of one.
		f.apply = func(b *batch, set *bitmap.Set) error {
			_, _, err := b.applyFused(set, []stage{{f: f, kernel: f.kernel, retest: f.host}}, false)
			return err
		}
	}
	if f.apply == nil {
		host := f.host
		f.apply = func(b *batch, set *bitmap.Set) error { return applyHost(b, set, host) }
	}
	f.idx = slices.Index(KnownFilters, f.name)
	filterByName[f.name] = f
	filterTable[f.idx] = f
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
	register(&filterImpl{name: AggregateInstanceExtraSpecsFilter, keepsAll: noExtraSpecs, plan: aggSpecsPlan, apply: aggSpecsApply})
	register(&filterImpl{name: AggregateImagePropertiesIsolation, mask: aggImagePropsMask})
	register(&filterImpl{name: IsolatedHostsFilter, mask: isolatedMask})
	register(&filterImpl{name: ImagePropertiesFilter, keepsAll: imagePropsKeepAll, plan: imagePropsPlan, apply: imagePropsApply})
	register(&filterImpl{name: ComputeCapabilitiesFilter, keepsAll: noExtraSpecs, plan: capPlan, apply: capApply})
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
	register(&filterImpl{name: SimpleCIDRAffinityFilter, keepsAll: noNearHost, plan: cidrPlan, apply: cidrApply})
	register(&filterImpl{name: MetricsFilter, plan: metricsPlan, apply: func(b *batch, set *bitmap.Set) error {
		return applyHost(b, set, func(b *batch, id uint32) (bool, error) {
			if b.s.info.isIronic(id) { // metrics None: iterating them raises
				return false, &NovaError{Kind: "TypeError", Msg: "'NoneType' object is not iterable"}
			}
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
	register(&filterImpl{name: JsonFilter, keepsAll: noQuery, plan: jsonPlan, apply: jsonApply,
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
	f := &filterImpl{name: name, rule: rule,
		kernel: func(b *batch, k int, words []uint64) { rule.pass(b.s.shards[k], &b.claim, b.cfg, words) },
		host: func(b *batch, id uint32) (bool, error) {
			sh, j := b.s.at(id)
			r := b.cur(id)
			return rule.fits(sh, j, &r, &b.claim, b.cfg), nil
		}}
	if rule.twin != "" {
		f.afterTwin = func(b *batch, k int, words []uint64) { rule.passAfterTwin(b.s.shards[k], &b.claim, b.cfg, words) }
		f.twinIdx = slices.Index(KnownFilters, rule.twin)
	}
	register(f)
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
// host that passed them all: each enabled resource filter, in filter
// order, sets its key (the later of a plain and an Aggregate variant
// wins); none when forced (no filter ran).
func (b *batch) limitsOf(id uint32) Limits {
	var l Limits
	if b.forced {
		return l
	}
	sh, j := b.s.at(id)
	for _, r := range b.s.rules {
		r.limitInto(&l, sh, j)
	}
	return l
}
