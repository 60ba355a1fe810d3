package scheduler

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
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

var (
	scheduleAttempts = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "graft",
		Subsystem:      "scheduler",
		Name:           "schedule_attempts_total",
		Help:           "Scheduling attempts by result: scheduled, unschedulable (no seed fits) or error (the binding failed).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})

	schedulingDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Namespace:      "graft",
		Subsystem:      "scheduler",
		Name:           "scheduling_duration_seconds",
		Help:           "Time from a shoot's creation to its successful binding.",
		Buckets:        metrics.ExponentialBuckets(0.01, 2, 18),
		StabilityLevel: metrics.ALPHA,
	})

	attemptDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace:      "graft",
		Subsystem:      "scheduler",
		Name:           "attempt_duration_seconds",
		Help:           "Time of one scheduling attempt, from taking the shoot off the queue to the end of its binding or failure report, by result.",
		Buckets:        metrics.ExponentialBuckets(0.0005, 2, 16),
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})

	pendingShoots = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "graft",
		Subsystem:      "scheduler",
		Name:           "pending_shoots",
		Help:           "Pending shoots by queue: active (waiting for a worker) or unschedulable (waiting for a change or a retry).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"queue"})

	registerMetrics sync.Once
)

// register adds the scheduler's metrics to the legacy registry once per
// process (tests run several schedulers in one process).
func register() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(scheduleAttempts, schedulingDuration, attemptDuration, pendingShoots)
	})
}
