package engine

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a request, the "outcome" label of placer_requests_total.
const (
	OutcomePlaced      = "placed"
	OutcomeNoValidHost = "no_valid_host"
	OutcomeConflict    = "conflict"
	OutcomeInvalid     = "invalid"
	OutcomeCanceled    = "canceled"
	// OutcomeUnavailable is a shared commit layer's ErrUnavailable
	// (engine/etcdstore without its quorum in time): nothing was
	// committed, unless its message says the outcome is unknown, when
	// the shared state tells. A canceled request committed nothing.
	OutcomeUnavailable = "unavailable"
	OutcomeError       = "error"
)

// Metrics are the Prometheus metrics of a Store and a Scheduler. Names are
// placer_*, in base units, with no per-host label (label values are
// outcomes and filter names only).
//
//	placer_requests_total{outcome}            requests by outcome
//	placer_placements_total                   instances committed
//	placer_request_duration_seconds           Place latency, retries included
//	placer_commits_total{result}              commits: accepted (some placement committed), conflict
//	placer_commit_rechecked_hosts_total       placements re-checked on changed hosts
//	placer_conflict_retries_total             re-placements after a conflict
//	placer_queue_depth                        requests waiting for a worker
//	placer_snapshot_version                   newest published version
//	placer_candidates_per_instance            hosts that passed the filters
//	placer_filter_removed_hosts_total{filter} hosts removed, from NoValidHost explanations
//
// Make them with NewMetrics: the zero Metrics is not usable.
type Metrics struct {
	requests        *prometheus.CounterVec
	placements      prometheus.Counter
	latency         prometheus.Histogram
	commits         *prometheus.CounterVec
	rechecked       prometheus.Counter
	retries         prometheus.Counter
	queueDepth      prometheus.Gauge
	snapshotVersion prometheus.Gauge
	candidates      prometheus.Histogram
	removed         *prometheus.CounterVec
}

// NewMetrics creates the metrics and registers them on reg. It fails as
// reg.Register does (e.g. when they are already registered there), and
// on a nil reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("engine: NewMetrics: nil Registerer (prometheus.NewRegistry() makes one)")
	}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "placer_requests_total", Help: "Placement requests by outcome.",
		}, []string{"outcome"}),
		placements: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "placer_placements_total", Help: "Instances placed and committed.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "placer_request_duration_seconds", Help: "Time from Place to its outcome, queueing and retries included.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}),
		commits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "placer_commits_total", Help: "Plan commits by result (accepted, conflict).",
		}, []string{"result"}),
		rechecked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "placer_commit_rechecked_hosts_total", Help: "Placements re-checked at commit because their host changed since the plan's snapshot.",
		}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "placer_conflict_retries_total", Help: "Re-placements on a fresh snapshot after a commit conflict.",
		}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "placer_queue_depth", Help: "Requests waiting for a worker.",
		}),
		snapshotVersion: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "placer_snapshot_version", Help: "Version of the newest published snapshot.",
		}),
		candidates: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "placer_candidates_per_instance", Help: "Hosts that passed the filters, per placed instance.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 10),
		}),
		removed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "placer_filter_removed_hosts_total", Help: "Hosts removed per filter, from NoValidHost explanations.",
		}, []string{"filter"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.placements, m.latency, m.commits, m.rechecked,
		m.retries, m.queueDepth, m.snapshotVersion, m.candidates, m.removed} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) observeCommit(res CommitResult, err error) {
	m.rechecked.Add(float64(res.Rechecked))
	switch {
	case err == nil && len(res.Accepted) > 0:
		m.commits.WithLabelValues("accepted").Inc()
		m.placements.Add(float64(len(res.Accepted)))
	case err == nil, errors.Is(err, ErrConflict): // a Partial commit that kept none is a conflict too
		m.commits.WithLabelValues("conflict").Inc()
	}
}

// observeOutcome records a finished request.
func (m *Metrics) observeOutcome(plan Plan, err error, seconds float64) {
	m.latency.Observe(seconds)
	m.requests.WithLabelValues(Outcome(err)).Inc()
	if err == nil {
		for _, p := range plan.Placements {
			m.candidates.Observe(float64(p.Candidates))
		}
	}
	var nvh *NoValidHostError
	if errors.As(err, &nvh) {
		for _, f := range nvh.Filters {
			if f.Start > f.End {
				m.removed.WithLabelValues(f.Name).Add(float64(f.Start - f.End))
			}
		}
	}
}

// Outcome classifies the error of Scheduler.Place (nil: placed) as the
// outcome label of placer_requests_total.
func Outcome(err error) string {
	switch {
	case err == nil:
		return OutcomePlaced
	case errors.Is(err, ErrNoValidHost):
		return OutcomeNoValidHost
	case errors.Is(err, ErrConflict):
		return OutcomeConflict
	case errors.Is(err, ErrInvalid):
		return OutcomeInvalid
	case errors.Is(err, ErrUnavailable): // before the context's errors, which it may wrap
		return OutcomeUnavailable
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrClosed):
		return OutcomeCanceled
	}
	return OutcomeError
}
