package garden

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// ManagedSeedSetResource is the resource of Gardener's ManagedSeedSets.
var ManagedSeedSetResource = SeedManagementGroupVersion.WithResource("managedseedsets")

// ManagedSeedSet is what graft reads of a Gardener ManagedSeedSet: each of
// its replicas is a shoot made into a seed named <set>-<ordinal>.
type ManagedSeedSet struct {
	Namespace, Name string
	UID             types.UID
	ResourceVersion string
	// Replicas is spec.replicas.
	Replicas    int32
	Annotations map[string]string
}

// Ref is what Events about the set are recorded on.
func (s *ManagedSeedSet) Ref() *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: SeedManagementGroupVersion.String(), Kind: "ManagedSeedSet",
		Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion}
}

// ManagedSeedSets reads and scales ManagedSeedSets (Gardener's API only).
type ManagedSeedSets struct {
	dyn Dynamic
}

// NewManagedSeedSets returns the ManagedSeedSets of the garden dyn reaches.
func NewManagedSeedSets(dyn Dynamic) *ManagedSeedSets { return &ManagedSeedSets{dyn: dyn} }

// Get reads a set.
func (m *ManagedSeedSets) Get(ctx context.Context, namespace, name string) (*ManagedSeedSet, error) {
	u, err := m.dyn.Resource(ManagedSeedSetResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	replicas, found, err := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if err != nil || !found {
		return nil, fmt.Errorf("ManagedSeedSet %s/%s has no spec.replicas (%v)", namespace, name, err)
	}
	return &ManagedSeedSet{Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID(), ResourceVersion: u.GetResourceVersion(),
		Replicas: int32(replicas), Annotations: u.GetAnnotations()}, nil
}

// Scale writes spec.replicas and the annotations, preconditioned on the
// resourceVersion set was read with: a set changed since is refused with a
// conflict.
func (m *ManagedSeedSets) Scale(ctx context.Context, set *ManagedSeedSet, replicas int32, annotations map[string]string, fieldManager string) error {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": set.ResourceVersion, "annotations": annotations},
		"spec":     map[string]any{"replicas": replicas},
	})
	if err != nil {
		return err
	}
	_, err = m.dyn.Resource(ManagedSeedSetResource).Namespace(set.Namespace).Patch(ctx, set.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: fieldManager})
	return err
}
