package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ---- filter passes ----

// source is a Coded column of 8-byte values as a pass reads it: in full
// (ptr) or coded (t).
type source struct {
	s    isa
	full GPVirtual
	t    *table
}

// newSource sets up a codedArg in the form chosen (coded or full).
func newSource(s isa, c gotypes.Component, coded bool) *source {
	src := &source{s: s}
	if coded {
		src.t = newTable(s, c)
	} else {
		src.full = GP64()
		Load(c.Field("full"), src.full)
	}
	return src
}

func (src *source) load(e, ci GPVirtual, off, part int) VecVirtual {
	if src.t != nil {
		return src.t.decode(ci, off, part)
	}
	x := YMM()
	VMOVDQU(Mem{Base: src.full, Index: e, Scale: 8, Disp: 8 * (off + 4*part)}, x)
	return x
}

func (src *source) loadZ(e, ci GPVirtual, off int) VecVirtual {
	if src.t != nil {
		return src.t.decode(ci, off, 0)
	}
	x := ZMM()
	VMOVDQU64(Mem{Base: src.full, Index: e, Scale: 8, Disp: 8 * off}, x)
	return x
}

func (src *source) get(e, ci GPVirtual, off, part int) VecVirtual {
	if src.s.z {
		return src.loadZ(e, ci, off)
	}
	return src.load(e, ci, off, part)
}

// cvtI64 converts int64 lanes to float64, rounded once as Go's
// conversion is: AVX-512DQ's VCVTQQ2PD, or (AVX2) the exact float64 of
// the top 16 bits times 2^48, less 2^52, plus the exact 2^52 + the low 48
// bits: one rounding, in the last add.
func cvtI64(s isa, x VecVirtual, zero VecVirtual) VecVirtual {
	d := s.vec()
	if s.z {
		VCVTQQ2PD(x, d)
		return d
	}
	h := YMM()
	VPSRAD(U8(16), x, h)
	VPBLENDW(U8(0x33), zero, h, h) // the top 16 bits, sign-extended, in the high dword
	VPADDQ(c3p67, h, h)            // 3*2^67 + (x>>48)*2^48, exactly
	VPBLENDW(U8(0x88), c2p52, x, d)
	VSUBPD(c3p67p52, h, h)
	VADDPD(d, h, d)
	return d
}

// passKind is a resource filter. resourcePass writes its kernel, with one
// loop per form (coded or in full) of total and ratio.
type passKind int

const (
	passRAM passKind = iota
	passCore
	passDisk
)

func resourcePass(s isa, kind passKind) {
	name := [...]string{"ramPass", "corePass", "diskPass"}[kind] + s.name
	col := [...]string{"free", "used", "free"}[kind]
	TEXT(name, NOSPLIT, fmt.Sprintf("func(words []uint64, total codedArg, %s *int32, ratio codedArg, req int64)", col))
	Pragma("noescape")
	Doc(name+" clears the bits of words (every word 64 hosts) of the hosts failing",
		[...]string{"RAMPasses", "CorePasses", "DiskPasses"}[kind]+"; total and ratio are coded or in full.")
	words, nw, usage := GP64(), GP64(), GP64()
	Load(Param("words").Base(), words)
	Load(Param("words").Len(), nw)
	Load(Param(col), usage)
	TESTQ(nw, nw)
	JZ(LabelRef("ret"))
	reqI, reqF := s.vec(), s.vec()
	VPBROADCASTQ(addr(Param("req")), reqI)
	req := GP64()
	Load(Param("req"), req)
	VCVTSI2SDQ(req, reqF.AsX(), reqF.AsX())
	VBROADCASTSD(reqF.AsX(), reqF)
	zero := s.vec()
	VXORPD(zero, zero, zero)
	tfull, rfull := GP64(), GP64()
	Load(Param("total").Field("full"), tfull)
	Load(Param("ratio").Field("full"), rfull)
	done := label("done")
	for form := 0; form < 4; form++ {
		tCoded, rCoded := form&1 != 0, form&2 != 0
		skip := label("form")
		TESTQ(tfull, tfull)
		if tCoded {
			JNZ(LabelRef(skip))
		} else {
			JZ(LabelRef(skip))
		}
		TESTQ(rfull, rfull)
		if rCoded {
			JNZ(LabelRef(skip))
		} else {
			JZ(LabelRef(skip))
		}
		total := newSource(s, Param("total"), tCoded)
		ratio := newSource(s, Param("ratio"), rCoded)
		wordLoop(s, words, nw, func(e, ci GPVirtual, off, part int) (GPVirtual, bool) {
			return resourceStep(s, kind, total, ratio, usage, reqI, reqF, zero, e, ci, off, part)
		})
		JMP(LabelRef(done))
		Label(skip)
	}
	Label(done)
	Label("ret")
	epilogue()
}

