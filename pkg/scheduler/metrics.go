package scheduler

import (
	"k8s.io/component-base/metrics"

	"github.com/graft-dev/graft/pkg/component"
)

// Results of a scheduling attempt, the values of the result label.
const (
	resultScheduled     = "scheduled"
	resultUnschedulable = "unschedulable"
	resultError         = "error"
)

// Queues of pending shoots, the values of the queue label.
const (
	queueActive        = "active"
	queueUnschedulable = "unschedulable"
)

// schedulerMetrics are the scheduler's metrics.
type schedulerMetrics struct {
	scheduleAttempts   *metrics.CounterVec
	schedulingDuration *metrics.Histogram
	attemptDuration    *metrics.HistogramVec
	pendingShoots      *metrics.GaugeVec
}

// newMetrics creates the metrics and registers them with register
// (legacyregistry.Register, or the Register of a test's KubeRegistry);
// component-base metrics record nothing until they are registered.
func newMetrics(register func(metrics.Registerable) error) (*schedulerMetrics, error) {
	m := &schedulerMetrics{
		scheduleAttempts: metrics.NewCounterVec(&metrics.CounterOpts{
			Namespace:      "graft",
			Subsystem:      "scheduler",
			Name:           "schedule_attempts_total",
			Help:           "Scheduling attempts by result: scheduled, unschedulable (no seed fits) or error (the binding failed).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"result"}),
		schedulingDuration: metrics.NewHistogram(&metrics.HistogramOpts{
			Namespace:      "graft",
			Subsystem:      "scheduler",
			Name:           "scheduling_duration_seconds",
			Help:           "Time from a shoot's creation to its successful binding.",
			Buckets:        metrics.ExponentialBuckets(0.01, 2, 18),
			StabilityLevel: metrics.ALPHA,
		}),
		attemptDuration: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Namespace:      "graft",
			Subsystem:      "scheduler",
			Name:           "attempt_duration_seconds",
			Help:           "Time of one scheduling attempt, from taking the shoot off the queue to the end of its binding or failure report, by result.",
			Buckets:        metrics.ExponentialBuckets(0.0005, 2, 16),
			StabilityLevel: metrics.ALPHA,
		}, []string{"result"}),
		pendingShoots: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Namespace:      "graft",
			Subsystem:      "scheduler",
			Name:           "pending_shoots",
			Help:           "Pending shoots by queue: active (waiting for a worker) or unschedulable (waiting for a change or a retry).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"queue"}),
	}
	for _, c := range []metrics.Registerable{m.scheduleAttempts, m.schedulingDuration, m.attemptDuration, m.pendingShoots} {
		if err := register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// metricsFor returns metrics registered with a test's registry, or with nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves.
var metricsFor = component.MetricsFor(newMetrics)
