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
	// requeues counts the decisions of unschedulable shoots a change (or
	// the periodic retry) requeued, by trigger and outcome.
	requeues            *metrics.CounterVec
	failureStatusWrites *metrics.Counter
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
			"Pending shoots by queue: active (waiting for a worker) or unschedulable (waiting for a change that may help, or the periodic retry).", "queue"),
		requeues: component.NewCounterVec("graft_scheduler_requeues_total",
			"Decisions of shoots no seed fitted that a change requeued, by trigger (seed_added, seed_changed, seed_deleted, capacity_freed, "+
				"cloud_profile, region_config, or periodic: the safety net, which should find nothing) and outcome "+
				"(scheduled: the requeue helped; same_failure; other_failure).", "trigger", "outcome"),
		failureStatusWrites: component.NewCounter("graft_scheduler_failure_status_writes_total",
			"Writes of a shoot's lastOperation for a scheduling failure: only when its stable reason changed."),
	}
	return m, []metrics.Registerable{m.scheduleAttempts, m.schedulingDuration, m.attemptDuration, m.pendingShoots, m.requeues, m.failureStatusWrites}
}

// zeroSeries creates every series of the counters at 0
// (component.ZeroSeries), and the pending gauges.
func (m *schedulerMetrics) zeroSeries() {
	component.ZeroSeries(m.scheduleAttempts, []string{resultScheduled, resultUnschedulable, resultError})
	component.ZeroSeries(m.requeues,
		[]string{triggerSeedAdded, triggerSeedChanged, triggerSeedDeleted, triggerCapacityFreed, triggerCloudProfile, triggerRegionConfig, triggerPeriodic},
		[]string{outcomeScheduled, outcomeSameFailure, outcomeOtherFailure})
	for _, q := range []string{queueActive, queueUnschedulable} {
		m.pendingShoots.WithLabelValues(q).Set(0)
	}
}

// metricsFor returns metrics registered with a test's registry, or with nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves.
var metricsFor = component.MetricsFor(newMetrics)
