package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ---- accumulations ----

type accOp int

const (
	opScalar      accOp = iota // s += m * ((x - lo) / span)
	opMult                     // s += mult[i] * ((x - lo) / span)
	opCoded                    // s += tab[code i] * ((x - lo) / span)
	opScaled                   // s += ((x - lo) * (mult[i] - base)) * inv
	opScaledCoded              // s += ((x - lo) * (tab[code i] - base)) * inv
	// The quotient variants of opScalar, opMult and opCoded: (x - lo) /
	// span without a division (see quotient).
	opScalarQ
	opMultQ
	opCodedQ
)

var accNames = [...]string{"accScalar", "accMult", "accCoded", "accScaled", "accScaledCoded", "accScalarQ", "accMultQ", "accCodedQ"}
var accDocs = [...]string{
	"score[i] += p.m * ((x[i] - p.lo) / p.span)",
	"score[i] += p.mult[i] * ((x[i] - p.lo) / p.span)",
	"score[i] += p.tab[code i] * ((x[i] - p.lo) / p.span)",
	"score[i] += ((x[i] - p.lo) * (p.mult[i] - p.base)) * p.inv",
	"score[i] += ((x[i] - p.lo) * (p.tab[code i] - p.base)) * p.inv",
	"score[i] += p.m * q(x[i] - p.lo), q(t) = fma(fma(-t*p.inv, p.span, t), p.inv, t*p.inv)",
	"score[i] += p.mult[i] * q(x[i] - p.lo), q(t) = fma(fma(-t*p.inv, p.span, t), p.inv, t*p.inv)",
	"score[i] += p.tab[code i] * q(x[i] - p.lo), q(t) = fma(fma(-t*p.inv, p.span, t), p.inv, t*p.inv)",
}

// base is the operation op computes with a division in place of the
// quotient.
func (op accOp) base() accOp {
	if op >= opScalarQ {
		return op - opScalarQ
	}
	return op
}

// accumulate writes the accumulation kernel of op for s. With small
// (AVX2, opCoded and opCodedQ), the multipliers' codes must be
// below 8 (a table of at most eight values): their decoding looks up only
// the table's first half. With set (not the scaled ops), the kernel sets
// score[i] to 0 + the term rather than adding the term to it: a
// rescoring's first weigher, which then neither reads the scores nor
// needs them cleared first. The sum with zero keeps Nova's arithmetic
// (its weights start at 0.0: a term of -0 sums to +0).
func accumulate(s isa, op accOp, small, set bool) {
	name := accNames[op]
	if small {
		name += "Small"
	}
	if set {
		name += "Set"
	}
	TEXT(name+s.name, NOSPLIT, "func(score []float64, c colArg, p opArg)")
	Pragma("noescape")
	what := accDocs[op]
	if set {
		what = "score[i] = 0 + " + what[len("score[i] += "):]
	}
	doc := fmt.Sprintf("%s%s sets, for x the column c, %s, each operation rounded on its own; len(score) is a multiple of 8.", name, s.name, what)
	if small {
		doc += " Every code of p is below 8."
	}
	Doc(doc)
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
	quot := op >= opScalarQ
	if quot {
		vinv = bcast(s, addr(p.Field("inv")))
	}
	switch op.base() {
	case opScalar:
		vm, vspan = bcast(s, addr(p.Field("m"))), bcast(s, addr(p.Field("span")))
	case opMult, opCoded:
		vspan = bcast(s, addr(p.Field("span")))
	case opScaled, opScaledCoded:
		vbase, vinv = bcast(s, addr(p.Field("base"))), bcast(s, addr(p.Field("inv")))
	}
	switch op.base() {
	case opMult, opScaled:
		mult = GP64()
		Load(p.Field("mult"), mult)
	case opCoded, opScaledCoded:
		mt = newTable(s, p)
		mt.small = small
	}
	kindSwitch(Param("c"), func(kind int) {
		l := newCol(s, kind, Param("c"))
		var zero VecVirtual
		if set {
			zero = s.vec()
			VXORPD(zero, zero, zero)
		}
		loop8(n, l.t != nil || mt != nil, func(e, ci GPVirtual) {
			for part := 0; part < s.parts(); part++ {
				x := l.load(e, ci, 0, part)
				t := s.vec()
				VSUBPD(vlo, x, t)
				var m VecVirtual
				switch op.base() {
				case opMult, opScaled:
					m = s.vec()
					VMOVUPD(Mem{Base: mult, Index: e, Scale: 8, Disp: 32 * part}, m)
				case opCoded, opScaledCoded:
					m = mt.decode(ci, 0, part)
				}
				if quot {
					t = quotient(s, t, vspan, vinv)
				}
				switch op.base() {
				case opScalar:
					if !quot {
						VDIVPD(vspan, t, t)
					}
					VMULPD(vm, t, t)
				case opMult, opCoded:
					if !quot {
						VDIVPD(vspan, t, t)
					}
					VMULPD(m, t, t)
				case opScaled, opScaledCoded:
					VSUBPD(vbase, m, m)
					VMULPD(m, t, t)
					VMULPD(vinv, t, t)
				}
				sm := Mem{Base: score, Index: e, Scale: 8, Disp: 32 * part}
				if set {
					VADDPD(zero, t, t)
				} else {
					VADDPD(sm, t, t)
				}
				VMOVUPD(t, sm)
			}
		})
	})
	Label("ret")
	epilogue()
}

// quotient returns t / span, correctly rounded, from inv = 1/span
// (rounded) without a division: q0 = t*inv, its exact remainder r =
// t - q0*span (one FMA), and q0 + r*inv (another). Correct for integers
// |t| < 2^50 (not -0) and 0 < span < 2^50 (kernels' quotient.go); the
// kernels' callers use it only for columns and bounds QuotientExact
// admits.
func quotient(s isa, t, vspan, vinv VecVirtual) VecVirtual {
	q := s.vec()
	VMULPD(vinv, t, q)
	VFNMADD231PD(vspan, q, t) // t = t - q*span
	VFMADD231PD(vinv, t, q)   // q = q + t*inv
	return q
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
