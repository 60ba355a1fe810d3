package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories=graft
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Seed",type=string,JSONPath=`.spec.seedName`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider.type`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Purpose",type=string,JSONPath=`.spec.purpose`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.lastOperation.state`
// +kubebuilder:printcolumn:name="Descheduled From",type=string,JSONPath=`.metadata.annotations.graft\.dev/descheduled-from`,description="The seed graft-descheduler last evicted the shoot from; with no Seed, the shoot waits for a new one."
// +kubebuilder:printcolumn:name="Access Restrictions",type=string,JSONPath=`.spec.accessRestrictions[*].name`,priority=1,description="Access restrictions the shoot needs of its seed."
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.dns.domain`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Shoot is a user's Kubernetes cluster whose control plane runs on a seed.
type Shoot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the shoot.
	Spec ShootSpec `json:"spec"`
	// Status is the observed state of the shoot.
	// +optional
	Status ShootStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// ShootList is a list of Shoots.
type ShootList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the shoots.
	Items []Shoot `json:"items"`
}

// ShootSpec is the desired state of a shoot.
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlane) || !has(self.controlPlane.zones) || size(self.controlPlane.zones) == 0 || (has(oldSelf.controlPlane) && has(oldSelf.controlPlane.zones) && (oldSelf.controlPlane.zones == self.controlPlane.zones || (size(oldSelf.controlPlane.zones) > 0 && !(has(oldSelf.controlPlane.highAvailability) && oldSelf.controlPlane.highAvailability.failureTolerance.type == 'zone') && has(self.controlPlane.highAvailability) && self.controlPlane.highAvailability.failureTolerance.type == 'zone' && oldSelf.controlPlane.zones.all(z, z in self.controlPlane.zones))))",message="spec.controlPlane.zones is immutable: it may be cleared, or grow keeping its zone when the failure tolerance becomes zone",fieldPath=".controlPlane.zones"
type ShootSpec struct {
	// AccessRestrictions are the access restrictions the shoot needs: it goes
	// only to a seed that offers every one of them.
	// +kubebuilder:validation:MaxItems=32
	// +optional
	AccessRestrictions []AccessRestrictionWithOptions `json:"accessRestrictions,omitempty"`
	// CloudProfileName names the shoot's cloud profile. Deprecated in Gardener in favour of CloudProfile.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	CloudProfileName *string `json:"cloudProfileName,omitempty"`
	// CloudProfile references the shoot's cloud profile.
	// +optional
	CloudProfile *CloudProfileReference `json:"cloudProfile,omitempty"`
	// ControlPlane configures the shoot's control plane.
	// +optional
	ControlPlane *ControlPlane `json:"controlPlane,omitempty"`
	// DNS configures the shoot's domain.
	// +optional
	DNS *DNS `json:"dns,omitempty"`
	// Hibernation puts the shoot's control plane to sleep: a hibernated shoot
	// has no control plane running, so moving it costs its tenant nothing.
	// +optional
	Hibernation *Hibernation `json:"hibernation,omitempty"`
	// Maintenance says when the shoot may be disrupted: graft-descheduler
	// makes the moves that can wait only inside its time window.
	// +optional
	Maintenance *Maintenance `json:"maintenance,omitempty"`
	// Networking configures the shoot's networks.
	// +optional
	Networking *Networking `json:"networking,omitempty"`
	// Provider describes the shoot's infrastructure.
	Provider Provider `json:"provider"`
	// Purpose is what the cluster is used for.
	// +optional
	Purpose *ShootPurpose `json:"purpose,omitempty"`
	// Region is the region the shoot's workers run in.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Region string `json:"region"`
	// SchedulerName is the scheduler responsible for the shoot. Empty means default-scheduler.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SchedulerName *string `json:"schedulerName,omitempty"`
	// SeedName is the seed the shoot's control plane runs on. Set by the scheduler.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SeedName *string `json:"seedName,omitempty"`
	// SeedSelector restricts the seeds the shoot may be placed on.
	// +optional
	SeedSelector *SeedSelector `json:"seedSelector,omitempty"`
	// Tolerations let the shoot be placed on, or stay on, seeds with matching taints.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Tolerations []Toleration `json:"tolerations,omitempty"`
}

