package main

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ---- columns: coded tables, column loads, the loop skeleton ----

// table is a coded column's table of sixteen 8-byte values, and what
// decoding its codes takes.
type table struct {
	s      isa
	codes  GPVirtual  // the codes, one uint32 per eight elements
	ptr    GPVirtual  // AVX2: the table split into dwords (kernels' splitTable)
	lo, hi VecVirtual // AVX-512: the table in two registers
	shifts VecVirtual // AVX-512: shiftsData
	next   VecVirtual // AVX2: the second half of the last eight decoded
	nextAt int
	// small (AVX2): every code is below 8, so that only the table's
	// first half is looked up (the Small kernels' multipliers).
	small bool
}

// newTable sets up the table of a codes, tab, split triple of fields.
func newTable(s isa, c gotypes.Component) *table {
	t := &table{s: s, codes: GP64(), ptr: GP64()}
	Load(c.Field("codes"), t.codes)
	if s.z {
		Load(c.Field("tab"), t.ptr)
		t.lo, t.hi, t.shifts = ZMM(), ZMM(), ZMM()
		VMOVUPD(Mem{Base: t.ptr}, t.lo)
		VMOVUPD(Mem{Base: t.ptr, Disp: 64}, t.hi)
		VMOVDQU64(shiftsData, t.shifts)
	} else {
		Load(c.Field("split"), t.ptr)
	}
	return t
}

// decode returns the values of elements [8*ci+off+4*part, +4) (AVX2) or
// [8*ci+off, +8) (AVX-512): off a multiple of 8, ci an index of codes.
// On AVX2, part 1 must follow part 0 of the same off.
func (t *table) decode(ci GPVirtual, off, part int) VecVirtual {
	word := Mem{Base: t.codes, Index: ci, Scale: 4, Disp: 4 * (off / 8)}
	if t.s.z {
		// Each qword of x holds the code word twice; shifted right by 4k,
		// its low four bits are code k, which VPERMI2PD reads (bit 3
		// picks the table's half).
		x := ZMM()
		VPBROADCASTD(word, x)
		VPSRLVQ(t.shifts, x, x)
		VPERMI2PD(t.hi, t.lo, x)
		return x
	}
	if part == 1 {
		if t.nextAt != off || t.next == nil {
			panic("decode: part 1 without part 0")
		}
		x := t.next
		t.next = nil
		return x
	}
	// AVX2 has no sixteen-entry permute (and gathers are slow where the
	// Gather Data Sampling mitigation is on). The eight codes of the word
	// go to eight dword lanes; VPERMD looks up the low and the high dwords
	// of their values in the split table's halves (entries 0-7, 8-15),
	// blends pick the half by bit 3, and unpacking pairs the dwords into
	// float64s. The lanes hold codes 0,1,4,5 | 2,3,6,7 so that the unpacks
	// give elements 0-3 and 4-7.
	w := YMM()
	VPBROADCASTD(word, w)
	VPSRLVD(splitShifts, w, w) // code in bits 0-3 of each dword (VPERMD reads 0-2)
	var q [4]VecVirtual
	if t.small { // codes below 8: the first half's low and high dwords
		q[0], q[2] = YMM(), YMM()
		VPERMD(Mem{Base: t.ptr}, w, q[0])
		VPERMD(Mem{Base: t.ptr, Disp: 64}, w, q[2])
	} else {
		m := YMM()
		VPSLLD(U8(28), w, m) // bit 3 to the sign
		for k := range q {
			q[k] = YMM()
			VPERMD(Mem{Base: t.ptr, Disp: 32 * k}, w, q[k])
		}
		VBLENDVPS(m, q[1], q[0], q[0]) // low dwords
		VBLENDVPS(m, q[3], q[2], q[2]) // high dwords
	}
	x := YMM()
	VPUNPCKLDQ(q[2], q[0], x)
	t.next, t.nextAt = YMM(), off
	VPUNPCKHDQ(q[2], q[0], t.next)
	return x
}

// col loads a column of one kind eight elements at a time.
type col struct {
	s          isa
	kind       int
	f, i, j    GPVirtual
	t          *table
	vmin, zero VecVirtual
}

