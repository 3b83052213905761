// Package nova reproduces, in Go, the pieces of OpenStack Nova's scheduler
// (Nova 26, Zed) whose exact behaviour placer must mirror: the extra_specs
// operator matcher, ComputeCapabilitiesFilter's walk through a HostState,
// the aggregate metadata helpers, ImageMeta.from_dict with its
// canonicalisation and coercion, ImagePropertiesFilter and its version
// predicates, AggregateImagePropertiesIsolation, JsonFilter's query
// language, SimpleCIDRAffinityFilter's netaddr parsing and the compute
// node metrics the scheduler sees.
//
// Nova is Python, so the filters handle Python values: ParseJSON is
// json.loads as Nova calls it, and package pyval models the values
// themselves (str() and repr(), int/float parsing, Python 3 comparisons).
// Where Nova's code raises an exception instead of answering, the
// *Check and *Err variants return an *ErrPython naming the exception; the
// plain *Pass variants treat it as a failing host. Expected values in the
// tests come from running Nova's own code.
//
// The package imports only the standard library and internal/pyval.
package nova
