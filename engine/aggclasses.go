package engine

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/nova"
)

// ratioKeys are the aggregate metadata keys of the allocation ratios the
// Aggregate resource filters read, in resRAM, resCore, resDisk order.
var ratioKeys = [...]string{"ram_allocation_ratio", "cpu_allocation_ratio", "disk_allocation_ratio"}

// limitsFrom is an aggregate class's aggClass.limitFrom: for each
// Aggregate* rule's key, the aggregates (of aggs, raw the class's raw
// values) holding the value the rule applies.

func limitsFrom(c *Cloud, aggs []int, raw map[string][]string) map[string][]string {
	var from map[string][]string
	for _, r := range resourceRules {
		if r.aggKey == "" || len(raw[r.aggKey]) == 0 {
			continue
		}
		// value is what the rule applies given vals and its default def,
		// as buildShard computes it; two defaults tell a fallback.
		value := func(vals []string, def float64) float64 {
			if r.limits != nil {
				return float64(nova.AggregateIntValue(vals, int64(def)))
			}
			return nova.AggregateNumValue(vals, def)
		}
		applied := value(raw[r.aggKey], 0)
		if applied != value(raw[r.aggKey], 1) {
			continue // a value did not parse: the default applies
		}
		var names []string
		for _, a := range aggs {
			if v, ok := c.Aggregates[a].Metadata[r.aggKey]; ok && value([]string{v}, 0) == applied {
				names = append(names, strings.Clone(c.Aggregates[a].Name))
			}
		}
		if names != nil {
			if from == nil {
				from = map[string][]string{}
			}
			slices.Sort(names)
			from[r.aggKey] = names
		}
	}
	return from
}

// classValues is what an aggregate class's metadata says of the values
// buildShard resolves per host, parsed once per class: each ok where the
// aggregates' value applies, not the host's own or the configuration's.
type classValues struct {
	ratio                  [3]optional[float64] // ram, cpu, disk allocation ratios
	maxIOOps, maxInstances optional[int64]
	mult                   [numWeighers]optional[float64] // multiplierKeys
}

// optional is a value, if ok.
type optional[T any] struct {
	v  T
	ok bool
}

func (o optional[T]) or(def T) T {
	if o.ok {
		return o.v
	}
	return def
}