// Hibernation configures a shoot's hibernation.
type Hibernation struct {
	// Enabled puts the shoot to sleep (true) or wakes it up (false).
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// Maintenance configures a shoot's maintenance.
type Maintenance struct {
	// TimeWindow is the daily window in which the shoot may be disrupted.
	// +optional
	TimeWindow *MaintenanceTimeWindow `json:"timeWindow,omitempty"`
}

// MaintenanceTimeWindow is a daily time window, as Gardener writes it:
// begin and end are HHMMSS+ZZZZ (the time of day and its offset from UTC).
// An end before the begin (in UTC) spans midnight. It lasts from 30 minutes
// to 6 hours, as Gardener validates it.
// +kubebuilder:validation:XValidation:rule="!self.begin.matches('^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-]([01][0-9]|2[0-3])[0-5][0-9]$') || !self.end.matches('^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-]([01][0-9]|2[0-3])[0-5][0-9]$') || [((int(self.end.substring(0, 2)) * 3600 + int(self.end.substring(2, 4)) * 60 + int(self.end.substring(4, 6)) - (self.end.substring(6, 7) == '+' ? 1 : -1) * (int(self.end.substring(7, 9)) * 3600 + int(self.end.substring(9, 11)) * 60)) - (int(self.begin.substring(0, 2)) * 3600 + int(self.begin.substring(2, 4)) * 60 + int(self.begin.substring(4, 6)) - (self.begin.substring(6, 7) == '+' ? 1 : -1) * (int(self.begin.substring(7, 9)) * 3600 + int(self.begin.substring(9, 11)) * 60)) + 172800) % 86400].all(d, d >= 1800 && d <= 21600)",message="the time window must last from 30m to 6h"
type MaintenanceTimeWindow struct {
	// Begin is when the window opens, HHMMSS+ZZZZ, such as 220000+0100.
	// +kubebuilder:validation:MaxLength=11
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-]([01][0-9]|2[0-3])[0-5][0-9]$`
	Begin string `json:"begin"`
	// End is when the window closes, HHMMSS+ZZZZ.
	// +kubebuilder:validation:MaxLength=11
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-]([01][0-9]|2[0-3])[0-5][0-9]$`
	End string `json:"end"`
}

// DNS is a shoot's DNS configuration.
type DNS struct {
	// Domain is the shoot's external domain. Under a seed's default domain it
	// must be <shoot>.<project>.<default domain>, and the shoot goes only to
	// a seed with that default domain; any other domain is the shoot's own.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Domain *string `json:"domain,omitempty"`
}

