package descheduler

import (
	"k8s.io/component-base/metrics"

	"github.com/graft-dev/graft/pkg/component"
)

// Results of an eviction attempt, the result label of graft_descheduler_evictions_total.
const (
	// ResultEvicted is a written eviction.
	ResultEvicted = "evicted"
	// ResultDryRun is an eviction computed in dry-run mode and not written.
	ResultDryRun = "dry_run"
	// ResultSkippedNoFit is a candidate left in place because no other seed fits it.
	ResultSkippedNoFit = "skipped_no_fit"
	// ResultSkippedLimitedStay is a candidate left in place because the only
	// seeds that fit it elsewhere would let it stay for a limited time only.
	ResultSkippedLimitedStay = "skipped_limited_stay"
	// ResultHeldRepeat is an eviction held back because the shoot was evicted
	// for the same cause within repeatEvictionWindow: the guard against
	// eviction loops, which should never have to act.
	ResultHeldRepeat = "held_repeat"
	// ResultRefused is a migration Gardener refused (on core.gardener.cloud).
	ResultRefused = "refused"
	// ResultWaitingForMigrations is a migration held back by
	// maxMigrationsInFlight or maxMigrationsInFlightPerSeed (on
	// core.gardener.cloud) until a migration in flight finishes.
	ResultWaitingForMigrations = "waiting_for_migrations"
	// ResultConflict is an eviction lost to a concurrent change of the shoot.
	ResultConflict = "conflict"
	// ResultError is an eviction the API server refused for another reason.
	ResultError = "error"
)

// Metrics are the descheduler's metrics (component-base, so that /metrics
// serves them with the process's other metrics).
type Metrics struct {
	// Evictions counts eviction attempts by plugin and result.
	Evictions *metrics.CounterVec
	// PassDuration observes how long a pass over seeds takes, writes included.
	PassDuration *metrics.Histogram
	// PendingEvicted is the number of evicted shoots still without a seed.
	PendingEvicted *metrics.Gauge
	// MigrationsInFlight is the number of control-plane migrations in
	// flight in the garden as the last pass counted them (core.gardener.cloud).
	MigrationsInFlight *metrics.Gauge
}

// newMetrics creates the metrics and lists them for metricsFor to register.
func newMetrics() (*Metrics, []metrics.Registerable) {
	m := &Metrics{
		Evictions: component.NewCounterVec("graft_descheduler_evictions_total",
			"Eviction attempts of graft-descheduler by plugin and result (evicted, dry_run, skipped_no_fit, skipped_limited_stay, held_repeat, refused, waiting_for_migrations, conflict, error). On core.gardener.cloud an eviction is a control-plane migration.", "plugin", "result"),
		PassDuration: component.NewHistogram("graft_descheduler_pass_duration_seconds",
			"Duration of one descheduler pass over seeds, writes included.", metrics.ExponentialBuckets(0.001, 4, 10)),
		PendingEvicted: component.NewGauge("graft_descheduler_pending_evicted",
			"Evicted shoots (annotated graft.dev/descheduled-from) that have no spec.seedName yet."),
		MigrationsInFlight: component.NewGauge("graft_descheduler_migrations_in_flight",
			"Control-plane migrations in flight in the garden (status.seedName differs from spec.seedName), whoever started them, as the descheduler last counted them (core.gardener.cloud)."),
	}
	return m, []metrics.Registerable{m.Evictions, m.PassDuration, m.PendingEvicted, m.MigrationsInFlight}
}

// metricsFor returns metrics registered with a test's registry, or with nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves.
var metricsFor = component.MetricsFor(newMetrics)
