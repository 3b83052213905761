package nova

import (
	"math"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/placer/placer/internal/pyval"
)

// CapabilitiesPass is ComputeCapabilitiesFilter.host_passes for a flavor's
// extra_specs against one host. Where Nova would raise (see
// CapabilitiesCheck) the host fails.
func CapabilitiesPass(extraSpecs map[string]string, h *HostAttrs) bool {
	ok, err := CapabilitiesCheck(extraSpecs, h)
	return ok && err == nil
}

// CapabilitiesCheck is CapabilitiesPass with the exception Nova raises when
// an extra spec's numeric operator meets a value or operand that float()
// refuses (a *ErrPython). The extra specs are walked in sorted key order
// (Nova walks them in the flavor's order, which a Go map does not keep; the
// order only matters when one spec fails and another raises).
func CapabilitiesCheck(extraSpecs map[string]string, h *HostAttrs) (bool, error) {
	if len(extraSpecs) == 0 {
		return true, nil
	}
	var one [1]string
	keys := one[:0]
	for k := range extraSpecs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
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

// CapCache memoises, for one goroutine and one set of extra specs, what
// CapabilitiesCheck computes from values many hosts share: per spec, the
// outcome of walking a JSON attribute (cpu_info's vendor, features, ...)
// and matching what it reaches, and the match of an attribute's text.
// Hosts of one hardware model then cost a few map lookups. A walk from
// cpu_info is keyed by the HostAttrs.CPUInfo pointer: the text behind a
// pointer must not change while the cache is in use. The zero value is
// not usable: use NewCapCache.
type CapCache struct {
	steps []capStep
}

// capStep is one extra spec, pre-digested, with its memos.
type capStep struct {
	key   string
	scope []string
	rest  string // the walk after its first step, joined: a memo key
	req   string
	walk  map[capKey]capOutcome
	match map[string]capOutcome // by the capability's text
}

// capKey is a walk's memo key: the JSON text it starts from, by pointer
// when it is the host's cpu_info (hosts sharing a text share it: the
// engine interns cpu_info), else by value.
type capKey struct {
	ptr   *string
	first string
}

// capOutcome is a spec's outcome on a capability: not found, or the match.
type capOutcome struct {
	found bool
	ok    bool
	err   error
}

// NewCapCache returns an empty cache for the given extra specs (walked in
// sorted key order, as CapabilitiesCheck walks them).
func NewCapCache(extraSpecs map[string]string) *CapCache {
	c := &CapCache{}
	keys := make([]string, 0, len(extraSpecs))
	for k := range extraSpecs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sc := splitScope(k)
		walk := sc
		if len(sc) > 1 {
			walk = sc[1:] // past "capabilities" (other scopes are skipped)
		}
		c.steps = append(c.steps, capStep{
			key: k, scope: sc, rest: strings.Join(walk[1:], ":"), req: extraSpecs[k],
			walk: map[capKey]capOutcome{}, match: map[string]capOutcome{},
		})
	}
	return c
}

// CapabilitiesCheckCached is CapabilitiesCheck(c's extra specs, h) with
// c's memos; same result, same errors.
func CapabilitiesCheckCached(c *CapCache, h *HostAttrs) (bool, error) {
	for i := range c.steps {
		st := &c.steps[i]
		scope, evaluated := specScope(st.key, st.scope, h)
		if !evaluated {
			continue
		}
		o := st.outcome(h, scope)
		if !o.found {
			return false, nil
		}
		if o.err != nil {
			return false, o.err
		}
		if !o.ok {
			return false, nil
		}
	}
	return true, nil
}

// outcome is the spec's outcome on h's capability at scope.
func (st *capStep) outcome(h *HostAttrs, scope []string) capOutcome {
	first, found := h.capability(scope[:1])
	if !found {
		return capOutcome{}
	}
	if s, isText := first.(string); isText && len(scope) > 1 {
		// The walk from a text depends on the text alone.
		key := capKey{first: s}
		if scope[0] == "cpu_info" && h.CPUInfo != nil {
			key = capKey{ptr: h.CPUInfo} // no hashing of the text
		}
		o, ok := st.walk[key]
		if !ok {
			cap, found := h.capabilityFrom(first, scope[1:])
			o.found = found
			if found {
				o.ok, o.err = MatchErr(pyval.Str(cap), st.req)
			}
			st.walk[key] = o
		}
		return o
	}
	cap, found := h.capabilityFrom(first, scope[1:])
	if !found {
		return capOutcome{}
	}
	text := pyval.Str(cap)
	o, ok := st.match[text]
	if !ok {
		o.found = true
		o.ok, o.err = MatchErr(text, st.req)
		st.match[text] = o
	}
	return o
}

// CapabilitySpec is one extra spec as ComputeCapabilitiesFilter walks it,
// for callers that judge one spec on many hosts (CapabilitiesCheck walks
// them all on one host).
type CapabilitySpec struct {
	Key, Req string
	scope    []string
}

// CapabilitySpecs returns the extra specs in the order CapabilitiesCheck
// walks them (sorted by key).
func CapabilitySpecs(extraSpecs map[string]string) []CapabilitySpec {
	out := make([]CapabilitySpec, 0, len(extraSpecs))
	for k, v := range extraSpecs {
		out = append(out, CapabilitySpec{Key: k, Req: v, scope: splitScope(k)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
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
