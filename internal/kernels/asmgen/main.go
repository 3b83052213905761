// Command asmgen writes internal/kernels' assembly kernels with avo:
// kernels_amd64.s and its Go declarations, kernels_stub_amd64.go. Run it
// with go generate in internal/kernels (see asm_amd64.go); it is a module
// of its own so that placer's module does not depend on avo.
//
// Every kernel comes twice: an AVX2 version (four float64s per YMM
// register, VEX encoding, registers 0-15 only, so that it runs on CPUs
// without AVX-512) and an AVX-512 version (eight per ZMM register; needs
// AVX512F, DQ, BW and VL). Each computes exactly the IEEE operations the
// portable Go loops compute, each rounded on its own: no fused
// multiply-add, conversions that are exact or rounded once as Go's are,
// and min and max that order -0 below +0 as Go's builtins do.
package main

import (
	"fmt"
	"math"
	"os"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Column kinds, as kernels' asmFloats... constants number them.
const (
	kFloats        = iota // f
	kInts                 // max(i, min)
	kIntHeadroom          // max(j - i, 0) in int64
	kStatic               // tab[code] (a coded Static column)
	kHeadroomFull         // max(f - i, 0)
	kHeadroomCoded        // max(tab[code] - i, 0)
	nKinds
)

var kindNames = [nKinds]string{"floats", "ints", "intheadroom", "static", "headroomfull", "headroomcoded"}

// VCMPPD predicates: ordered and quiet, false when an operand is NaN, as
// Go's comparisons are.
const (
	cmpLT = 0x11 // LT_OQ
	cmpGE = 0x1D // GE_OQ
	cmpGT = 0x1E // GT_OQ
)

// VPCMPQ / VPCMPD predicates.
const (
	icmpEQ  = 0
	icmpLT  = 1
	icmpLE  = 2
	icmpNLT = 5 // >=
)

// VRANGEPD controls: the minimum or maximum, the sign that of the value
// selected. VRANGEPD orders -0 below +0 (unlike VMINPD and VMAXPD, which
// return their second operand for two zeros), as Go's min and max do.
const (
	rangeMin = 0b0100
	rangeMax = 0b0101
)

type isa struct {
	name string
	z    bool // AVX-512: eight float64s per ZMM; else AVX2: four per YMM
}

var (
	avx2   = isa{"AVX2", false}
	avx512 = isa{"AVX512", true}
)

// parts is the number of vectors that hold eight elements.
func (s isa) parts() int {
	if s.z {
		return 1
	}
	return 2
}

// vec is a register of float64s or int64s.
func (s isa) vec() VecVirtual {
	if s.z {
		return ZMM()
	}
	return YMM()
}

// half is a register of as many int32s as vec holds float64s.
func (s isa) half() VecVirtual {
	if s.z {
		return YMM()
	}
	return XMM()
}

// like returns a new register of v's size.
func like(v VecVirtual) VecVirtual {
	switch v.Size() {
	case 16:
		return XMM()
	case 32:
		return YMM()
	}
	return ZMM()
}

func addr(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		return Mem{} // Generate reports the error
	}
	return b.Addr
}

var labels int

// label returns a new label name.
func label(what string) string {
	labels++
	return fmt.Sprintf("%s_%d", what, labels)
}

// Read-only constants.
var (
	shiftsData  Mem // qwords 0, 4, ..., 28: the shifts of eight codes
	splitShifts Mem // dwords 0, 4, 16, 20, 8, 12, 24, 28 (AVX2 decode)
	c3p67       Mem // 3 * 2^67 (int64 -> float64 in AVX2)
	c3p67p52    Mem // 3 * 2^67 + 2^52
	c2p52       Mem // 2^52
	maskShifts  Mem // 16 x 4 qwords: 63-4p-k, bringing bit 4p+k of a word to the sign of lane k
	posInf      Mem
	negInf      Mem
)

func data(name string, qwords ...uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for k, q := range qwords {
		DATA(8*k, U64(q))
	}
	return m
}

func four(x uint64) []uint64 { return []uint64{x, x, x, x} }

