package engine

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoValidHost is matched (errors.Is) by every *NoValidHostError.
var ErrNoValidHost = errors.New("no valid host")

// ErrMetricNotFound is matched by *MetricNotFoundError: MetricsWeigher with
// metrics_required met a candidate lacking a weighed metric (Nova's
// ComputeHostMetricNotFound).
var ErrMetricNotFound = errors.New("compute host metric not found")

// ErrNotFound is matched by the *ValidationError of a change that names a
// compute node or an instance its store does not hold: a removal or usage
// report of an unknown node, the release of an instance not committed
// through the store (Store's and etcdstore.Store's RemoveHosts, UpdateHost
// and DeleteInstance). The service answers it 404, whatever field the
// store names.
var ErrNotFound = errors.New("not found")

// NotFoundError is the *ValidationError of field for a compute node or an
// instance a store does not hold: it matches ErrInvalid and ErrNotFound.
// Stores outside this package (etcdstore) return it so.
func NotFoundError(field, format string, args ...any) *ValidationError {
	e := invalid(field, format, args...)
	e.notFound = true
	return e
}

// FilterCount is how many hosts one filter started and ended with.
type FilterCount struct {
	Name  string
	Start int
	End   int
}

// NoValidHostError says that one instance of a request found no host.
// Nothing is consumed. Tentative holds the choices made for the instances
// before InstanceIndex, so the failure can be replayed step by step.
type NoValidHostError struct {
	// InstanceIndex is the index of the instance that found no host.
	InstanceIndex int
	InstanceUUID  string
	// InPlay is how many hosts were in play when that instance started.
	InPlay int
	// Prefiltered is how many were left after ignore/force hosts and
	// nodes and requested_destination (equal to InPlay when none).
	Prefiltered int
	// Filters are the per-filter counts at that instance, in filter order,
	// up to the first filter that left no host (empty when no filter ran).
	Filters []FilterCount
	// Tentative are the placements chosen before the failing instance.
	Tentative []Placement
	// Reason, when not empty, is the scheduler driver's own reason (the
	// chance scheduler's NoValidHost messages), said instead of the counts.
	Reason string
}

func (e *NoValidHostError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("no host for %s: %s", e.InstanceUUID, e.Reason)
	}
	var parts []string
	if e.Prefiltered != e.InPlay {
		parts = append(parts, fmt.Sprintf(
			"ignore_hosts/force_hosts/force_nodes/requested_destination left %d of %d hosts",
			e.Prefiltered, e.InPlay))
	}
	for _, f := range e.Filters {
		if f.Start != f.End {
			parts = append(parts, fmt.Sprintf("%s removed %d of %d hosts", f.Name, f.Start-f.End, f.Start))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("no host in play (%d)", e.InPlay))
	}
	return fmt.Sprintf("no host for %s: %s", e.InstanceUUID, strings.Join(parts, ", "))
}

// Is makes errors.Is(err, ErrNoValidHost) true.
func (e *NoValidHostError) Is(target error) bool { return target == ErrNoValidHost }

// MetricNotFoundError is Nova's ComputeHostMetricNotFound: a candidate of
// instance InstanceIndex lacks Metric while metrics_required is set.
type MetricNotFoundError struct {
	InstanceIndex int
	InstanceUUID  string
	Host          string
	Node          string
	Metric        string
	// Tentative are the placements chosen before the failing instance.
	Tentative []Placement
}

func (e *MetricNotFoundError) Error() string {
	return fmt.Sprintf("metric %s not found on host %s node %s (instance %s)",
		e.Metric, e.Host, e.Node, e.InstanceUUID)
}

// Is makes errors.Is(err, ErrMetricNotFound) true.
func (e *MetricNotFoundError) Is(target error) bool { return target == ErrMetricNotFound }

// NovaError is another exception Nova would raise while placing (a
// JsonFilter query Nova cannot evaluate, say): Kind names it.
type NovaError struct {
	Kind          string
	InstanceIndex int
	InstanceUUID  string
	Msg           string
	// Tentative are the placements chosen before the failing instance.
	Tentative []Placement
}

func (e *NovaError) Error() string { return e.Kind + ": " + e.Msg }
