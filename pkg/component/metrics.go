package component

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// MetricsFor returns how a component gets its metrics, given newMetrics,
// which creates them and lists what to register: with a registry (tests
// running several instances in one process), fresh metrics registered there;
// without one, the process's metrics, created and registered once in the
// legacy registry that /metrics serves. Component-base metrics record
// nothing until they are registered.
func MetricsFor[M any](newMetrics func() (M, []metrics.Registerable)) func(reg metrics.KubeRegistry) (M, error) {
	var (
		once    sync.Once
		process M
		err     error
	)
	return func(reg metrics.KubeRegistry) (M, error) {
		if reg != nil {
			return registered(newMetrics, reg.Register)
		}
		once.Do(func() { process, err = registered(newMetrics, legacyregistry.Register) })
		return process, err
	}
}

func registered[M any](newMetrics func() (M, []metrics.Registerable), register func(metrics.Registerable) error) (M, error) {
	m, collectors := newMetrics()
	for _, c := range collectors {
		if err := register(c); err != nil {
			var none M
			return none, err
		}
	}
	return m, nil
}

// The constructors below declare the daemons' metrics by their full names.
// Every graft metric is ALPHA, component-base's lowest stability level: its
// name and labels may still change between releases, and /metrics says so in
// its help.

// NewCounterVec returns a counter named name with the given labels.
func NewCounterVec(name, help string, labels ...string) *metrics.CounterVec {
	return metrics.NewCounterVec(&metrics.CounterOpts{Name: name, Help: help, StabilityLevel: metrics.ALPHA}, labels)
}

// NewCounter returns a counter named name.
func NewCounter(name, help string) *metrics.Counter {
	return metrics.NewCounter(&metrics.CounterOpts{Name: name, Help: help, StabilityLevel: metrics.ALPHA})
}

// NewGauge returns a gauge named name.
func NewGauge(name, help string) *metrics.Gauge {
	return metrics.NewGauge(&metrics.GaugeOpts{Name: name, Help: help, StabilityLevel: metrics.ALPHA})
}

// NewGaugeVec returns a gauge named name with the given labels.
func NewGaugeVec(name, help string, labels ...string) *metrics.GaugeVec {
	return metrics.NewGaugeVec(&metrics.GaugeOpts{Name: name, Help: help, StabilityLevel: metrics.ALPHA}, labels)
}

// NewHistogram returns a histogram named name with the given bucket bounds.
func NewHistogram(name, help string, buckets []float64) *metrics.Histogram {
	return metrics.NewHistogram(&metrics.HistogramOpts{Name: name, Help: help, Buckets: buckets, StabilityLevel: metrics.ALPHA})
}

// NewHistogramVec returns a histogram named name with the given bucket bounds
// and labels.
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *metrics.HistogramVec {
	return metrics.NewHistogramVec(&metrics.HistogramOpts{Name: name, Help: help, Buckets: buckets, StabilityLevel: metrics.ALPHA}, labels)
}

// ZeroSeries creates at 0 the series of vec for every combination of the
// label values given per label, so that rate() and increase(), and the
// alerts built on them, see the first event. A registered vec only keeps
// series once registered: call it after registration.
func ZeroSeries(vec *metrics.CounterVec, values ...[]string) {
	labels := make([]string, len(values))
	var each func(i int)
	each = func(i int) {
		if i == len(values) {
			vec.WithLabelValues(labels...).Add(0)
			return
		}
		for _, v := range values[i] {
			labels[i] = v
			each(i + 1)
		}
	}
	each(0)
}