func constants() {
	shiftsData = data("codeshifts", 0, 4, 8, 12, 16, 20, 24, 28)
	splitShifts = data("splitshifts", 4<<32, 20<<32|16, 12<<32|8, 28<<32|24)
	c3p67 = data("c3p67", four(math.Float64bits(3*0x1p67))...)
	c3p67p52 = data("c3p67p52", four(math.Float64bits(3*0x1p67+0x1p52))...)
	c2p52 = data("c2p52", four(math.Float64bits(0x1p52))...)
	var ms []uint64
	for p := 0; p < 16; p++ {
		for k := 0; k < 4; k++ {
			ms = append(ms, uint64(63-4*p-k))
		}
	}
	maskShifts = data("maskshifts", ms...)
	posInf = data("posinf", math.Float64bits(math.Inf(1)))
	negInf = data("neginf", math.Float64bits(math.Inf(-1)))
}

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
	w, m := YMM(), YMM()
	VPBROADCASTD(word, w)
	VPSRLVD(splitShifts, w, w) // code in bits 0-3 of each dword (VPERMD reads 0-2)
	VPSLLD(U8(28), w, m)       // bit 3 to the sign
	var q [4]VecVirtual
	for k := range q {
		q[k] = YMM()
		VPERMD(Mem{Base: t.ptr, Disp: 32 * k}, w, q[k])
	}
	VBLENDVPS(m, q[1], q[0], q[0]) // low dwords
	VBLENDVPS(m, q[3], q[2], q[2]) // high dwords
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

// ---- accumulations ----

type accOp int

const (
	opScalar      accOp = iota // s += m * ((x - lo) / span)
	opMult                     // s += mult[i] * ((x - lo) / span)
	opCoded                    // s += tab[code i] * ((x - lo) / span)
	opScaled                   // s += ((x - lo) * (mult[i] - base)) * inv
	opScaledCoded              // s += ((x - lo) * (tab[code i] - base)) * inv
)

var accNames = [...]string{"accScalar", "accMult", "accCoded", "accScaled", "accScaledCoded"}
var accDocs = [...]string{
	"score[i] += p.m * ((x[i] - p.lo) / p.span)",
	"score[i] += p.mult[i] * ((x[i] - p.lo) / p.span)",
	"score[i] += p.tab[code i] * ((x[i] - p.lo) / p.span)",
	"score[i] += ((x[i] - p.lo) * (p.mult[i] - p.base)) * p.inv",
	"score[i] += ((x[i] - p.lo) * (p.tab[code i] - p.base)) * p.inv",
}

func accumulate(s isa, op accOp) {
	TEXT(accNames[op]+s.name, NOSPLIT, "func(score []float64, c colArg, p opArg)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s%s sets, for x the column c, %s, each operation rounded on its own; len(score) is a multiple of 8.", accNames[op], s.name, accDocs[op]))
	score, n := GP64(), GP64()
	Load(Param("score").Base(), score)
	Load(Param("score").Len(), n)
	TESTQ(n, n)
	JZ(LabelRef("ret"))
	p := Param("p")
	vlo := bcast(s, addr(p.Field("lo")))
	var vspan, vm, vbase, vinv VecVirtual
	var mult GPVirtual
	var mt *table
	switch op {
	case opScalar:
		vm, vspan = bcast(s, addr(p.Field("m"))), bcast(s, addr(p.Field("span")))
	case opMult, opCoded:
		vspan = bcast(s, addr(p.Field("span")))
	case opScaled, opScaledCoded:
		vbase, vinv = bcast(s, addr(p.Field("base"))), bcast(s, addr(p.Field("inv")))
	}
	switch op {
	case opMult, opScaled:
		mult = GP64()
		Load(p.Field("mult"), mult)
	case opCoded, opScaledCoded:
		mt = newTable(s, p)
	}
	kindSwitch(Param("c"), func(kind int) {
		l := newCol(s, kind, Param("c"))
		loop8(n, l.t != nil || mt != nil, func(e, ci GPVirtual) {
			for part := 0; part < s.parts(); part++ {
				x := l.load(e, ci, 0, part)
				t := s.vec()
				VSUBPD(vlo, x, t)
				var m VecVirtual
				switch op {
				case opMult, opScaled:
					m = s.vec()
					VMOVUPD(Mem{Base: mult, Index: e, Scale: 8, Disp: 32 * part}, m)
				case opCoded, opScaledCoded:
					m = mt.decode(ci, 0, part)
				}
				switch op {
				case opScalar:
					VDIVPD(vspan, t, t)
					VMULPD(vm, t, t)
				case opMult, opCoded:
					VDIVPD(vspan, t, t)
					VMULPD(m, t, t)
				case opScaled, opScaledCoded:
					VSUBPD(vbase, m, m)
					VMULPD(m, t, t)
					VMULPD(vinv, t, t)
				}
				sm := Mem{Base: score, Index: e, Scale: 8, Disp: 32 * part}
				VADDPD(sm, t, t)
				VMOVUPD(t, sm)
			}
		})
	})
	Label("ret")
	epilogue()
}

