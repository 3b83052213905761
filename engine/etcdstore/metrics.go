package etcdstore

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus metrics of a Store's etcd traffic (the
// engine's own metrics go in Options.Local.Metrics):
//
//	placer_etcd_commit_seconds              CommitPlan, from call to known outcome
//	placer_etcd_conflicts_total{cause}      failed transactions: usage, group, instance, host_removed
//	placer_etcd_rebases_total               plans checked again after a failed transaction
//	placer_etcd_resends_total               transactions sent again after no answer
//	placer_etcd_txn_ops                     operations per transaction
//	placer_etcd_watch_lag_seconds           from a commit's answer to the mirror applying it
//	placer_etcd_relists_total               whole re-reads after a compaction
//
// Make them with NewMetrics: the zero Metrics is not usable.
type Metrics struct {
	commitSeconds prometheus.Histogram
	conflicts     *prometheus.CounterVec
	rebases       prometheus.Counter
	resends       prometheus.Counter
	txnOps        prometheus.Histogram
	watchLag      prometheus.Histogram
	relists       prometheus.Counter
}

// NewMetrics creates the metrics and registers them on reg. It fails as
// reg.Register does, and on a nil reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("etcdstore: NewMetrics: nil Registerer (prometheus.NewRegistry() makes one)")
	}
	m := &Metrics{
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "placer_etcd_commit_seconds", Help: "Commits through etcd, from the call to a known outcome.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}),
		conflicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "placer_etcd_conflicts_total", Help: "Commit transactions whose compares failed, by cause.",
		}, []string{"cause"}),
		rebases: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "placer_etcd_rebases_total", Help: "Plans checked again on a newer mirror after a failed transaction.",
		}),
		resends: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "placer_etcd_resends_total", Help: "Commit transactions sent again after no answer.",
		}),
		txnOps: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "placer_etcd_txn_ops", Help: "Operations (the largest branch) per commit transaction.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 8),
		}),
		watchLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "placer_etcd_watch_lag_seconds", Help: "Time from a commit's answer to the mirror applying its revision.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 18),
		}),
		relists: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "placer_etcd_relists_total", Help: "Whole re-reads of the prefix after the watch's revision was compacted.",
		}),
	}
	for _, c := range []prometheus.Collector{m.commitSeconds, m.conflicts, m.rebases, m.resends, m.txnOps, m.watchLag, m.relists} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
