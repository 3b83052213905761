package nova

import (
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/placer/placer/internal/pyval"
)

// CapabilitiesPass is ComputeCapabilitiesFilter.host_passes for a flavor's
// extra_specs against one host. Where Nova would raise (see
// CapabilitiesCheck) the host fails.
func CapabilitiesPass(extraSpecs map[string]string, h *HostAttrs) bool {
	ok, err := CapabilitiesCheck(extraSpecs, nil, h) // the order cannot change a pass
	return ok && err == nil
}

// SpecKeys returns the keys of extraSpecs in the order Nova's filters walk
// them, the flavor's (flavor.extra_specs.items()): order's keys first (the
// keys as the flavor lists them; names that are not keys, and repeats,
// are skipped), then the keys order does not list, sorted (all of them
// when order is nil). The order matters only on a host where one spec
// fails and another raises: the first of them decides.
func SpecKeys(extraSpecs map[string]string, order []string) []string {
	keys := make([]string, 0, len(extraSpecs))
	for _, k := range order {
		if _, ok := extraSpecs[k]; ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == len(extraSpecs) {
		return keys
	}
	rest := len(keys)
	for k := range extraSpecs {
		if !slices.Contains(keys[:rest], k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[rest:])
	return keys
}

// CapabilitiesCheck is CapabilitiesPass with the exception Nova raises when
// an extra spec's numeric operator meets a value or operand that float()
// refuses (a *ErrPython). The extra specs are walked in SpecKeys(extraSpecs,
// order)'s order, the flavor's.
func CapabilitiesCheck(extraSpecs map[string]string, order []string, h *HostAttrs) (bool, error) {
	if len(extraSpecs) == 0 {
		return true, nil
	}
	for _, key := range SpecKeys(extraSpecs, order) {
		req := extraSpecs[key]
		scope, evaluated := specScope(key, splitScope(key), h)
		if !evaluated {
			continue
		}
		cap, found := h.capability(scope)
		if !found {
			return false, nil
		}
		ok, err := MatchErr(pyval.Str(cap), req)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// specScope is the walk ComputeCapabilitiesFilter makes for the extra spec
// key (split into scope) on h: past "capabilities:", or the bare key when
// it names an attribute or a stat of h. evaluated is false for the specs
// the filter skips: another scope, or a bare key h does not have.
func specScope(key string, scope []string, h *HostAttrs) (walk []string, evaluated bool) {
	if len(scope) == 1 {
		_, hasAttr := h.Attr(key)
		_, inStats := h.Stats[key]
		return scope, hasAttr || inStats
	}
	return scope[1:], scope[0] == "capabilities"
}

// hostMarker stands for the HostState itself at the start of the walk.
type hostMarker struct{}

// capability is ComputeCapabilitiesFilter._get_capabilities: found is
// false where Nova returns None.
func (h *HostAttrs) capability(scope []string) (any, bool) {
	return h.capabilityFrom(hostMarker{}, scope)
}

// capabilityFrom is the walk of capability from cap on.
func (h *HostAttrs) capabilityFrom(cap any, scope []string) (any, bool) {
	for _, name := range scope {
		if s, ok := cap.(string); ok {
			v, err := parseJSONCached(s)
			if err != nil {
				return nil, false
			}
			cap = v
		}
		switch c := cap.(type) {
		case hostMarker:
			v, ok := h.Attr(name)
			if !ok || v == nil {
				sv, ok := h.Stats[name]
				if !ok {
					return nil, false
				}
				v = sv
			}
			cap = v
		case *pyval.Dict:
			v, ok := c.Get(name)
			if !ok {
				return nil, false
			}
			cap = v
		case *pyval.Object:
			// getattr of an Instance of HostState.instances: its uuid is
			// set. Any other name fails: one the object lacks is None,
			// then .stats of it an AttributeError, as for any object
			// below; a field Nova would lazy-load from its database (a
			// value no scenario holds) is not modelled.
			if c.Type != "Instance" || name != "uuid" {
				return nil, false
			}
			v, err := instanceGet(c, name)
			if err != nil {
				return nil, false
			}
			cap = v
		default:
			// getattr(cap, name, None), then cap.stats: only the numeric
			// attributes of int/float exist; anything else has no stats
			// (AttributeError), so the lookup fails.
			v, ok := numberAttr(cap, name)
			if !ok {
				return nil, false
			}
			cap = v
		}
		if cap == nil {
			return nil, false
		}
	}
	return cap, true
}

// numberAttr is getattr(x, name) for Python numbers' data attributes.
func numberAttr(x any, name string) (any, bool) {
	var asInt any
	switch v := x.(type) {
	case bool:
		if v {
			asInt = int64(1)
		} else {
			asInt = int64(0)
		}
	case int64, *big.Int:
		asInt = v
	case *pyval.IPAddress:
		switch name {
		case "version":
			return int64(v.Version), true
		case "value":
			if v.Value.IsInt64() {
				return v.Value.Int64(), true
			}
			return v.Value, true
		}
		return nil, false
	case float64:
		switch name {
		case "real":
			return v, true
		case "imag":
			return 0.0, true
		}
		return nil, false
	default:
		return nil, false
	}
	switch name {
	case "real", "numerator":
		return asInt, true
	case "imag":
		return int64(0), true
	case "denominator":
		return int64(1), true
	}
	return nil, false
}

// scopeCache memoises splitting extra-spec keys on ':' (a request's keys
// are split once per host otherwise). The cached slices are shared: read
// only. It stops growing at scopeCacheMax keys.
var scopeCache struct {
	sync.RWMutex
	m map[string][]string
}

const scopeCacheMax = 4096

func splitScope(key string) []string {
	scopeCache.RLock()
	sc, ok := scopeCache.m[key]
	scopeCache.RUnlock()
	if ok {
		return sc
	}
	sc = strings.Split(key, ":")
	scopeCache.Lock()
	if scopeCache.m == nil {
		scopeCache.m = make(map[string][]string)
	}
	if len(scopeCache.m) < scopeCacheMax {
		scopeCache.m[key] = sc
	}
	scopeCache.Unlock()
	return sc
}

// IntCapability is one extra spec ComputeCapabilitiesFilter evaluates as a
// numeric comparison of an integer attribute of the host state: the host
// passes it iff float(str(value)) <Op> float(Arg), which for an int64
// value is float64(value) <Op> Arg (both conversions round to nearest).
type IntCapability struct {
	Attr string  // a HostAttrs integer attribute, e.g. "free_ram_mb"
	Op   string  // "=", ">=", "==", "!=" or "<="
	Arg  float64 // the operand, as Python's float() reads it
}

// Pass reports whether an attribute value passes the spec.
func (c IntCapability) Pass(v int64) bool { return c.Test()(float64(v)) }

// Test returns the spec's comparison of a value (already a float64) with
// its operand, the operator resolved once: for loops over many values.
func (c IntCapability) Test() func(x float64) bool {
	arg := c.Arg
	switch c.Op {
	case "=", ">=":
		return func(x float64) bool { return x >= arg }
	case "==":
		return func(x float64) bool { return x == arg }
	case "!=":
		return func(x float64) bool { return x != arg }
	default: // "<="
		return func(x float64) bool { return x <= arg }
	}
}

// Int32Range returns the int32 values that pass c as a closed range: v
// passes iff (lo <= v && v <= hi) != invert, where lo > hi is the empty
// range. It is Test on float64(v), which is exact for an int32, moved to
// the integers once, so that a column of int32 values is judged with
// integer compares (kernels.RangePass).
func (c IntCapability) Int32Range() (lo, hi int32, invert bool) {
	const emptyLo, emptyHi = 1, 0
	arg := c.Arg
	switch c.Op {
	case "=", ">=":
		switch {
		case arg != arg || arg > math.MaxInt32:
			return emptyLo, emptyHi, false
		case arg <= math.MinInt32:
			return math.MinInt32, math.MaxInt32, false
		}
		return int32(math.Ceil(arg)), math.MaxInt32, false
	case "<=":
		switch {
		case arg != arg || arg < math.MinInt32:
			return emptyLo, emptyHi, false
		case arg >= math.MaxInt32:
			return math.MinInt32, math.MaxInt32, false
		}
		return math.MinInt32, int32(math.Floor(arg)), false
	default: // "==", and "!=" its complement (NaN equals nothing)
		invert = c.Op == "!="
		if arg != math.Trunc(arg) || arg < math.MinInt32 || arg > math.MaxInt32 {
			return emptyLo, emptyHi, invert
		}
		return int32(arg), int32(arg), invert
	}
}

// intAttrs are the HostAttrs attributes whose value is always an int64.
var intAttrs = map[string]bool{
	"free_ram_mb": true, "free_disk_mb": true, "total_usable_ram_mb": true,
	"total_usable_disk_gb": true, "disk_mb_used": true, "vcpus_total": true,
	"vcpus_used": true, "num_instances": true, "num_io_ops": true, "failed_builds": true,
}

// IntCapabilities returns the extra specs CapabilitiesCheck evaluates when
// every one of them is an IntCapability (those it skips, of scopes other
// than "capabilities", are left out); ok is false otherwise, and the
// caller evaluates host by host. No IntCapability can raise: its operand
// parses and an integer's text always does.
func IntCapabilities(extraSpecs map[string]string) (caps []IntCapability, ok bool) {
	keys := make([]string, 0, len(extraSpecs))
	for k := range extraSpecs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		scope := splitScope(key)
		if len(scope) > 1 {
			if scope[0] != "capabilities" {
				continue
			}
			scope = scope[1:]
		}
		if len(scope) != 1 || !intAttrs[scope[0]] {
			return nil, false
		}
		words := pySplit(extraSpecs[key])
		if len(words) < 2 {
			return nil, false
		}
		switch words[0] {
		case "=", ">=", "==", "!=", "<=":
		default:
			return nil, false
		}
		arg, parsed := pyval.Float(words[1])
		if !parsed {
			return nil, false
		}
		caps = append(caps, IntCapability{Attr: scope[0], Op: words[0], Arg: arg})
	}
	return caps, true
}

// CapabilitySpec is one extra spec as ComputeCapabilitiesFilter walks it,
// for callers that judge one spec on many hosts (CapabilitiesCheck walks
// them all on one host).
type CapabilitySpec struct {
	Key, Req string
	scope    []string
}

// CapabilitySpecs returns the extra specs in the order CapabilitiesCheck
// walks them (SpecKeys).
func CapabilitySpecs(extraSpecs map[string]string, order []string) []CapabilitySpec {
	out := make([]CapabilitySpec, 0, len(extraSpecs))
	for _, k := range SpecKeys(extraSpecs, order) {
		out = append(out, CapabilitySpec{Key: k, Req: extraSpecs[k], scope: splitScope(k)})
	}
	return out
}

// Reads says what the spec reads of a host. skipped: the filter skips it
// on every host (a scope other than "capabilities"). Otherwise first is the
// first step of its walk: an attribute of the host state (AttrKindOf), or
// a stat where no attribute of that name exists or its value is None; and
// bare reports a key without scope, which the filter evaluates only on
// the hosts that have that attribute or stat.
func (s *CapabilitySpec) Reads() (first string, bare, skipped bool) {
	if len(s.scope) == 1 {
		return s.scope[0], true, false
	}
	if s.scope[0] != "capabilities" {
		return "", false, true
	}
	return s.scope[1], false, false
}

// Check is the spec on h: true when it passes or the filter skips it on
// h; an *ErrPython where Nova raises. CapabilitiesCheck is Check of each
// spec in order, stopping at the first that does not pass.
func (s *CapabilitySpec) Check(h *HostAttrs) (bool, error) {
	scope, evaluated := specScope(s.Key, s.scope, h)
	if !evaluated {
		return true, nil
	}
	cap, found := h.capability(scope)
	if !found {
		return false, nil
	}
	return MatchErr(pyval.Str(cap), s.Req)
}

// Int returns the spec as an IntCapability (a numeric comparison of an
// integer attribute of the host state, which never raises), when it is
// one.
func (s *CapabilitySpec) Int() (IntCapability, bool) {
	caps, ok := IntCapabilities(map[string]string{s.Key: s.Req})
	if !ok || len(caps) != 1 {
		return IntCapability{}, false
	}
	return caps[0], true
}
