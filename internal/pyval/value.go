package pyval

import "math/big"

// Dict is a Python dict (a JSON object as json.loads returns it) that keeps
// its keys in insertion order.
type Dict struct {
	// Keys are the keys in insertion order.
	Keys []string
	// Values maps each key to its value.
	Values map[string]any
}

// Get returns the value stored under key and whether the key is present,
// as Python's dict.get does.
func (d *Dict) Get(key string) (any, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.Values[key]
	return v, ok
}

// Len is len(dict).
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.Keys)
}

// Set stores key -> v the way a Python dict assignment does: an existing
// key keeps its position and takes the new value.
func (d *Dict) Set(key string, v any) {
	if d.Values == nil {
		d.Values = map[string]any{}
	}
	if _, ok := d.Values[key]; !ok {
		d.Keys = append(d.Keys, key)
	}
	d.Values[key] = v
}

// Object stands for a Python object that is neither a JSON value nor a
// container (a bound method, an Instance, a MonitorMetricList...). Its str()
// and repr() are Repr; it is truthy unless Falsy is set; it equals only
// an object with the same Identity (Python compares such objects by
// identity), and ordering it raises TypeError. It has no .get method.
type Object struct {
	// Type is the Python type name, used in TypeError messages.
	Type string
	// Repr is what str()/repr() return.
	Repr string
	// Identity tells apart distinct Python objects.
	Identity string
	// Falsy is bool(obj) == False (an empty list object).
	Falsy bool
}

// IPAddress is a netaddr.IPAddress (HostState.host_ip): str() is the
// canonical address text, it equals only another IPAddress with the same
// address, it orders only against another IPAddress, and it is truthy
// unless it is the zero address.
type IPAddress struct {
	// Text is str(IPAddress).
	Text string
	// Version is 4 or 6.
	Version int
	// Value is the address as an integer (for ordering).
	Value *big.Int
}

// IntSet is a set of ints as an hw_numa_cpus element holds it (an oslo
// CoercedSet); str() shows it as "CoercedSet({0, 1, 2})" in ascending
// order, which is CPython's order for small non-negative ints.
type IntSet []int64

// Error is a Python exception: what an operation returns where Python
// raises instead of answering (Order returns a TypeError).
type Error struct {
	// Exception is the Python exception class, e.g. "ValueError".
	Exception string
	// Msg is the exception message.
	Msg string
}

// Error reports the Python exception.
func (e *Error) Error() string { return e.Exception + ": " + e.Msg }

// Truthy is bool(v).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case int:
		return x != 0
	case *big.Int:
		return x.Sign() != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case *Dict:
		return x.Len() > 0
	case IntSet:
		return len(x) > 0
	case *Object:
		return !x.Falsy
	case *IPAddress:
		return x.Value.Sign() != 0
	}
	return true
}

// TypeName is type(v).__name__.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, int, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case *Dict:
		return "dict"
	case IntSet:
		return "set"
	case *Object:
		return x.Type
	case *IPAddress:
		return "IPAddress"
	}
	return "object"
}
