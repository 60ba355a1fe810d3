package capacity

import (
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/capacity/poolscaler"
	"github.com/graft-dev/graft/pkg/component/componenttest"
)

// TestPoolSeries publishes two forecasts: a pool that never fills has
// +Inf seconds to full, one full now 0, and the series of a region gone
// from the second forecast are dropped.
func TestPoolSeries(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := metricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	region := forecast.Summary{Pool: forecast.Pool{Kind: forecast.KindRegion, Name: "gone"}, Allocatable: 4, Usage: 1,
		Forecast: forecast.Forecast{Free: 3, Never: true}}
	pool := forecast.Summary{Pool: forecast.Pool{Kind: forecast.KindPool, Name: "p"}, Allocatable: 4, Usage: 4,
		Forecast: forecast.Forecast{Waiting: 2, Full: true, PerHour: 1.5}}
	soon := forecast.Summary{Pool: forecast.Pool{Kind: forecast.KindRegion, Name: "soon"}, Allocatable: 10, Usage: 5,
		Forecast: forecast.Forecast{Free: 5, PerHour: 2, FullIn: 150 * time.Minute}}
	m.SetPools([]forecast.Summary{region, pool, soon}, 2*time.Hour)
	m.SetPools([]forecast.Summary{pool, soon}, 2*time.Hour)
	want := `
# HELP graft_capacity_pool_full_in_seconds [ALPHA] Seconds until the region or pool is full at the arrival rate: 0 when full now, +Inf when nothing arrives or it has no limit.
# TYPE graft_capacity_pool_full_in_seconds gauge
graft_capacity_pool_full_in_seconds{kind="pool",pool="p"} 0
graft_capacity_pool_full_in_seconds{kind="region",pool="soon"} 9000
# HELP graft_capacity_pool_full_within_horizon [ALPHA] 1 when the region or pool is full now or fills within the forecast horizon, else 0.
# TYPE graft_capacity_pool_full_within_horizon gauge
graft_capacity_pool_full_within_horizon{kind="pool",pool="p"} 1
graft_capacity_pool_full_within_horizon{kind="region",pool="soon"} 0
# HELP graft_capacity_pool_waiting_shoots [ALPHA] Shoots waiting for capacity alone that a seed of the region or pool would take if it had room.
# TYPE graft_capacity_pool_waiting_shoots gauge
graft_capacity_pool_waiting_shoots{kind="pool",pool="p"} 2
graft_capacity_pool_waiting_shoots{kind="region",pool="soon"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "graft_capacity_pool_full_in_seconds",
		"graft_capacity_pool_full_within_horizon", "graft_capacity_pool_waiting_shoots"); err != nil {
		t.Error(err)
	}
	m.SetPools([]forecast.Summary{region}, time.Hour)
	inf := `
# HELP graft_capacity_pool_full_in_seconds [ALPHA] Seconds until the region or pool is full at the arrival rate: 0 when full now, +Inf when nothing arrives or it has no limit.
# TYPE graft_capacity_pool_full_in_seconds gauge
graft_capacity_pool_full_in_seconds{kind="region",pool="gone"} +Inf
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(inf), "graft_capacity_pool_full_in_seconds"); err != nil {
		t.Error(err)
	}
}

