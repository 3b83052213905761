package plandiff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/reference"
)

// Outcome is what one implementation returned for one scenario: a plan,
// an error, or a panic (its value, printed).
type Outcome struct {
	Plan  engine.Plan
	Err   error
	Panic string
}

// RunEngine places req on cloud with engine.NewSnapshot and
// engine.PlaceBatch, turning a panic into Outcome.Panic.
func RunEngine(cloud engine.Cloud, req engine.Request) (o Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.Panic = fmt.Sprint(p)
		}
	}()
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		return Outcome{Err: err}
	}
	plan, err := engine.PlaceBatch(context.Background(), snap, req)
	return Outcome{Plan: plan, Err: err}
}

// RunReference places req on cloud with reference.PlaceBatch, turning a
// panic into Outcome.Panic.
func RunReference(cloud engine.Cloud, req engine.Request) (o Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.Panic = fmt.Sprint(p)
		}
	}()
	plan, err := reference.PlaceBatch(context.Background(), cloud, req)
	return Outcome{Plan: plan, Err: err}
}

// Kind names an outcome: "ok", "NoValidHost", "MetricNotFound",
// "Nova:<exception>", "invalid", "panic", or the error's Go type.
func Kind(o Outcome) string {
	if o.Panic != "" {
		return "panic"
	}
	return ErrKind(o.Err)
}

// Mix kinds: the outcome classes a differential test's scenarios must
// cover (MixKind).
const (
	MixPlaced       = "placed"
	MixNoValidHost0 = "NoValidHost@0"     // at the first instance
	MixNoValidHostN = "NoValidHost@later" // after some tentative placements
	MixMetric       = "MetricNotFound"
	MixNova         = "Nova error" // any other exception of Nova's
	MixInvalid      = "invalid"
)

// MixKind classes an outcome for a test's outcome mix: one of the Mix
// constants, or Kind's name for anything else ("panic", a Go type).
func MixKind(o Outcome) string {
	var nvh *engine.NoValidHostError
	switch k := Kind(o); {
	case k == "ok":
		return MixPlaced
	case errors.As(o.Err, &nvh) && k == "NoValidHost":
		if nvh.InstanceIndex == 0 {
			return MixNoValidHost0
		}
		return MixNoValidHostN
	case k == "MetricNotFound":
		return MixMetric
	case strings.HasPrefix(k, "Nova:"):
		return MixNova
	case k == "invalid":
		return MixInvalid
	default:
		return k
	}
}

// ErrKind is Kind for an error alone ("ok" for nil).
func ErrKind(err error) string {
	var nvh *engine.NoValidHostError
	var mnf *engine.MetricNotFoundError
	var ne *engine.NovaError
	var ve *engine.ValidationError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &nvh):
		return "NoValidHost"
	case errors.As(err, &mnf):
		return "MetricNotFound"
	case errors.As(err, &ne):
		return "Nova:" + ne.Kind
	case errors.As(err, &ve):
		return "invalid"
	}
	return fmt.Sprintf("%T", err)
}

// Compare lists the differences between the engine's outcome (e) and the
// reference's (r), one line each: "path: engine X, reference Y". No line
// means the two agree.
func Compare(e, r Outcome) []string {
	var d diffs
	if e.Panic != "" || r.Panic != "" {
		d.add("panic", e.Panic, r.Panic)
		return d.lines
	}
	ek, rk := Kind(e), Kind(r)
	if ek != rk {
		d.add("outcome", ek+errText(e.Err), rk+errText(r.Err))
		// Still compare what both chose, when both have choices.
	}
	switch {
	case e.Err == nil && r.Err == nil:
		d.placements("placements", e.Plan.Placements, r.Plan.Placements, true)
		return d.lines
	case ek != rk:
		d.placements("tentative", Tentative(e), Tentative(r), false)
		return d.lines
	}
	if len(e.Plan.Placements) != 0 {
		d.add("plan", fmt.Sprintf("%d placements beside an error", len(e.Plan.Placements)), "")
	}
	d.lines = append(d.lines, CompareErrors(e.Err, r.Err)...)
	d.placements("tentative", Tentative(e), Tentative(r), false)
	return d.lines
}

