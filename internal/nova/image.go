package nova

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// ImageRequest is what ImagePropertiesFilter and
// AggregateImagePropertiesIsolation read from an image, after Nova's
// ImageMeta.from_dict: legacy names mapped, values canonicalised/typed.
type ImageRequest struct {
	// Props are the typed ImageMetaProps fields that are set, by their
	// current names (hw_architecture, img_hv_type, hw_vm_mode,
	// img_hv_requested_version, os_distro, ...), as Python-like values;
	// nil when none is. Read only.
	Props map[string]any
}

// fieldKind is the oslo.versionedobjects type of an ImageMetaProps field.
type fieldKind int

const (
	kString fieldKind = iota
	kInt
	kBool
	kUUID
	kVersionPredicate
	kEnum
	kArch
	kHVType
	kVMMode
	kListOfStrings
	kListOfInts
	kListOfSetsOfInts
	kListOfDicts
)

// imageField is one ImageMetaProps field.
type imageField struct {
	kind     fieldKind
	nullable bool
	enum     []string
	// lower and aliases are the extra canonicalisation of OSType,
	// SCSIModel and VIFModel (lower-case, then legacy aliases).
	lower   bool
	aliases map[string]string
}

// ParseImage turns a request's image properties into an ImageRequest as
// ImageMeta.from_dict does. An error names the property Nova refuses.
//
// Properties are applied in Nova's order (legacy names, then the current
// names in field order, then trait:NAME=required into traits_required), so
// the property named is the one Nova fails on. traits_required lists the
// traits in sorted order (Nova keeps the dict's order, which a Go map does
// not have).
func ParseImage(props map[string]any) (ImageRequest, error) {
	if len(props) == 0 {
		return ImageRequest{}, nil // no properties: nothing to parse
	}
	out := ImageRequest{Props: map[string]any{}}
	set := func(src, field string, v any) error {
		c, err := coerceImageField(field, imageFields[field], v)
		if err != nil {
			return fmt.Errorf("image property %s: %v", src, err)
		}
		out.Props[field] = c
		return nil
	}
	for _, lm := range imageLegacyNames {
		if v, ok := props[lm[0]]; ok {
			if err := set(lm[0], lm[1], v); err != nil {
				return ImageRequest{}, err
			}
		}
	}
	if v, ok := props["vmware_adaptertype"]; ok {
		if s, isStr := v.(string); isStr && s == "ide" {
			if err := set("vmware_adaptertype", "hw_disk_bus", "ide"); err != nil {
				return ImageRequest{}, err
			}
		} else if pyval.Truthy(v) {
			if err := set("vmware_adaptertype", "hw_disk_bus", "scsi"); err != nil {
				return ImageRequest{}, err
			}
			if err := set("vmware_adaptertype", "hw_scsi_model", v); err != nil {
				return ImageRequest{}, err
			}
		}
	}
	for _, field := range imageFieldOrder {
		var err error
		switch field {
		case "hw_numa_mem":
			err = numaProps(props, "hw_numa_mem", set, func(v any) (any, error) { return pyIntOf(v) })
		case "hw_numa_cpus":
			err = numaProps(props, "hw_numa_cpus", set, parseCPUSpec)
		case "traits_required":
		default:
			if v, ok := props[field]; ok {
				err = set(field, field, v)
			}
		}
		if err != nil {
			return ImageRequest{}, err
		}
	}
	var traits []string
	for k, v := range props {
		if strings.HasPrefix(k, "trait:") && pyval.Str(v) == "required" {
			traits = append(traits, k[len("trait:"):])
		}
	}
	if traits != nil {
		sort.Strings(traits)
		list := make([]any, len(traits))
		for i, t := range traits {
			list[i] = t
		}
		out.Props["traits_required"] = list
	}
	return out, nil
}

// numaProps is _set_numa_mem / _set_numa_cpus: NAME.0, NAME.1, ... up to
// the first missing index, each converted by conv.
func numaProps(props map[string]any, name string, set func(src, field string, v any) error, conv func(any) (any, error)) error {
	var list []any
	for cell := 0; cell < imageNUMANodesMax; cell++ {
		key := name + "." + strconv.Itoa(cell)
		v, ok := props[key]
		if !ok {
			break
		}
		c, err := conv(v)
		if err != nil {
			return fmt.Errorf("image property %s: %v", key, err)
		}
		list = append(list, c)
	}
	if list == nil {
		return nil
	}
	return set(name+".0", name, list)
}

// coerceImageField is Field.coerce for one ImageMetaProps field.
func coerceImageField(name string, f imageField, v any) (any, error) {
	if v == nil {
		if f.nullable {
			return nil, nil
		}
		return nil, fmt.Errorf("Field `%s' cannot be None", name)
	}
	switch f.kind {
	case kString, kUUID:
		// UUIDField only warns about a value that is not a uuid.
		if f.kind == kString && !isStringCoercible(v) {
			return nil, fmt.Errorf("a string is required in field %s", name)
		}
		return pyval.Str(v), nil
	case kInt:
		return pyIntOf(v)
	case kBool:
		return boolFromString(v), nil
	case kVersionPredicate:
		if _, err := parseVersionPredicate("check (" + pyval.Str(v) + ")"); err != nil {
			return nil, fmt.Errorf("Version %s is not a valid predicate in field %s", pyval.Str(v), name)
		}
		return v, nil
	case kEnum:
		s, ok := v.(string)
		if ok && f.lower {
			s = strings.ToLower(s)
			if a, isAlias := f.aliases[s]; isAlias {
				s = a
			}
		} else if !ok && f.lower {
			return nil, fmt.Errorf("'%s' object has no attribute 'lower'", pyval.TypeName(v))
		}
		if !ok || !contains(f.enum, s) {
			return nil, fmt.Errorf("Field value %s is invalid", pyval.Str(v))
		}
		return s, nil
	case kArch, kHVType, kVMMode:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("'%s' object has no attribute 'lower'", pyval.TypeName(v))
		}
		return canonicalEnum(f.kind, s)
	case kListOfStrings, kListOfInts, kListOfSetsOfInts, kListOfDicts:
		return coerceList(name, f.kind, v)
	}
	return nil, fmt.Errorf("field %s: unsupported kind", name)
}