func TestSeedSeries(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := metricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	shoots := func(n string) corev1.ResourceList { return corev1.ResourceList{"shoots": resource.MustParse(n)} }
	m.SetSeed("a", shoots("200"), shoots("190"), shoots("7"))
	m.SetSeed("b", shoots("10"), shoots("10"), shoots("0"))
	m.Reconciled(resultSuccess)
	m.DeleteSeed("b")
	want := `
# HELP graft_seed_usage [ALPHA] Usage of a seed per resource; for shoots, the shoots counted on the seed.
# TYPE graft_seed_usage gauge
graft_seed_usage{resource="shoots",seed="a"} 7
# HELP graft_seed_allocatable [ALPHA] Allocatable of a seed per resource (capacity minus reserved), as written to status.allocatable.
# TYPE graft_seed_allocatable gauge
graft_seed_allocatable{resource="shoots",seed="a"} 190
# HELP graft_capacity_annotator_reconciles_total [ALPHA] Seed reconciles of graft-capacity-annotator by result.
# TYPE graft_capacity_annotator_reconciles_total counter
graft_capacity_annotator_reconciles_total{result="success"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "graft_seed_usage", "graft_seed_allocatable", "graft_capacity_annotator_reconciles_total"); err != nil {
		t.Error(err)
	}
	if _, err := metricsFor(reg); err == nil {
		t.Error("registering twice must fail")
	}
}

// TestMetricsAsDeclared pins the annotator's metrics as /metrics shows them:
// names, types, labels and help are what dashboards, alerts and docs/install.md
// rely on.
func TestMetricsAsDeclared(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := metricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	shoots := corev1.ResourceList{"shoots": resource.MustParse("1")}
	m.SetSeed("a", shoots, shoots, shoots)
	m.Reconciled(resultSuccess)
	m.Wrote("status")
	m.SetPools([]forecast.Summary{{Pool: forecast.Pool{Kind: forecast.KindPool, Name: "p"}, Allocatable: 2}}, time.Hour)
	m.SetSet("p", 2, &configv1alpha1.ManagedSeedSetScaling{MinReplicas: 1, MaxReplicas: 3}, false)
	m.Stepped("p", "out", poolscaler.ResultDone)
	want := map[string]string{
		"graft_seed_capacity":                       `GAUGE [resource seed] [] "[ALPHA] Capacity of a seed per resource, as written to status.capacity."`,
		"graft_seed_allocatable":                    `GAUGE [resource seed] [] "[ALPHA] Allocatable of a seed per resource (capacity minus reserved), as written to status.allocatable."`,
		"graft_seed_usage":                          `GAUGE [resource seed] [] "[ALPHA] Usage of a seed per resource; for shoots, the shoots counted on the seed."`,
		"graft_capacity_annotator_reconciles_total": `COUNTER [result] [] "[ALPHA] Seed reconciles of graft-capacity-annotator by result."`,
		"graft_capacity_annotator_writes_total":     `COUNTER [kind] [] "[ALPHA] Writes of graft-capacity-annotator to seeds by kind (status, taints)."`,
		"graft_capacity_forecasts_total":            `COUNTER [] [] "[ALPHA] Forecasts computed (one every forecast period while leading)."`,
		"graft_capacity_pool_free_shoots":           `GAUGE [kind pool] [] "[ALPHA] Free shoot slots of a region's or pool's seeds that take shoots now."`,
		"graft_capacity_pool_waiting_shoots":        `GAUGE [kind pool] [] "[ALPHA] Shoots waiting for capacity alone that a seed of the region or pool would take if it had room."`,
		"graft_capacity_pool_arrivals_per_hour":     `GAUGE [kind pool] [] "[ALPHA] Net new shoots of the region or pool an hour, over the forecast window: those created less the older ones deleted, never below zero."`,
		"graft_capacity_pool_full_in_seconds":       `GAUGE [kind pool] [] "[ALPHA] Seconds until the region or pool is full at the arrival rate: 0 when full now, +Inf when nothing arrives or it has no limit."`,
		"graft_capacity_pool_full_within_horizon":   `GAUGE [kind pool] [] "[ALPHA] 1 when the region or pool is full now or fills within the forecast horizon, else 0."`,
		"graft_capacity_pool_utilisation_ratio":     `GAUGE [kind pool] [] "[ALPHA] Shoots counted over allocatable shoots of the seeds of the region or pool that take shoots."`,
		"graft_capacity_pool_replicas":              `GAUGE [pool value] [] "[ALPHA] spec.replicas of a pool's ManagedSeedSet (value=desired) and its configured bounds (value=min, value=max)."`,
		"graft_capacity_pool_at_max":                `GAUGE [pool] [] "[ALPHA] 1 when a pool needs another seed and its ManagedSeedSet is at maxReplicas, else 0."`,
		"graft_capacity_pool_steps_total":           `COUNTER [pool result step] [] "[ALPHA] Steps of a pool's ManagedSeedSet by kind (out, in, cordon, uncordon) and result (done, dry_run, error)."`,
	}
	got, err := componenttest.MetricDeclarations(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("metrics\n  %v\nwant\n  %v", got, want)
	}
}
