package kernels

// The resource filters' predicates, as Nova's RamFilter, CoreFilter and
// DiskFilter (Stein) compute them, and their mask kernels: each clears, in
// a bitmap's words, the bits of the hosts that fail (bit t of words[q] is
// host 64q+t; the column slices are indexed by host). The SIMD versions
// compute the same IEEE operations on eight hosts at a time.

// RAMPasses is RamFilter: total RAM at least the request, and
// total*ratio - (total - free) >= req.
func RAMPasses(total, free int64, ratio float64, req int64) bool {
	if total < req {
		return false
	}
	limit := float64(float64(total) * ratio) // rounded: no fused multiply-subtract (arm64), as Python
	return limit-float64(total-free) >= float64(req)
}

// CorePasses is CoreFilter: a host reporting no vCPUs passes. Nova fails
// a host when free < requested, so a NaN ratio passes, where RamFilter
// and DiskFilter, which fail unless usable >= requested, reject it.
func CorePasses(total, used int64, ratio float64, req int64) bool {
	if total == 0 {
		return true
	}
	limit := float64(float64(total) * ratio) // rounded: no fused multiply-subtract (arm64), as Python
	if limit > 0 && req > total {
		return false
	}
	return !(limit-float64(used) < float64(req))
}

// DiskPasses is DiskFilter; req is in MB and includes swap.
func DiskPasses(totalGB, freeMB int64, ratio float64, req int64) bool {
	totalMB := totalGB * 1024
	if totalMB < req {
		return false
	}
	limit := float64(float64(totalMB) * ratio) // rounded, as Python
	return limit-float64(totalMB-freeMB) >= float64(req)
}

// RAMPass clears the bits of the hosts failing RAMPasses.
func RAMPass(words []uint64, total *Coded[int64], free []int32, ratio *Coded[float64], req int64) {
	ramPass(words, total, free, ratio, req)
}

// CorePass clears the bits of the hosts failing CorePasses.
func CorePass(words []uint64, total *Coded[int64], used []int32, ratio *Coded[float64], req int64) {
	corePass(words, total, used, ratio, req)
}

// DiskPass clears the bits of the hosts failing DiskPasses.
func DiskPass(words []uint64, totalGB *Coded[int64], freeMB []int32, ratio *Coded[float64], req int64) {
	diskPass(words, totalGB, freeMB, ratio, req)
}

// BelowPass clears the bits of the hosts whose counter is not below their
// limit: limits.At(i) when limits is not nil, else limit.
func BelowPass(words []uint64, counter []int32, limit int64, limits *Coded[int64]) {
	belowPass(words, counter, limit, limits)
}

// RangePass clears the bits of the hosts whose value is outside [lo, hi]
// (lo > hi: every host's), or with invert of those whose value is inside.
func RangePass(words []uint64, col []int32, lo, hi int32, invert bool) {
	rangePass(words, col, lo, hi, invert)
}

// RangePassPortable is RangePass without SIMD.
// One unsigned compare per host, without a branch: v is in [lo, hi] iff
// v-lo, wrapped, is at most hi-lo.
func RangePassPortable(words []uint64, col []int32, lo, hi int32, invert bool) {
	var flip uint64
	if invert {
		flip = ^uint64(0)
	}
	if lo > hi { // empty: no host is inside
		forWords(words, len(col), func(_ int, c []int32) uint64 { return flip >> (64 - len(c)) }, col)
		return
	}
	base, span := uint32(lo), uint32(hi)-uint32(lo)
	forWords(words, len(col), func(_ int, c []int32) uint64 {
		var in uint64
		for j, v := range c {
			// d <= span, both below 2^32, iff span-d does not wrap.
			d := uint64(uint32(v) - base)
			in |= ((uint64(span)-d)>>63 ^ 1) << j
		}
		return (in ^ flip) & (^uint64(0) >> (64 - len(c)))
	}, col)
}

