package capacity

import (
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	"github.com/graft-dev/graft/pkg/component/componenttest"
)

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
	want := map[string]string{
		"graft_seed_capacity":                       `GAUGE [resource seed] [] "[ALPHA] Capacity of a seed per resource, as written to status.capacity."`,
		"graft_seed_allocatable":                    `GAUGE [resource seed] [] "[ALPHA] Allocatable of a seed per resource (capacity minus reserved), as written to status.allocatable."`,
		"graft_seed_usage":                          `GAUGE [resource seed] [] "[ALPHA] Usage of a seed per resource; for shoots, the shoots counted on the seed."`,
		"graft_capacity_annotator_reconciles_total": `COUNTER [result] [] "[ALPHA] Seed reconciles of graft-capacity-annotator by result."`,
		"graft_capacity_annotator_writes_total":     `COUNTER [kind] [] "[ALPHA] Writes of graft-capacity-annotator to seeds by kind (status, taints)."`,
	}
	got, err := componenttest.MetricDeclarations(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("metrics\n  %v\nwant\n  %v", got, want)
	}
}
