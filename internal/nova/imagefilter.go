package nova

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// canonicalEnum is Architecture/HVType/VMMode.canonicalize followed by the
// Enum validity check: lower-case, then the historical aliases (i386, i486,
// i586, x86_32, x86_32p -> i686; amd64 -> x86_64; xapi -> xen; pv -> xen;
// hv, baremetal -> hvm).
func canonicalEnum(kind fieldKind, name string) (string, error) {
	if strings.ContainsRune(name, '\u0130') {
		// Python lower-cases U+0130 to two characters, never a valid name.
		return "", canonError(kind, name)
	}
	n := strings.ToLower(name)
	var valid []string
	switch kind {
	case kArch:
		switch n {
		case "i386", "i486", "i586", "x86_32", "x86_32p":
			n = "i686"
		case "amd64":
			n = "x86_64"
		}
		valid = archNames
	case kHVType:
		if n == "xapi" {
			n = "xen"
		}
		valid = hvTypeNames
	default:
		switch n {
		case "pv":
			n = "xen"
		case "hv", "baremetal":
			n = "hvm"
		}
		valid = vmModeNames
	}
	if !contains(valid, n) {
		return "", canonError(kind, name)
	}
	return n, nil
}

func canonError(kind fieldKind, name string) error {
	switch kind {
	case kArch:
		return fmt.Errorf("Architecture name '%s' is not valid", name)
	case kHVType:
		return fmt.Errorf("Hypervisor virt type '%s' is not valid", name)
	}
	return fmt.Errorf("Virtual machine mode '%s' is not valid", strings.ToLower(name))
}

// CanonicalArch is fields.Architecture.canonicalize (amd64 -> x86_64,
// i386/i486/i586/x86_32 -> i686, lower-cased); an error for a name Nova
// does not know.
func CanonicalArch(name string) (string, error) { return canonicalEnum(kArch, name) }

// CanonicalHVSpec canonicalises a supported_instances triple as Nova's
// HVSpec does; an error when Nova refuses a value.
func CanonicalHVSpec(spec [3]string) ([3]string, error) {
	var out [3]string
	for i, kind := range [3]fieldKind{kArch, kHVType, kVMMode} {
		c, err := canonicalEnum(kind, spec[i])
		if err != nil {
			return [3]string{}, err
		}
		out[i] = c
	}
	return out, nil
}

// ImagePropertiesPass is ImagePropertiesFilter.host_passes.
// defaultArch is image_properties_default_architecture (nil = unset).
// supported must be canonical (as HVSpec stores it, see CanonicalHVSpec).
// Where Nova raises (see ImagePropertiesCheck) the host fails.
func ImagePropertiesPass(img ImageRequest, defaultArch *string, supported [][3]string, hvVersion *int64) bool {
	ok, err := ImagePropertiesCheck(img, defaultArch, supported, hvVersion)
	return ok && err == nil
}

// ImagePropertiesCheck is ImagePropertiesPass with Nova's exceptions: a
// default architecture Nova does not know, or a hypervisor version the
// requested-version predicate cannot compare (see HVVersionSatisfies).
func ImagePropertiesCheck(img ImageRequest, defaultArch *string, supported [][3]string, hvVersion *int64) (bool, error) {
	want, err := imageWants(img, defaultArch)
	if err != nil {
		return false, err
	}
	if want == [3]string{} {
		return true, nil
	}
	if len(supported) == 0 {
		return false, nil
	}
	required, _ := img.Props["img_hv_requested_version"].(string)
	for _, s := range supported {
		if !hvSpecHasAll(s, want) {
			continue
		}
		if hvVersion == nil {
			return true, nil
		}
		ok, err := HVVersionSatisfies(*hvVersion, required)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// hvSpecHasAll is _compare_props: every requested value is somewhere in
// the supported triple (Nova tests membership in the whole list).
func hvSpecHasAll(spec, want [3]string) bool {
	for _, w := range want {
		if w != "" && w != spec[0] && w != spec[1] && w != spec[2] {
			return false
		}
	}
	return true
}

// AggregateImagePropertiesIsolationPass is AggregateImagePropertiesIsolation
// with the configured namespace (nil = none) and separator. Metadata keys
// that are not ImageMetaProps fields are skipped, as Nova's AttributeError
// path does; a set, truthy property must have str(prop) among the key's
// values.
func AggregateImagePropertiesIsolationPass(img ImageRequest, meta AggregateMetadata, namespace *string, sep string) bool {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if namespace != nil && *namespace != "" && !strings.HasPrefix(key, *namespace+sep) {
			continue
		}
		if _, isField := imageFields[key]; !isField {
			continue
		}
		prop, ok := img.Props[key]
		if !ok || !pyval.Truthy(prop) {
			continue
		}
		if !contains(meta[key], pyval.Str(prop)) {
			return false
		}
	}
	return true
}

// imageWants is the (architecture, hypervisor type, VM mode) the image
// asks for, "" where it asks nothing; the architecture defaults to
// defaultArch when the image has none.
func imageWants(img ImageRequest, defaultArch *string) ([3]string, error) {
	var want [3]string
	if v, ok := img.Props["hw_architecture"]; ok {
		want[0], _ = v.(string)
	} else if defaultArch != nil {
		a, err := CanonicalArch(*defaultArch)
		if err != nil {
			return want, pyErr("InvalidArchitectureName", "%v", err)
		}
		want[0] = a
	}
	want[1], _ = img.Props["img_hv_type"].(string)
	want[2], _ = img.Props["hw_vm_mode"].(string)
	return want, nil
}

// ImageRequestsNothing reports that ImagePropertiesCheck passes every
// host for img: it asks for no architecture, hypervisor type or VM mode,
// and no default architecture stands in.
func ImageRequestsNothing(img ImageRequest, defaultArch *string) bool {
	want, err := imageWants(img, defaultArch)
	return err == nil && want == [3]string{}
}

// ImagePropertiesSignature is what ImagePropertiesCheck reads of img and
// defaultArch, as a text: requests whose signatures are equal get the same
// outcome from every host.
func ImagePropertiesSignature(img ImageRequest, defaultArch *string) string {
	want, err := imageWants(img, defaultArch)
	if err != nil {
		return "!" + err.Error()
	}
	required, _ := img.Props["img_hv_requested_version"].(string)
	return strconv.Quote(want[0]) + strconv.Quote(want[1]) + strconv.Quote(want[2]) + strconv.Quote(required)
}

// AggregateImagePropertiesIsolationSignature is what
// AggregateImagePropertiesIsolationPass reads of img, as a text: requests
// whose signatures are equal get the same outcome from every aggregate
// metadata (with the same namespace and separator).
func AggregateImagePropertiesIsolationSignature(img ImageRequest) string {
	keys := make([]string, 0, len(img.Props))
	for k, v := range img.Props {
		if _, isField := imageFields[k]; isField && pyval.Truthy(v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(strconv.Quote(k))
		b.WriteString(strconv.Quote(pyval.Str(img.Props[k])))
	}
	return b.String()
}
