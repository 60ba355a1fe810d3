package garden

import (
	"context"
	"encoding/json"
	"maps"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/dynamic"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// Bind on graft's API sends the patches of bindingAttempts in turn.
func (g graftClient) Bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time) (bound *corev1alpha1.Shoot, err error) {
	client := g.c.CoreV1alpha1().Shoots(shoot.Namespace)
	for _, b := range bindingAttempts(shoot, seed, at) {
		bound, err = client.Patch(ctx, shoot.Name, b.patchType, b.patch, metav1.PatchOptions{})
		// Only a failed test (422) leads to the next attempt; a conflict,
		// success or any other error ends the binding.
		if !apierrors.IsInvalid(err) || b.patchType != types.JSONPatchType {
			break
		}
	}
	return bound, err
}

// Bind on Gardener binds through the shoots/binding subresource, as
// Gardener's scheduler does (bindGardener), preconditioned on the version the
// decision read. A shoot that changed in between is not bound: the write
// fails with a conflict and the informer brings the new version. The binding
// subresource takes the seed alone: the placement's time is not recorded.
func (g gardenerClient) Bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time) (*corev1alpha1.Shoot, error) {
	return g.bind(ctx, shoot, seed, at, nil, metav1.PatchOptions{})
}

// bind binds shoot to seed with opts through the typed client when there is
// one, else through the dynamic client, setting annotations and the
// placement on seed at the given time (graft.dev/placed-on) in the same
// write (the binding subresource keeps a change of metadata). Every
// binding and migration records it, so that a daemon starting later counts
// the shoot's stay from it, not from an earlier stay on the same seed.
func (g gardenerClient) bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time, annotations map[string]string, opts metav1.PatchOptions) (*corev1alpha1.Shoot, error) {
	withPlacement := make(map[string]string, len(annotations)+1)
	maps.Copy(withPlacement, annotations)
	withPlacement[corev1alpha1.AnnotationPlacedOn] = helper.FormatPlacement(seed, at)
	return g.patchBinding(ctx, shoot.Namespace, shoot.Name, types.MergePatchType, gardenerBinding(shoot.ResourceVersion, seed, withPlacement), opts)
}

// patchBinding sends a patch of shoots/binding of the named Shoot.
func (g gardenerClient) patchBinding(ctx context.Context, namespace, name string, pt types.PatchType, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Shoot, error) {
	if typed := typedOf(g.c); typed != nil {
		return bindTyped(ctx, typed, namespace, name, pt, patch, opts)
	}
	return convert[corev1alpha1.Shoot](bindGardener(ctx, g.resource("shoots").Namespace(namespace), name, pt, patch, opts))
}

// gardenerBinding is the patch of shoots/binding that sets spec.seedName to
// seed: a merge patch naming the seed and the resourceVersion the decision
// read, so that the API server refuses it with a conflict when the Shoot
// changed since, with annotations to set (nil: none). The API server applies
// it to the Shoot it holds, so the fields graft's types lack are kept without
// graft reading them first.
func gardenerBinding(resourceVersion, seed string, annotations map[string]string) []byte {
	metadata := map[string]any{"resourceVersion": resourceVersion}
	if len(annotations) > 0 {
		metadata["annotations"] = annotations
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": metadata,
		"spec":     map[string]any{"seedName": seed},
	})
	utilruntime.Must(err)
	return patch
}

// bindGardener sends a binding patch of the named Shoot through the dynamic
// client. shoots is the Shoot's namespace of Gardener's Shoots.
func bindGardener(ctx context.Context, shoots dynamic.ResourceInterface, name string, pt types.PatchType, patch []byte, opts metav1.PatchOptions) (*unstructured.Unstructured, error) {
	return shoots.Patch(ctx, name, pt, patch, opts, "binding")
}

// binding is one patch that binds a shoot.
type binding struct {
	patchType types.PatchType
	patch     []byte
}

// bindingAttempts returns the JSON patches bind sends in turn, each only when
// a test of the one before failed; the last is preconditioned on the whole
// resourceVersion, and each records graft.dev/placed-on. docs/daemons.md ("A
// binding") gives the cases.
func bindingAttempts(shoot *corev1alpha1.Shoot, seed string, at time.Time) []binding {
	placed := helper.FormatPlacement(seed, at)
	versioned := binding{types.MergePatchType, versionedBinding(shoot, seed, placed)}
	if !apiequality.Semantic.DeepEqual(shoot.Status, corev1alpha1.ShootStatus{}) {
		return []binding{testedBinding(shoot, seed, placed, statusTests(shoot)), versioned}
	}
	if _, evicted := shoot.Annotations[corev1alpha1.AnnotationDescheduledFrom]; evicted {
		return []binding{
			testedBinding(shoot, seed, placed, []jsonPatchOp{{"test", "/status", nil}}),
			testedBinding(shoot, seed, placed, statusTests(shoot)),
			versioned,
		}
	}
	return []binding{versioned}
}

// jsonPatchOp is one operation of a JSON patch (RFC 6902).
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// statusTests test the status fields the decision read (the shoot's seed
// and networks, which the cache and the network filter read) against the
// values read; a missing field tests equal to null. They need a /status to
// test in.
func statusTests(shoot *corev1alpha1.Shoot) []jsonPatchOp {
	return []jsonPatchOp{
		{"test", "/status/seedName", shoot.Status.SeedName},
		{"test", "/status/networking", shoot.Status.Networking},
	}
}

// testedBinding returns the binding of shoot to seed as a JSON patch that
// first tests each metadata field the decision read (the spec through the
// generation) against the value read, then the status tests. The
// annotations, tested equal to those read, are written back with the
// placement added (a JSON patch cannot add a key to a map that may be absent).
func testedBinding(shoot *corev1alpha1.Shoot, seed, placed string, status []jsonPatchOp) binding {
	ops := append([]jsonPatchOp{
		{"test", "/metadata/uid", orNull(shoot.UID)},
		{"test", "/metadata/generation", orNull(shoot.Generation)},
		{"test", "/metadata/deletionTimestamp", shoot.DeletionTimestamp},
		{"test", "/metadata/labels", shoot.Labels},
		{"test", "/metadata/annotations", shoot.Annotations},
	}, status...)
	annotations := make(map[string]string, len(shoot.Annotations)+1)
	maps.Copy(annotations, shoot.Annotations)
	annotations[corev1alpha1.AnnotationPlacedOn] = placed
	patch, err := json.Marshal(append(ops,
		jsonPatchOp{"add", "/metadata/annotations", annotations},
		jsonPatchOp{"add", "/spec/seedName", seed}))
	utilruntime.Must(err)
	return binding{types.JSONPatchType, patch}
}

// orNull is v, or nil for its zero value: the field is omitted then, and a
// missing field tests equal to null only.
func orNull[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

// versionedBinding returns the binding of shoot to seed as a merge patch
// preconditioned on the resourceVersion read.
func versionedBinding(shoot *corev1alpha1.Shoot, seed, placed string) []byte {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"resourceVersion": shoot.ResourceVersion,
			"annotations":     map[string]string{corev1alpha1.AnnotationPlacedOn: placed},
		},
		"spec": map[string]any{"seedName": seed},
	})
	utilruntime.Must(err)
	return patch
}
