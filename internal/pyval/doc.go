// Package pyval models the Python values that placer must treat exactly as
// Nova's Python code does: what json.loads returns, what str() and repr()
// print, how == and < compare, what float() and int() accept.
//
// A value of the model is a Go value standing for a Python one:
//
//	None          nil
//	bool          bool
//	int           int64 (or int); *big.Int beyond the int64 range
//	float         float64 (NaN and ±Inf included)
//	str           string (UTF-8; see the surrogate note below)
//	list          []any; also []string and [][3]string
//	dict          *Dict (keys in insertion order); also map[string]string,
//	              shown with sorted keys since a Go map has no order
//	CoercedSet    IntSet (oslo's set of ints, ascending)
//	IPAddress     *IPAddress (netaddr)
//	other objects *Object (opaque: a repr, a type name, an identity)
//
// What it models, as CPython 3.11 (the interpreter Nova 26 runs on) does;
// the tests check it against testdata/python.json, which that interpreter
// wrote (testdata/python_table.py). IntSet, IPAddress and Object need
// Nova's libraries and are checked where Nova uses them, in internal/nova.
//
//   - Str and Repr: str() and repr() of every value above. FloatRepr is
//     repr(float): the shortest digits that round-trip, positional when the
//     decimal exponent is in [-4, 16), else d.ddde±XX; inf, -inf, nan,
//     -0.0. StrRepr is repr(str), choosing its quote as CPython does and
//     escaping what Printable (str.isprintable, Unicode 14) refuses.
//   - Eq and Order: ==, <, <=, >, >= with Python 3's rules: int and float
//     compare exactly (2**53+1 > 2.0**53), NaN is unordered, bool is an
//     int, lists compare element by element; ordering unlike types raises
//     TypeError (an *Error), equality across them is False.
//   - Truthy and TypeName: bool(v) and type(v).__name__.
//   - Float, Int and BigInt: float(s) and int(s) of a string, with
//     whitespace, underscores, Unicode digits, inf/nan as CPython reads them.
//   - Unescape: one escape sequence of a JSON string as json.loads decodes
//     it, surrogate pairs included. The two JSON parsers built on it keep
//     their own contracts: internal/nova's ParseJSON is json.loads as Nova
//     calls it (NaN accepted, a repeated key keeps its last value);
//     internal/scenario's is a strict decoder that reports field paths.
//
// Invariants: no function here modifies its arguments (Dict.Set is for
// the code building a dict); every function is total over the model
// (an unknown Go type prints as "<unknown>", is truthy, equals nothing);
// and where Go cannot hold a Python value the difference is fixed and
// documented: a lone surrogate (from "\ud800") becomes U+FFFD, Int refuses
// what does not fit an int64 (BigInt takes it).
//
// The package imports only the standard library.
package pyval

//go:generate sh -c "python3 printable.py > printable.go"