// resourceStep judges the 8 (AVX-512) or 4 (AVX2) hosts at e+off+4*part
// and returns their bits: of those that pass, or with true of those that
// fail.
func resourceStep(s isa, kind passKind, total, ratio *source, usage GPVirtual, reqI, reqF, zero VecVirtual, e, ci GPVirtual, off, part int) (GPVirtual, bool) {
	at := off + 4*part
	u32 := Mem{Base: usage, Index: e, Scale: 4, Disp: 4 * at}
	t := total.get(e, ci, off, part)
	if kind == passDisk {
		VPSLLQ(U8(10), t, t) // * 1024, wrapping as Go does
	}
	r := ratio.get(e, ci, off, part)
	limit := cvtI64(s, t, zero)
	VMULPD(r, limit, limit)
	bits := GP64()
	if kind == passCore {
		u := s.vec()
		VCVTDQ2PD(u32, u)
		x := s.vec()
		VSUBPD(u, limit, x) // limit - used
		if s.z {
			kz, kpos, kbig, kshort := K(), K(), K(), K()
			VPTESTNMQ(t, t, kz) // total == 0
			VCMPPD(U8(cmpGT), zero, limit, kpos)
			VPCMPQ(U8(icmpLT), reqI, t, kpos, kbig) // limit > 0 && total < req
			VCMPPD(U8(cmpLT), reqF, x, kshort)      // limit - used < req
			KORB(kbig, kshort, kbig)
			KNOTB(kbig, kbig)
			KORB(kz, kbig, kbig)
			KMOVB(kbig, bits.As32())
			return bits, false
		}
		z, pos, big, short := YMM(), YMM(), YMM(), YMM()
		VPCMPEQQ(zero, t, z)
		VCMPPD(U8(cmpGT), zero, limit, pos)
		VPCMPGTQ(t, reqI, big) // req > total
		VPAND(pos, big, big)
		VCMPPD(U8(cmpLT), reqF, x, short)
		VPOR(short, big, big)
		VPANDN(big, z, big) // failing: not total == 0, and too big or short
		VMOVMSKPD(big, bits.As32())
		return bits, true
	}
	// RAM and disk: limit - (total - free) >= req, and total >= req.
	f := s.vec()
	VPMOVSXDQ(u32, f)
	VPSUBQ(f, t, f)
	d := cvtI64(s, f, zero)
	VSUBPD(d, limit, d)
	if s.z {
		kge, ok := K(), K()
		VPCMPQ(U8(icmpNLT), reqI, t, kge)
		VCMPPD(U8(cmpGE), reqF, d, kge, ok)
		KMOVB(ok, bits.As32())
		return bits, false
	}
	ge, lt := YMM(), YMM()
	VCMPPD(U8(cmpGE), reqF, d, ge)
	VPCMPGTQ(t, reqI, lt) // req > total
	VPANDN(ge, lt, ge)
	VMOVMSKPD(ge, bits.As32())
	return bits, false
}

// wordLoop runs step over every group of hosts of every non-zero word of
// words (nw > 0 words of 64 hosts) and keeps in the word the bits of the
// hosts that pass: step judges the 8 (AVX-512) or 4 (AVX2) int64 hosts at
// e+off+4*part, ci being e/8 (the coded columns' byte index).
func wordLoop(s isa, words, nw GPVirtual, step func(e, ci GPVirtual, off, part int) (GPVirtual, bool)) {
	groups := 8 * s.parts()
	wordGroups(words, nw, groups, true, func(e, ci GPVirtual, g int) (GPVirtual, bool) {
		return step(e, ci, 8*(g/s.parts()), g%s.parts())
	}, nil)
}

// packGroups ORs into acc (zero) the bits of groups equal groups of a
// word's 64 hosts, group g's (from step) shifted to its place.
func packGroups(acc GPVirtual, groups int, step func(g int) GPVirtual) {
	for g := 0; g < groups; g++ {
		bits := step(g)
		if sh := g * 64 / groups; sh > 0 {
			SHLQ(U8(sh), bits)
		}
		ORQ(bits, acc)
	}
}

// wordGroups is the loop over the words: for every non-zero word of words
// (nw > 0 words of 64 hosts, e the index of its first host, ci = e/8 when
// withCI), step(g) judges group g of groups equal groups of its hosts and
// returns their bits, of those that pass or (true) of those that fail;
// the word keeps the bits of the hosts that pass, after finish (nil:
// none) has changed them.
func wordGroups(words, nw GPVirtual, groups int, withCI bool, step func(e, ci GPVirtual, g int) (GPVirtual, bool), finish func(acc GPVirtual)) {
	q, e := GP64(), GP64()
	var ci GPVirtual
	if withCI {
		ci = GP64()
	}
	w, acc := GP64(), GP64()
	XORQ(q, q)
	XORQ(e, e)
	top, next := label("word"), label("next")
	loopHead()
	Label(top)
	MOVQ(Mem{Base: words, Index: q, Scale: 8}, w)
	TESTQ(w, w)
	JZ(LabelRef(next))
	if withCI {
		MOVQ(e, ci)
		SHRQ(U8(3), ci)
	}
	XORQ(acc, acc)
	fail := false
	packGroups(acc, groups, func(g int) GPVirtual {
		bits, f := step(e, ci, g)
		fail = f
		return bits
	})
	if fail {
		NOTQ(acc)
	}
	if finish != nil {
		finish(acc)
	}
	ANDQ(acc, w)
	MOVQ(w, Mem{Base: words, Index: q, Scale: 8})
	Label(next)
	INCQ(q)
	ADDQ(U8(64), e)
	CMPQ(q, nw)
	JB(LabelRef(top))
}