func newCol(s isa, kind int, c gotypes.Component) *col {
	l := &col{s: s, kind: kind}
	ptr := func(name string) GPVirtual {
		r := GP64()
		Load(c.Field(name), r)
		return r
	}
	switch kind {
	case kFloats:
		l.f = ptr("f")
	case kInts:
		l.i = ptr("i")
		l.vmin = bcast32(s.half(), c.Field("min"))
	case kIntHeadroom:
		l.i, l.j = ptr("i"), ptr("j")
	case kStatic:
		l.t = newTable(s, c)
	case kHeadroomFull:
		l.f, l.i = ptr("f"), ptr("i")
	case kHeadroomCoded:
		l.i = ptr("i")
		l.t = newTable(s, c)
	}
	if kind == kIntHeadroom || kind == kHeadroomFull || kind == kHeadroomCoded {
		l.zero = s.vec()
		VXORPD(l.zero, l.zero, l.zero)
	}
	return l
}

// load returns elements [e+off+4*part, +4) (AVX2) or [e+off, +8)
// (AVX-512) as float64s, with ci = e/8; off is a multiple of 8.
func (l *col) load(e, ci GPVirtual, off, part int) VecVirtual {
	s := l.s
	at := off + 4*part
	f64 := func(base GPVirtual) Mem { return Mem{Base: base, Index: e, Scale: 8, Disp: 8 * at} }
	i32 := func(base GPVirtual) Mem { return Mem{Base: base, Index: e, Scale: 4, Disp: 4 * at} }
	var x VecVirtual
	switch l.kind {
	case kFloats:
		x = s.vec()
		VMOVUPD(f64(l.f), x)
	case kInts:
		h := s.half()
		VPMAXSD(i32(l.i), l.vmin, h)
		x = s.vec()
		VCVTDQ2PD(h, x)
	case kIntHeadroom:
		// int32s convert exactly, and their difference is exact in
		// float64: the int64 difference, converted.
		x, u := s.vec(), s.vec()
		VCVTDQ2PD(i32(l.j), x)
		VCVTDQ2PD(i32(l.i), u)
		VSUBPD(u, x, x)
		VMAXPD(l.zero, x, x) // +0 for both zeros: VMAXPD returns its second operand
		return x
	case kStatic:
		x = l.t.decode(ci, off, part)
	case kHeadroomFull, kHeadroomCoded:
		if l.kind == kHeadroomFull {
			x = s.vec()
			VMOVUPD(f64(l.f), x)
		} else {
			x = l.t.decode(ci, off, part)
		}
		u := s.vec()
		VCVTDQ2PD(i32(l.i), u)
		VSUBPD(u, x, x)
		VMAXPD(l.zero, x, x) // max(x-u, 0): +0 for -0, as Go's max
	}
	return x
}

// bcast32 broadcasts an int32 argument into x (through a general
// register: vet's asmdecl takes VPBROADCASTD's memory operand for 8 bytes).
func bcast32(x VecVirtual, c gotypes.Component) VecVirtual {
	r := GP32()
	Load(c, r)
	VMOVD(r, x.AsX())
	VPBROADCASTD(x.AsX(), x)
	return x
}

// bcast broadcasts a float64 in memory.
func bcast(s isa, m Mem) VecVirtual {
	x := s.vec()
	VBROADCASTSD(m, x)
	return x
}

// kindSwitch jumps to one block per column kind (c.kind), each made by
// body; every block ends at the returned label's position, where the
// caller writes the epilogue.
func kindSwitch(c gotypes.Component, body func(kind int)) {
	kind := GP64()
	Load(c.Field("kind"), kind)
	done := label("done")
	var ls [nKinds]string
	for k := range ls {
		ls[k] = label(kindNames[k])
		CMPQ(kind, U8(k))
		JEQ(LabelRef(ls[k]))
	}
	JMP(LabelRef(done))
	for k := range ls {
		Label(ls[k])
		body(k)
		JMP(LabelRef(done))
	}
	Label(done)
}

// loop8 runs body for e = 0, 8, ... below n (n > 0, a multiple of 8), with
// ci = e/8 when codes (a coded column is read).
func loop8(n GPVirtual, codes bool, body func(e, ci GPVirtual)) {
	e, ci := GP64(), GP64()
	XORQ(e, e)
	top := label("loop")
	loopHead()
	Label(top)
	if codes {
		MOVQ(e, ci)
		SHRQ(U8(3), ci)
	}
	body(e, ci)
	ADDQ(U8(8), e)
	CMPQ(e, n)
	JB(LabelRef(top))
}

func epilogue() {
	VZEROUPPER()
	RET()
}
