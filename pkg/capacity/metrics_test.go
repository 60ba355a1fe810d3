package capacity

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
)

func TestSeedSeries(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := newMetrics(reg.Register)
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
	if _, err := newMetrics(reg.Register); err == nil {
		t.Error("registering twice must fail")
	}
}
