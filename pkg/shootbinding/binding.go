package shootbinding

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// Shoots is the resource a binding is written to, Gardener's Shoots.
var Shoots = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// Bind sets spec.seedName of the named Shoot to seed through shoots/binding.
// graft's types do not hold every field of Gardener's, so the Shoot is read
// afresh and must still be at resourceVersion, the version the decision read;
// the update carries that resourceVersion, so the API server refuses it with a
// conflict when the Shoot changes in between as well. shoots is the Shoot's
// namespace of Shoots (client.Resource(Shoots).Namespace(ns)).
func Bind(ctx context.Context, shoots dynamic.ResourceInterface, name, resourceVersion, seed string, opts metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	live, err := shoots.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if live.GetResourceVersion() != resourceVersion {
		return nil, apierrors.NewConflict(Shoots.GroupResource(), name,
			fmt.Errorf("the shoot changed since it was decided on (resourceVersion %s, decided on %s)", live.GetResourceVersion(), resourceVersion))
	}
	if err := unstructured.SetNestedField(live.Object, seed, "spec", "seedName"); err != nil {
		return nil, err
	}
	return shoots.Update(ctx, live, opts, "binding")
}
