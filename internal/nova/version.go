package nova

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// strictVersion is distutils' StrictVersion: (major, minor, patch) as
// digit strings without leading zeros, and an optional (a|b, N) prerelease.
type strictVersion struct {
	num  [3]string
	pre  string // "" or "a"/"b"
	preN string
}

var strictVersionRE = regexp.MustCompile(`^([0-9]+)\.([0-9]+)(\.([0-9]+))?(([ab])([0-9]+))?$`)

// parseStrictVersion is StrictVersion(s).
func parseStrictVersion(s string) (strictVersion, error) {
	m := strictVersionRE.FindStringSubmatch(s)
	if m == nil {
		return strictVersion{}, fmt.Errorf("invalid version number '%s'", s)
	}
	v := strictVersion{num: [3]string{trimZeros(m[1]), trimZeros(m[2]), "0"}, pre: m[6], preN: trimZeros(m[7])}
	if m[4] != "" {
		v.num[2] = trimZeros(m[4])
	}
	return v, nil
}

func trimZeros(d string) string {
	d = strings.TrimLeft(d, "0")
	if d == "" {
		return "0"
	}
	return d
}

// cmpDigits compares two non-negative integers written without leading
// zeros.
func cmpDigits(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// cmp is StrictVersion._cmp.
func (v strictVersion) cmp(o strictVersion) int {
	for i := range v.num {
		if c := cmpDigits(v.num[i], o.num[i]); c != 0 {
			return c
		}
	}
	switch {
	case v.pre == "" && o.pre == "":
		return 0
	case v.pre != "" && o.pre == "":
		return -1
	case v.pre == "" && o.pre != "":
		return 1
	case v.pre != o.pre:
		return strings.Compare(v.pre, o.pre)
	}
	return cmpDigits(v.preN, o.preN)
}

// versionCond is one "op version" restriction of a VersionPredicate.
type versionCond struct {
	op  string
	ver strictVersion
}

// pyWS is Python's \s in a str pattern (str.isspace characters).
const pyWS = `[\t\n\v\f\r\x1c-\x1f \x85\p{Z}]`

var (
	// re_validPackage (re.ASCII), re_paren and re_splitComparison of
	// distutils.versionpredicate; Python's \s is spelled out.
	validPackageRE    = regexp.MustCompile(`(?i)^[ \t\n\r\f\v]*([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)(.*)`)
	parenRE           = regexp.MustCompile(`^` + pyWS + `*\((.*)\)` + pyWS + `*$`)
	splitComparisonRE = regexp.MustCompile(`^` + pyWS + `*(<=|>=|<|>|!=|==)` + pyWS + `*([^\t\n\v\f\r\x1c-\x1f \x85\p{Z},]+)` + pyWS + `*$`)
)

// parseVersionPredicate is distutils.versionpredicate.VersionPredicate(s).
func parseVersionPredicate(s string) ([]versionCond, error) {
	s = strings.TrimFunc(s, pyIsSpace)
	if s == "" {
		return nil, fmt.Errorf("empty package restriction")
	}
	m := validPackageRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("bad package name in %s", pyval.StrRepr(s))
	}
	paren := strings.TrimFunc(m[2], pyIsSpace)
	if paren == "" {
		return nil, nil
	}
	pm := parenRE.FindStringSubmatch(paren)
	if pm == nil {
		return nil, fmt.Errorf("expected parenthesized list: %s", pyval.StrRepr(paren))
	}
	var conds []versionCond
	for _, pred := range strings.Split(pm[1], ",") {
		sm := splitComparisonRE.FindStringSubmatch(pred)
		if sm == nil {
			return nil, fmt.Errorf("bad package restriction syntax: %s", pyval.StrRepr(pred))
		}
		v, err := parseStrictVersion(sm[2])
		if err != nil {
			return nil, err
		}
		conds = append(conds, versionCond{op: sm[1], ver: v})
	}
	return conds, nil
}

// versionSatisfied is VersionPredicate.satisfied_by(version).
func versionSatisfied(conds []versionCond, version string) (bool, error) {
	for _, c := range conds {
		v, err := parseStrictVersion(version)
		if err != nil {
			return false, err
		}
		r := v.cmp(c.ver)
		var ok bool
		switch c.op {
		case "<":
			ok = r < 0
		case "<=":
			ok = r <= 0
		case "==":
			ok = r == 0
		case ">":
			ok = r > 0
		case ">=":
			ok = r >= 0
		default: // "!="
			ok = r != 0
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// versionToStr is oslo_utils.versionutils.convert_version_to_str for a
// positive version (6002000 -> "6.2.0").
func versionToStr(v int64) string {
	var parts []string
	for v != 0 {
		parts = append([]string{fmt.Sprint(v % 1000)}, parts...)
		v /= 1000
	}
	return strings.Join(parts, ".")
}

// HVVersionSatisfies is ImagePropertiesFilter's _compare_product_version:
// whether a hypervisor_version (Nova's integer form) satisfies an
// img_hv_requested_version predicate such as ">=6.0,<6.2". A zero version
// or an empty requirement is satisfied. An error is what Nova raises: a
// requirement that is not a predicate, or a version StrictVersion refuses
// (fewer than two or more than three parts) or that is negative (Nova's
// convert_version_to_str never returns on a negative version).
func HVVersionSatisfies(hvVersion int64, requested string) (bool, error) {
	if hvVersion == 0 || requested == "" {
		return true, nil
	}
	if hvVersion < 0 {
		return false, pyErr("RuntimeError", "convert_version_to_str does not terminate on %d", hvVersion)
	}
	conds, err := parseVersionPredicate("image_prop (" + requested + ")")
	if err != nil {
		return false, pyErr("ValueError", "%v", err)
	}
	ok, err := versionSatisfied(conds, versionToStr(hvVersion))
	if err != nil {
		return false, pyErr("ValueError", "%v", err)
	}
	return ok, nil
}
