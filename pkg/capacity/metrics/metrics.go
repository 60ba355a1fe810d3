package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Reconcile results.
const (
	ResultSuccess = "success"
	ResultError   = "error"
)

// Metrics are the annotator's metrics. Create them once per registry with New.
// A nil *Metrics publishes nothing.
type Metrics struct {
	capacity    *prometheus.GaugeVec
	allocatable *prometheus.GaugeVec
	usage       *prometheus.GaugeVec
	reconciles  *prometheus.CounterVec
	writes      *prometheus.CounterVec
}

// New creates the metrics and registers them with reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"seed", "resource"}
	m := &Metrics{
		capacity: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "graft_seed_capacity",
			Help: "Capacity of a seed per resource, as written to status.capacity.",
		}, labels),
		allocatable: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "graft_seed_allocatable",
			Help: "Allocatable of a seed per resource (capacity minus reserved), as written to status.allocatable.",
		}, labels),
		usage: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "graft_seed_usage",
			Help: "Usage of a seed per resource; for shoots, the shoots counted on the seed.",
		}, labels),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "graft_capacity_annotator_reconciles_total",
			Help: "Seed reconciles of graft-capacity-annotator by result.",
		}, []string{"result"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "graft_capacity_annotator_writes_total",
			Help: "Writes of graft-capacity-annotator to seeds by kind (status, taints).",
		}, []string{"kind"}),
	}
	for _, c := range []prometheus.Collector{m.capacity, m.allocatable, m.usage, m.reconciles, m.writes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

var (
	processMetrics     *Metrics
	processMetricsErr  error
	processMetricsOnce sync.Once
)

// For returns metrics registered with reg, or with reg nil the process's
// metrics, registered once in the legacy registry that /metrics serves
// (tests run several annotators in one process).
func For(reg prometheus.Registerer) (*Metrics, error) {
	if reg != nil {
		return New(reg)
	}
	processMetricsOnce.Do(func() { processMetrics, processMetricsErr = New(legacyregistry.Registerer()) })
	return processMetrics, processMetricsErr
}

// SetSeed publishes a seed's capacity, allocatable and usage. Resources
// missing from a list are left as they were.
func (m *Metrics) SetSeed(seed string, capacity, allocatable, usage corev1.ResourceList) {
	if m == nil {
		return
	}
	for name, q := range capacity {
		m.capacity.WithLabelValues(seed, string(name)).Set(q.AsApproximateFloat64())
	}
	for name, q := range allocatable {
		m.allocatable.WithLabelValues(seed, string(name)).Set(q.AsApproximateFloat64())
	}
	for name, q := range usage {
		m.usage.WithLabelValues(seed, string(name)).Set(q.AsApproximateFloat64())
	}
}

// DeleteSeed drops every series of a seed that went away.
func (m *Metrics) DeleteSeed(seed string) {
	if m == nil {
		return
	}
	for _, v := range []*prometheus.GaugeVec{m.capacity, m.allocatable, m.usage} {
		v.DeletePartialMatch(prometheus.Labels{"seed": seed})
	}
}

// Reconciled counts one reconcile with its result.
func (m *Metrics) Reconciled(result string) {
	if m != nil {
		m.reconciles.WithLabelValues(result).Inc()
	}
}

// Wrote counts one write to a seed of the given kind ("status" or "taints").
func (m *Metrics) Wrote(kind string) {
	if m != nil {
		m.writes.WithLabelValues(kind).Inc()
	}
}
