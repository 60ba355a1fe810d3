package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CapacityAnnotatorConfiguration configures graft-capacity-annotator, which
// keeps every seed's status.capacity, status.allocatable and status.usage
// current and, when asked to, turns seed health into not-ready taints.
type CapacityAnnotatorConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// CommonConfiguration holds clientConnection, leaderElection, server and logging.
	CommonConfiguration `json:",inline"`

	// API is the API group the annotator reads Seeds and Shoots from, as for
	// graft-scheduler: core.graft.dev (default) or core.gardener.cloud. On a
	// Gardener garden gardenlet reports each seed's capacity and allocatable
	// and Gardener's Seed has no status.usage: the annotator writes no
	// status there, counts usage for its metrics and Events, and, with
	// healthTaints enabled, keeps the not-ready taints (in spec.taints and
	// the graft.dev/taints annotation). capacity, reserved, overrides and
	// respectSeedCapacity are refused there.
	// +optional
	API SchedulerAPI `json:"api,omitempty"`
	// Capacity is the capacity of a seed that no override and no annotation
	// applies to, per resource. Default shoots: 200 (on core.graft.dev).
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Reserved is how much of a seed's capacity is held back from shoots, per
	// resource. Default shoots: 0.
	// +optional
	Reserved corev1.ResourceList `json:"reserved,omitempty"`
	// Overrides change capacity and reserved for the seeds their selector
	// matches. They are tried in order; the first match wins. A resource an
	// override leaves out keeps the value from capacity or reserved above.
	// +optional
	Overrides []CapacityOverride `json:"overrides,omitempty"`
	// RespectSeedCapacity leaves status.capacity and status.allocatable of a
	// seed alone when some other field manager (the seed's own agent, GEP-13)
	// already publishes status.capacity for that resource. Usage is written
	// in any case.
	// +optional
	RespectSeedCapacity bool `json:"respectSeedCapacity,omitempty"`
	// SyncPeriod is the shortest time between two status writes to the same
	// seed: changes of usage within it are coalesced into one write. Default 5s.
	// +optional
	SyncPeriod metav1.Duration `json:"syncPeriod,omitempty"`
	// ConcurrentSyncs is how many seeds are reconciled at the same time. Default 5.
	// +optional
	ConcurrentSyncs int32 `json:"concurrentSyncs,omitempty"`
	// HealthTaints turns seed health into not-ready taints. Off unless enabled.
	// +optional
	HealthTaints HealthTaintsConfiguration `json:"healthTaints"`
	// Forecast publishes, per region and per pool, the free slots, the
	// shoots waiting for capacity alone, the arrival rate and the time until
	// full. Off unless enabled.
	// +optional
	Forecast ForecastConfiguration `json:"forecast"`
	// Pools are named groups of seeds the forecast is made for besides the
	// regions, each optionally served by a ManagedSeedSet the annotator
	// scales (core.gardener.cloud only). Their order is their priority: a
	// shoot waiting for capacity that seeds of several pools would take
	// waits in the first of them alone.
	// +optional
	Pools []SeedPool `json:"pools,omitempty"`
}

// ForecastConfiguration configures the capacity forecast.
type ForecastConfiguration struct {
	// Enabled computes the forecast and, for pools with a ManagedSeedSet,
	// scales it.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// Period is how often the forecast is computed. Default 30s.
	// +optional
	Period metav1.Duration `json:"period,omitempty"`
	// Window is how far back the arrival rate of new shoots is measured.
	// Default 6h.
	// +optional
	Window metav1.Duration `json:"window,omitempty"`
	// Horizon is how soon a pool must be expected to fill to count as
	// filling: it raises graft_capacity_pool_full_within_horizon and, for a
	// scaled pool, a step out. Default 24h.
	// +optional
	Horizon metav1.Duration `json:"horizon,omitempty"`
	// SchedulerLease is graft-scheduler's leader election Lease, on which it
	// publishes the scheduling configuration the forecast decides with
	// (which shoots wait only for capacity, and where they would go).
	// Default garden/graft-scheduler.
	// +optional
	SchedulerLease LeaseReference `json:"schedulerLease,omitempty"`
}

// SeedPool is a named group of seeds.
type SeedPool struct {
	// Name names the pool in metrics, Events and graftctl; a DNS label.
	Name string `json:"name"`
	// SeedSelector selects the pool's seeds by their labels. For a pool
	// served by a ManagedSeedSet, put its label in the set's seed template.
	SeedSelector metav1.LabelSelector `json:"seedSelector"`
	// ManagedSeedSet is the set whose replicas are the pool's seeds; the
	// annotator scales it when set (core.gardener.cloud only).
	// +optional
	ManagedSeedSet *ManagedSeedSetScaling `json:"managedSeedSet,omitempty"`
}

// ManagedSeedSetScaling says which ManagedSeedSet serves a pool and how far
// the annotator may scale it.
type ManagedSeedSetScaling struct {
	// Namespace of the ManagedSeedSet. Default garden.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name of the ManagedSeedSet.
	Name string `json:"name"`
	// MinReplicas is the fewest replicas scale-in leaves. Default 1.
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the most replicas scale-out makes.
	MaxReplicas int32 `json:"maxReplicas"`
	// DryRun decides and reports (Events, metrics) without writing the
	// ManagedSeedSet or cordoning seeds.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`
	// CoolDown is the least time between two steps of the set, out or in.
	// Default 30m.
	// +optional
	CoolDown metav1.Duration `json:"coolDown,omitempty"`
	// ScaleIn removes empty seeds of the set. Off unless enabled.
	// +optional
	ScaleIn ScaleInConfiguration `json:"scaleIn"`
}

// ScaleInConfiguration configures the removal of empty seeds of a set.
type ScaleInConfiguration struct {
	// Enabled lets the annotator cordon an empty seed of the set and scale
	// the set in once the seed that goes holds no shoot.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// LowUtilisation is the percentage of the pool's allocatable shoots, the
	// seed that goes left out, the pool's usage must stay under. Default 50.
	// +optional
	LowUtilisation int32 `json:"lowUtilisation,omitempty"`
	// After is how long the pool must have been that low, with an empty seed
	// and no shoot waiting, before a seed is cordoned. Default 1h.
	// +optional
	After metav1.Duration `json:"after,omitempty"`
}

// CapacityOverride sets capacity and reserved for the seeds a label selector
// matches.
type CapacityOverride struct {
	// SeedSelector selects the seeds this override applies to. An empty
	// selector matches every seed.
	SeedSelector metav1.LabelSelector `json:"seedSelector"`
	// Capacity per resource for the selected seeds.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Reserved per resource for the selected seeds.
	// +optional
	Reserved corev1.ResourceList `json:"reserved,omitempty"`
}

// HealthTaintsConfiguration configures the not-ready taints. A seed whose
// GardenletReady condition is not True, or that has no status.lastOperation,
// is not ready.
type HealthTaintsConfiguration struct {
	// Enabled makes the annotator add seed.gardener.cloud/not-ready:NoSchedule
	// to seeds that are not ready and remove its not-ready taints from seeds
	// that are ready again.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// UnhealthyEvictionDelay is how long a seed stays not ready before it also
	// gets seed.gardener.cloud/not-ready:NoExecute, which makes the descheduler
	// move shoots that do not tolerate it. Unset means never.
	// +optional
	UnhealthyEvictionDelay *metav1.Duration `json:"unhealthyEvictionDelay,omitempty"`
}
