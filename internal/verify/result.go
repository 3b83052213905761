package verify

import (
	"fmt"
	"strings"

	"github.com/placer/placer/engine"
)

// Kind names a class of Problem.
type Kind string

// The problems the verifier finds.
const (
	// Overcommit: a placement the enabled resource filters refuse on the
	// host's recomputed state just before it (not a forced one, nor one
	// of the chance scheduler, which reads no filter).
	Overcommit Kind = "overcommit"
	// LostClaim: a plan returned to a caller whose instance the store
	// never committed.
	LostClaim Kind = "lost claim"
	// DoubledClaim: an instance committed more often than callers were
	// told of it, or told to more than one caller.
	DoubledClaim Kind = "doubled claim"
	// UnclaimedCommit: an instance committed that no caller was told of
	// (its request failed, or no request asked for it).
	UnclaimedCommit Kind = "unclaimed commit"
	// Misplaced: an instance committed on another host than its caller
	// was told.
	Misplaced Kind = "misplaced claim"
	// UsageMismatch: a host whose usage in the store differs from the
	// recomputed one, a host only one of them has, or an instance count
	// that differs.
	UsageMismatch Kind = "usage mismatch"
	// BadEvent: an external change the store answered that cannot have
	// happened (deleting an instance that is not held, reporting on a
	// host that is gone...).
	BadEvent Kind = "bad event"
	// BrokenRule: a placement (not a forced one) that breaks a rule of
	// its request that host names alone judge: on a host it asked to
	// ignore, off its requested destination, or, with the group filters
	// enabled, instances of an anti-affinity group more than
	// max_server_per_host on one host, of an affinity group off the
	// group's hosts (or, when it had none, on two hosts), all checked
	// among the request's own instances: members placed before it, by
	// other requests, are not counted (nor their hosts: a group uuid is
	// taken to be one request's, as the synthetic streams make them).
	BrokenRule Kind = "broken rule"
)

// Problem is one finding, with a message that says what, where and when.
type Problem struct {
	Kind    Kind
	Message string
}

func (p Problem) String() string { return string(p.Kind) + ": " + p.Message }

// Result is the verification of a run.
type Result struct {
	// Hosts is how many hosts the recomputed cloud has at the end.
	Hosts int
	// Placements is how many committed placements were replayed; Events
	// how many external changes.
	Placements, Events int
	// Instances is how many committed instances are live at the end.
	Instances int
	// Usage is every host's recomputed usage at the end.
	Usage map[engine.HostNode]engine.HostUsage
	// OvercommittedHosts is how many hosts took a placement over their
	// limits; ForcedOverLimits how many forced placements went over
	// (allowed: force_hosts skips every filter, as in Nova).
	OvercommittedHosts, ForcedOverLimits int
	// Counts is how many problems of each kind were found.
	Counts map[Kind]int
	// Problems are the first MaxProblems problems of each kind.
	Problems []Problem
}

// MaxProblems is how many problems of one kind a Result keeps.
const MaxProblems = 20

// OK reports whether the run verified: no problem of any kind.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

// Count is how many problems of kind k were found.
func (r *Result) Count(k Kind) int { return r.Counts[k] }

// Error is the problems as one message, "" when OK.
func (r *Result) Error() string {
	if r.OK() {
		return ""
	}
	var b strings.Builder
	for i, p := range r.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

func (r *Result) add(k Kind, format string, args ...any) {
	r.Counts[k]++
	if r.Counts[k] <= MaxProblems {
		r.Problems = append(r.Problems, Problem{k, fmt.Sprintf(format, args...)})
	}
}
