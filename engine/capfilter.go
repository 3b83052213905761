package engine

import (
	"errors"
	"math/bits"
	"strconv"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/nova"
)

// ComputeCapabilitiesFilter, spec by spec. Nova runs it once per request,
// on instance 0's host states: each spec, in key order, on each host,
// stopping at the first that fails or raises. What a spec reads decides
// how it is judged here:
//
//   - a static attribute (cpu_info, hypervisor_type and version, stats,
//     supported_instances, totals, ratios...): once per distinct value of
//     what it reads (staticVerdict), memoised per snapshot lineage by the
//     spec, then a mask: words, not hosts;
//   - a usage integer (free_ram_mb, num_instances...) compared as a
//     number: a pass over its column (intCapPass);
//   - anything else that changes with usage (the same integers with
//     another operator, the bound methods): host by host, on the host's
//     state now.
//
// Where every spec is of the first two kinds and none raises on any host,
// the filter is one fused stage (the AND of the static specs' masks, then
// the column passes); else it runs through capApply, which finds the host
// at which Nova raises first.

// capKind is how one spec is judged.
type capKind uint8

const (
	capSkipped capKind = iota // another scope: never evaluated
	capStatic                 // a verdict per distinct static value
	capInt                    // a usage integer, numerically: a column pass
	capUsage                  // a usage integer otherwise: by its value
	capDynamic                // host by host on its state now
)

// capSpec is one extra spec of the request, classified.
type capSpec struct {
	nova.CapabilitySpec
	kind  capKind
	parts keyParts           // capStatic
	ic    nova.IntCapability // capInt
	// attr is the usage attribute (capUsage), or the attribute the walk
	// reads first (capStatic).
	attr string
	// byAttr (capStatic): parts are attr's dictionary-coded part and the
	// stats, which the walk reads only where attr is None. The spec is
	// then judged once per code of that part where attr is set
	// (capLead).
	byAttr bool
}

// capSpecs classifies the request's extra specs, in the filter's order.
func capSpecs(b *batch) []capSpec {
	specs := nova.CapabilitySpecs(b.req.Flavor.ExtraSpecs, b.req.Flavor.ExtraSpecOrder)
	out := make([]capSpec, len(specs))
	for i, s := range specs {
		c := capSpec{CapabilitySpec: s}
		first, bare, skipped := s.Reads()
		kind := nova.AttrKindOf(first)
		switch {
		case skipped:
			c.kind = capSkipped
		case kind == nova.AttrUsage:
			if ic, ok := s.Int(); ok {
				c.kind, c.ic = capInt, ic
			} else {
				c.kind, c.attr = capUsage, first
			}
		case kind == nova.AttrDynamic:
			c.kind = capDynamic
		default:
			// A missing attribute, a None value and a bare key's
			// presence all send the walk to the stats.
			c.kind, c.parts, c.attr = capStatic, attrParts(first), first
			if kind == nova.AttrMissing || nova.AttrNullable(first) || bare {
				// (A lead part is the first column of the combinations,
				// below partStats.)
				c.byAttr = kind != nova.AttrMissing && (c.parts == partHVModel || c.parts == partSig)
				c.parts |= partStats
			}
		}
		out[i] = c
	}
	return out
}

// capVerdict is a static spec's verdict, memoised by the spec: its key
// and requirement quoted, since either may hold any character (joined
// raw, {"k": "v\x00w"} and {"k\x00v": "w"} shared a verdict).
func capVerdict(b *batch, c *capSpec) *verdict {
	return staticVerdict(b, "cap\x00"+strconv.Quote(c.Key)+strconv.Quote(c.Req), c.parts, capEval(b, c), capLead(b, c))
}

// capEval is static spec c on host id. A spec that reads nothing but the
// stats (an attribute the host state lacks, looked up in the stats, or
// the stats themselves) is judged on a host state holding only them:
// filling in the rest was most of the cost of judging each of the basic
// cloud's 1,345 distinct stats.
func capEval(b *batch, c *capSpec) func(id uint32) (bool, error) {
	if c.parts == partStats {
		info := b.s.info
		return func(id uint32) (bool, error) {
			h := nova.HostAttrs{Stats: info.statsOf(id)}
			return c.Check(&h)
		}
	}
	return func(id uint32) (bool, error) {
		var h nova.HostAttrs
		b.attrs(id, &h)
		return c.Check(&h)
	}
}

