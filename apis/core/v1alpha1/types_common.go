package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConditionType is the type of a condition.
type ConditionType string

// ConditionStatus is the status of a condition.
type ConditionStatus string

const (
	// ConditionTrue means the condition holds.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse means the condition does not hold.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown means it is not known whether the condition holds.
	ConditionUnknown ConditionStatus = "Unknown"
	// ConditionProgressing means the condition is changing.
	ConditionProgressing ConditionStatus = "Progressing"
)

// Condition describes one aspect of an object's state, in Gardener's shape.
type Condition struct {
	// Type of the condition.
	Type ConditionType `json:"type"`
	// Status of the condition, one of True, False, Unknown, Progressing.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is the last time the condition changed from one status to another.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// LastUpdateTime is the last time the condition was updated.
	// +optional
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty"`
	// Reason is a machine-readable reason for the last transition.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable message for the last transition.
	// +optional
	Message string `json:"message,omitempty"`
	// Codes are well-defined error codes in case the condition reports a problem.
	// +optional
	Codes []string `json:"codes,omitempty"`
}

// LastOperationType is the kind of an operation.
// +kubebuilder:validation:Enum=Create;Reconcile;Delete;Migrate;Restore;LiveMigrate
type LastOperationType string

const (
	// LastOperationTypeCreate is the creation of an object.
	LastOperationTypeCreate LastOperationType = "Create"
	// LastOperationTypeReconcile is the reconciliation of an object.
	LastOperationTypeReconcile LastOperationType = "Reconcile"
	// LastOperationTypeDelete is the deletion of an object.
	LastOperationTypeDelete LastOperationType = "Delete"
	// LastOperationTypeMigrate is the migration of a shoot's control plane away from a seed.
	LastOperationTypeMigrate LastOperationType = "Migrate"
	// LastOperationTypeRestore is the restoration of a shoot's control plane on a new seed.
	LastOperationTypeRestore LastOperationType = "Restore"
	// LastOperationTypeLiveMigrate is a live migration of a shoot's control
	// plane (GEP-39): Gardener reports it only where gardenlet runs the live
	// flow.
	LastOperationTypeLiveMigrate LastOperationType = "LiveMigrate"
)

// LastOperationState is the state of an operation.
// +kubebuilder:validation:Enum=Processing;Succeeded;Error;Failed;Pending;Aborted
type LastOperationState string

const (
	// LastOperationStateProcessing means the operation is running.
	LastOperationStateProcessing LastOperationState = "Processing"
	// LastOperationStateSucceeded means the operation finished successfully.
	LastOperationStateSucceeded LastOperationState = "Succeeded"
	// LastOperationStateError means the operation failed and will be retried.
	LastOperationStateError LastOperationState = "Error"
	// LastOperationStateFailed means the operation failed for good.
	LastOperationStateFailed LastOperationState = "Failed"
	// LastOperationStatePending means the operation waits for something, such as a seed.
	LastOperationStatePending LastOperationState = "Pending"
	// LastOperationStateAborted means the operation was aborted.
	LastOperationStateAborted LastOperationState = "Aborted"
)

// LastOperation is the most recent operation on an object, in Gardener's shape.
type LastOperation struct {
	// Description is a human-readable account of the operation.
	Description string `json:"description"`
	// LastUpdateTime is when the operation was last updated.
	// +optional
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty"`
	// Progress is the operation's progress in percent.
	// +optional
	Progress int32 `json:"progress"`
	// State of the operation.
	State LastOperationState `json:"state"`
	// Type of the operation.
	Type LastOperationType `json:"type"`
}

// SeedSelector selects seeds by label and, optionally, widens the provider types a
// shoot may be placed on.
//
// A decision matches every requirement against every seed: matchLabels and
// matchExpressions hold at most 32 entries each, an expression at most 64
// values (graft's scheduling algorithm refuses more on Gardener's API too).
// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || self.matchLabels.size() <= 32",message="matchLabels may hold at most 32 labels"
// +kubebuilder:validation:XValidation:rule="!has(self.matchExpressions) || self.matchExpressions.size() <= 32",message="matchExpressions may hold at most 32 requirements"
// +kubebuilder:validation:XValidation:rule="!has(self.matchExpressions) || self.matchExpressions.all(e, !has(e.values) || e.values.size() <= 64)",message="each of matchExpressions may list at most 64 values"
type SeedSelector struct {
	metav1.LabelSelector `json:",inline"`
	// ProviderTypes lists the seed provider types that are acceptable; "*" means all.
	// Without it only seeds of the shoot's own provider type are considered.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	// +optional
	ProviderTypes []string `json:"providerTypes,omitempty"`
}

// AccessRestriction is an access restriction a seed offers, such as
// eu-access-only.
type AccessRestriction struct {
	// Name of the access restriction.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
}

// AccessRestrictionWithOptions is an access restriction a shoot needs, with
// its options; graft reads only the name.
type AccessRestrictionWithOptions struct {
	AccessRestriction `json:",inline"`
	// Options configure the restriction.
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Options map[string]string `json:"options,omitempty"`
}
