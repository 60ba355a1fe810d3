package scheduler

import (
	"fmt"
	"maps"
	"testing"

	"k8s.io/component-base/metrics"

	"github.com/graft-dev/graft/pkg/component/componenttest"
)

// TestMetricsAsDeclared pins the scheduler's metrics as /metrics shows them:
// names, types, labels, buckets and help are what dashboards, alerts and
// docs/install.md rely on.
func TestMetricsAsDeclared(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := metricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.scheduleAttempts.WithLabelValues(resultScheduled).Inc()
	m.schedulingDuration.Observe(1)
	m.attemptDuration.WithLabelValues(resultScheduled).Observe(1)
	m.pendingShoots.WithLabelValues(queueActive).Set(1)
	m.requeues.WithLabelValues(triggerSeedChanged, outcomeSameFailure).Inc()
	m.failureStatusWrites.Inc()
	want := map[string]string{
		"graft_scheduler_schedule_attempts_total": `COUNTER [result] [] "[ALPHA] Scheduling attempts by result: scheduled, unschedulable (no seed fits) or error (the binding failed)."`,
		"graft_scheduler_scheduling_duration_seconds": fmt.Sprintf(`HISTOGRAM [] %v "[ALPHA] Time from a shoot's creation to its successful binding."`,
			metrics.ExponentialBuckets(0.01, 2, 18)),
		"graft_scheduler_attempt_duration_seconds": fmt.Sprintf(`HISTOGRAM [result] %v "[ALPHA] Time of one scheduling attempt, from taking the shoot off the queue to the end of its binding or failure report, by result."`,
			metrics.ExponentialBuckets(0.0005, 2, 16)),
		"graft_scheduler_pending_shoots": `GAUGE [queue] [] "[ALPHA] Pending shoots by queue: active (waiting for a worker) or unschedulable (waiting for a change that may help, or the periodic retry)."`,
		"graft_scheduler_requeues_total": `COUNTER [outcome trigger] [] "[ALPHA] Decisions of shoots no seed fitted that a change requeued, by trigger (seed_added, seed_changed, seed_deleted, capacity_freed, ` +
			`cloud_profile, region_config, or periodic: the safety net, which should find nothing) and outcome (scheduled: the requeue helped; same_failure; other_failure)."`,
		"graft_scheduler_failure_status_writes_total": `COUNTER [] [] "[ALPHA] Writes of a shoot's lastOperation for a scheduling failure: only when its stable reason changed."`,
	}
	got, err := componenttest.MetricDeclarations(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("metrics\n  %v\nwant\n  %v", got, want)
	}
}