// weigh writes WeighScaled's pass over one column: score[i] = x[i] * scale
// (set) or score[i] += x[i] * scale.
func weigh(s isa, set bool) {
	name := "weighAdd" + s.name
	doc := "score[i] += x[i] * scale"
	if set {
		name, doc = "weighSet"+s.name, "score[i] = x[i] * scale"
	}
	TEXT(name, NOSPLIT, "func(score []float64, c colArg, scale float64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets, for x the column c, %s (product and sum rounded on their own); len(score) is a multiple of 8.", name, doc))
	score, n := GP64(), GP64()
	Load(Param("score").Base(), score)
	Load(Param("score").Len(), n)
	TESTQ(n, n)
	JZ(LabelRef("ret"))
	vc := bcast(s, addr(Param("scale")))
	kindSwitch(Param("c"), func(kind int) {
		l := newCol(s, kind, Param("c"))
		loop8(n, l.t != nil, func(e, ci GPVirtual) {
			for part := 0; part < s.parts(); part++ {
				x := l.load(e, ci, 0, part)
				VMULPD(vc, x, x)
				sm := Mem{Base: score, Index: e, Scale: 8, Disp: 32 * part}
				if !set {
					VADDPD(sm, x, x)
				}
				VMOVUPD(x, sm)
			}
		})
	})
	Label("ret")
	epilogue()
}

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
	Label(blockTop)
	begin()
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
// vector; lo nil: only hi.
func maskedMinMax(s isa, w GPVirtual, lo, hi []VecVirtual, inf, ninf VecVirtual, load func(off, part int) VecVirtual) {
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

func minMaxMasked(s isa) {
	TEXT("minMaxMasked"+s.name, NOSPLIT, "func(c colArg, words []uint64, lo, hi []float64)")
	Pragma("noescape")
	Doc("minMaxMasked"+s.name+" sets lo[q] and hi[q] to the smallest and largest of the elements of c",
		"in block q (512 elements) whose bit is set in words, for len(lo) > 0 full blocks.")
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
			maskedMinMax(s, w, lo, hi, inf, ninf, func(off, part int) VecVirtual { return l.load(e, ci, off, part) })
		}, func(q GPVirtual) {
			minOp(s, lo[0], lo[1], lo[0])
			maxOp(s, hi[0], hi[1], hi[0])
			VMOVSD(reduce(s, lo[0], true), Mem{Base: plo, Index: q, Scale: 8})
			VMOVSD(reduce(s, hi[0], false), Mem{Base: phi, Index: q, Scale: 8})
		})
	})
	epilogue()
}

