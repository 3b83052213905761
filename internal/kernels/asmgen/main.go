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
	"github.com/mmcloughlin/avo/ir"
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
// loopHead aligns the next instruction, a loop's first, to 64 bytes
// (PCALIGN: the assembler pads with NOPs and aligns the function to
// 64). The kernels' loops otherwise land wherever the kernels before them
// end, and a loop that crosses a cache line's boundary in one build and
// not in the next moved a case 5% with no change to its code (PlaceBatch
// x 1 when the Set kernels were added before maxMasked).
func loopHead() {
	Instruction(&ir.Instruction{Opcode: "PCALIGN", Operands: []Op{Imm(64)}})
}

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
		for op := opScalar; op <= opCodedQ; op++ {
			for _, set := range []bool{false, true} {
				if set && (op == opScaled || op == opScaledCoded) {
					continue
				}
				accumulate(s, op, false, set)
				if !s.z && (op == opCoded || op == opCodedQ) {
					accumulate(s, op, true, set)
				}
			}
		}
		weigh(s, true)
		weigh(s, false)
		// AVX-512's VRANGEPD is exact in one instruction; AVX2 has its
		// Plain variants besides (maxMaskedAsm takes only that one).
		minMaxMasked(s, false)
		if !s.z {
			minMaxMasked(s, true)
		}
		maxMasked(s, !s.z)
		notBelow(s)
		resourcePass(s, passRAM)
		resourcePass(s, passCore)
		resourcePass(s, passDisk)
		belowPass(s)
		rangePass(s)
	}
	Generate()
}
