package nova

import "sync"

// jsonCache memoises ParseJSON for the JSON texts capability lookups walk
// into (cpu_info, mostly): a cloud has thousands of hosts but only a few
// distinct cpu_info texts, and parsing one costs far more than matching.
// The parsed values are shared, so nothing may modify them (no function of
// this package does). The cache stops growing at jsonCacheMax entries.
var jsonCache struct {
	sync.RWMutex
	m map[string]jsonParsed
}

type jsonParsed struct {
	v   any
	err error
}

const jsonCacheMax = 4096

// parseJSONCached is ParseJSON through jsonCache.
func parseJSONCached(text string) (any, error) {
	jsonCache.RLock()
	p, ok := jsonCache.m[text]
	jsonCache.RUnlock()
	if ok {
		return p.v, p.err
	}
	v, err := ParseJSON(text)
	jsonCache.Lock()
	if jsonCache.m == nil {
		jsonCache.m = make(map[string]jsonParsed)
	}
	if len(jsonCache.m) < jsonCacheMax {
		jsonCache.m[text] = jsonParsed{v, err}
	}
	jsonCache.Unlock()
	return v, err
}