// CompareErrors lists the differences between two errors of the same kind
// (see ErrKind): the failing instance, the counts, the host and metric,
// the field. Errors of different kinds are one "outcome" line.
func CompareErrors(e, r error) []string {
	var d diffs
	if ek, rk := ErrKind(e), ErrKind(r); ek != rk {
		d.add("outcome", ek+errText(e), rk+errText(r))
		return d.lines
	}
	// errors.As, not a type switch: a wrapped error is compared by its
	// fields too (a switch would compare nothing, and say nothing).
	var (
		ee, re *engine.NoValidHostError
		em, rm *engine.MetricNotFoundError
		en, rn *engine.NovaError
		ev, rv *engine.ValidationError
	)
	switch {
	case errors.As(e, &ee) && errors.As(r, &re):
		d.eq("error.instance_index", ee.InstanceIndex, re.InstanceIndex)
		d.eq("error.instance_uuid", ee.InstanceUUID, re.InstanceUUID)
		d.eq("error.in_play", ee.InPlay, re.InPlay)
		d.eq("error.prefiltered", ee.Prefiltered, re.Prefiltered)
		d.eq("error.filters", FormatFilters(ee.Filters), FormatFilters(re.Filters))
		d.eq("error.reason", ee.Reason, re.Reason)
	case errors.As(e, &em) && errors.As(r, &rm):
		d.eq("error.instance_index", em.InstanceIndex, rm.InstanceIndex)
		d.eq("error.instance_uuid", em.InstanceUUID, rm.InstanceUUID)
		d.eq("error.host", em.Host+"/"+em.Node, rm.Host+"/"+rm.Node)
		d.eq("error.metric", em.Metric, rm.Metric)
	case errors.As(e, &en) && errors.As(r, &rn):
		d.eq("error.instance_index", en.InstanceIndex, rn.InstanceIndex)
		d.eq("error.instance_uuid", en.InstanceUUID, rn.InstanceUUID)
	case errors.As(e, &ev) && errors.As(r, &rv):
		d.eq("error.field", ev.Field, rv.Field)
	}
	return d.lines
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

// Tentative is the placements of an outcome: the plan's, or those an
// error carries (made before the failing instance).
func Tentative(o Outcome) []engine.Placement {
	var (
		nvh *engine.NoValidHostError
		mnf *engine.MetricNotFoundError
		ne  *engine.NovaError
	)
	switch {
	case o.Err == nil:
		return o.Plan.Placements
	case errors.As(o.Err, &nvh):
		return nvh.Tentative
	case errors.As(o.Err, &mnf):
		return mnf.Tentative
	case errors.As(o.Err, &ne):
		return ne.Tentative
	}
	return nil
}

// FormatFilters prints per-filter counts as "[Name start->end, ...]".
func FormatFilters(fs []engine.FilterCount) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s %d->%d", f.Name, f.Start, f.End)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

type diffs struct{ lines []string }

func (d *diffs) add(path string, e, r any) {
	d.lines = append(d.lines, fmt.Sprintf("%s: engine %v, reference %v", path, e, r))
}

func (d *diffs) eq(path string, e, r any) {
	if e != r {
		d.add(path, e, r)
	}
}

// SameFloat reports whether two weights or limits are the same float64,
// bit for bit as README promises: equal values of the same sign (0 and -0
// differ: Nova's -1 * 0.0 is -0.0, and a result document prints it), or
// both NaN (which == never equals). There is no tolerance: the engine's
// reported weights are computed with Nova's operations in Nova's order,
// and any difference, however small, is a bug.
func SameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

func (d *diffs) placements(what string, e, r []engine.Placement, alternates bool) {
	if len(e) != len(r) {
		d.add(what+".len", len(e), len(r))
	}
	for i := 0; i < min(len(e), len(r)); i++ {
		p := fmt.Sprintf("%s[%d]", what, i)
		a, b := &e[i], &r[i]
		d.eq(p+".instance_uuid", a.InstanceUUID, b.InstanceUUID)
		if a.Host != b.Host || a.Node != b.Node || a.HostID != b.HostID {
			d.add(p+".host", fmt.Sprintf("%s/%s#%d", a.Host, a.Node, a.HostID),
				fmt.Sprintf("%s/%s#%d", b.Host, b.Node, b.HostID))
			// The rest of this placement and the later ones follow
			// from the choice; report the weights that led to it.
			if !SameFloat(a.Weight, b.Weight) {
				d.add(p+".weight", fmtFloat(a.Weight), fmtFloat(b.Weight))
			}
			d.eq(p+".candidates", a.Candidates, b.Candidates)
			return
		}
		d.eq(p+".cell", a.Cell, b.Cell)
		if !SameFloat(a.Weight, b.Weight) {
			d.add(p+".weight", fmtFloat(a.Weight), fmtFloat(b.Weight))
		}
		d.eq(p+".candidates", a.Candidates, b.Candidates)
		if !SameLimits(a.Limits, b.Limits) {
			d.add(p+".limits", FormatLimits(a.Limits), FormatLimits(b.Limits))
		}
		if alternates {
			d.eq(p+".alternates", fmt.Sprint(a.Alternates), fmt.Sprint(b.Alternates))
		}
	}
}

// SameLimits reports whether two limits set the same fields to the same
// values (SameFloat).
func SameLimits(a, b engine.Limits) bool {
	if a.Set != b.Set {
		return false
	}
	return (a.Set&engine.HasMemoryMB == 0 || SameFloat(a.MemoryMB, b.MemoryMB)) &&
		(a.Set&engine.HasVCPU == 0 || SameFloat(a.VCPU, b.VCPU)) &&
		(a.Set&engine.HasDiskGB == 0 || SameFloat(a.DiskGB, b.DiskGB))
}

// fmtFloat prints a float64 so that two different ones never print alike:
// the shortest decimal that reads back as it, and its bits.
func fmtFloat(x float64) string {
	return fmt.Sprintf("%s (%#016x)", strconv.FormatFloat(x, 'g', -1, 64), math.Float64bits(x))
}

// FormatLimits prints the set fields of l.
func FormatLimits(l engine.Limits) string {
	var parts []string
	if l.Set&engine.HasMemoryMB != 0 {
		parts = append(parts, fmt.Sprintf("memory_mb=%v", l.MemoryMB))
	}
	if l.Set&engine.HasVCPU != 0 {
		parts = append(parts, fmt.Sprintf("vcpu=%v", l.VCPU))
	}
	if l.Set&engine.HasDiskGB != 0 {
		parts = append(parts, fmt.Sprintf("disk_gb=%v", l.DiskGB))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// PathKind is the field path of a difference line without its indexes
// ("placements[2].weight: ..." -> "placements.weight"): the key a summary
// groups differences by.
func PathKind(line string) string {
	path, _, _ := strings.Cut(line, ":")
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}
