package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestOutcome: each error of Place has its label; a shared commit
// layer's ErrUnavailable, which may wrap the context's deadline, is
// "unavailable" (the request may have been committed), not "canceled".
func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, OutcomePlaced},
		{&NoValidHostError{}, OutcomeNoValidHost},
		{&ConflictError{}, OutcomeConflict},
		{invalid("request", "bad"), OutcomeInvalid},
		{context.Canceled, OutcomeCanceled},
		{fmt.Errorf("queued: %w", context.DeadlineExceeded), OutcomeCanceled},
		{ErrClosed, OutcomeCanceled},
		{fmt.Errorf("%w: commit outcome unknown: %w", ErrUnavailable, context.DeadlineExceeded), OutcomeUnavailable},
		{errors.New("disk on fire"), OutcomeError},
	} {
		if got := Outcome(c.err); got != c.want {
			t.Errorf("Outcome(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
