package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ---- min and max ----

// minOp sets d to the lane-wise minimum of a and b, -0 below +0 (Go's min
// without NaN); maxOp the maximum.
func minOp(s isa, a, b, d VecVirtual) { minMaxOp(s, a, b, d, true) }
func maxOp(s isa, a, b, d VecVirtual) { minMaxOp(s, a, b, d, false) }

func minMaxOp(s isa, a, b, d VecVirtual, isMin bool) {
	if s.z {
		if isMin {
			VRANGEPD(U8(rangeMin), b, a, d)
		} else {
			VRANGEPD(U8(rangeMax), b, a, d)
		}
		return
	}
	// VMINPD returns its second operand for two zeros: taken both ways
	// round, the OR of the two has the sign of either's -0 (and for
	// anything else both are the minimum); for the maximum, the AND.
	t1, t2 := like(a), like(a)
	if isMin {
		VMINPD(b, a, t1)
		VMINPD(a, b, t2)
		VORPD(t1, t2, d)
	} else {
		VMAXPD(b, a, t1)
		VMAXPD(a, b, t2)
		VANDPD(t1, t2, d)
	}
}

// reduce returns, in the low lane of an XMM register, the minimum (or
// maximum) of v's lanes.
func reduce(s isa, v VecVirtual, isMin bool) VecVirtual {
	op := func(a, b, d VecVirtual) {
		if isMin {
			minOp(s, a, b, d)
		} else {
			maxOp(s, a, b, d)
		}
	}
	var y VecVirtual
	if s.z {
		y = YMM()
		hi := YMM()
		VEXTRACTF64X4(U8(1), v, hi)
		VMOVAPD(v.AsY(), y)
		op(y, hi, y)
	} else {
		y = v
	}
	x, hi := XMM(), XMM()
	if s.z {
		VEXTRACTF64X2(U8(1), y, hi)
	} else {
		VEXTRACTF128(U8(1), y, hi)
	}
	VMOVAPD(y.AsX(), x)
	op(x, hi, x)
	sw := XMM()
	VPERMILPD(U8(1), x, sw)
	op(x, sw, x)
	return x
}

func minMax(s isa) {
	TEXT("minMax"+s.name, NOSPLIT, "func(xs []float64) (lo, hi float64)")
	Pragma("noescape")
	Doc("minMax" + s.name + " returns the smallest and largest of xs (-0 below +0), len(xs) a positive multiple of 8.")
	xs, n := GP64(), GP64()
	Load(Param("xs").Base(), xs)
	Load(Param("xs").Len(), n)
	var lo, hi [2]VecVirtual
	for k := range lo {
		lo[k], hi[k] = s.vec(), s.vec()
		VBROADCASTSD(posInf, lo[k])
		VBROADCASTSD(negInf, hi[k])
	}
	loop8(n, false, func(e, _ GPVirtual) {
		for part := 0; part < s.parts(); part++ {
			x := s.vec()
			VMOVUPD(Mem{Base: xs, Index: e, Scale: 8, Disp: 32 * part}, x)
			k := part
			if s.z {
				k = 0
			}
			minOp(s, lo[k], x, lo[k])
			maxOp(s, hi[k], x, hi[k])
		}
	})
	minOp(s, lo[0], lo[1], lo[0])
	maxOp(s, hi[0], hi[1], hi[0])
	Store(reduce(s, lo[0], true), Return("lo"))
	Store(reduce(s, hi[0], false), Return("hi"))
	epilogue()
}

// maskedBlocks walks nb blocks of eight words: begin() before a block's
// words, word(w, e, ci) for each of its non-zero words w (e its first
// element, ci = e/8), end(q) after block q.
func maskedBlocks(words GPVirtual, nb GPVirtual, begin func(), word func(w, e, ci GPVirtual), end func(q GPVirtual)) {
	q, k, e, ci, w := GP64(), GP64(), GP64(), GP64(), GP64()
	XORQ(q, q)
	XORQ(k, k)
	XORQ(e, e)
	blockTop, wordTop, next := label("block"), label("word"), label("next")
	loopHead()
	Label(blockTop)
	begin()
	loopHead()
	Label(wordTop)
	MOVQ(Mem{Base: words, Index: k, Scale: 8}, w)
	TESTQ(w, w)
	JZ(LabelRef(next))
	MOVQ(e, ci)
	SHRQ(U8(3), ci)
	word(w, e, ci)
	Label(next)
	INCQ(k)
	ADDQ(U8(64), e)
	TESTQ(U32(7), k)
	JNZ(LabelRef(wordTop))
	end(q)
	INCQ(q)
	CMPQ(q, nb)
	JB(LabelRef(blockTop))
}

