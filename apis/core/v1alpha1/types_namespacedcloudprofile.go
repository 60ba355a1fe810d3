package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories=graft
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Parent",type=string,JSONPath=`.spec.parent.name`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.status.cloudProfileSpec.type`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// NamespacedCloudProfile is a project's own cloud profile: its parent
// CloudProfile with the project's additions. Shoots of its namespace name it
// in spec.cloudProfile with kind NamespacedCloudProfile, and are scheduled
// with status.cloudProfileSpec, the merged profile Gardener's controller
// writes.
type NamespacedCloudProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec names the parent profile; graft reads no more of it.
	Spec NamespacedCloudProfileSpec `json:"spec"`
	// Status holds the merged profile.
	// +optional
	Status NamespacedCloudProfileStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// NamespacedCloudProfileList is a list of NamespacedCloudProfiles.
type NamespacedCloudProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the namespaced cloud profiles.
	Items []NamespacedCloudProfile `json:"items"`
}

// NamespacedCloudProfileSpec is what a namespaced cloud profile builds on.
type NamespacedCloudProfileSpec struct {
	// Parent is the CloudProfile the namespaced profile extends.
	Parent CloudProfileReference `json:"parent"`
}

// NamespacedCloudProfileStatus is a namespaced cloud profile's merged content.
type NamespacedCloudProfileStatus struct {
	// CloudProfileSpec is the parent's spec with the namespaced profile's
	// changes; empty until it is computed.
	// +optional
	CloudProfileSpec CloudProfileSpec `json:"cloudProfileSpec,omitempty"`
	// ObservedGeneration is the generation the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
