package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories=graft
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// CloudProfile describes what an infrastructure provider offers and which seeds
// its shoots may use.
type CloudProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the cloud profile's content.
	Spec CloudProfileSpec `json:"spec"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// CloudProfileList is a list of CloudProfiles.
type CloudProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the cloud profiles.
	Items []CloudProfile `json:"items"`
}

// CloudProfileSpec is the content of a cloud profile.
type CloudProfileSpec struct {
	// Type is the provider type, such as aws or gcp.
	// +kubebuilder:validation:MinLength=1
	Type string `json:"type"`
	// Regions are the regions the provider offers.
	// +optional
	Regions []Region `json:"regions,omitempty"`
	// SeedSelector restricts the seeds that shoots of this profile may be placed on.
	// +optional
	SeedSelector *SeedSelector `json:"seedSelector,omitempty"`
	// ControlPlane configures the control planes of the profile's shoots.
	// +optional
	ControlPlane *CloudProfileControlPlane `json:"controlPlane,omitempty"`
}

// CloudProfileControlPlane configures the control planes of a profile's
// shoots.
type CloudProfileControlPlane struct {
	// AllowZonePinning lets the profile's shoots pin their control plane to
	// zones (spec.controlPlane.zones): for providers whose zone names mean
	// the same zone to every user.
	// +optional
	AllowZonePinning bool `json:"allowZonePinning,omitempty"`
}

// Region is a provider region.
type Region struct {
	// Name of the region.
	Name string `json:"name"`
	// Zones of the region.
	// +optional
	Zones []AvailabilityZone `json:"zones,omitempty"`
}

// AvailabilityZone is a zone of a region.
type AvailabilityZone struct {
	// Name of the zone.
	Name string `json:"name"`
}
