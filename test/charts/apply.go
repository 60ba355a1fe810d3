package charts

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager is the field manager of the objects tests apply.
const FieldManager = "graft-chart-test"

// Applier applies rendered objects with server-side apply.
type Applier struct {
	dynamic dynamic.Interface
	mapper  meta.RESTMapper
}

// NewApplier builds an Applier for the cluster cfg points at.
func NewApplier(cfg *rest.Config) (*Applier, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Applier{
		dynamic: dyn,
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
	}, nil
}

// Apply applies each object with server-side apply; with dryRun the API server
// runs everything (defaulting, validation, admission, RBAC escalation checks)
// but persists nothing. An object without a namespace in a namespaced kind is
// an error, as it would land wherever the caller's context points.
func (a *Applier) Apply(ctx context.Context, objs []*unstructured.Unstructured, dryRun bool) error {
	opts := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	for _, obj := range objs {
		if err := a.applyOne(ctx, obj, opts); err != nil {
			return err
		}
	}
	return nil
}

func (a *Applier) applyOne(ctx context.Context, obj *unstructured.Unstructured, opts metav1.ApplyOptions) error {
	gvk := obj.GroupVersionKind()
	what := fmt.Sprintf("%s %s", gvk.Kind, objectKey(obj))
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s: finding its resource: %w", what, err)
	}
	var ri dynamic.ResourceInterface = a.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			return fmt.Errorf("%s: namespaced kind rendered without a namespace", what)
		}
		ri = a.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	} else if obj.GetNamespace() != "" {
		return fmt.Errorf("%s: cluster-scoped kind rendered with a namespace", what)
	}
	if _, err := ri.Apply(ctx, obj.GetName(), obj, opts); err != nil {
		return fmt.Errorf("applying %s: %w", what, err)
	}
	return nil
}

func objectKey(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
