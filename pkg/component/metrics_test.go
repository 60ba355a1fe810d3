package component

import (
	"testing"

	"k8s.io/component-base/metrics"
)

func TestMetricsFor(t *testing.T) {
	built := 0
	metricsFor := MetricsFor(func() (*metrics.Counter, []metrics.Registerable) {
		built++
		c := metrics.NewCounter(&metrics.CounterOpts{Name: "graft_runner_test_total", Help: "A counter of the test.", StabilityLevel: metrics.ALPHA})
		return c, []metrics.Registerable{c}
	})
	process, err := metricsFor(nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := metricsFor(nil); err != nil || again != process {
		t.Errorf("the process's metrics were built again (%v)", err)
	}
	reg := metrics.NewKubeRegistry()
	own, err := metricsFor(reg)
	if err != nil || own == process {
		t.Fatalf("a registry got the process's metrics (%v)", err)
	}
	own.Inc()
	families, err := reg.Gather()
	if err != nil || len(families) != 1 || families[0].GetName() != "graft_runner_test_total" {
		t.Errorf("the registry holds %v (%v), want the test's counter", families, err)
	}
	if again, err := metricsFor(reg); err == nil || again != nil {
		t.Errorf("registering the same metrics twice in one registry returned %v, %v; want an error and no metrics", again, err)
	}
	if built != 3 {
		t.Errorf("built %d times, want 3", built)
	}
}

// ZeroSeries creates one series per combination of label values.
func TestZeroSeries(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	vec := NewCounterVec("graft_zero_test_total", "A counter of the test.", "a", "b")
	reg.MustRegister(vec)
	ZeroSeries(vec, []string{"x", "y"}, []string{"1", "2", "3"})
	families, err := reg.Gather()
	if err != nil || len(families) != 1 {
		t.Fatalf("gathered %v (%v)", families, err)
	}
	if n := len(families[0].GetMetric()); n != 6 {
		t.Errorf("%d series, want 6", n)
	}
	for _, m := range families[0].GetMetric() {
		if m.GetCounter().GetValue() != 0 {
			t.Errorf("series %v = %v, want 0", m.GetLabel(), m.GetCounter().GetValue())
		}
	}
}
