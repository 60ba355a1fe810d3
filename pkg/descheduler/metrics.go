package descheduler

import (
	"sync"

	"k8s.io/component-base/metrics"

	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
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
	// ResultSkippedFailed is a deferrable move not started because the
	// shoot's last operation failed.
	ResultSkippedFailed = "skipped_failed"
	// ResultDeferred is a deferrable move left for the shoot's maintenance
	// window or its deadline.
	ResultDeferred = "deferred"
	// ResultWaitingForProject is a move held back by the project's budget
	// of moves in flight (maxMovesInFlightPerProject, projectBudgets).
	ResultWaitingForProject = "waiting_for_project"
	// ResultCoolingDown: an improving plugin's candidate was moved by an
	// improving plugin within its cool-down.
	ResultCoolingDown = "cooling_down"
	// ResultNotImproving: the scheduler would not send an improving
	// plugin's candidate where the plugin wants it (it would keep it, or
	// choose a seed the plugin does not accept).
	ResultNotImproving = "not_improving"
	// ResultChurnLimited: an improving plugin spent its moves of the pass
	// window or of the hour; counted once per pass that finds it so.
	ResultChurnLimited = "churn_limited"
	// ResultBudgetSpent: the pass window's budget (maxEvictionsPerSeed,
	// maxEvictionsTotal) is used up; the seed waits for the next window.
	ResultBudgetSpent = "budget_spent"
	// ResultWaitingForPending: maxPendingEvicted evicted shoots wait for a
	// seed; the pass stops until one is placed.
	ResultWaitingForPending = "waiting_for_pending"
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
	// MigrationsStuck is the number of migrations in flight that are stuck
	// (failed, or in flight past migrationTimeout), counted in no budget.
	MigrationsStuck *metrics.Gauge
	// ToMove is, by plugin, the shoots that must leave their seed and that
	// the last look at the seed did not evict (see remaining), deferred
	// ones apart.
	ToMove *metrics.GaugeVec
	// Deferred is, by plugin, the shoots whose move waits for their
	// maintenance window or deadline.
	Deferred *metrics.GaugeVec
	// LiveMigrations counts the live control-plane migrations written.
	LiveMigrations *metrics.Counter
	// LiveMigrationFallbacks counts live intents whose gardenlet ran a
	// classic migration.
	LiveMigrationFallbacks *metrics.Counter
	// LiveMigrationUnavailable is 1 once gardener-apiserver refused a live
	// migration for its feature gate.
	LiveMigrationUnavailable *metrics.Gauge
}

// newMetrics creates the metrics and lists them for metricsFor to register.
func newMetrics() (*Metrics, []metrics.Registerable) {
	m := &Metrics{
		Evictions: component.NewCounterVec("graft_descheduler_evictions_total",
			"Eviction attempts of graft-descheduler by plugin and result (evicted, dry_run, skipped_no_fit, skipped_limited_stay, held_repeat, refused, waiting_for_migrations, deferred, waiting_for_project, skipped_failed, cooling_down, not_improving, churn_limited, conflict, error). On core.gardener.cloud an eviction is a control-plane migration.", "plugin", "result"),
		PassDuration: component.NewHistogram("graft_descheduler_pass_duration_seconds",
			"Duration of one descheduler pass over seeds, writes included.", metrics.ExponentialBuckets(0.001, 4, 10)),
		PendingEvicted: component.NewGauge("graft_descheduler_pending_evicted",
			"Evicted shoots (annotated graft.dev/descheduled-from) that have no spec.seedName yet."),
		MigrationsInFlight: component.NewGauge("graft_descheduler_migrations_in_flight",
			"Control-plane migrations in flight in the garden (status.seedName differs from spec.seedName), whoever started them, as the descheduler last counted them against maxMigrationsInFlight (core.gardener.cloud); stuck ones are not counted."),
		MigrationsStuck: component.NewGauge("graft_descheduler_migrations_stuck",
			"Moves that are stuck, as the descheduler last counted them: on core.gardener.cloud control-plane migrations whose lastOperation failed or that have been in flight longer than migrationTimeout, on core.graft.dev evicted shoots no seed has taken for that long. They count against no budget of moves in flight, only on their seeds' capacity."),
		ToMove: component.NewGaugeVec("graft_descheduler_shoots_to_move",
			"Shoots a plugin picks to leave their seed that the last pass over the seed did not evict (held by a safety rule or a limit), by plugin; deferred moves are not counted.", "plugin"),
		Deferred: component.NewGaugeVec("graft_descheduler_shoots_deferred",
			"Shoots a plugin picks to leave their seed whose move waits for their maintenance window or deadline, by plugin.", "plugin"),
		LiveMigrations: component.NewCounter("graft_descheduler_live_migrations_total",
			"Live control-plane migrations (GEP-39) asked for in a binding, each admitted first by a dry run of it (core.gardener.cloud, liveMigration Prefer); only those between gardenlets known to run the live flow are timed as live."),
		LiveMigrationFallbacks: component.NewCounter("graft_descheduler_live_migration_fallbacks_total",
			"Live control-plane migrations written whose gardenlet then ran a classic Migrate/Restore (downtime): moves between those gardenlet versions are no longer timed as live."),
		LiveMigrationUnavailable: component.NewGauge("graft_descheduler_live_migration_unavailable",
			"1 once gardener-apiserver refused a live control-plane migration because its feature gate LiveControlPlaneMigration is off: control planes then move classically."),
	}
	return m, []metrics.Registerable{m.Evictions, m.PassDuration, m.PendingEvicted, m.MigrationsInFlight, m.MigrationsStuck, m.ToMove, m.Deferred, m.LiveMigrations, m.LiveMigrationFallbacks, m.LiveMigrationUnavailable}
}