// RAMPassPortable, CorePassPortable, DiskPassPortable and
// BelowPassPortable are the kernels without SIMD: per word of 64 hosts,
// the static columns are decoded into arrays on the stack, then the
// predicate (inlined) runs over them in a loop without calls.
// The three resource kernels are written out alike on purpose: sharing
// their walk through a function per word (passing the decoded arrays)
// measured twice as slow.
func RAMPassPortable(words []uint64, total *Coded[int64], free []int32, ratio *Coded[float64], req int64) {
	var t [64]int64
	var r [64]float64
	forWords(words, len(free), func(lo int, f []int32) uint64 {
		decodeWord(total, lo, &t)
		decodeWord(ratio, lo, &r)
		var keep uint64
		for j := range f {
			if RAMPasses(t[j], int64(f[j]), r[j], req) {
				keep |= 1 << j
			}
		}
		return keep
	}, free)
}

func CorePassPortable(words []uint64, total *Coded[int64], used []int32, ratio *Coded[float64], req int64) {
	var t [64]int64
	var r [64]float64
	forWords(words, len(used), func(lo int, u []int32) uint64 {
		decodeWord(total, lo, &t)
		decodeWord(ratio, lo, &r)
		var keep uint64
		for j := range u {
			if CorePasses(t[j], int64(u[j]), r[j], req) {
				keep |= 1 << j
			}
		}
		return keep
	}, used)
}

func DiskPassPortable(words []uint64, totalGB *Coded[int64], freeMB []int32, ratio *Coded[float64], req int64) {
	var t [64]int64
	var r [64]float64
	forWords(words, len(freeMB), func(lo int, f []int32) uint64 {
		decodeWord(totalGB, lo, &t)
		decodeWord(ratio, lo, &r)
		var keep uint64
		for j := range f {
			if DiskPasses(t[j], int64(f[j]), r[j], req) {
				keep |= 1 << j
			}
		}
		return keep
	}, freeMB)
}

func BelowPassPortable(words []uint64, counter []int32, limit int64, limits *Coded[int64]) {
	var l [64]int64
	forWords(words, len(counter), func(lo int, c []int32) uint64 {
		if limits != nil {
			decodeWord(limits, lo, &l)
		} else {
			for j := range c {
				l[j] = limit
			}
		}
		var keep uint64
		for j := range c {
			if int64(c[j]) < l[j] {
				keep |= 1 << j
			}
		}
		return keep
	}, counter)
}

// forWords calls word for every non-zero word of words with the hosts
// [lo, lo+64) it covers (fewer in the last; col is their slice of a column
// of n) and keeps in it the bits word returns; words past n are cleared.
func forWords(words []uint64, n int, word func(lo int, col []int32) uint64, col []int32) {
	for q, w := range words {
		if w == 0 {
			continue
		}
		lo := q * 64
		if lo >= n {
			words[q] = 0
			continue
		}
		words[q] = w & word(lo, col[lo:min(lo+64, n)])
	}
}

// decodeWord puts elements [lo, lo+64) of c (fewer at its end) in dst.
func decodeWord[T int64 | float64](c *Coded[T], lo int, dst *[64]T) {
	hi := min(lo+64, c.n)
	if c.full != nil {
		copy(dst[:], c.full[lo:hi])
		return
	}
	for i := lo; i < hi; i++ {
		dst[i-lo] = c.tab[c.codes[i>>3]>>(4*(i&7))&15]
	}
}

// fullWords is the number of words of words holding 64 hosts of n.
func fullWords(words []uint64, n int) int { return min(n/64, len(words)) }

// passRange is passGo over the words from word index q0 on.
func passRange(words []uint64, q0, n int, pass func(i int) bool) {
	for q := q0; q < len(words); q++ {
		w := words[q]
		if w == 0 {
			continue
		}
		var keep uint64
		for i, t := q*64, 0; t < 64 && i < n; i, t = i+1, t+1 {
			if pass(i) {
				keep |= 1 << t
			}
		}
		words[q] = w & keep
	}
}
