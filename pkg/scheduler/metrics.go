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

// newMetrics creates the metrics and lists them for metricsFor to register.
func newMetrics() (*schedulerMetrics, []metrics.Registerable) {
	m := &schedulerMetrics{
		scheduleAttempts: component.NewCounterVec("graft_scheduler_schedule_attempts_total",
			"Scheduling attempts by result: scheduled, unschedulable (no seed fits) or error (the binding failed).", "result"),
		schedulingDuration: component.NewHistogram("graft_scheduler_scheduling_duration_seconds",
			"Time from a shoot's creation to its successful binding.", metrics.ExponentialBuckets(0.01, 2, 18)),
		attemptDuration: component.NewHistogramVec("graft_scheduler_attempt_duration_seconds",
			"Time of one scheduling attempt, from taking the shoot off the queue to the end of its binding or failure report, by result.",
			metrics.ExponentialBuckets(0.0005, 2, 16), "result"),
		pendingShoots: component.NewGaugeVec("graft_scheduler_pending_shoots",
			"Pending shoots by queue: active (waiting for a worker) or unschedulable (waiting for a change or a retry).", "queue"),
	}
	return m, []metrics.Registerable{m.scheduleAttempts, m.schedulingDuration, m.attemptDuration, m.pendingShoots}
}

// metricsFor returns metrics registered with a test's registry, or with nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves.
var metricsFor = component.MetricsFor(newMetrics)