// maskedMinMax accumulates into lo and hi (two accumulators each: even
// and odd groups of eight on AVX-512, the two halves on AVX2) the
// elements of the word w whose bits are set; load returns a group's
// vector; lo nil: only hi. With plain (AVX2 only), one VMINPD or VMAXPD
// per vector rather than minOp's and maxOp's three: exact where no -0
// (nor NaN) is among the elements, which the caller sees to.
func maskedMinMax(s isa, w GPVirtual, lo, hi []VecVirtual, inf, ninf VecVirtual, plain bool, load func(off, part int) VecVirtual) {
	minOp, maxOp := minOp, maxOp
	if plain {
		minOp = func(_ isa, a, b, d VecVirtual) { VMINPD(b, a, d) }
		maxOp = func(_ isa, a, b, d VecVirtual) { VMAXPD(b, a, d) }
	}
	if s.z {
		kw := K()
		KMOVQ(w, kw)
		for v := 0; v < 8; v++ {
			x := load(8*v, 0)
			kv := kw
			if v > 0 {
				kv = K()
				KSHIFTRQ(U8(8*v), kw, kv)
			}
			if lo != nil {
				VRANGEPD(U8(rangeMin), x, lo[v%2], kv, lo[v%2])
			}
			VRANGEPD(U8(rangeMax), x, hi[v%2], kv, hi[v%2])
		}
		return
	}
	// AVX2: a full word needs no masks.
	masked, done := label("masked"), label("wdone")
	CMPQ(w, I8(-1))
	JNE(LabelRef(masked))
	for v := 0; v < 8; v++ {
		for part := 0; part < 2; part++ {
			x := load(8*v, part)
			if lo != nil {
				minOp(s, lo[part], x, lo[part])
			}
			maxOp(s, hi[part], x, hi[part])
		}
	}
	JMP(LabelRef(done))
	Label(masked)
	wv := YMM()
	VMOVQ(w, wv.AsX())
	VPBROADCASTQ(wv.AsX(), wv)
	for v := 0; v < 8; v++ {
		for part := 0; part < 2; part++ {
			x := load(8*v, part)
			m := YMM()
			VPSLLVQ(maskShifts.Offset(32*(2*v+part)), wv, m) // bit 8v+4part+k to lane k's sign
			if lo != nil {
				xl := YMM()
				VBLENDVPD(m, x, inf, xl)
				minOp(s, lo[part], xl, lo[part])
			}
			xh := YMM()
			VBLENDVPD(m, x, ninf, xh)
			maxOp(s, hi[part], xh, hi[part])
		}
	}
	Label(done)
}

// plainName is the kernels' name part for their plain variants.
func plainName(plain bool) string {
	if plain {
		return "Plain"
	}
	return ""
}

