package pyval

import (
	"fmt"
	"math"
	"math/big"
)

// pyNumber converts a Python number (bool, int, float) to an exact
// rational; isNum is false for other values. NaN and infinities come back
// as special with their float value.
func pyNumber(v any) (r *big.Rat, special float64, isSpecial, isNum bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewRat(1, 1), 0, false, true
		}
		return new(big.Rat), 0, false, true
	case int64:
		return new(big.Rat).SetInt64(x), 0, false, true
	case int:
		return new(big.Rat).SetInt64(int64(x)), 0, false, true
	case *big.Int:
		return new(big.Rat).SetInt(x), 0, false, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, x, true, true
		}
		return new(big.Rat).SetFloat64(x), 0, false, true
	}
	return nil, 0, false, false
}

// exactFloat is the largest magnitude below which every int64 converts to
// float64 exactly.
const exactFloat = 1 << 53

// floatPair returns a and b as float64 when that loses nothing (floats,
// and ints and bools within ±2^53), so that comparing the floats is
// comparing the Python numbers; fast is false otherwise.
func floatPair(a, b any) (fa, fb float64, fast bool) {
	conv := func(v any) (float64, bool) {
		switch x := v.(type) {
		case float64:
			return x, true
		case int64:
			if x > -exactFloat && x < exactFloat {
				return float64(x), true
			}
		case int:
			if x > -exactFloat && x < exactFloat {
				return float64(x), true
			}
		case bool:
			if x {
				return 1, true
			}
			return 0, true
		}
		return 0, false
	}
	var oka, okb bool
	fa, oka = conv(a)
	fb, okb = conv(b)
	return fa, fb, oka && okb
}

// numCmp compares two Python numbers exactly, as Python compares int with
// float. ok is false when a NaN makes every ordering false.
func numCmp(a, b any) (c int, ok bool) {
	if fa, fb, fast := floatPair(a, b); fast {
		switch {
		case fa < fb:
			return -1, true
		case fa > fb:
			return 1, true
		case fa == fb:
			return 0, true
		}
		return 0, false // NaN
	}
	ra, fa, sa, _ := pyNumber(a)
	rb, fb, sb, _ := pyNumber(b)
	if sa || sb {
		if !sa {
			fa = 0 // finite: only its side relative to ±inf matters
		}
		if !sb {
			fb = 0
		}
		if math.IsNaN(fa) || math.IsNaN(fb) {
			return 0, false
		}
		switch {
		case fa < fb:
			return -1, true
		case fa > fb:
			return 1, true
		}
		return 0, true
	}
	return ra.Cmp(rb), true
}

func isPyNumber(v any) bool {
	switch v.(type) {
	case bool, int64, int, *big.Int, float64:
		return true
	}
	return false
}

// Eq is Python's a == b for values of the model.
func Eq(a, b any) bool {
	if isPyNumber(a) && isPyNumber(b) {
		c, ok := numCmp(a, b)
		return ok && c == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Eq(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys {
			yv, ok := y.Get(k)
			if !ok || !Eq(x.Values[k], yv) {
				return false
			}
		}
		return true
	case *IPAddress:
		y, ok := b.(*IPAddress)
		return ok && x.Version == y.Version && x.Value.Cmp(y.Value) == 0
	case *Object:
		y, ok := b.(*Object)
		return ok && x.Identity == y.Identity
	case IntSet:
		y, ok := b.(IntSet)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return false
}

// Order is Python's a OP b for OP in <, <=, >, >=; an *Error TypeError
// where Python raises one (unlike types, None, dicts, objects).
func Order(op string, a, b any) (bool, error) {
	if isPyNumber(a) && isPyNumber(b) {
		c, ok := numCmp(a, b)
		return ok && cmpHolds(op, c), nil
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			c := 0
			if x < y {
				c = -1
			} else if x > y {
				c = 1
			}
			return cmpHolds(op, c), nil
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if !Eq(x[i], y[i]) {
					return Order(op, x[i], y[i])
				}
			}
			return cmpHolds(op, len(x)-len(y)), nil
		}
	case *IPAddress:
		if y, ok := b.(*IPAddress); ok {
			c := x.Version - y.Version
			if c == 0 {
				c = x.Value.Cmp(y.Value)
			}
			return cmpHolds(op, c), nil
		}
	}
	return false, &Error{Exception: "TypeError",
		Msg: fmt.Sprintf("'%s' not supported between instances of '%s' and '%s'", op, TypeName(a), TypeName(b))}
}

func cmpHolds(op string, c int) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0 // ">="
}