func belowPass(s isa) {
	name := "belowPass" + s.name
	TEXT(name, NOSPLIT, "func(words []uint64, counter *int32, limit int64, limits codedArg)")
	Pragma("noescape")
	Doc(name+" clears the bits of words (every word 64 hosts) of the hosts whose counter is not below",
		"their limit: limits (coded or in full) unless both its full and codes are nil, else limit.")
	words, nw, counter := GP64(), GP64(), GP64()
	Load(Param("words").Base(), words)
	Load(Param("words").Len(), nw)
	Load(Param("counter"), counter)
	TESTQ(nw, nw)
	JZ(LabelRef("ret"))
	full, codes := GP64(), GP64()
	Load(Param("limits").Field("full"), full)
	Load(Param("limits").Field("codes"), codes)
	done := label("done")
	for form := 0; form < 3; form++ { // scalar, full, coded
		skip := label("form")
		switch form {
		case 0:
			TESTQ(full, full)
			JNZ(LabelRef(skip))
			TESTQ(codes, codes)
			JNZ(LabelRef(skip))
		case 1:
			TESTQ(full, full)
			JZ(LabelRef(skip))
		}
		var src *source
		var lim VecVirtual
		if form == 0 {
			lim = s.vec()
			VPBROADCASTQ(addr(Param("limit")), lim)
		} else {
			src = newSource(s, Param("limits"), form == 2)
		}
		wordLoop(s, words, nw, func(e, ci GPVirtual, off, part int) (GPVirtual, bool) {
			c := s.vec()
			VPMOVSXDQ(Mem{Base: counter, Index: e, Scale: 4, Disp: 4 * (off + 4*part)}, c)
			l := lim
			if src != nil {
				l = src.get(e, ci, off, part)
			}
			bits := GP64()
			if s.z {
				k := K()
				VPCMPQ(U8(icmpLT), l, c, k)
				KMOVB(k, bits.As32())
			} else {
				m := YMM()
				VPCMPGTQ(c, l, m) // limit > counter
				VMOVMSKPD(m, bits.As32())
			}
			return bits, false
		})
		JMP(LabelRef(done))
		Label(skip)
	}
	Label(done)
	Label("ret")
	epilogue()
}

func rangePass(s isa) {
	name := "rangePass" + s.name
	TEXT(name, NOSPLIT, "func(words []uint64, col *int32, lo, hi int32, flip uint64)")
	Pragma("noescape")
	Doc(name+" keeps in words (every word 64 hosts) the bits of the hosts whose col value is in [lo, hi],",
		"or with flip all ones of those outside.")
	words, nw, col, flip := GP64(), GP64(), GP64(), GP64()
	Load(Param("words").Base(), words)
	Load(Param("words").Len(), nw)
	Load(Param("col"), col)
	Load(Param("flip"), flip)
	TESTQ(nw, nw)
	JZ(LabelRef("ret"))
	vlo, vhi := bcast32(s.vec(), Param("lo")), bcast32(s.vec(), Param("hi"))
	// int32 values: 16 (AVX-512) or 8 (AVX2) hosts a group.
	groups := 8
	if s.z {
		groups = 4
	}
	wordGroups(words, nw, groups, false, func(e, _ GPVirtual, g int) (GPVirtual, bool) {
		bits := GP64()
		if s.z {
			v := ZMM()
			VMOVDQU32(Mem{Base: col, Index: e, Scale: 4, Disp: 64 * g}, v)
			k1, k2 := K(), K()
			VPCMPD(U8(icmpNLT), vlo, v, k1)
			VPCMPD(U8(icmpLE), vhi, v, k1, k2)
			KMOVW(k2, bits.As32())
			return bits, false
		}
		v, a, b := YMM(), YMM(), YMM()
		VMOVDQU(Mem{Base: col, Index: e, Scale: 4, Disp: 32 * g}, v)
		VPCMPGTD(v, vlo, a) // lo > v
		VPCMPGTD(vhi, v, b) // v > hi
		VPOR(a, b, a)
		VMOVMSKPS(a, bits.As32())
		return bits, true // outside
	}, func(acc GPVirtual) { XORQ(flip, acc) })
	Label("ret")
	epilogue()
}
