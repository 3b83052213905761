package fuzz

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plandiff"
	"github.com/placer/placer/internal/scenario"
)

// describe is the scene as a scenario file (SCENARIO.md), for a failure
// message: `placer place -f` and the Nova oracle replay it.
func describe(s scene) string {
	var b bytes.Buffer
	if err := scenario.EncodeScenario(&b, &scenario.Scenario{Cloud: s.Cloud, Request: s.Req}); err != nil {
		return fmt.Sprintf("(not encodable: %v) %+v", err, s)
	}
	return b.String()
}

// withFilters is the scene's cloud with only these filters enabled.
func withFilters(c engine.Cloud, filters ...string) engine.Cloud {
	c.Config.Filters = filters
	return c
}

// withWeighers is the scene's cloud with only these weighers.
func withWeighers(c engine.Cloud, weighers ...string) engine.Cloud {
	c.Config.Weighers = weighers
	return c
}

// sameError reports whether engine and reference failed alike: the same
// kind (plandiff.ErrKind), the same field for bad input, the same host and
// metric for a missing metric. The instance fields are not compared: the
// one-pass helpers leave them to PlaceBatch.
func sameError(e, r error) string {
	ek, rk := plandiff.ErrKind(e), plandiff.ErrKind(r)
	if ek != rk {
		return fmt.Sprintf("error: engine %s (%v), reference %s (%v)", ek, e, rk, r)
	}
	var ev, rv *engine.ValidationError
	if errors.As(e, &ev) && errors.As(r, &rv) && ev.Field != rv.Field {
		return fmt.Sprintf("error field: engine %q (%v), reference %q (%v)", ev.Field, e, rv.Field, r)
	}
	var em, rm *engine.MetricNotFoundError
	if errors.As(e, &em) && errors.As(r, &rm) && (em.Host != rm.Host || em.Node != rm.Node || em.Metric != rm.Metric) {
		return fmt.Sprintf("metric error: engine %v, reference %v", e, r)
	}
	return ""
}
