package descheduler

import (
	"fmt"
	"maps"
	"testing"

	"k8s.io/component-base/metrics"

	"github.com/graft-dev/graft/pkg/component/componenttest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// TestMetricsAsDeclared pins the descheduler's metrics as /metrics shows
// them: names, types, labels, buckets and help are what dashboards, alerts
// and docs/install.md rely on.
func TestMetricsAsDeclared(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := metricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Evictions.WithLabelValues("NoExecuteTaints", ResultEvicted).Inc()
	m.PassDuration.Observe(1)
	m.PendingEvicted.Set(1)
	m.MigrationsInFlight.Set(1)
	m.MigrationsStuck.Set(1)
	m.ToMove.WithLabelValues("NoExecuteTaints").Set(1)
	m.Deferred.WithLabelValues("OverCapacity").Set(1)
	m.LiveMigrations.Inc()
	m.LiveMigrationFallbacks.Inc()
	m.LiveMigrationUnavailable.Set(1)
	want := map[string]string{
		"graft_descheduler_evictions_total": `COUNTER [plugin result] [] "[ALPHA] Eviction attempts of graft-descheduler by plugin and result (evicted, dry_run, skipped_no_fit, skipped_limited_stay, held_repeat, refused, waiting_for_migrations, deferred, waiting_for_project, skipped_failed, cooling_down, not_improving, churn_limited, conflict, error). On core.gardener.cloud an eviction is a control-plane migration."`,
		"graft_descheduler_pass_duration_seconds": fmt.Sprintf(`HISTOGRAM [] %v "[ALPHA] Duration of one descheduler pass over seeds, writes included."`,
			metrics.ExponentialBuckets(0.001, 4, 10)),
		"graft_descheduler_pending_evicted":                `GAUGE [] [] "[ALPHA] Evicted shoots (annotated graft.dev/descheduled-from) that have no spec.seedName yet."`,
		"graft_descheduler_shoots_to_move":                 `GAUGE [plugin] [] "[ALPHA] Shoots a plugin picks to leave their seed that the last pass over the seed did not evict (held by a safety rule or a limit), by plugin; deferred moves are not counted."`,
		"graft_descheduler_live_migrations_total":          `COUNTER [] [] "[ALPHA] Live control-plane migrations (GEP-39) asked for in a binding, each admitted first by a dry run of it (core.gardener.cloud, liveMigration Prefer); only those between gardenlets known to run the live flow are timed as live."`,
		"graft_descheduler_live_migration_fallbacks_total": `COUNTER [] [] "[ALPHA] Live control-plane migrations written whose gardenlet then ran a classic Migrate/Restore (downtime): moves between those gardenlet versions are no longer timed as live."`,
		"graft_descheduler_live_migration_unavailable":     `GAUGE [] [] "[ALPHA] 1 once gardener-apiserver refused a live control-plane migration because its feature gate LiveControlPlaneMigration is off: control planes then move classically."`,
		"graft_descheduler_shoots_deferred":                `GAUGE [plugin] [] "[ALPHA] Shoots a plugin picks to leave their seed whose move waits for their maintenance window or deadline, by plugin."`,
		"graft_descheduler_migrations_in_flight":           `GAUGE [] [] "[ALPHA] Control-plane migrations in flight in the garden (status.seedName differs from spec.seedName), whoever started them, as the descheduler last counted them against maxMigrationsInFlight (core.gardener.cloud); stuck ones are not counted."`,
		"graft_descheduler_migrations_stuck":               `GAUGE [] [] "[ALPHA] Moves that are stuck, as the descheduler last counted them: on core.gardener.cloud control-plane migrations whose lastOperation failed or that have been in flight longer than migrationTimeout, on core.graft.dev evicted shoots no seed has taken for that long. They count against no budget of moves in flight, only on their seeds' capacity."`,
	}
	got, err := componenttest.MetricDeclarations(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("metrics\n  %v\nwant\n  %v", got, want)
	}
}

// The shoots left to move are summed over seeds per plugin; a seed dropped
// (deleted, or no plugin acts on it any more) takes its part with it.
func TestRemainingSumsOverSeeds(t *testing.T) {
	m, err := metricsFor(metrics.NewKubeRegistry())
	if err != nil {
		t.Fatal(err)
	}
	r := newRemaining(m.ToMove)
	r.set("a", "NoExecuteTaints", 3)
	r.set("b", "NoExecuteTaints", 2)
	r.set("b", "OverCapacity", 1)
	r.set("a", "NoExecuteTaints", 1)
	if got := gauge(t, m.ToMove.WithLabelValues("NoExecuteTaints")); got != 3 {
		t.Errorf("NoExecuteTaints = %v, want 3 (1 on a, 2 on b)", got)
	}
	r.dropSeed("b")
	if got := gauge(t, m.ToMove.WithLabelValues("NoExecuteTaints")); got != 1 {
		t.Errorf("NoExecuteTaints = %v after b was dropped, want 1", got)
	}
	if got := gauge(t, m.ToMove.WithLabelValues("OverCapacity")); got != 0 {
		t.Errorf("OverCapacity = %v after b was dropped, want 0", got)
	}
	// A pass over a and c where no plugin acts on a any more.
	r.set("c", "NoExecuteTaints", 2)
	r.dropIdle([]string{"a", "c"}, map[string]*framework.SeedState{"c": {}})
	if got := gauge(t, m.ToMove.WithLabelValues("NoExecuteTaints")); got != 2 {
		t.Errorf("NoExecuteTaints = %v after a went idle, want 2 (c's)", got)
	}
	r.set("c", "NoExecuteTaints", 0)
	if len(r.bySeed) != 0 {
		t.Errorf("seeds kept with nothing to move: %v", r.bySeed)
	}
}