// CloudProfileReference references a cloud profile.
type CloudProfileReference struct {
	// Kind is the kind of the referenced profile, CloudProfile or NamespacedCloudProfile.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name is the name of the referenced profile.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ControlPlane configures a shoot's control plane.
// +kubebuilder:validation:XValidation:rule="!has(self.zones) || size(self.zones) == 0 || size(self.zones) == (has(self.highAvailability) && self.highAvailability.failureTolerance.type == 'zone' ? 3 : 1)",message="exactly 1 zone must be specified, or 3 when the failure tolerance type is zone",fieldPath=".zones"
type ControlPlane struct {
	// HighAvailability makes the control plane tolerate failures.
	// +optional
	HighAvailability *HighAvailability `json:"highAvailability,omitempty"`
	// Zones pin the control plane to zones of its seed (Gardener 1.150): only
	// a seed with every one of them is eligible. One zone, or three with
	// failure tolerance zone, set when the shoot is created, where its cloud
	// profile allows zone pinning.
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:MaxLength=63
	// +listType=set
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// HighAvailability configures a highly available control plane.
type HighAvailability struct {
	// FailureTolerance is the kind of failure the control plane survives.
	FailureTolerance FailureTolerance `json:"failureTolerance"`
}

// FailureTolerance is the kind of failure a control plane survives.
type FailureTolerance struct {
	// Type is node or zone.
	Type FailureToleranceType `json:"type"`
}

// FailureToleranceType is the kind of failure a control plane survives.
// +kubebuilder:validation:Enum=node;zone
type FailureToleranceType string

const (
	// FailureToleranceTypeNode spreads the control plane across nodes.
	FailureToleranceTypeNode FailureToleranceType = "node"
	// FailureToleranceTypeZone spreads the control plane across zones; the seed needs three.
	FailureToleranceTypeZone FailureToleranceType = "zone"
)

// Networking configures a shoot's networks.
type Networking struct {
	// Type is the network plugin type.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Type *string `json:"type,omitempty"`
	// Pods is the CIDR of the pod network: one CIDR.
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="must be one CIDR, such as 100.96.0.0/11"
	// +optional
	Pods *string `json:"pods,omitempty"`
	// Nodes is the CIDR of the node network: one CIDR.
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="must be one CIDR, such as 10.250.0.0/16"
	// +optional
	Nodes *string `json:"nodes,omitempty"`
	// Services is the CIDR of the service network: one CIDR.
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="must be one CIDR, such as 100.64.0.0/13"
	// +optional
	Services *string `json:"services,omitempty"`
	// IPFamilies are the IP families of the shoot's networks; IPv4 when empty.
	// +kubebuilder:validation:MaxItems=2
	// +optional
	IPFamilies []IPFamily `json:"ipFamilies,omitempty"`
}

// Provider describes a shoot's infrastructure.
type Provider struct {
	// Type is the provider type, such as aws or gcp.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Type string `json:"type"`
	// Workers are the shoot's worker pools.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Workers []Worker `json:"workers,omitempty"`
}

// Worker is a pool of worker machines.
type Worker struct {
	// Name of the worker pool.
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Zones the pool's machines run in.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// ShootPurpose is what a cluster is used for.
// +kubebuilder:validation:Enum=evaluation;testing;development;production;infrastructure
type ShootPurpose string

const (
	// ShootPurposeEvaluation is a cluster for trying things out.
	ShootPurposeEvaluation ShootPurpose = "evaluation"
	// ShootPurposeTesting is a short-lived test cluster; it may run in any region.
	ShootPurposeTesting ShootPurpose = "testing"
	// ShootPurposeDevelopment is a development cluster.
	ShootPurposeDevelopment ShootPurpose = "development"
	// ShootPurposeProduction is a production cluster.
	ShootPurposeProduction ShootPurpose = "production"
	// ShootPurposeInfrastructure is a cluster that runs landscape infrastructure.
	ShootPurposeInfrastructure ShootPurpose = "infrastructure"
)

// Toleration lets a shoot be placed on, or stay on, a seed with a matching taint.
type Toleration struct {
	// Key is the taint key the toleration matches (a qualified name: a DNS
	// subdomain prefix and a name of at most 63 characters).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`
	// Value is the taint value the toleration matches. Without it, only taints without value match.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Value *string `json:"value,omitempty"`
	// Effect is the taint effect the toleration matches. Empty matches all effects.
	// +optional
	Effect TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds is how long the shoot may stay on a seed after a matching NoExecute
	// taint appears. Unset means forever. Only meaningful for NoExecute.
	// +optional
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// ShootStatus is the observed state of a shoot.
type ShootStatus struct {
	// LastOperation is the most recent operation on the shoot.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// SeedName is the seed the shoot's control plane currently runs on. It differs from
	// spec.seedName while a control plane migration is in flight.
	// +optional
	SeedName *string `json:"seedName,omitempty"`
	// Networking is the shoot's observed networks.
	// +optional
	Networking *NetworkingStatus `json:"networking,omitempty"`
	// ObservedGeneration is the generation the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// IsHibernated is set while the shoot's control plane sleeps.
	// +optional
	IsHibernated bool `json:"isHibernated,omitempty"`
}

// NetworkingStatus is a shoot's observed networks.
type NetworkingStatus struct {
	// Pods are the CIDRs of the pod network.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(c, isCIDR(c))",message="every item must be one CIDR"
	// +optional
	Pods []string `json:"pods,omitempty"`
	// Nodes are the CIDRs of the node network.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(c, isCIDR(c))",message="every item must be one CIDR"
	// +optional
	Nodes []string `json:"nodes,omitempty"`
	// Services are the CIDRs of the service network.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(c, isCIDR(c))",message="every item must be one CIDR"
	// +optional
	Services []string `json:"services,omitempty"`
	// EgressCIDRs are the CIDRs the shoot's traffic leaves from.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=43
	// +optional
	EgressCIDRs []string `json:"egressCIDRs,omitempty"`
}