func minMaxMasked(s isa, plain bool) {
	name := "minMaxMasked" + plainName(plain) + s.name
	TEXT(name, NOSPLIT, "func(c colArg, words []uint64, lo, hi []float64)")
	Pragma("noescape")
	doc := []string{name + " sets lo[q] and hi[q] to the smallest and largest of the elements of c",
		"in block q (512 elements) whose bit is set in words, for len(lo) > 0 full blocks."}
	if plain {
		doc = append(doc, "VMINPD and VMAXPD alone: exact when c holds no -0 and no NaN.")
	}
	Doc(doc...)
	words, nb, plo, phi := GP64(), GP64(), GP64(), GP64()
	Load(Param("words").Base(), words)
	Load(Param("lo").Len(), nb)
	Load(Param("lo").Base(), plo)
	Load(Param("hi").Base(), phi)
	inf, ninf := s.vec(), s.vec()
	VBROADCASTSD(posInf, inf)
	VBROADCASTSD(negInf, ninf)
	kindSwitch(Param("c"), func(kind int) {
		l := newCol(s, kind, Param("c"))
		lo, hi := []VecVirtual{s.vec(), s.vec()}, []VecVirtual{s.vec(), s.vec()}
		maskedBlocks(words, nb, func() {
			for k := range lo {
				VMOVAPD(inf, lo[k])
				VMOVAPD(ninf, hi[k])
			}
		}, func(w, e, ci GPVirtual) {
			maskedMinMax(s, w, lo, hi, inf, ninf, plain, func(off, part int) VecVirtual { return l.load(e, ci, off, part) })
		}, func(q GPVirtual) {
			minOp(s, lo[0], lo[1], lo[0])
			maxOp(s, hi[0], hi[1], hi[0])
			VMOVSD(reduce(s, lo[0], true), Mem{Base: plo, Index: q, Scale: 8})
			VMOVSD(reduce(s, hi[0], false), Mem{Base: phi, Index: q, Scale: 8})
		})
	})
	epilogue()
}

func maxMasked(s isa, plain bool) {
	name := "maxMasked" + plainName(plain) + s.name
	TEXT(name, NOSPLIT, "func(xs []float64, words []uint64, hi []float64)")
	Pragma("noescape")
	doc := []string{name + " sets hi[q] to the largest of the elements of xs in block q (512 elements)",
		"whose bit is set in words, for len(hi) > 0 full blocks."}
	if plain {
		doc = append(doc, "VMAXPD alone: exact unless that largest is a zero or a NaN.")
	}
	Doc(doc...)
	xs, words, nb, phi := GP64(), GP64(), GP64(), GP64()
	Load(Param("xs").Base(), xs)
	Load(Param("words").Base(), words)
	Load(Param("hi").Len(), nb)
	Load(Param("hi").Base(), phi)
	inf, ninf := s.vec(), s.vec()
	VBROADCASTSD(posInf, inf)
	VBROADCASTSD(negInf, ninf)
	hi := []VecVirtual{s.vec(), s.vec()}
	maskedBlocks(words, nb, func() {
		for k := range hi {
			VMOVAPD(ninf, hi[k])
		}
	}, func(w, e, _ GPVirtual) {
		maskedMinMax(s, w, nil, hi, inf, ninf, plain, func(off, part int) VecVirtual {
			x := s.vec()
			VMOVUPD(Mem{Base: xs, Index: e, Scale: 8, Disp: 8 * (off + 4*part)}, x)
			return x
		})
	}, func(q GPVirtual) {
		maxOp(s, hi[0], hi[1], hi[0])
		VMOVSD(reduce(s, hi[0], false), Mem{Base: phi, Index: q, Scale: 8})
	})
	epilogue()
}

func notBelow(s isa) {
	TEXT("notBelow"+s.name, NOSPLIT, "func(xs *[64]float64, w uint64, thr float64) uint64")
	Pragma("noescape")
	Doc("notBelow" + s.name + " returns w without the bits i whose xs[i] < thr.")
	xs, below, b := GP64(), GP64(), GP64()
	Load(Param("xs"), xs)
	vt := bcast(s, addr(Param("thr")))
	XORQ(below, below)
	packGroups(below, 8*s.parts(), func(v int) GPVirtual {
		if s.z {
			k := K()
			VCMPPD(U8(cmpGT), Mem{Base: xs, Disp: 64 * v}, vt, k) // thr > x, false for NaN
			KMOVB(k, b.As32())
			return b
		}
		m := YMM()
		VCMPPD(U8(cmpGT), Mem{Base: xs, Disp: 32 * v}, vt, m)
		VMOVMSKPD(m, b.As32())
		return b
	})
	w := GP64()
	Load(Param("w"), w)
	NOTQ(below)
	ANDQ(w, below)
	Store(below, ReturnIndex(0))
	epilogue()
}