func maxMasked(s isa) {
	TEXT("maxMasked"+s.name, NOSPLIT, "func(xs []float64, words []uint64, hi []float64)")
	Pragma("noescape")
	Doc("maxMasked"+s.name+" sets hi[q] to the largest of the elements of xs in block q (512 elements)",
		"whose bit is set in words, for len(hi) > 0 full blocks.")
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
		maskedMinMax(s, w, nil, hi, inf, ninf, func(off, part int) VecVirtual {
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
	if s.z {
		for v := 0; v < 8; v++ {
			k := K()
			VCMPPD(U8(cmpGT), Mem{Base: xs, Disp: 64 * v}, vt, k) // thr > x, false for NaN
			KMOVB(k, b.As32())
			if v > 0 {
				SHLQ(U8(8*v), b)
			}
			ORQ(b, below)
		}
	} else {
		for v := 0; v < 16; v++ {
			m := YMM()
			VCMPPD(U8(cmpGT), Mem{Base: xs, Disp: 32 * v}, vt, m)
			VMOVMSKPD(m, b.As32())
			if v > 0 {
				SHLQ(U8(4*v), b)
			}
			ORQ(b, below)
		}
	}
	w := GP64()
	Load(Param("w"), w)
	NOTQ(below)
	ANDQ(w, below)
	Store(below, ReturnIndex(0))
	epilogue()
}

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
// hosts that pass.
func wordLoop(s isa, words, nw GPVirtual, step func(e, ci GPVirtual, off, part int) (GPVirtual, bool)) {
	q, e, ci, w, acc := GP64(), GP64(), GP64(), GP64(), GP64()
	XORQ(q, q)
	XORQ(e, e)
	top, next := label("word"), label("next")
	Label(top)
	MOVQ(Mem{Base: words, Index: q, Scale: 8}, w)
	TESTQ(w, w)
	JZ(LabelRef(next))
	MOVQ(e, ci)
	SHRQ(U8(3), ci)
	XORQ(acc, acc)
	fail := false
	for v := 0; v < 8; v++ {
		for part := 0; part < s.parts(); part++ {
			bits, f := step(e, ci, 8*v, part)
			fail = f
			if sh := 8*v + 4*part; sh > 0 {
				SHLQ(U8(sh), bits)
			}
			ORQ(bits, acc)
		}
	}
	if fail {
		NOTQ(acc)
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
	q, e, w, acc, bits := GP64(), GP64(), GP64(), GP64(), GP64()
	XORQ(q, q)
	XORQ(e, e)
	top, next := label("word"), label("next")
	Label(top)
	MOVQ(Mem{Base: words, Index: q, Scale: 8}, w)
	TESTQ(w, w)
	JZ(LabelRef(next))
	XORQ(acc, acc)
	if s.z {
		for g := 0; g < 4; g++ {
			v := ZMM()
			VMOVDQU32(Mem{Base: col, Index: e, Scale: 4, Disp: 64 * g}, v)
			k1, k2 := K(), K()
			VPCMPD(U8(icmpNLT), vlo, v, k1)
			VPCMPD(U8(icmpLE), vhi, v, k1, k2)
			KMOVW(k2, bits.As32())
			if g > 0 {
				SHLQ(U8(16*g), bits)
			}
			ORQ(bits, acc)
		}
	} else {
		for g := 0; g < 8; g++ {
			v, a, b := YMM(), YMM(), YMM()
			VMOVDQU(Mem{Base: col, Index: e, Scale: 4, Disp: 32 * g}, v)
			VPCMPGTD(v, vlo, a) // lo > v
			VPCMPGTD(vhi, v, b) // v > hi
			VPOR(a, b, a)
			VMOVMSKPS(a, bits.As32())
			if g > 0 {
				SHLQ(U8(8*g), bits)
			}
			ORQ(bits, acc)
		}
		NOTQ(acc) // outside -> inside
	}
	XORQ(flip, acc)
	ANDQ(acc, w)
	MOVQ(w, Mem{Base: words, Index: q, Scale: 8})
	Label(next)
	INCQ(q)
	ADDQ(U8(64), e)
	CMPQ(q, nw)
	JB(LabelRef(top))
	Label("ret")
	epilogue()
}

func main() {
	// avo reads the argument types (colArg...) from the package: load it
	// from its own directory, in placer's module (this one is separate).
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	if err := os.Chdir(".."); err != nil {
		panic(err)
	}
	Package("github.com/placer/placer/internal/kernels")
	if err := os.Chdir(wd); err != nil {
		panic(err)
	}
	ConstraintExpr("amd64,!purego")
	constants()
	for _, s := range []isa{avx2, avx512} {
		minMax(s)
		for op := opScalar; op <= opScaledCoded; op++ {
			accumulate(s, op)
		}
		weigh(s, true)
		weigh(s, false)
		minMaxMasked(s)
		maxMasked(s)
		notBelow(s)
		resourcePass(s, passRAM)
		resourcePass(s, passCore)
		resourcePass(s, passDisk)
		belowPass(s)
		rangePass(s)
	}
	Generate()
}
