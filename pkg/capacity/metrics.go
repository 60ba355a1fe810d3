package capacity

import (
	"math"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
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

	// The forecast's, per kind (region, pool) and name.
	poolFree, poolWaiting, poolPerHour, poolFullIn, poolWithin, poolUtilisation *metrics.GaugeVec
	// The scaler's, per pool.
	setReplicas, setAtMax *metrics.GaugeVec
	setSteps              *metrics.CounterVec
	forecasts             *metrics.Counter
	// pools are the series published by the last forecast.
	pools map[forecast.Pool]bool

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
		poolFree: component.NewGaugeVec("graft_capacity_pool_free_shoots",
			"Free shoot slots of a region's or pool's seeds that take shoots now.", "kind", "pool"),
		poolWaiting: component.NewGaugeVec("graft_capacity_pool_waiting_shoots",
			"Shoots waiting for capacity alone that a seed of the region or pool would take if it had room.", "kind", "pool"),
		poolPerHour: component.NewGaugeVec("graft_capacity_pool_arrivals_per_hour",
			"Net new shoots of the region or pool an hour, over the forecast window: those created less the older ones deleted, never below zero.", "kind", "pool"),
		poolFullIn: component.NewGaugeVec("graft_capacity_pool_full_in_seconds",
			"Seconds until the region or pool is full at the arrival rate: 0 when full now, +Inf when nothing arrives or it has no limit.", "kind", "pool"),
		poolWithin: component.NewGaugeVec("graft_capacity_pool_full_within_horizon",
			"1 when the region or pool is full now or fills within the forecast horizon, else 0.", "kind", "pool"),
		poolUtilisation: component.NewGaugeVec("graft_capacity_pool_utilisation_ratio",
			"Shoots counted over allocatable shoots of the seeds of the region or pool that take shoots.", "kind", "pool"),
		setReplicas: component.NewGaugeVec("graft_capacity_pool_replicas",
			"spec.replicas of a pool's ManagedSeedSet (value=desired) and its configured bounds (value=min, value=max).", "pool", "value"),
		setAtMax: component.NewGaugeVec("graft_capacity_pool_at_max",
			"1 when a pool needs another seed and its ManagedSeedSet is at maxReplicas, else 0.", "pool"),
		setSteps: component.NewCounterVec("graft_capacity_pool_steps_total",
			"Steps of a pool's ManagedSeedSet by kind (out, in, cordon, uncordon) and result (done, dry_run, error).", "pool", "step", "result"),
		forecasts: metrics.NewCounter(&metrics.CounterOpts{Name: "graft_capacity_forecasts_total",
			Help: "Forecasts computed (one every forecast period while leading).", StabilityLevel: metrics.ALPHA}),
		published: map[string]map[*metrics.GaugeVec]map[corev1.ResourceName]struct{}{},
		pools:     map[forecast.Pool]bool{},
	}
	return m, []metrics.Registerable{m.capacity, m.allocatable, m.usage, m.reconciles, m.writes,
		m.poolFree, m.poolWaiting, m.poolPerHour, m.poolFullIn, m.poolWithin, m.poolUtilisation, m.setReplicas, m.setAtMax, m.setSteps, m.forecasts}
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

// SetPools publishes a forecast: every region's and pool's series, dropping
// those of a region or pool that is gone.
func (m *annotatorMetrics) SetPools(summaries []forecast.Summary, horizon time.Duration) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[forecast.Pool]bool{}
	for _, s := range summaries {
		seen[s.Pool] = true
		k, n := string(s.Kind), s.Name
		m.poolFree.WithLabelValues(k, n).Set(float64(s.Free))
		m.poolWaiting.WithLabelValues(k, n).Set(float64(s.Waiting))
		m.poolPerHour.WithLabelValues(k, n).Set(s.PerHour)
		fullIn := math.Inf(1)
		switch {
		case s.Full:
			fullIn = 0
		case !s.Never:
			fullIn = s.FullIn.Seconds()
		}
		m.poolFullIn.WithLabelValues(k, n).Set(fullIn)
		within := 0.0
		if s.Within(horizon) {
			within = 1
		}
		m.poolWithin.WithLabelValues(k, n).Set(within)
		if s.Allocatable > 0 {
			m.poolUtilisation.WithLabelValues(k, n).Set(float64(s.Usage) / float64(s.Allocatable))
		} else {
			m.poolUtilisation.DeleteLabelValues(k, n)
		}
	}
	for p := range m.pools {
		if !seen[p] {
			for _, v := range []*metrics.GaugeVec{m.poolFree, m.poolWaiting, m.poolPerHour, m.poolFullIn, m.poolWithin, m.poolUtilisation} {
				v.DeleteLabelValues(string(p.Kind), p.Name)
			}
		}
	}
	m.pools = seen
	m.forecasts.Inc()
}

// SetSet publishes a scaled pool's replicas, bounds and whether it is at max
// with demand.
func (m *annotatorMetrics) SetSet(pool string, replicas int32, cfg *configv1alpha1.ManagedSeedSetScaling, atMax bool) {
	if m == nil {
		return
	}
	m.setReplicas.WithLabelValues(pool, "desired").Set(float64(replicas))
	m.setReplicas.WithLabelValues(pool, "min").Set(float64(cfg.MinReplicas))
	m.setReplicas.WithLabelValues(pool, "max").Set(float64(cfg.MaxReplicas))
	at := 0.0
	if atMax {
		at = 1
	}
	m.setAtMax.WithLabelValues(pool).Set(at)
}

// Stepped counts one step of a pool's set.
func (m *annotatorMetrics) Stepped(pool, kind, result string) {
	if m != nil {
		m.setSteps.WithLabelValues(pool, kind, result).Inc()
	}
}
