package componenttest

import (
	"fmt"
	"reflect"
	"testing"

	"k8s.io/component-base/metrics"
)

func TestMetricDeclarations(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	counter := metrics.NewCounterVec(&metrics.CounterOpts{Name: "graft_test_total", Help: "Counted.", StabilityLevel: metrics.ALPHA}, []string{"b", "a"})
	histogram := metrics.NewHistogram(&metrics.HistogramOpts{Name: "graft_test_seconds", Help: "Timed.", Buckets: []float64{1, 2}, StabilityLevel: metrics.ALPHA})
	unused := metrics.NewGaugeVec(&metrics.GaugeOpts{Name: "graft_test_unused", Help: "Never set."}, []string{"x"})
	for _, c := range []metrics.Registerable{counter, histogram, unused} {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	counter.WithLabelValues("1", "2").Inc()
	histogram.Observe(1)
	got, err := MetricDeclarations(reg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"graft_test_total":   `COUNTER [a b] [] "[ALPHA] Counted."`,
		"graft_test_seconds": fmt.Sprintf(`HISTOGRAM [] %v "[ALPHA] Timed."`, []float64{1, 2}),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("declarations\n  %v\nwant\n  %v", got, want)
	}
}
