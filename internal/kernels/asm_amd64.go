//go:build amd64 && !purego

package kernels

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The assembly kernels (kernels_amd64.s, written by asmgen with avo) in
// AVX2 and AVX-512 versions, and the Go that calls them: each takes the
// part of its slices that whole vectors (eight elements, or words of 64
// hosts, or blocks) cover and leaves the rest to the scalar code the
// archsimd kernels end with.

//go:generate sh -c "cd asmgen && go run . -out ../kernels_amd64.s -stubs ../kernels_stub_amd64.go -pkg kernels"

// hasAVX2 and hasAVX512 report whether the CPU (and the OS) can run the
// AVX2 and the AVX-512 kernels: the latter use AVX512F, DQ (VCVTQQ2PD,
// VRANGEPD, KMOVB), BW (KMOVQ, KSHIFTRQ) and VL, which every AVX-512
// server CPU has.
var (
	hasAVX2 = cpu.X86.HasAVX2
	// The AVX-512 kernels use AVX2's VEX instructions on Y registers too.
	hasAVX512 = cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
	// hasFMA is whether the AVX2 path may run the quotient kernels (the
	// Q variants, quotient.go); AVX-512F has FMA.
	hasFMA = cpu.X86.HasFMA
)

// quot reports whether the accumulation of (raw-lo)/span may run the
// kernels without a division on the AVX-512 (z) or the AVX2 path.
func quot(z bool, raw *Col, lo, span float64) bool {
	return (z || hasFMA) && !quotientOff && QuotientExact(raw, lo, span)
}

// The kinds of Col the assembly loads (colArg.kind).
const (
	asmFloats        = iota // f
	asmInts                 // max(i, min)
	asmIntHeadroom          // max(j - i, 0), exact in float64
	asmStatic               // tab[code] (a coded Static column)
	asmHeadroomFull         // max(f - i, 0)
	asmHeadroomCoded        // max(tab[code] - i, 0)
)

// colArg is a Col as the assembly reads it: the pointers to its element
// 0 (a coded column's codes at its offset, which is a multiple of 8).
type colArg struct {
	kind  int
	f     *float64
	i     *int32
	j     *int32
	codes *uint32
	tab   *[CodedValues]float64
	split *splitTable
	min   int32
}

// opArg holds an accumulation's multipliers and constants (those its
// operation reads).
type opArg struct {
	mult              *float64
	codes             *uint32
	tab               *[CodedValues]float64
	split             *splitTable
	m, lo, span, base float64
	inv               float64
}

// codedArg is a Coded column (of int64s or float64s: their bits) as the
// pass kernels read it: full, or codes and tab.
type codedArg struct {
	full  *uint64
	codes *uint32
	tab   *[CodedValues]uint64
	split *splitTable
}

// coded returns c's codedArg, with st holding its split table.
func coded[T int64 | float64](c *Coded[T], st *splitTable) codedArg {
	if c.full != nil {
		return codedArg{full: (*uint64)(unsafe.Pointer(unsafe.SliceData(c.full)))}
	}
	tab := (*[CodedValues]uint64)(unsafe.Pointer(c.tab))
	return codedArg{codes: unsafe.SliceData(c.codes), tab: tab, split: st.of(tab)}
}

// splitTable is a coded column's table as the AVX2 kernels read it (two
// VPERMDs of eight dwords each per half): the low dwords of its sixteen
// values, then their high dwords. The kernels' callers fill one on their
// stack per call.
type splitTable [2 * CodedValues]uint32

func (st *splitTable) of(tab *[CodedValues]uint64) *splitTable {
	for k, x := range tab {
		st[k], st[CodedValues+k] = uint32(x), uint32(x>>32)
	}
	return st
}

func floatTable(tab *[CodedValues]float64) *[CodedValues]uint64 {
	return (*[CodedValues]uint64)(unsafe.Pointer(tab))
}

// arg returns c's colArg, with st holding a coded column's split table;
// c holds at least one element.
func (c *Col) arg(st *splitTable) colArg {
	switch c.kind {
	case colFloats:
		return colArg{kind: asmFloats, f: unsafe.SliceData(c.f)}
	case colInts:
		return colArg{kind: asmInts, i: unsafe.SliceData(c.i), min: c.min}
	case colIntHeadroom:
		return colArg{kind: asmIntHeadroom, i: unsafe.SliceData(c.i), j: unsafe.SliceData(c.j)}
	}
	a := colArg{kind: asmStatic, i: unsafe.SliceData(c.i)}
	if c.kind == colHeadroom {
		a.kind = asmHeadroomCoded
	}
	if full := c.l.full; full != nil {
		a.f = &full[c.off]
		a.kind = asmFloats
		if c.kind == colHeadroom {
			a.kind = asmHeadroomFull
		}
		return a
	}
	a.codes, a.tab, a.split = &c.l.codes[c.off/8], c.l.tab, st.of(floatTable(c.l.tab))
	return a
}

