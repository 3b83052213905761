package engine

import (
	"slices"
	"strings"

	"github.com/placer/placer/internal/nova"
)

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

// resolveClasses parses the classes' values buildShard resolves.
func resolveClasses(classes []aggClass) []classValues {
	out := make([]classValues, len(classes))
	num := func(cl *aggClass, key string) (o optional[float64]) {
		o.v, o.ok = nova.AggregateNum(cl.raw[key])
		return o
	}
	for i := range classes {
		cl, cv := &classes[i], &out[i]
		for r, key := range [...]string{"ram_allocation_ratio", "cpu_allocation_ratio", "disk_allocation_ratio"} {
			cv.ratio[r] = num(cl, key)
		}
		cv.maxIOOps.v, cv.maxIOOps.ok = nova.AggregateInt(cl.raw["max_io_ops_per_host"])
		cv.maxInstances.v, cv.maxInstances.ok = nova.AggregateInt(cl.raw["max_instances_per_host"])
		for w, key := range multiplierKeys {
			cv.mult[w] = num(cl, key)
		}
	}
	return out
}
