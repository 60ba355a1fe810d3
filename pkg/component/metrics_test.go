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
