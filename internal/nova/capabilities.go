package nova

import (
	"math/big"
	"sort"
	"strings"
	"sync"
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
		scope := splitScope(key)
		if len(scope) == 1 {
			_, hasAttr := h.Attr(key)
			_, inStats := h.Stats[key]
			if !hasAttr && !inStats {
				continue
			}
		} else {
			if scope[0] != "capabilities" {
				continue
			}
			scope = scope[1:]
		}
		cap, found := h.capability(scope)
		if !found {
			return false, nil
		}
		ok, err := MatchErr(PyStr(cap), req)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
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
		case *Object:
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
	case *IPAddress:
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
func (c IntCapability) Pass(v int64) bool {
	x := float64(v)
	switch c.Op {
	case "=", ">=":
		return x >= c.Arg
	case "==":
		return x == c.Arg
	case "!=":
		return x != c.Arg
	default: // "<="
		return x <= c.Arg
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
		arg, parsed := PyFloat(words[1])
		if !parsed {
			return nil, false
		}
		caps = append(caps, IntCapability{Attr: scope[0], Op: words[0], Arg: arg})
	}
	return caps, true
}

// CapCache memoises, for one goroutine and one set of extra specs, what
// CapabilitiesCheck computes from values many hosts share: the text of a
// capability reached by walking a JSON attribute (cpu_info's vendor,
// features, ...) and the result of matching a text against a spec. Hosts
// of one hardware model then cost a few map lookups. The zero value is
// not usable: use NewCapCache.
type CapCache struct {
	specs map[string]string
	steps []capStep
	text  map[capKey]capText
	match map[matchKey]matchVal
}

// capStep is one extra spec, pre-digested: its key's scope and request.
type capStep struct {
	key   string
	scope []string
	rest  string // the walk after its first step, joined: a memo key
	req   string
}

type capKey struct{ first, rest string }

type capText struct {
	s     string
	found bool
}

type matchKey struct{ value, req string }

type matchVal struct {
	ok  bool
	err error
}

// NewCapCache returns an empty cache for the given extra specs (walked in
// sorted key order, as CapabilitiesCheck walks them).
func NewCapCache(extraSpecs map[string]string) *CapCache {
	c := &CapCache{specs: extraSpecs, text: map[capKey]capText{}, match: map[matchKey]matchVal{}}
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
		c.steps = append(c.steps, capStep{key: k, scope: sc, rest: strings.Join(walk[1:], ":"), req: extraSpecs[k]})
	}
	return c
}

// CapabilitiesCheckCached is CapabilitiesCheck(c's extra specs, h) with
// c's memos; same result, same errors.
func CapabilitiesCheckCached(c *CapCache, h *HostAttrs) (bool, error) {
	for i := range c.steps {
		st := &c.steps[i]
		scope := st.scope
		if len(scope) == 1 {
			_, hasAttr := h.Attr(st.key)
			_, inStats := h.Stats[st.key]
			if !hasAttr && !inStats {
				continue
			}
		} else {
			if scope[0] != "capabilities" {
				continue
			}
			scope = scope[1:]
		}
		text, found := c.capabilityText(h, scope, st.rest)
		if !found {
			return false, nil
		}
		mk := matchKey{text, st.req}
		m, ok := c.match[mk]
		if !ok {
			m.ok, m.err = MatchErr(text, st.req)
			c.match[mk] = m
		}
		if m.err != nil {
			return false, m.err
		}
		if !m.ok {
			return false, nil
		}
	}
	return true, nil
}

// capabilityText is str() of h's capability at scope, memoised when the
// walk goes on from a string (a JSON attribute) shared by many hosts; rest
// is scope[1:] joined.
func (c *CapCache) capabilityText(h *HostAttrs, scope []string, rest string) (string, bool) {
	first, found := h.capability(scope[:1])
	if !found {
		return "", false
	}
	s, isText := first.(string)
	if len(scope) == 1 || !isText {
		cap, found := h.capabilityFrom(first, scope[1:])
		if !found {
			return "", false
		}
		return PyStr(cap), true
	}
	key := capKey{s, rest}
	t, ok := c.text[key]
	if !ok {
		cap, found := h.capabilityFrom(first, scope[1:])
		t.found = found
		if found {
			t.s = PyStr(cap)
		}
		c.text[key] = t
	}
	return t.s, t.found
}
