package nova

import (
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// PyFloat is Python's float(s) (pyval.Float), as the aggregate helpers
// below read a metadata value; the engine validates overrides with it.
func PyFloat(s string) (f float64, ok bool) { return pyval.Float(s) }

// AggregateMetadata is nova.scheduler.filters.utils.aggregate_metadata_get_by_host:
// key -> set of comma-split, stripped values over the host's aggregates
// (each value list sorted and de-duplicated).
type AggregateMetadata map[string][]string

// MetadataByHost builds AggregateMetadata from the metadata maps of a host's
// aggregates.
func MetadataByHost(aggMetadata []map[string]string) AggregateMetadata {
	sets := map[string]map[string]bool{}
	for _, md := range aggMetadata {
		for k, v := range md {
			s := sets[k]
			if s == nil {
				s = map[string]bool{}
				sets[k] = s
			}
			for _, x := range strings.Split(v, ",") {
				s[strings.TrimFunc(x, pyIsSpace)] = true
			}
		}
	}
	out := make(AggregateMetadata, len(sets))
	for k, s := range sets {
		vals := make([]string, 0, len(s))
		for v := range s {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		out[k] = vals
	}
	return out
}

// AggregateInstanceExtraSpecsPass is AggregateInstanceExtraSpecsFilter.
// Where Nova could raise (see AggregateInstanceExtraSpecsCheck) the host
// fails.
func AggregateInstanceExtraSpecsPass(extraSpecs map[string]string, meta AggregateMetadata) bool {
	ok, err := AggregateInstanceExtraSpecsCheck(extraSpecs, nil, meta) // the order cannot change a pass
	return ok && err == nil
}

// AggregateInstanceExtraSpecsCheck is AggregateInstanceExtraSpecsFilter
// with Nova's exceptions. Nova tries the aggregate values of a key in set
// order, which depends on Python's per-process string hashing, and a
// numeric operator raises ValueError on a value float() refuses; this
// passes a key when any value matches and returns the *ErrPython only when
// none matches and some value raised. Keys are walked in the flavor's
// order (SpecKeys).
func AggregateInstanceExtraSpecsCheck(extraSpecs map[string]string, order []string, meta AggregateMetadata) (bool, error) {
	if len(extraSpecs) == 0 {
		return true, nil
	}
	for _, fullKey := range SpecKeys(extraSpecs, order) {
		req := extraSpecs[fullKey]
		key := fullKey
		if scope, rest, found := strings.Cut(fullKey, ":"); found {
			if scope != "aggregate_instance_extra_specs" {
				continue
			}
			key = rest
		}
		vals := meta[key]
		if len(vals) == 0 {
			return false, nil
		}
		matched := false
		var firstErr error
		for _, v := range vals {
			ok, err := MatchErr(v, req)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if ok && err == nil {
				matched = true
				break
			}
		}
		if !matched {
			if firstErr != nil {
				return false, firstErr
			}
			return false, nil
		}
	}
	return true, nil
}

// AggregateNumValue is validate_num_values(aggregate_values_from_key(...),
// def, cast_to=float): the minimum of the values that all parse, else def
// (also when any value fails to parse). A NaN value makes the result
// depend on set order in Python; here NaN values are ignored unless all
// values are NaN.
func AggregateNumValue(values []string, def float64) float64 {
	if v, ok := AggregateNum(values); ok {
		return v
	}
	return def
}

// AggregateNum is AggregateNumValue apart from its default: the value,
// or false where AggregateNumValue returns def (the values depend on a
// host's aggregates, the default may not: a build resolves the values
// once per set of aggregates).
func AggregateNum(values []string) (float64, bool) {
	if len(values) == 0 {
		return 0, false
	}
	min := math.NaN()
	for _, v := range values {
		f, ok := pyval.Float(v)
		if !ok {
			return 0, false
		}
		if math.IsNaN(min) || f < min {
			min = f
		}
	}
	return min, true
}

// AggregateIntValue is the same with cast_to=int (IoOps/NumInstances
// aggregate filters): int("4") is 4, int("4.0") raises and def is used. A
// minimum outside the int64 range is saturated to it: Python keeps it
// exactly, and an int64 counter compares with the saturated bound as with
// the exact one (below every count, or above).
func AggregateIntValue(values []string, def int64) int64 {
	if v, ok := AggregateInt(values); ok {
		return v
	}
	return def
}

// AggregateInt is AggregateIntValue apart from its default, as
// AggregateNum is AggregateNumValue's.
func AggregateInt(values []string) (int64, bool) {
	if len(values) == 0 {
		return 0, false
	}
	var min *big.Int
	for _, v := range values {
		b, ok := pyval.BigInt(v)
		if !ok {
			return 0, false
		}
		if min == nil || b.Cmp(min) < 0 {
			min = b
		}
	}
	switch {
	case min.IsInt64():
		return min.Int64(), true
	case min.Sign() > 0:
		return math.MaxInt64, true
	}
	return math.MinInt64, true
}