// capLead is static spec c's lead for comboVerdictInto, nil where it has
// none: a host whose attribute is present and set (not None) is judged
// by it alone. The walk reads the stats only in place of a missing or
// None attribute (nova.HostAttrs.capability), and a bare key's scope,
// which looks the key up in the stats too, is evaluated whenever the
// attribute is present (specScope).
func capLead(b *batch, c *capSpec) func(id uint32) bool {
	if !c.byAttr {
		return nil
	}
	return func(id uint32) bool {
		var h nova.HostAttrs
		b.attrs(id, &h)
		v, ok := h.Attr(c.attr)
		return ok && v != nil
	}
}

// capPlan is ComputeCapabilitiesFilter's fused stage for b's request (see
// above).
func capPlan(b *batch) (stage, bool) {
	if noExtraSpecs(b) {
		return stage{}, true
	}
	var passes []*bitmap.Set
	var ics []nova.IntCapability
	for _, c := range capSpecs(b) {
		switch c.kind {
		case capSkipped:
		case capInt:
			ics = append(ics, c.ic)
		case capStatic:
			v := capVerdict(b, &c)
			if v.raise != nil {
				return stage{}, false
			}
			passes = append(passes, v.pass)
		default:
			return stage{}, false
		}
	}
	var mask *bitmap.Set
	switch len(passes) {
	case 0:
	case 1:
		mask = passes[0]
	default:
		mask = b.set()
		mask.CopyFrom(passes[0])
		for _, p := range passes[1:] {
			mask.And(p)
		}
	}
	st := stage{mask: mask}
	if len(ics) > 0 {
		st.kernel = func(b *batch, k int, words []uint64) {
			for _, ic := range ics {
				intCapPass(b, ic, k, words)
			}
		}
	}
	return st, true
}

// capApply is ComputeCapabilitiesFilter over set, spec by spec in the
// filter's order, keeping the first host at which Nova raises: a host
// raises when the first spec it does not pass raises.
func capApply(b *batch, set *bitmap.Set) error {
	if noExtraSpecs(b) {
		return nil
	}
	raiseAt := -1
	raised := func(id uint32) {
		if raiseAt < 0 || int(id) < raiseAt {
			raiseAt = int(id)
		}
	}
	for _, c := range capSpecs(b) {
		switch c.kind {
		case capSkipped:
		case capStatic:
			v := capVerdict(b, &c)
			if v.raise != nil {
				if id, ok := firstCommon(set, v.raise); ok {
					raised(id)
				}
			}
			set.And(v.pass)
		case capInt:
			if err := bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
				intCapPass(b, c.ic, k, set.ShardWordsOf(k))
				return nil
			}); err != nil {
				return err
			}
		default:
			id, ok, err := capHostByHost(b, set, &c)
			if err != nil {
				return err
			}
			if ok {
				raised(id)
			}
		}
	}
	if raiseAt < 0 {
		return nil
	}
	// Nova raises at that host: its walk over every spec gives the
	// exception.
	var h nova.HostAttrs
	b.attrs(uint32(raiseAt), &h)
	_, err := nova.CapabilitiesCheck(b.req.Flavor.ExtraSpecs, b.req.Flavor.ExtraSpecOrder, &h)
	if err == nil {
		return errors.New("engine: ComputeCapabilitiesFilter: no exception where the specs raise")
	}
	return pyError(err)
}

// capHostByHost judges spec c on each host of set now (a usage integer by
// its value, once per distinct value in a shard; anything else on the
// host's view), removing the hosts that fail or raise; it returns the
// first host that raises.
func capHostByHost(b *batch, set *bitmap.Set, c *capSpec) (uint32, bool, error) {
	firsts := make([]int, set.Shards())
	err := bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
		firsts[k] = -1
		byValue := map[int64]outcome{}
		var h nova.HostAttrs
		words := set.ShardWordsOf(k)
		base := k * bitmap.ShardSize
		for wi, w := range words {
			for ; w != 0; w &= w - 1 {
				t := bits.TrailingZeros64(w)
				id := uint32(base + wi*64 + t)
				var o outcome
				if c.kind == capUsage {
					v := b.intAttr(c.attr, id)
					var seen bool
					if o, seen = byValue[v]; !seen {
						b.attrs(id, &h)
						o.passes, o.err = c.Check(&h)
						byValue[v] = o
					}
				} else {
					b.attrs(id, &h)
					o.passes, o.err = c.Check(&h)
				}
				if o.err != nil && firsts[k] < 0 {
					firsts[k] = int(id)
				}
				if o.err != nil || !o.passes {
					words[wi] &^= 1 << t
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	for _, f := range firsts {
		if f >= 0 {
			return uint32(f), true, nil
		}
	}
	return 0, false, nil
}