// sameClassValues reports whether a and b are the same values, bit for
// bit (the shards' coded columns tell -0 from 0).
func sameClassValues(a, b []classValues) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameClassValue(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// sameClassValue reports whether x and y are the same values, bit for bit.
func sameClassValue(x, y *classValues) bool {
	same := func(x, y optional[float64]) bool {
		return x.ok == y.ok && math.Float64bits(x.v) == math.Float64bits(y.v)
	}
	if x.maxIOOps != y.maxIOOps || x.maxInstances != y.maxInstances {
		return false
	}
	for r := range x.ratio {
		if !same(x.ratio[r], y.ratio[r]) {
			return false
		}
	}
	for w := range x.mult {
		if !same(x.mult[w], y.mult[w]) {
			return false
		}
	}
	return true
}

// resolveClasses parses the classes' values buildShard resolves.
func resolveClasses(classes []aggClass) []classValues {
	out := make([]classValues, len(classes))
	for i := range classes {
		out[i] = resolveClass(classes[i].raw)
	}
	return out
}

// resolveClass parses the values buildShard resolves of a class whose
// aggregates' raw values per key are raw (aggregateValues).
func resolveClass(raw map[string][]string) (cv classValues) {
	num := func(key string) (o optional[float64]) {
		o.v, o.ok = nova.AggregateNum(raw[key])
		return o
	}
	for r, key := range ratioKeys {
		cv.ratio[r] = num(key)
	}
	cv.maxIOOps.v, cv.maxIOOps.ok = nova.AggregateInt(raw["max_io_ops_per_host"])
	cv.maxInstances.v, cv.maxInstances.ok = nova.AggregateInt(raw["max_instances_per_host"])
	for w, key := range multiplierKeys {
		cv.mult[w] = num(key)
	}
	return cv
}

// buildAggClasses groups hosts by their set of aggregates (membership is by
// host name, as in Nova). A derived host (d) is in the set of aggregates
// it was in: a Store's rebuild changes no aggregate's hosts, and appends
// the aggregates it makes.
func buildAggClasses(c *Cloud, info *hostInfo, d *derivation) {
	n := len(c.Hosts)
	// The aggregates of the host names not derived, ascending.
	aggsOfName := map[string][]int{}
	for i := range c.Hosts {
		if d.oldID(i) < 0 {
			aggsOfName[c.Hosts[i].Host] = nil
		}
	}
	if len(aggsOfName) > 0 {
		for a, agg := range c.Aggregates {
			for _, h := range agg.Hosts {
				if l, ok := aggsOfName[h]; ok && !slices.Contains(l, a) {
					aggsOfName[h] = append(l, a)
				}
			}
		}
	}
	byKey := map[string]int32{} // the aggregates' indexes, uvarints
	var buf []byte
	// classOf returns the class of the aggregates aggs (ascending),
	// making it on first use: from prev's class kept when not nil.
	classOf := func(aggs []int, kept *aggClass) int32 {
		buf = aggsKey(buf[:0], aggs)
		if cid, ok := byKey[string(buf)]; ok {
			return cid
		}
		cid := int32(len(info.classes))
		byKey[string(buf)] = cid
		info.classes = append(info.classes, keptAggClass(c, kept, aggs, roaring.New()))
		return cid
	}
	same := d.sameAggregates(c.Aggregates)
	// keptClassOf is classOf for prev's class x, whose metadata and
	// limits are prev's when its aggregates are (a host added or removed
	// changes neither): those parse every aggregate's metadata, per class.
	keptClassOf := func(x uint64) int32 {
		p, kept := &d.prev.classes[x], &d.prev.classes[x]
		if !allOf(same, p.aggs) {
			kept = nil
		}
		return classOf(p.aggs, kept)
	}
	class := hostcols.NewIdxBuilder(n)
	for i := 0; i < n; i++ {
		var cid int32
		if o := d.oldID(i); o >= 0 {
			x := d.prev.class.At(uint32(o))
			cid = remapped(d.classes, x, func() int32 { return keptClassOf(x) })
		} else {
			cid = classOf(aggsOfName[c.Hosts[i].Host], nil)
		}
		class.Set(uint32(i), uint64(cid))
		info.classes[cid].hosts.Add(uint32(i))
	}
	info.class = class.Done()
	for i := range info.classes {
		info.classes[i].hosts.RunOptimize()
	}
}

// aggsKey appends to buf the key of the aggregates aggs in a class map:
// their indexes as uvarints.
func aggsKey(buf []byte, aggs []int) []byte {
	for _, a := range aggs {
		buf = binary.AppendUvarint(buf, uint64(a))
	}
	return buf
}

// sameAggregates reports, per aggregate of aggs (a rebuild's cloud's),
// whether it has the name and metadata of the aggregate of its index in
// d.prevAggs (nil: d is nil).
func (d *derivation) sameAggregates(aggs []Aggregate) []bool {
	if d == nil {
		return nil
	}
	same := make([]bool, len(aggs))
	for a := range min(len(aggs), len(d.prevAggs)) {
		same[a] = aggs[a].Name == d.prevAggs[a].Name && maps.Equal(aggs[a].Metadata, d.prevAggs[a].Metadata)
	}
	return same
}

// allOf reports whether same holds for every index of aggs.
func allOf(same []bool, aggs []int) bool {
	for _, a := range aggs {
		if !same[a] {
			return false
		}
	}
	return true
}

// aggregateValues is the raw values per key of the aggregates aggs
// (indexes into all), as aggregate_values_from_key collects them: each
// distinct value once, in the aggregates' order.
func aggregateValues(all []Aggregate, aggs []int) map[string][]string {
	raw := map[string][]string{}
	for _, a := range aggs {
		for k, v := range all[a].Metadata {
			if !slices.Contains(raw[k], v) {
				raw[k] = append(raw[k], v)
			}
		}
	}
	return raw
}

// keptAggClass is newAggClass, but for a class whose aggregates are
// unchanged since kept, prev's class of them, was made (nil: none): its
// metadata and limit sources, parsed per class, are kept's; its raw
// values are read again (the shards resolve them, then they are dropped).
func keptAggClass(c *Cloud, kept *aggClass, aggs []int, hosts *roaring.Bitmap) aggClass {
	if kept == nil {
		return newAggClass(c, aggs, hosts)
	}
	return aggClass{aggs: aggs, meta: kept.meta, raw: aggregateValues(c.Aggregates, aggs), hosts: hosts, limitFrom: kept.limitFrom}
}

// newAggClass returns the class of the aggregates aggs (indexes into
// c.Aggregates, ascending) with their metadata as c has it, and hosts as
// its inverted index entry.
func newAggClass(c *Cloud, aggs []int, hosts *roaring.Bitmap) aggClass {
	metas := make([]map[string]string, len(aggs))
	for j, a := range aggs {
		metas[j] = c.Aggregates[a].Metadata
	}
	raw := aggregateValues(c.Aggregates, aggs)
	return aggClass{
		aggs: aggs, meta: nova.MetadataByHost(metas), raw: raw, hosts: hosts,
		limitFrom: limitsFrom(c, aggs, raw),
	}
}
