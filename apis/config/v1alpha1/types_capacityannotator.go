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