func minMaxAsm(z bool, xs []float64) (lo, hi float64) {
	if len(xs) < 16 {
		return minMaxGo(xs)
	}
	n := len(xs) &^ 7
	if z {
		lo, hi = minMaxAVX512(xs[:n])
	} else {
		lo, hi = minMaxAVX2(xs[:n])
	}
	for _, x := range xs[n:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func accumulateScalarAsm(z bool, score []float64, raw Col, m, lo, span float64, set bool) {
	raw = raw.Slice(0, len(score))
	n := len(score) &^ 7
	if n > 0 {
		var st splitTable
		c, p := raw.arg(&st), opArg{m: m, lo: lo, span: span, inv: 1 / span}
		switch q := quot(z, &raw, lo, span); {
		case z && q:
			if set {
				accScalarQSetAVX512(score[:n], c, p)
			} else {
				accScalarQAVX512(score[:n], c, p)
			}
		case z:
			if set {
				accScalarSetAVX512(score[:n], c, p)
			} else {
				accScalarAVX512(score[:n], c, p)
			}
		case q:
			if set {
				accScalarQSetAVX2(score[:n], c, p)
			} else {
				accScalarQAVX2(score[:n], c, p)
			}
		default:
			if set {
				accScalarSetAVX2(score[:n], c, p)
			} else {
				accScalarAVX2(score[:n], c, p)
			}
		}
	}
	for i := n; i < len(score); i++ {
		score[i] = addTo(score[i], set, float64(m*((raw.At(i)-lo)/span))) // rounded: no FMA (GOAMD64=v3)
	}
}

func accumulateAsm(z bool, score []float64, raw Col, mult []float64, lo, span float64, set bool) {
	raw = raw.Slice(0, len(score))
	mult = mult[:len(score)]
	n := len(score) &^ 7
	if n > 0 {
		var st splitTable
		c, p := raw.arg(&st), opArg{mult: &mult[0], lo: lo, span: span, inv: 1 / span}
		switch q := quot(z, &raw, lo, span); {
		case z && q:
			if set {
				accMultQSetAVX512(score[:n], c, p)
			} else {
				accMultQAVX512(score[:n], c, p)
			}
		case z:
			if set {
				accMultSetAVX512(score[:n], c, p)
			} else {
				accMultAVX512(score[:n], c, p)
			}
		case q:
			if set {
				accMultQSetAVX2(score[:n], c, p)
			} else {
				accMultQAVX2(score[:n], c, p)
			}
		default:
			if set {
				accMultSetAVX2(score[:n], c, p)
			} else {
				accMultAVX2(score[:n], c, p)
			}
		}
	}
	for i := n; i < len(score); i++ {
		score[i] = addTo(score[i], set, float64(mult[i]*((raw.At(i)-lo)/span)))
	}
}

func accumulateScaledAsm(z bool, score []float64, raw Col, mult []float64, lo, base, inv float64) {
	raw = raw.Slice(0, len(score))
	mult = mult[:len(score)]
	n := len(score) &^ 7
	if n > 0 {
		var st splitTable
		c, p := raw.arg(&st), opArg{mult: &mult[0], lo: lo, base: base, inv: inv}
		if z {
			accScaledAVX512(score[:n], c, p)
		} else {
			accScaledAVX2(score[:n], c, p)
		}
	}
	for i := n; i < len(score); i++ {
		score[i] += float64(float64((raw.At(i)-lo)*(mult[i]-base)) * inv)
	}
}

// accumulateCodedAsm is accumulateAsm with a coded multiplier column.
func accumulateCodedAsm(z bool, score []float64, raw Col, mult *Coded[float64], lo, span float64, set bool) {
	raw = raw.Slice(0, len(score))
	n := len(score) &^ 7
	if n > 0 {
		var st, mt splitTable
		c, p := raw.arg(&st), opArg{codes: &mult.codes[:n/8][0], tab: mult.tab, split: mt.of(floatTable(mult.tab)), lo: lo, span: span, inv: 1 / span}
		// AVX2 decodes a table of at most eight values in half the
		// lookups (the Small kernels).
		small := mult.k <= CodedValues/2
		switch q := quot(z, &raw, lo, span); {
		case z && q:
			if set {
				accCodedQSetAVX512(score[:n], c, p)
			} else {
				accCodedQAVX512(score[:n], c, p)
			}
		case z:
			if set {
				accCodedSetAVX512(score[:n], c, p)
			} else {
				accCodedAVX512(score[:n], c, p)
			}
		case q && small:
			if set {
				accCodedQSmallSetAVX2(score[:n], c, p)
			} else {
				accCodedQSmallAVX2(score[:n], c, p)
			}
		case q:
			if set {
				accCodedQSetAVX2(score[:n], c, p)
			} else {
				accCodedQAVX2(score[:n], c, p)
			}
		case small:
			if set {
				accCodedSmallSetAVX2(score[:n], c, p)
			} else {
				accCodedSmallAVX2(score[:n], c, p)
			}
		default:
			if set {
				accCodedSetAVX2(score[:n], c, p)
			} else {
				accCodedAVX2(score[:n], c, p)
			}
		}
	}
	for i := n; i < len(score); i++ {
		score[i] = addTo(score[i], set, float64(mult.At(i)*((raw.At(i)-lo)/span)))
	}
}

func accumulateScaledCodedAsm(z bool, score []float64, raw Col, mult *Coded[float64], lo, base, inv float64) {
	raw = raw.Slice(0, len(score))
	n := len(score) &^ 7
	if n > 0 {
		var st, mt splitTable
		c, p := raw.arg(&st), opArg{codes: &mult.codes[:n/8][0], tab: mult.tab, split: mt.of(floatTable(mult.tab)), lo: lo, base: base, inv: inv}
		if z {
			accScaledCodedAVX512(score[:n], c, p)
		} else {
			accScaledCodedAVX2(score[:n], c, p)
		}
	}
	for i := n; i < len(score); i++ {
		score[i] += float64(float64((raw.At(i)-lo)*(mult.At(i)-base)) * inv)
	}
}

// weighChunk is how many elements of score WeighScaled's assembly takes
// through all its columns at a time: 16 KiB, which stays in the L1 cache
// from one column to the next.
const weighChunk = 2048

func weighScaledAsm(z bool, score []float64, raw []Col, scale []float64) {
	if len(raw) == 0 {
		clear(score)
		return
	}
	n := len(score) &^ 7
	for b := 0; b < n; b += weighChunk {
		e := min(b+weighChunk, n)
		for a := range raw {
			c := raw[a].Slice(b, e)
			var st splitTable
			arg := c.arg(&st)
			switch {
			case a == 0 && z:
				weighSetAVX512(score[b:e], arg, scale[a])
			case a == 0:
				weighSetAVX2(score[b:e], arg, scale[a])
			case z:
				weighAddAVX512(score[b:e], arg, scale[a])
			default:
				weighAddAVX2(score[b:e], arg, scale[a])
			}
		}
	}
	for i := n; i < len(score); i++ {
		s := raw[0].At(i) * scale[0]
		for a := 1; a < len(raw); a++ {
			s += float64(raw[a].At(i) * scale[a])
		}
		score[i] = s
	}
}

func minMaxMaskedAsm(z bool, xs *Col, words []uint64, lo, hi []float64) {
	const wpb = Block / 64
	full := xs.Len() / Block
	if full > 0 {
		c := xs.Slice(0, full*Block)
		var st splitTable
		switch {
		case z:
			minMaxMaskedAVX512(c.arg(&st), words[:full*wpb], lo[:full], hi[:full])
		case plainExact(xs):
			minMaxMaskedPlainAVX2(c.arg(&st), words[:full*wpb], lo[:full], hi[:full])
		default:
			minMaxMaskedAVX2(c.arg(&st), words[:full*wpb], lo[:full], hi[:full])
		}
	}
	if full < len(lo) {
		rest := xs.Slice(full*Block, xs.Len())
		minMaxMaskedGo(&rest, words[full*wpb:], lo[full:], hi[full:])
	}
}

// plainExact reports whether the AVX2 min/max kernels may take VMINPD
// and VMAXPD alone (their Plain variants) over c: whether c holds no -0
// and no NaN, where the two instructions' order of operands would decide
// the result. Integer columns never do (an int32 or a difference of them
// converts to +0); a coded Static or Headroom column does not when no
// value of its table is -0 or NaN (a headroom is that value less an
// int32, clamped at +0). A Floats column is when made by PlainFloats; a
// coded column stored in full is not judged (false).
func plainExact(c *Col) bool {
	switch c.kind {
	case colFloats:
		return c.plain
	case colInts, colIntHeadroom:
		return true
	case colStatic, colHeadroom:
		return c.l.full == nil && !HasNegZeroOrNaN(c.l.tab[:])
	}
	return false
}

func maxMaskedAsm(z bool, xs []float64, words []uint64, hi []float64) {
	const wpb = Block / 64
	full := len(xs) / Block
	if full > 0 {
		if z {
			maxMaskedAVX512(xs[:full*Block], words[:full*wpb], hi[:full])
		} else {
			// VMAXPD alone, then Go's max where it may have lost the
			// sign of a zero.
			maxMaskedPlainAVX2(xs[:full*Block], words[:full*wpb], hi[:full])
			redoZeroBlocks(xs[:full*Block], words[:full*wpb], hi[:full])
		}
	}
	if full < len(hi) {
		maxMaskedGo(xs[full*Block:], words[full*wpb:], hi[full:])
	}
}

func notBelowAsm(z bool, xs []float64, w uint64, thr float64) uint64 {
	if len(xs) < 64 || w == 0 {
		return notBelowGo(xs, w, thr)
	}
	if z {
		return notBelowAVX512((*[64]float64)(xs), w, thr)
	}
	return notBelowAVX2((*[64]float64)(xs), w, thr)
}

func ramPassAsm(z bool, words []uint64, total *Coded[int64], free []int32, ratio *Coded[float64], req int64) {
	if full := fullWords(words, total.Len()); full > 0 {
		_, _ = free[full*64-1], ratio.At(full*64-1)
		var st, rt splitTable
		if z {
			ramPassAVX512(words[:full], coded(total, &st), &free[0], coded(ratio, &rt), req)
		} else {
			ramPassAVX2(words[:full], coded(total, &st), &free[0], coded(ratio, &rt), req)
		}
		passRange(words, full, total.Len(), func(i int) bool { return RAMPasses(total.At(i), int64(free[i]), ratio.At(i), req) })
		return
	}
	RAMPassPortable(words, total, free, ratio, req)
}

func corePassAsm(z bool, words []uint64, total *Coded[int64], used []int32, ratio *Coded[float64], req int64) {
	if full := fullWords(words, total.Len()); full > 0 {
		_, _ = used[full*64-1], ratio.At(full*64-1)
		var st, rt splitTable
		if z {
			corePassAVX512(words[:full], coded(total, &st), &used[0], coded(ratio, &rt), req)
		} else {
			corePassAVX2(words[:full], coded(total, &st), &used[0], coded(ratio, &rt), req)
		}
		passRange(words, full, total.Len(), func(i int) bool { return CorePasses(total.At(i), int64(used[i]), ratio.At(i), req) })
		return
	}
	CorePassPortable(words, total, used, ratio, req)
}

func diskPassAsm(z bool, words []uint64, totalGB *Coded[int64], freeMB []int32, ratio *Coded[float64], req int64) {
	if full := fullWords(words, totalGB.Len()); full > 0 {
		_, _ = freeMB[full*64-1], ratio.At(full*64-1)
		var st, rt splitTable
		if z {
			diskPassAVX512(words[:full], coded(totalGB, &st), &freeMB[0], coded(ratio, &rt), req)
		} else {
			diskPassAVX2(words[:full], coded(totalGB, &st), &freeMB[0], coded(ratio, &rt), req)
		}
		passRange(words, full, totalGB.Len(), func(i int) bool { return DiskPasses(totalGB.At(i), int64(freeMB[i]), ratio.At(i), req) })
		return
	}
	DiskPassPortable(words, totalGB, freeMB, ratio, req)
}

func belowPassAsm(z bool, words []uint64, counter []int32, limit int64, limits *Coded[int64]) {
	full := fullWords(words, len(counter))
	if full == 0 {
		BelowPassPortable(words, counter, limit, limits)
		return
	}
	var l codedArg
	var st splitTable
	if limits != nil {
		_ = limits.At(full*64 - 1)
		l = coded(limits, &st)
	}
	if z {
		belowPassAVX512(words[:full], &counter[0], limit, l)
	} else {
		belowPassAVX2(words[:full], &counter[0], limit, l)
	}
	if limits != nil {
		passRange(words, full, len(counter), func(i int) bool { return int64(counter[i]) < limits.At(i) })
		return
	}
	passRange(words, full, len(counter), func(i int) bool { return int64(counter[i]) < limit })
}

func rangePassAsm(z bool, words []uint64, col []int32, lo, hi int32, invert bool) {
	full := fullWords(words, len(col))
	if full == 0 {
		RangePassPortable(words, col, lo, hi, invert)
		return
	}
	var flip uint64
	if invert {
		flip = ^uint64(0)
	}
	if z {
		rangePassAVX512(words[:full], &col[0], lo, hi, flip)
	} else {
		rangePassAVX2(words[:full], &col[0], lo, hi, flip)
	}
	passRange(words, full, len(col), func(i int) bool { return (lo <= col[i] && col[i] <= hi) != invert })
}