// zeroSeries creates every series of the evictions at 0 for the enabled
// plugins (component.ZeroSeries), and their shoots to move.
func (m *Metrics) zeroSeries(plugins []string) {
	component.ZeroSeries(m.Evictions, plugins, []string{ResultEvicted, ResultDryRun, ResultSkippedNoFit, ResultSkippedLimitedStay,
		ResultHeldRepeat, ResultRefused, ResultWaitingForMigrations, ResultDeferred, ResultWaitingForProject, ResultSkippedFailed, ResultCoolingDown, ResultNotImproving, ResultChurnLimited, ResultBudgetSpent, ResultWaitingForPending, ResultConflict, ResultError})
	for _, p := range plugins {
		m.ToMove.WithLabelValues(p).Set(0)
		m.Deferred.WithLabelValues(p).Set(0)
	}
}

// remaining keeps, per seed and plugin, the shoots the plugin picked to
// leave the seed that the last pass over it did not evict, and publishes
// their sum per plugin in ToMove: a sum the alert on stalled evictions
// reads, kept per seed because a pass looks at some seeds only.
type remaining struct {
	gauge *metrics.GaugeVec

	mu     sync.Mutex
	bySeed map[string]map[string]int
	total  map[string]int
}

func newRemaining(gauge *metrics.GaugeVec) *remaining {
	return &remaining{gauge: gauge, bySeed: map[string]map[string]int{}, total: map[string]int{}}
}

// set records that n shoots plugin picked on seed are still there.
func (r *remaining) set(seed, plugin string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byPlugin := r.bySeed[seed]
	if byPlugin == nil {
		if n == 0 {
			return
		}
		byPlugin = map[string]int{}
		r.bySeed[seed] = byPlugin
	}
	r.total[plugin] += n - byPlugin[plugin]
	if n == 0 {
		delete(byPlugin, plugin)
		if len(byPlugin) == 0 {
			delete(r.bySeed, seed)
		}
	} else {
		byPlugin[plugin] = n
	}
	r.gauge.WithLabelValues(plugin).Set(float64(r.total[plugin]))
}

// dropSeed forgets a deleted seed.
func (r *remaining) dropSeed(seed string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(seed)
}

// dropIdle forgets the seeds of named that no plugin acts on any more (not
// in acted). Most passes have nothing to move anywhere, and cost nothing
// here then.
func (r *remaining) dropIdle(named []string, acted map[string]*framework.SeedState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bySeed) == 0 {
		return
	}
	for _, seed := range named {
		if _, ok := acted[seed]; !ok {
			r.dropLocked(seed)
		}
	}
}

func (r *remaining) dropLocked(seed string) {
	for plugin, n := range r.bySeed[seed] {
		r.total[plugin] -= n
		r.gauge.WithLabelValues(plugin).Set(float64(r.total[plugin]))
	}
	delete(r.bySeed, seed)
}

// metricsFor returns metrics registered with a test's registry, or with nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves.
var metricsFor = component.MetricsFor(newMetrics)
