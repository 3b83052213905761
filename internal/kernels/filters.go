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
	limit := float64(total) * ratio
	return limit-float64(total-free) >= float64(req)
}

// CorePasses is CoreFilter: a host reporting no vCPUs passes. Nova fails
// a host when free < requested, so a NaN ratio passes, where RamFilter
// and DiskFilter, which fail unless usable >= requested, reject it.
func CorePasses(total, used int64, ratio float64, req int64) bool {
	if total == 0 {
		return true
	}
	limit := float64(total) * ratio
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
	limit := float64(totalMB) * ratio
	return limit-float64(totalMB-freeMB) >= float64(req)
}

// RAMPass clears the bits of the hosts failing RAMPasses.
func RAMPass(words []uint64, total *Coded[int64], free []int64, ratio *Coded[float64], req int64) {
	ramPass(words, total, free, ratio, req)
}

// CorePass clears the bits of the hosts failing CorePasses.
func CorePass(words []uint64, total *Coded[int64], used []int64, ratio *Coded[float64], req int64) {
	corePass(words, total, used, ratio, req)
}

// DiskPass clears the bits of the hosts failing DiskPasses.
func DiskPass(words []uint64, totalGB *Coded[int64], freeMB []int64, ratio *Coded[float64], req int64) {
	diskPass(words, totalGB, freeMB, ratio, req)
}

// BelowPass clears the bits of the hosts whose counter is not below their
// limit: limits.At(i) when limits is not nil, else limit.
func BelowPass(words []uint64, counter []int64, limit int64, limits *Coded[int64]) {
	belowPass(words, counter, limit, limits)
}

// RAMPassPortable, CorePassPortable, DiskPassPortable and
// BelowPassPortable are the kernels without SIMD.
func RAMPassPortable(words []uint64, total *Coded[int64], free []int64, ratio *Coded[float64], req int64) {
	if t, r := total.Full(), ratio.Full(); t != nil && r != nil {
		passGo(words, len(free), func(i int) bool { return RAMPasses(t[i], free[i], r[i], req) })
		return
	}
	passGo(words, len(free), func(i int) bool { return RAMPasses(total.At(i), free[i], ratio.At(i), req) })
}

func CorePassPortable(words []uint64, total *Coded[int64], used []int64, ratio *Coded[float64], req int64) {
	if t, r := total.Full(), ratio.Full(); t != nil && r != nil {
		passGo(words, len(used), func(i int) bool { return CorePasses(t[i], used[i], r[i], req) })
		return
	}
	passGo(words, len(used), func(i int) bool { return CorePasses(total.At(i), used[i], ratio.At(i), req) })
}

func DiskPassPortable(words []uint64, totalGB *Coded[int64], freeMB []int64, ratio *Coded[float64], req int64) {
	if t, r := totalGB.Full(), ratio.Full(); t != nil && r != nil {
		passGo(words, len(freeMB), func(i int) bool { return DiskPasses(t[i], freeMB[i], r[i], req) })
		return
	}
	passGo(words, len(freeMB), func(i int) bool { return DiskPasses(totalGB.At(i), freeMB[i], ratio.At(i), req) })
}

func BelowPassPortable(words []uint64, counter []int64, limit int64, limits *Coded[int64]) {
	if limits != nil {
		if l := limits.Full(); l != nil {
			passGo(words, len(counter), func(i int) bool { return counter[i] < l[i] })
			return
		}
		passGo(words, len(counter), func(i int) bool { return counter[i] < limits.At(i) })
		return
	}
	passGo(words, len(counter), func(i int) bool { return counter[i] < limit })
}

// passGo keeps, in every non-zero word, the bits of the hosts [from, n)
// that pass.
func passGo(words []uint64, n int, pass func(i int) bool) {
	passRange(words, 0, n, pass)
}

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
