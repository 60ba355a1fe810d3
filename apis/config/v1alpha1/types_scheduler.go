package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SchedulerConfiguration configures graft-scheduler.
type SchedulerConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// CommonConfiguration holds clientConnection, leaderElection, server and logging.
	CommonConfiguration `json:",inline"`

	// API is the API group the scheduler reads Seeds, Shoots and CloudProfiles
	// from and binds shoots in: core.graft.dev (default), graft's own API, or
	// core.gardener.cloud, a Gardener garden's (version v1beta1). On Gardener,
	// taint effects and tolerationSeconds are read from graft's annotations
	// (Gardener's taints have no effect) and shoots are bound through the
	// shoots/binding subresource.
	// +optional
	API SchedulerAPI `json:"api,omitempty"`
	// SchedulerName is the name this scheduler answers to: it schedules shoots
	// whose spec.schedulerName is empty or equal to it. Default default-scheduler.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`
	// Strategy selects the seed region: SameRegion (default) or MinimalDistance.
	// +optional
	Strategy SchedulingStrategy `json:"strategy,omitempty"`
	// RegionConfigNamespace is the only namespace region ConfigMaps (labelled
	// scheduling.gardener.cloud/purpose=region-config) are read from, as
	// Gardener's scheduler reads them from its garden namespace; ConfigMaps in
	// any other namespace, such as a project's, are ignored. Default garden.
	// +optional
	RegionConfigNamespace string `json:"regionConfigNamespace,omitempty"`
	// ScoreWeights turn on weighted scoring among the seeds that pass every filter.
	// Unset keeps the reference behaviour (strategy, then least utilised, then name).
	// +optional
	ScoreWeights *ScoreWeights `json:"scoreWeights,omitempty"`
	// ConcurrentSyncs is how many shoots are bound at the same time. Default 10.
	// +optional
	ConcurrentSyncs int32 `json:"concurrentSyncs,omitempty"`
	// UnschedulableRetryInterval is how long a shoot no seed fits waits for
	// a change that can help it (a new seed it may pass, freed capacity on a
	// seed that rejected it only for capacity, a taint removed, its cloud
	// profile or region ConfigMap changed) before it is decided again anyway:
	// the safety net for a change the scheduler did not recognise as
	// helpful. Default 5m; at least 10s.
	// +optional
	UnschedulableRetryInterval *metav1.Duration `json:"unschedulableRetryInterval,omitempty"`
}

// SchedulerAPI names the API group graft-scheduler works on.
type SchedulerAPI string

const (
	// APIGraft is graft's own API, core.graft.dev/v1alpha1.
	APIGraft SchedulerAPI = "core.graft.dev"
	// APIGardener is a Gardener garden's API, core.gardener.cloud/v1beta1.
	APIGardener SchedulerAPI = "core.gardener.cloud"
)

// SchedulingStrategy selects how the scheduler picks a seed region.
type SchedulingStrategy string

const (
	// StrategySameRegion places a shoot only on seeds of its own region.
	StrategySameRegion SchedulingStrategy = "SameRegion"
	// StrategyMinimalDistance places a shoot on the seeds closest to its region.
	StrategyMinimalDistance SchedulingStrategy = "MinimalDistance"
)

// ScoreWeights are the weights of the score plugins, 0 to 100 each; an unset or
// zero weight turns the plugin off.
type ScoreWeights struct {
	// MinimalDistance favours seeds closer to the shoot's region.
	// +optional
	MinimalDistance *int32 `json:"minimalDistance,omitempty"`
	// LeastAllocated favours seeds with a lower usage/allocatable ratio.
	// +optional
	LeastAllocated *int32 `json:"leastAllocated,omitempty"`
	// PreferNoSchedule penalises seeds with untolerated PreferNoSchedule taints.
	// +optional
	PreferNoSchedule *int32 `json:"preferNoSchedule,omitempty"`
}