func coerceList(name string, kind fieldKind, v any) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("A list is required in field %s, not a %s", name, pyval.TypeName(v))
	}
	out := make([]any, len(list))
	for i, e := range list {
		var err error
		switch {
		case e == nil:
			err = fmt.Errorf("Field `%s' cannot be None", name)
		case kind == kListOfStrings:
			if !isStringCoercible(e) {
				err = fmt.Errorf("a string is required in field %s", name)
			}
			out[i] = pyval.Str(e)
		case kind == kListOfInts:
			out[i], err = pyIntOf(e)
		case kind == kListOfSetsOfInts:
			s, ok := e.(pyval.IntSet)
			if !ok {
				err = fmt.Errorf("a set is required in field %s", name)
			}
			out[i] = s
		case kind == kListOfDicts:
			out[i], err = coerceNullableStringDict(name, e)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func coerceNullableStringDict(name string, v any) (any, error) {
	o, ok := v.(*pyval.Dict)
	if !ok {
		return nil, fmt.Errorf("A dict is required in field %s, not a %s", name, pyval.TypeName(v))
	}
	out := &pyval.Dict{Values: map[string]any{}}
	for _, k := range o.Keys {
		e := o.Values[k]
		switch {
		case e == nil:
			out.Set(k, nil)
		case isStringCoercible(e):
			out.Set(k, pyval.Str(e))
		default:
			return nil, fmt.Errorf("a string is required in field %s", name)
		}
	}
	return out, nil
}

// isStringCoercible: oslo's String accepts int, float, str (and bool,
// an int subclass).
func isStringCoercible(v any) bool {
	switch v.(type) {
	case string, int64, int, float64, bool, *big.Int:
		return true
	}
	return false
}

// pyIntOf is Python's int(v) for a Python-like value.
func pyIntOf(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case int64, *big.Int:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		if math.IsNaN(x) {
			return nil, fmt.Errorf("ValueError: cannot convert float NaN to integer")
		}
		if math.IsInf(x, 0) {
			return nil, fmt.Errorf("OverflowError: cannot convert float infinity to integer")
		}
		b, _ := big.NewFloat(math.Trunc(x)).Int(nil)
		return normInt(b), nil
	case string:
		b, ok := pyval.BigInt(x)
		if !ok {
			return nil, fmt.Errorf("ValueError: invalid literal for int() with base 10: %s", pyval.StrRepr(x))
		}
		return normInt(b), nil
	}
	return nil, fmt.Errorf("TypeError: int() argument must be a string, a bytes-like object or a real number, not '%s'", pyval.TypeName(v))
}

func normInt(b *big.Int) any {
	if b.IsInt64() {
		return b.Int64()
	}
	return b
}

// boolFromString is oslo_utils.strutils.bool_from_string(v) (not strict).
func boolFromString(v any) bool {
	if b, ok := v.(bool); ok {
		return b
	}
	switch strings.ToLower(strings.TrimFunc(pyval.Str(v), pyIsSpace)) {
	case "1", "t", "true", "on", "y", "yes":
		return true
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseCPUSpec is nova.virt.hardware.parse_cpu_spec ("0-3,^2,5"). Ranges
// are limited to 1<<20 CPUs (Nova would build the whole set).
func parseCPUSpec(v any) (any, error) {
	spec, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("'%s' object has no attribute 'split'", pyval.TypeName(v))
	}
	include, reject := map[int64]bool{}, map[int64]bool{}
	intOf := func(s string) (int64, bool) { return pyval.Int(strings.TrimFunc(s, pyIsSpace)) }
	for _, rule := range strings.Split(spec, ",") {
		rule = strings.TrimFunc(rule, pyIsSpace)
		if rule == "" {
			continue
		}
		if lo, hi, isRange := strings.Cut(rule, "-"); isRange {
			target := include
			if strings.HasPrefix(lo, "^") {
				target, lo = reject, lo[1:]
			}
			start, ok1 := intOf(lo)
			end, ok2 := intOf(hi)
			if !ok1 || !ok2 || start > end || end-start >= 1<<20 {
				return nil, fmt.Errorf("Invalid range expression %s", pyval.StrRepr(rule))
			}
			for c := start; c <= end; c++ {
				target[c] = true
			}
		} else if strings.HasPrefix(rule, "^") {
			c, ok := intOf(rule[1:])
			if !ok {
				return nil, fmt.Errorf("Invalid exclusion expression %s", pyval.StrRepr(rule))
			}
			reject[c] = true
		} else {
			c, ok := intOf(rule)
			if !ok {
				return nil, fmt.Errorf("Invalid inclusion expression %s", pyval.StrRepr(rule))
			}
			include[c] = true
		}
	}
	set := pyval.IntSet{}
	for c := range include {
		if !reject[c] {
			set = append(set, c)
		}
	}
	sort.Slice(set, func(i, j int) bool { return set[i] < set[j] })
	return set, nil
}
