package descheduler

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Results of an eviction attempt, the result label of graft_descheduler_evictions_total.
const (
	// ResultEvicted is a written eviction.
	ResultEvicted = "evicted"
	// ResultDryRun is an eviction computed in dry-run mode and not written.
	ResultDryRun = "dry_run"
	// ResultSkippedNoFit is a candidate left in place because no other seed fits it.
	ResultSkippedNoFit = "skipped_no_fit"
	// ResultConflict is an eviction lost to a concurrent change of the shoot.
	ResultConflict = "conflict"
	// ResultError is an eviction the API server refused for another reason.
	ResultError = "error"
)

// Metrics are the descheduler's Prometheus metrics.
type Metrics struct {
	// Evictions counts eviction attempts by plugin and result.
	Evictions *prometheus.CounterVec
	// PassDuration observes how long a pass over seeds takes, writes included.
	PassDuration prometheus.Histogram
	// PendingEvicted is the number of evicted shoots still without a seed.
	PendingEvicted prometheus.Gauge
}

// NewMetrics creates the metrics and registers them with reg when it is not nil.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "graft_descheduler_evictions_total",
			Help: "Eviction attempts of graft-descheduler by plugin and result (evicted, dry_run, skipped_no_fit, conflict, error).",
		}, []string{"plugin", "result"}),
		PassDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "graft_descheduler_pass_duration_seconds",
			Help:    "Duration of one descheduler pass over seeds, writes included.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}),
		PendingEvicted: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "graft_descheduler_pending_evicted",
			Help: "Evicted shoots (annotated graft.dev/descheduled-from) that have no spec.seedName yet.",
		}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.Evictions, m.PassDuration, m.PendingEvicted} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

var (
	processMetrics     *Metrics
	processMetricsErr  error
	processMetricsOnce sync.Once
)

// metricsFor returns metrics registered with reg, or with reg nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves (tests run several descheduler instances in one process).
func metricsFor(reg prometheus.Registerer) (*Metrics, error) {
	if reg != nil {
		return NewMetrics(reg)
	}
	processMetricsOnce.Do(func() { processMetrics, processMetricsErr = NewMetrics(legacyregistry.Registerer()) })
	return processMetrics, processMetricsErr
}
