package scenario

import (
	"fmt"
	"math"
	"strconv"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/pyval"
)

// decoder reads typed values off nodes with the oracle's rules and
// messages. Its error is sticky: the first one wins and every later read is
// a no-op returning a zero value, so readers can be chained without a check
// after each call (the record reader stops at the first error).
type decoder struct {
	err error
	// maxInstances, when positive, bounds num_instances below
	// MaxInstances (a service's limit: DecodeRequestDocMax).
	maxInstances int
}

func (d *decoder) fail(path, format string, args ...any) {
	if d.err == nil {
		d.err = &engine.ValidationError{Field: path, Msg: fmt.Sprintf(format, args...)}
	}
}

// field is one known field of a record: its name, whether it is required,
// and how to read it into the record's Go value.
type field[T any] struct {
	name     string
	required bool
	read     func(d *decoder, path string, v *node, dst *T)
}

// record reads a JSON object with known fields into dst, as the oracle's
// record(): not an object is an error, then the first unknown key (in
// document order), then each field in table order (missing required ones
// are an error). Absent optional fields leave dst as it is: callers fill
// dst with the defaults first.
func record[T any](d *decoder, path string, v *node, fields []field[T], dst *T) {
	if d.err != nil {
		return
	}
	if v.kind != kObject {
		d.fail(path, "want an object, got %s", show(v))
		return
	}
	var small [40]*node
	present := small[:0]
	if len(fields) > len(small) {
		present = make([]*node, 0, len(fields))
	}
	present = present[:len(fields)]
	clear(present)
	for i, k := range v.keys {
		j := fieldIndex(fields, k)
		if j < 0 {
			p := k
			if path != "" {
				p = keyPath(path, k)
			}
			d.fail(p, "unknown field")
			return
		}
		present[j] = v.items[i]
	}
	for j := range fields {
		f := &fields[j]
		fp := fieldPath(path, f.name)
		switch {
		case present[j] != nil:
			f.read(d, fp, present[j], dst)
		case f.required:
			d.fail(fp, "required field is missing")
		}
		if d.err != nil {
			return
		}
	}
}

func fieldIndex[T any](fields []field[T], name string) int {
	for j := range fields {
		if fields[j].name == name {
			return j
		}
	}
	return -1
}

// number accepts an int or a finite float.
func (d *decoder) number(p string, v *node) float64 {
	switch v.kind {
	case kInt:
		return float64(v.i)
	case kBigInt:
		f, _ := strconv.ParseFloat(v.s, 64)
		return f
	case kFloat:
		if math.IsInf(v.f, 0) {
			d.fail(p, "want a finite number, got %s", pyval.FloatRepr(v.f)) // str(): inf, -inf
			return 0
		}
		return v.f
	}
	d.fail(p, "want a number, got %s", show(v))
	return 0
}

func (d *decoder) nonnegNumber(p string, v *node) float64 {
	f := d.number(p, v)
	if d.err == nil && f < 0 {
		d.fail(p, "want a number >= 0, got %s", show(v))
	}
	return f
}

// hostInt reads a host resource number (a ComputeNode IntegerField):
// any number, truncated toward zero as Nova stores it.
func (d *decoder) hostInt(p string, v *node, nonneg bool) int64 {
	if v.kind == kInt {
		if nonneg && v.i < 0 {
			d.fail(p, "want a number >= 0, got %s", show(v))
		}
		return v.i
	}
	var f float64
	if nonneg {
		f = d.nonnegNumber(p, v)
	} else {
		f = d.number(p, v)
	}
	if d.err != nil {
		return 0
	}
	t := math.Trunc(f)
	if t >= 1<<63 || t < -(1<<63) {
		d.fail(p, "want a number that fits a 64-bit integer, got %s", show(v))
		return 0
	}
	return int64(t)
}

