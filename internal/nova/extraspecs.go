package nova

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/placer/placer/internal/pyval"
)

// ErrPython is the kind of error returned where Nova's Python code raises
// an exception instead of returning a result (the exception then escapes
// the filter and fails the scheduling request). It is pyval's Error, so
// that a TypeError raised by pyval.Order is one too.
type ErrPython = pyval.Error

func pyErr(exc, format string, a ...any) error {
	return &ErrPython{Exception: exc, Msg: fmt.Sprintf(format, a...)}
}

// pyIsSpace is str.isspace for one character, as str.split() uses it.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// PyStrip is str.strip() without arguments (it also strips the
// separators U+001C..U+001F, which strings.TrimSpace keeps).
func PyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pySplit is str.split() without arguments.
func pySplit(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// isMatchOp reports whether op is one of extra_specs_ops.op_methods.
func isMatchOp(op string) bool {
	switch op {
	case "=", "<in>", "<all-in>", "==", "!=", ">=", "<=",
		"s==", "s!=", "s<", "s<=", "s>", "s>=":
		return true
	}
	return false
}

// Match is nova.scheduler.filters.extra_specs_ops.match(value, req) for a
// non-None value (a None value never matches: callers test that first).
// Where Nova raises (a numeric operator on a value or operand float()
// refuses, or a bare "<or>"), Match returns false; MatchErr reports it.
func Match(value, req string) bool {
	ok, err := MatchErr(value, req)
	return ok && err == nil
}

// MatchErr is Match with Nova's exceptions: a numeric operator whose value
// or operand float() refuses raises ValueError in Nova, and a requirement
// that is exactly "<or>" raises IndexError; both come back as *ErrPython.
func MatchErr(value, req string) (bool, error) {
	words := pySplit(req)
	op := ""
	if len(words) > 0 {
		op, words = words[0], words[1:]
	}
	if op != "<or>" && !isMatchOp(op) {
		return value == req, nil
	}
	if op == "<or>" {
		if len(words) == 0 {
			return false, pyErr("IndexError", "pop from empty list")
		}
		for {
			if words[0] == value {
				return true, nil
			}
			words = words[1:]
			if len(words) == 0 {
				break
			}
			words = words[1:] // the <or> keyword
			if len(words) == 0 {
				break
			}
		}
		return false, nil
	}
	if len(words) == 0 {
		return false, nil
	}
	arg := words[0]
	switch op {
	case "<in>":
		return strings.Contains(value, arg), nil
	case "<all-in>":
		for _, w := range words {
			if !strings.Contains(value, w) {
				return false, nil
			}
		}
		return true, nil
	case "s==":
		return value == arg, nil
	case "s!=":
		return value != arg, nil
	case "s<":
		return value < arg, nil
	case "s<=":
		return value <= arg, nil
	case "s>":
		return value > arg, nil
	case "s>=":
		return value >= arg, nil
	}
	x, ok := pyval.Float(value)
	if !ok {
		return false, pyErr("ValueError", "could not convert string to float: %s", pyval.StrRepr(value))
	}
	y, ok := pyval.Float(arg)
	if !ok {
		return false, pyErr("ValueError", "could not convert string to float: %s", pyval.StrRepr(arg))
	}
	switch op {
	case "=", ">=":
		return x >= y, nil
	case "==":
		return x == y, nil
	case "!=":
		return x != y, nil
	default: // "<="
		return x <= y, nil
	}
}
