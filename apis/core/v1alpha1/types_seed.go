package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories=graft
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="GardenletReady")].status`,description="Whether the seed's GardenletReady condition is True."
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider.type`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.provider.region`
// +kubebuilder:printcolumn:name="Shoots",type=string,JSONPath=`.status.usage.shoots`,description="Shoots counted on the seed."
// +kubebuilder:printcolumn:name="Allocatable",type=string,JSONPath=`.status.allocatable.shoots`,description="Shoots the seed may hold."
// +kubebuilder:printcolumn:name="Taints",type=string,JSONPath=`.spec.taints[*].key`,description="Keys of the seed's taints."
// +kubebuilder:printcolumn:name="Access Restrictions",type=string,JSONPath=`.spec.accessRestrictions[*].name`,priority=1,description="Access restrictions the seed offers."
// +kubebuilder:printcolumn:name="Zone Selection",type=string,JSONPath=`.spec.settings.zoneSelection.mode`,priority=1,description="How the seed's zones must meet a shoot's worker pool zones."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Seed is a cluster that hosts shoot control planes.
type Seed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the seed.
	Spec SeedSpec `json:"spec"`
	// Status is the observed state of the seed.
	// +optional
	Status SeedStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// SeedList is a list of Seeds.
type SeedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the seeds.
	Items []Seed `json:"items"`
}

// SeedSpec is the desired state of a seed.
type SeedSpec struct {
	// AccessRestrictions are the access restrictions the seed offers (such as
	// eu-access-only): a shoot asking for one goes only to a seed that offers it.
	// +kubebuilder:validation:MaxItems=32
	// +optional
	AccessRestrictions []AccessRestriction `json:"accessRestrictions,omitempty"`
	// Backup configures the seed's backup infrastructure. graft only cares whether it is set:
	// a seed with backup must report BackupBucketsReady.
	// +optional
	Backup *SeedBackup `json:"backup,omitempty"`
	// DNS configures the seed's DNS; graft reads its default domains.
	// +optional
	DNS SeedDNS `json:"dns,omitempty"`
	// Networks are the seed's own networks and the defaults for the shoots it hosts.
	Networks SeedNetworks `json:"networks"`
	// Provider describes the seed's infrastructure.
	Provider SeedProvider `json:"provider"`
	// Settings tune how the seed is used.
	// +optional
	Settings *SeedSettings `json:"settings,omitempty"`
	// Taints repel shoots that do not tolerate them.
	// +optional
	Taints []SeedTaint `json:"taints,omitempty"`
}

// SeedBackup configures a seed's backup infrastructure.
type SeedBackup struct {
	// Provider is the backup provider type.
	// +optional
	Provider string `json:"provider,omitempty"`
	// Region is the backup bucket's region.
	// +optional
	Region *string `json:"region,omitempty"`
	// CredentialsRef names the credentials for the backup bucket.
	// +optional
	CredentialsRef *corev1.ObjectReference `json:"credentialsRef,omitempty"`
	// SecretRef names a secret with the credentials for the backup bucket.
	// +optional
	SecretRef *corev1.SecretReference `json:"secretRef,omitempty"`
}

// SeedNetworks are a seed's networks, in CIDR notation.
type SeedNetworks struct {
	// Nodes is the CIDR of the seed's node network.
	// +optional
	Nodes *string `json:"nodes,omitempty"`
	// Pods is the CIDR of the seed's pod network.
	Pods string `json:"pods"`
	// Services is the CIDR of the seed's service network.
	Services string `json:"services"`
	// ShootDefaults are the networks given to shoots that leave theirs empty.
	// +optional
	ShootDefaults *ShootNetworks `json:"shootDefaults,omitempty"`
	// IPFamilies are the IP families of the seed's networks.
	// +optional
	IPFamilies []IPFamily `json:"ipFamilies,omitempty"`
}

// ShootNetworks are the default networks for shoots on a seed.
type ShootNetworks struct {
	// Pods is the default pod CIDR for shoots.
	// +optional
	Pods *string `json:"pods,omitempty"`
	// Services is the default service CIDR for shoots.
	// +optional
	Services *string `json:"services,omitempty"`
}

// IPFamily is an IP protocol version.
// +kubebuilder:validation:Enum=IPv4;IPv6
type IPFamily string

const (
	// IPFamilyIPv4 is IPv4.
	IPFamilyIPv4 IPFamily = "IPv4"
	// IPFamilyIPv6 is IPv6.
	IPFamilyIPv6 IPFamily = "IPv6"
)

// SeedProvider describes a seed's infrastructure.
type SeedProvider struct {
	// Type is the provider type, such as aws or gcp.
	// +kubebuilder:validation:MinLength=1
	Type string `json:"type"`
	// Region is the region the seed runs in.
	// +kubebuilder:validation:MinLength=1
	Region string `json:"region"`
	// Zones are the availability zones the seed spans.
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// SeedSettings tune how a seed is used.
type SeedSettings struct {
	// Scheduling controls whether the scheduler may choose the seed.
	// +optional
	Scheduling *SeedSettingScheduling `json:"scheduling,omitempty"`
	// ZoneSelection says how the seed's zones must meet the zones of a
	// shoot's worker pools.
	// +optional
	ZoneSelection *SeedSettingZoneSelection `json:"zoneSelection,omitempty"`
}

// SeedSettingZoneSelection says how a seed's zones must meet the zones of a
// shoot's worker pools for the shoot to be placed there.
type SeedSettingZoneSelection struct {
	// Mode is Prefer (seeds sharing a zone with the shoot's worker pools win
	// over Prefer seeds that do not) or Enforce (the seed takes only shoots
	// whose worker pools share one of its zones).
	Mode ZoneSelectionMode `json:"mode"`
}

// ZoneSelectionMode is how a seed's zones must meet a shoot's.
// +kubebuilder:validation:Enum=Prefer;Enforce
type ZoneSelectionMode string

const (
	// ZoneSelectionModePrefer prefers seeds that share a zone with the shoot's worker pools.
	ZoneSelectionModePrefer ZoneSelectionMode = "Prefer"
	// ZoneSelectionModeEnforce takes only shoots whose worker pools share a zone with the seed.
	ZoneSelectionModeEnforce ZoneSelectionMode = "Enforce"
)

// SeedDNS is a seed's DNS configuration.
type SeedDNS struct {
	// Internal is the domain of the shoots' internal DNS records. Gardener
	// moves a control plane only between seeds with the same one.
	// +optional
	Internal *SeedDNSInternal `json:"internal,omitempty"`
	// Defaults are the default domains of shoots on this seed: a shoot whose
	// domain lies under one of them is named <shoot>.<project>.<domain>.
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Defaults []SeedDNSDefault `json:"defaults,omitempty"`
}

// SeedDNSInternal is a seed's internal domain.
type SeedDNSInternal struct {
	// Type is the type of the DNS provider serving the domain.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Type string `json:"type,omitempty"`
	// Domain is the internal domain.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Domain string `json:"domain"`
}

// SeedDNSDefault is one default domain of a seed.
type SeedDNSDefault struct {
	// Type is the type of the DNS provider serving the domain.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Type string `json:"type,omitempty"`
	// Domain is the default domain.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Domain string `json:"domain"`
}

// SeedSettingScheduling controls whether the scheduler may choose a seed.
type SeedSettingScheduling struct {
	// Visible makes the seed a candidate for scheduling.
	Visible bool `json:"visible"`
}

// TaintEffect is what an untolerated taint does to a shoot.
// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
type TaintEffect string

const (
	// TaintEffectNoSchedule keeps new shoots off the seed; shoots already there stay.
	TaintEffectNoSchedule TaintEffect = "NoSchedule"
	// TaintEffectPreferNoSchedule makes the seed a last resort for new shoots.
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	// TaintEffectNoExecute keeps new shoots off the seed and evicts those already there.
	TaintEffectNoExecute TaintEffect = "NoExecute"
)

// SeedTaint repels shoots that do not tolerate it.
type SeedTaint struct {
	// Key is the taint key.
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
	// Value is the taint value.
	// +optional
	Value *string `json:"value,omitempty"`
	// Effect is what the taint does to shoots that do not tolerate it. Empty means NoSchedule.
	// +optional
	Effect TaintEffect `json:"effect,omitempty"`
	// TimeAdded is when the taint was added. It is written for NoExecute taints only, as
	// Kubernetes does for node taints: a toleration with tolerationSeconds runs out at
	// timeAdded plus tolerationSeconds (or that long after the shoot arrived on the seed, if
	// later). graftctl and graft-capacity-annotator set it when they add a NoExecute taint;
	// graft-descheduler sets it on a NoExecute taint that lacks it. Gardener's taints have none.
	// +optional
	TimeAdded *metav1.Time `json:"timeAdded,omitempty"`
}

// SeedStatus is the observed state of a seed.
type SeedStatus struct {
	// Conditions report the seed's health, such as GardenletReady and BackupBucketsReady.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []Condition `json:"conditions,omitempty"`
	// LastOperation is the most recent operation on the seed.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// Capacity is how much of each resource the seed has in total.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// Allocatable is how much of each resource shoots may use (capacity minus reserved).
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	// Usage is how much of each resource is in use; for shoots, the shoots counted on the seed.
	// +optional
	Usage corev1.ResourceList `json:"usage,omitempty"`
	// ObservedGeneration is the generation the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Gardener is the agent that runs the seed's control planes, as it
	// reports itself (gardenlet on Gardener). A live control-plane
	// migration needs the same version on both seeds.
	// +optional
	Gardener *SeedAgent `json:"gardener,omitempty"`
}

// SeedAgent is the agent that runs a seed's control planes.
type SeedAgent struct {
	// Version is the agent's version.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Version string `json:"version,omitempty"`
}