// integer accepts an int, or a float with an integral value (as the
// oracle's integer()), not below min when hasMin.
func (d *decoder) integer(p string, v *node, min int64, hasMin bool) int64 {
	var i int64
	switch {
	case v.kind == kInt:
		i = v.i
	case v.kind == kFloat && v.f == math.Trunc(v.f) && !math.IsInf(v.f, 0):
		if v.f >= 1<<63 || v.f < -(1<<63) {
			return d.bigInteger(p, strconv.FormatFloat(v.f, 'f', 0, 64), min, hasMin)
		}
		i = int64(v.f)
	case v.kind == kBigInt:
		return d.bigInteger(p, v.s, min, hasMin)
	default:
		d.fail(p, "want an integer, got %s", show(v))
		return 0
	}
	if hasMin && i < min {
		d.fail(p, "want an integer >= %d, got %d", min, i)
	}
	return i
}

// bigInteger reports an integer beyond int64: below the minimum as the
// oracle says it, else as out of range (the oracle would pass it on to
// Nova, which has no such integers either).
func (d *decoder) bigInteger(p, digits string, min int64, hasMin bool) int64 {
	if hasMin && digits[0] == '-' {
		d.fail(p, "want an integer >= %d, got %s", min, digits)
	} else {
		d.fail(p, "want an integer that fits in 64 bits, got %s", digits)
	}
	return 0
}

func (d *decoder) nonnegInteger(p string, v *node) int64 { return d.integer(p, v, 0, true) }

func (d *decoder) positiveInt(p string, v *node) int { return int(d.integer(p, v, 1, true)) }

func (d *decoder) boolean(p string, v *node) bool {
	if v.kind != kBool {
		d.fail(p, "want true or false, got %s", show(v))
	}
	return v.b
}

func (d *decoder) string(p string, v *node) string {
	if v.kind != kString {
		d.fail(p, "want a string, got %s", show(v))
		return ""
	}
	return v.s
}

func (d *decoder) nonemptyString(p string, v *node) string {
	s := d.string(p, v)
	if d.err == nil && s == "" {
		d.fail(p, "want a non-empty string")
	}
	return s
}

// nullableString is nullable(string) (nonempty when nonempty is set).
func (d *decoder) nullableString(p string, v *node, nonempty bool) *string {
	if v.kind == kNull {
		return nil
	}
	var s string
	if nonempty {
		s = d.nonemptyString(p, v)
	} else {
		s = d.string(p, v)
	}
	return &s
}

// list checks that v is a list and calls each for every element with its
// path.
func (d *decoder) list(p string, v *node, each func(p string, v *node)) {
	if v.kind != kList {
		d.fail(p, "want a list, got %s", show(v))
		return
	}
	for i, x := range v.items {
		each(indexPath(p, i), x)
		if d.err != nil {
			return
		}
	}
}

// stringList reads a list of strings (nil when empty), each nonempty when
// nonempty is set.
func (d *decoder) stringList(p string, v *node, nonempty bool) []string {
	var out []string
	d.list(p, v, func(p string, x *node) {
		if nonempty {
			out = append(out, d.nonemptyString(p, x))
		} else {
			out = append(out, d.string(p, x))
		}
	})
	if d.err != nil {
		return nil
	}
	return out
}

// mapOf checks that v is an object and calls each for every entry with its
// path (a.b or a["x:y"]).
func (d *decoder) mapOf(p string, v *node, each func(p, key string, v *node)) {
	if v.kind != kObject {
		d.fail(p, "want an object, got %s", show(v))
		return
	}
	for i, k := range v.keys {
		each(keyPath(p, k), k, v.items[i])
		if d.err != nil {
			return
		}
	}
}

// stringMap reads an object of strings (nil when empty).
func (d *decoder) stringMap(p string, v *node) map[string]string {
	var out map[string]string
	d.mapOf(p, v, func(p, k string, x *node) {
		s := d.string(p, x)
		if out == nil {
			out = make(map[string]string, len(v.keys))
		}
		out[k] = s
	})
	if d.err != nil {
		return nil
	}
	return out
}
