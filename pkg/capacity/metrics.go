package capacity

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics"

	"github.com/graft-dev/graft/pkg/component"
)

// Reconcile results.
const (
	resultSuccess = "success"
	resultError   = "error"
)

// annotatorMetrics are the annotator's metrics (component-base, so that /metrics
// serves them with the process's other metrics). Create them once per
// registry with metricsFor. A nil *annotatorMetrics publishes nothing.
type annotatorMetrics struct {
	// capacity, allocatable and usage have a series per seed and resource.
	capacity, allocatable, usage *metrics.GaugeVec
	reconciles, writes           *metrics.CounterVec

	mu sync.Mutex
	// published holds, per seed, the resources of its series in each gauge,
	// so that DeleteSeed can drop them (component-base has no partial-match
	// delete).
	published map[string]map[*metrics.GaugeVec]map[corev1.ResourceName]struct{}
}

// newMetrics creates the metrics and lists them for metricsFor to register.
func newMetrics() (*annotatorMetrics, []metrics.Registerable) {
	m := &annotatorMetrics{
		capacity: component.NewGaugeVec("graft_seed_capacity",
			"Capacity of a seed per resource, as written to status.capacity.", "seed", "resource"),
		allocatable: component.NewGaugeVec("graft_seed_allocatable",
			"Allocatable of a seed per resource (capacity minus reserved), as written to status.allocatable.", "seed", "resource"),
		usage: component.NewGaugeVec("graft_seed_usage",
			"Usage of a seed per resource; for shoots, the shoots counted on the seed.", "seed", "resource"),
		reconciles: component.NewCounterVec("graft_capacity_annotator_reconciles_total",
			"Seed reconciles of graft-capacity-annotator by result.", "result"),
		writes: component.NewCounterVec("graft_capacity_annotator_writes_total",
			"Writes of graft-capacity-annotator to seeds by kind (status, taints).", "kind"),
		published: map[string]map[*metrics.GaugeVec]map[corev1.ResourceName]struct{}{},
	}
	return m, []metrics.Registerable{m.capacity, m.allocatable, m.usage, m.reconciles, m.writes}
}

// metricsFor returns metrics registered with a test's registry, or with nil the
// process's metrics, registered once in the legacy registry that /metrics
// serves.
var metricsFor = component.MetricsFor(newMetrics)

// Kinds of writes, the values of the kind label.
const (
	writeStatus = "status"
	writeTaints = "taints"
)

// zeroSeries creates every series of the counters at 0 (component.ZeroSeries).
func (m *annotatorMetrics) zeroSeries() {
	component.ZeroSeries(m.reconciles, []string{resultSuccess, resultError})
	component.ZeroSeries(m.writes, []string{writeStatus, writeTaints})
}

// SetSeed publishes a seed's capacity, allocatable and usage. Resources
// missing from a list are left as they were.
func (m *annotatorMetrics) SetSeed(seed string, capacity, allocatable, usage corev1.ResourceList) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range []struct {
		vec  *metrics.GaugeVec
		list corev1.ResourceList
	}{{m.capacity, capacity}, {m.allocatable, allocatable}, {m.usage, usage}} {
		for name, q := range s.list {
			s.vec.WithLabelValues(seed, string(name)).Set(q.AsApproximateFloat64())
			m.remember(seed, s.vec, name)
		}
	}
}

func (m *annotatorMetrics) remember(seed string, vec *metrics.GaugeVec, name corev1.ResourceName) {
	byVec, ok := m.published[seed]
	if !ok {
		byVec = map[*metrics.GaugeVec]map[corev1.ResourceName]struct{}{}
		m.published[seed] = byVec
	}
	if byVec[vec] == nil {
		byVec[vec] = map[corev1.ResourceName]struct{}{}
	}
	byVec[vec][name] = struct{}{}
}

// DeleteSeed drops every series of a seed that went away.
func (m *annotatorMetrics) DeleteSeed(seed string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for vec, names := range m.published[seed] {
		for name := range names {
			vec.DeleteLabelValues(seed, string(name))
		}
	}
	delete(m.published, seed)
}

// Reconciled counts one reconcile with its result.
func (m *annotatorMetrics) Reconciled(result string) {
	if m != nil {
		m.reconciles.WithLabelValues(result).Inc()
	}
}

// Wrote counts one write to a seed of the given kind ("status" or "taints").
func (m *annotatorMetrics) Wrote(kind string) {
	if m != nil {
		m.writes.WithLabelValues(kind).Inc()
	}
}
