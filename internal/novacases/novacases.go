// Package novacases holds Nova's scheduler unit-test cases as data: small
// clouds and requests whose placement reveals one filter or weigher
// decision, or one rule of the scheduling loop, each with the outcome
// Nova's own code gives (NOVA-SEMANTICS.md §5, and the oracle).
//
// Any PlaceBatch implementation can be run against them:
//
//	func TestNovaCases(t *testing.T) { novacases.Run(t, reference.PlaceBatch) }
package novacases

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
)

// PlaceFunc is a PlaceBatch implementation.
type PlaceFunc func(ctx context.Context, cloud engine.Cloud, req engine.Request) (engine.Plan, error)

// Case is one Nova behaviour: a cloud, a request and what Nova makes of it.
type Case struct {
	// Name is the subtest name: area/what.
	Name string
	// Cloud and Req are handed to the PlaceFunc.
	Cloud engine.Cloud
	Req   engine.Request
	// Want is the expected outcome.
	Want Want
	// NovaDiffers says why Nova's own loop may legitimately give another
	// outcome (placer's tie and random-choice rules); such cases are not
	// compared with the oracle's placement.
	NovaDiffers string
	// Feature names the Nova code of an older release the case needs
	// (FeatureChance, FeatureIronic, FeatureExactFilters), "" for Nova 26's
	// FilterScheduler. The oracle runs Nova 26 only: there the case and
	// the reference implementation are the judges.
	Feature string
}

// Features of older Nova releases (issue 20), for Case.Feature.
const (
	// FeatureChance is the ChanceScheduler (chance.py, rocky-eol).
	FeatureChance = "chance_scheduler"
	// FeatureIronic is the IronicHostManager and IronicNodeState
	// (ironic_host_manager.py, queens-eol).
	FeatureIronic = "ironic_host_manager"
	// FeatureExactFilters are ExactRamFilter, ExactCoreFilter and
	// ExactDiskFilter (queens-eol).
	FeatureExactFilters = "exact_filters"
)

// Option changes how Run runs the cases.
type Option func(*runOpts)

type runOpts struct {
	skip   map[string]bool
	reason string
}

// SkipFeatures skips the cases that need one of features, saying reason,
// for an implementation that does not have them yet. Each such case must
// still fail cleanly: place must return an error matching
// engine.ErrNotImplemented (and no placement), else the case fails; so an
// implementation that gains the feature makes the skip fail until it is
// removed.
func SkipFeatures(reason string, features ...string) Option {
	return func(o *runOpts) {
		if o.skip == nil {
			o.skip = map[string]bool{}
		}
		for _, f := range features {
			o.skip[f] = true
		}
		o.reason = reason
	}
}

// Want is the expected outcome of a Case. A nil slice is not checked.
type Want struct {
	// Hosts are the chosen nodes per instance, "host" or "host/node" when
	// the node name differs from the host name.
	Hosts []string
	// Weights are the chosen hosts' total weights (checked bit for bit).
	Weights []float64
	// Candidates are the numbers of hosts that passed the filters.
	Candidates []int
	// Limits are the chosen hosts' limits (compared on the set fields).
	Limits []engine.Limits
	// Alternates are the alternates per instance, in order, named as
	// Hosts are.
	Alternates [][]string
	// Err is the expected error; nil means success.
	Err *WantErr
}

// Error kinds of WantErr; any other Kind is an *engine.NovaError's (the
// Python exception class Nova raises).
const (
	NoValidHost    = "NoValidHost"
	MetricNotFound = "ComputeHostMetricNotFound"
	// Invalid is a *engine.ValidationError (the oracle exits 2).
	Invalid = "Invalid"
)

// WantErr is an expected failure.
type WantErr struct {
	// Kind is NoValidHost, MetricNotFound, Invalid or a Python exception
	// class (an *engine.NovaError).
	Kind string
	// Index is the failing instance.
	Index int
	// Filters are NoValidHost's per-filter counts (checked exactly, an
	// empty list included).
	Filters []engine.FilterCount
	// InPlay and Prefiltered are NoValidHost's host counts.
	InPlay, Prefiltered int
	// Tentative are the hosts chosen before the failing instance.
	Tentative []string
	// Host is MetricNotFound's host ("" = unchecked).
	Host string
	// Field is Invalid's field path ("" = unchecked).
	Field string
}

// Run runs every case against place, one subtest each.
func Run(t *testing.T, place PlaceFunc, opts ...Option) {
	t.Helper()
	var o runOpts
	for _, opt := range opts {
		opt(&o)
	}
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			plan, err := place(context.Background(), c.Cloud, c.Req)
			if o.skip[c.Feature] {
				if !errors.Is(err, engine.ErrNotImplemented) || len(plan.Placements) > 0 {
					t.Fatalf("needs %s, which is to be skipped (%s), but the outcome is not a clean ErrNotImplemented: %v (%d placements)",
						c.Feature, o.reason, err, len(plan.Placements))
				}
				t.Skipf("needs %s: %s", c.Feature, o.reason)
			}
			for _, msg := range Check(c, plan, err, false) {
				t.Error(msg)
			}
		})
	}
	t.Run("loop/cancelled-context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c := Cases()[0]
		if _, err := place(ctx, c.Cloud, c.Req); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	})
}

// Cases returns every case, freshly built (callers may modify them).
func Cases() []Case {
	var all []Case
	for _, group := range [][]Case{
		normalizeCases(), matchCases(), resourceCases(), filterCases(),
		weigherCases(), loopCases(), chanceCases(), ironicCases(), exactCases(),
	} {
		all = append(all, group...)
	}
	return all
}

