package component

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// MetricsFor returns how a component gets its metrics, given newMetrics,
// which creates them and registers them with a register function: with a
// registry (tests running several instances in one process), fresh metrics
// registered there; without one, the process's metrics, created and
// registered once in the legacy registry that /metrics serves.
func MetricsFor[M any](newMetrics func(register func(metrics.Registerable) error) (M, error)) func(reg metrics.KubeRegistry) (M, error) {
	var (
		once    sync.Once
		process M
		err     error
	)
	return func(reg metrics.KubeRegistry) (M, error) {
		if reg != nil {
			return newMetrics(reg.Register)
		}
		once.Do(func() { process, err = newMetrics(legacyregistry.Register) })
		return process, err
	}
}