// Check compares an outcome with c.Want and returns the differences.
// fromNova relaxes what Nova's result document does not carry
// (NoValidHost's InPlay and Prefiltered, MetricNotFound's host).
func Check(c Case, plan engine.Plan, err error, fromNova bool) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	w := c.Want
	if w.Err != nil {
		return checkErr(w.Err, err, fromNova)
	}
	if err != nil {
		bad("unexpected error: %v", err)
		return out
	}
	ps := plan.Placements
	if w.Hosts != nil {
		got := make([]string, len(ps))
		for i, p := range ps {
			got[i] = name(p.Host, p.Node)
		}
		if strings.Join(got, " ") != strings.Join(w.Hosts, " ") {
			bad("hosts: got %v, want %v", got, w.Hosts)
		}
	}
	if w.Weights != nil {
		for i := range min(len(ps), len(w.Weights)) {
			if !near(ps[i].Weight, w.Weights[i]) {
				bad("instance %d: weight %v, want %v", i, ps[i].Weight, w.Weights[i])
			}
		}
		if len(ps) != len(w.Weights) {
			bad("%d placements, want %d", len(ps), len(w.Weights))
		}
	}
	if w.Candidates != nil {
		for i := range min(len(ps), len(w.Candidates)) {
			if ps[i].Candidates != w.Candidates[i] {
				bad("instance %d: candidates %d, want %d", i, ps[i].Candidates, w.Candidates[i])
			}
		}
	}
	if w.Limits != nil {
		for i := range min(len(ps), len(w.Limits)) {
			if !sameLimits(ps[i].Limits, w.Limits[i]) {
				bad("instance %d: limits %s, want %s", i, plandiff.FormatLimits(ps[i].Limits), plandiff.FormatLimits(w.Limits[i]))
			}
		}
	}
	if w.Alternates != nil {
		for i := range min(len(ps), len(w.Alternates)) {
			var got []string
			for _, a := range ps[i].Alternates {
				got = append(got, name(a.Host, a.Node))
			}
			if strings.Join(got, " ") != strings.Join(w.Alternates[i], " ") {
				bad("instance %d: alternates %v, want %v", i, got, w.Alternates[i])
			}
		}
	}
	return out
}

func checkErr(w *WantErr, err error, fromNova bool) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	switch w.Kind {
	case NoValidHost:
		var e *engine.NoValidHostError
		if !errors.As(err, &e) {
			bad("error %v, want NoValidHost at instance %d", err, w.Index)
			return out
		}
		if !errors.Is(err, engine.ErrNoValidHost) {
			bad("errors.Is(err, ErrNoValidHost) is false")
		}
		if e.InstanceIndex != w.Index {
			bad("NoValidHost at instance %d, want %d", e.InstanceIndex, w.Index)
		}
		if fmtCounts(e.Filters) != fmtCounts(w.Filters) {
			bad("filters %s, want %s", fmtCounts(e.Filters), fmtCounts(w.Filters))
		}
		if !fromNova && (e.InPlay != w.InPlay || e.Prefiltered != w.Prefiltered) {
			bad("in play %d, prefiltered %d; want %d, %d", e.InPlay, e.Prefiltered, w.InPlay, w.Prefiltered)
		}
		var got []string
		for _, p := range e.Tentative {
			got = append(got, name(p.Host, p.Node))
			if p.Alternates != nil {
				bad("tentative placement %s has alternates", p.InstanceUUID)
			}
		}
		if strings.Join(got, " ") != strings.Join(w.Tentative, " ") {
			bad("tentative %v, want %v", got, w.Tentative)
		}
	case MetricNotFound:
		var e *engine.MetricNotFoundError
		if !errors.As(err, &e) {
			bad("error %v, want MetricNotFound at instance %d", err, w.Index)
			return out
		}
		if e.InstanceIndex != w.Index {
			bad("MetricNotFound at instance %d, want %d", e.InstanceIndex, w.Index)
		}
		if !fromNova && w.Host != "" && e.Host != w.Host {
			bad("MetricNotFound on host %s, want %s", e.Host, w.Host)
		}
	case Invalid:
		var e *engine.ValidationError
		if !errors.As(err, &e) || !errors.Is(err, engine.ErrInvalid) {
			bad("error %v, want a validation error", err)
			return out
		}
		if w.Field != "" && e.Field != w.Field {
			bad("invalid field %q, want %q", e.Field, w.Field)
		}
	default:
		var e *engine.NovaError
		if !errors.As(err, &e) || e.Kind != w.Kind {
			bad("error %v, want Nova's %s at instance %d", err, w.Kind, w.Index)
			return out
		}
		if e.InstanceIndex != w.Index {
			bad("%s at instance %d, want %d", w.Kind, e.InstanceIndex, w.Index)
		}
	}
	return out
}

func name(host, node string) string {
	if node == "" || node == host {
		return host
	}
	return host + "/" + node
}

// near is exact equality: the expected weights and limits, though written
// as Nova's unit tests write them (decimal literals, constant arithmetic),
// are the float64 values Nova's float operations give, bit for bit (sign
// of zero included; NaN matches NaN).
func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

func sameLimits(a, b engine.Limits) bool {
	if a.Set != b.Set {
		return false
	}
	return (a.Set&engine.HasMemoryMB == 0 || near(a.MemoryMB, b.MemoryMB)) &&
		(a.Set&engine.HasVCPU == 0 || near(a.VCPU, b.VCPU)) &&
		(a.Set&engine.HasDiskGB == 0 || near(a.DiskGB, b.DiskGB))
}

func fmtCounts(fs []engine.FilterCount) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %d->%d", f.Name, f.Start, f.End))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
