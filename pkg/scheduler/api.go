package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/landscapefile"
	"github.com/graft-dev/graft/pkg/shootbinding"
)

// coreAPI is the API group the scheduler reads seeds, shoots and cloud
// profiles from and binds shoots in: graft's core.graft.dev or a Gardener
// garden's core.gardener.cloud. Either way the scheduler sees graft's types;
// only the reads of single objects and the writes differ.
type coreAPI interface {
	// informers returns the informers of shoots, seeds and cloud profiles,
	// their stores holding graft's types, and the resources the fence
	// tracks them as.
	informers() (shoots, seeds, profiles trackedInformer)
	// namespacedProfiles returns the informer of the NamespacedCloudProfiles,
	// its store holding graft's type.
	namespacedProfiles() trackedInformer
	// projectInformer is the informer of the Projects the default-domain
	// rule reads, if the API has Projects.
	projectInformer() (trackedInformer, bool)
	// project returns the name of the Project whose namespace is namespace,
	// or "" when the API has no Projects or none has it (the algorithm then
	// takes the name Gardener gives a project's namespace).
	project(namespace string) string
	// start starts the informers.
	start(stop <-chan struct{})
	getSeed(ctx context.Context, name string) (*corev1alpha1.Seed, error)
	getShoot(ctx context.Context, namespace, name string) (*corev1alpha1.Shoot, error)
	// bind sets the shoot's spec.seedName, preconditioned on what the
	// decision read, and returns the bound shoot. at is the placement's
	// time, which graft's API records with it (graft.dev/placed-on).
	bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time) (*corev1alpha1.Shoot, error)
	// patchShootStatus merge-patches the shoot's status subresource.
	patchShootStatus(ctx context.Context, namespace, name string, patch []byte) (*corev1alpha1.Shoot, error)
}

// trackedInformer is an informer and the resource it lists.
type trackedInformer struct {
	informer cache.SharedIndexInformer
	gvr      schema.GroupVersionResource
}

// graftAPI is graft's own core.graft.dev/v1alpha1.
type graftAPI struct {
	client  versioned.Interface
	factory graftinformers.SharedInformerFactory
}

func newGraftAPI(client versioned.Interface) *graftAPI {
	return &graftAPI{client: client, factory: graftinformers.NewSharedInformerFactoryWithOptions(client, 0,
		graftinformers.WithTransform(cachetrim.Unbound))}
}

func (g *graftAPI) informers() (shoots, seeds, profiles trackedInformer) {
	core := g.factory.Core().V1alpha1()
	gv := corev1alpha1.SchemeGroupVersion
	return trackedInformer{core.Shoots().Informer(), gv.WithResource("shoots")},
		trackedInformer{core.Seeds().Informer(), gv.WithResource("seeds")},
		trackedInformer{core.CloudProfiles().Informer(), gv.WithResource("cloudprofiles")}
}

func (g *graftAPI) start(stop <-chan struct{}) { g.factory.Start(stop) }

func (g *graftAPI) namespacedProfiles() trackedInformer {
	return trackedInformer{g.factory.Core().V1alpha1().NamespacedCloudProfiles().Informer(),
		corev1alpha1.SchemeGroupVersion.WithResource("namespacedcloudprofiles")}
}

// graft's API has no Projects.
func (g *graftAPI) projectInformer() (trackedInformer, bool) { return trackedInformer{}, false }
func (g *graftAPI) project(string) string                    { return "" }

func (g *graftAPI) getSeed(ctx context.Context, name string) (*corev1alpha1.Seed, error) {
	return g.client.CoreV1alpha1().Seeds().Get(ctx, name, metav1.GetOptions{})
}

func (g *graftAPI) getShoot(ctx context.Context, namespace, name string) (*corev1alpha1.Shoot, error) {
	return g.client.CoreV1alpha1().Shoots(namespace).Get(ctx, name, metav1.GetOptions{})
}

// bind sends the patches of bindingAttempts in turn.
func (g *graftAPI) bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time) (bound *corev1alpha1.Shoot, err error) {
	client := g.client.CoreV1alpha1().Shoots(shoot.Namespace)
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

func (g *graftAPI) patchShootStatus(ctx context.Context, namespace, name string, patch []byte) (*corev1alpha1.Shoot, error) {
	return g.client.CoreV1alpha1().Shoots(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
}

// gardenerAPI is a Gardener garden's core.gardener.cloud/v1beta1, read
// through the dynamic client and converted into graft's types by
// landscapefile.FromGardener as objects enter the informers' stores, so that
// graft's listers, cache and algorithm work on them unchanged.
type gardenerAPI struct {
	client  dynamic.Interface
	factory dynamicinformer.DynamicSharedInformerFactory
}

// Gardener's resources graft-scheduler works on.
var (
	gardenerSeeds         = schema.GroupVersionResource{Group: landscapefile.GardenerGroup, Version: landscapefile.GardenerVersion, Resource: "seeds"}
	gardenerShoots        = schema.GroupVersionResource{Group: landscapefile.GardenerGroup, Version: landscapefile.GardenerVersion, Resource: "shoots"}
	gardenerCloudProfiles = schema.GroupVersionResource{Group: landscapefile.GardenerGroup, Version: landscapefile.GardenerVersion, Resource: "cloudprofiles"}
	gardenerProjects      = schema.GroupVersionResource{Group: landscapefile.GardenerGroup, Version: landscapefile.GardenerVersion, Resource: "projects"}
	gardenerNSProfiles    = schema.GroupVersionResource{Group: landscapefile.GardenerGroup, Version: landscapefile.GardenerVersion, Resource: "namespacedcloudprofiles"}
)

// projectNamespaceIndex indexes Projects by spec.namespace, as Gardener's
// scheduler finds a shoot's Project.
const projectNamespaceIndex = "spec.namespace"

func newGardenerAPI(client dynamic.Interface) (*gardenerAPI, error) {
	if client == nil {
		return nil, fmt.Errorf("no dynamic client for %s", landscapefile.GardenerGroup)
	}
	g := &gardenerAPI{client: client, factory: dynamicinformer.NewDynamicSharedInformerFactory(client, 0)}
	for _, gvr := range []schema.GroupVersionResource{gardenerShoots, gardenerSeeds, gardenerCloudProfiles, gardenerNSProfiles} {
		if err := g.factory.ForResource(gvr).Informer().SetTransform(cachetrim.After(fromGardener, cachetrim.Unbound)); err != nil {
			return nil, fmt.Errorf("converting %s in the informer: %w", gvr.Resource, err)
		}
	}
	projects := g.factory.ForResource(gardenerProjects).Informer()
	if err := projects.SetTransform(trimProject); err != nil {
		return nil, fmt.Errorf("trimming projects in the informer: %w", err)
	}
	if err := projects.AddIndexers(cache.Indexers{projectNamespaceIndex: projectNamespace}); err != nil {
		return nil, fmt.Errorf("indexing projects: %w", err)
	}
	return g, nil
}

// trimProject keeps of a Project its name, resourceVersion and
// spec.namespace, all the scheduler reads.
func trimProject(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	kept := &unstructured.Unstructured{Object: map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind()}}
	kept.SetName(u.GetName())
	kept.SetResourceVersion(u.GetResourceVersion())
	if ns, found, _ := unstructured.NestedString(u.Object, "spec", "namespace"); found {
		if err := unstructured.SetNestedField(kept.Object, ns, "spec", "namespace"); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

func projectNamespace(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	if ns, found, _ := unstructured.NestedString(u.Object, "spec", "namespace"); found && ns != "" {
		return []string{ns}, nil
	}
	return nil, nil
}

// fromGardener is the informers' conversion, before cachetrim trims what it
// returns: it stores graft's type of each Gardener object. It keeps Gardener's apiVersion and kind on the converted
// object, so that the Events about it name the object the user sees. It is
// idempotent, as a transform must be.
func fromGardener(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	return convertGardener(u)
}

// convertGardener converts a Gardener object into graft's type, keeping
// Gardener's apiVersion and kind.
func convertGardener(u *unstructured.Unstructured) (any, error) {
	gvk := u.GroupVersionKind()
	converted, err := landscapefile.FromGardener(u)
	if err != nil {
		return nil, fmt.Errorf("converting %s %s into graft's type: %w", gvk.Kind, cache.MetaObjectToName(u), err)
	}
	converted.GetObjectKind().SetGroupVersionKind(gvk)
	return converted, nil
}

// convertAs converts an object the API server returned for a T (a Seed or a
// Shoot) into graft's T.
func convertAs[T any](u *unstructured.Unstructured) (*T, error) {
	obj, err := convertGardener(u)
	if err != nil {
		return nil, err
	}
	t, ok := obj.(*T)
	if !ok {
		return nil, fmt.Errorf("the API server returned a %s, not the %T asked for", u.GetKind(), t)
	}
	return t, nil
}

// convertShoot converts a Shoot the API server returned.
func convertShoot(u *unstructured.Unstructured) (*corev1alpha1.Shoot, error) {
	return convertAs[corev1alpha1.Shoot](u)
}

func (g *gardenerAPI) informers() (shoots, seeds, profiles trackedInformer) {
	return trackedInformer{g.factory.ForResource(gardenerShoots).Informer(), gardenerShoots},
		trackedInformer{g.factory.ForResource(gardenerSeeds).Informer(), gardenerSeeds},
		trackedInformer{g.factory.ForResource(gardenerCloudProfiles).Informer(), gardenerCloudProfiles}
}

func (g *gardenerAPI) start(stop <-chan struct{}) { g.factory.Start(stop) }

func (g *gardenerAPI) namespacedProfiles() trackedInformer {
	return trackedInformer{g.factory.ForResource(gardenerNSProfiles).Informer(), gardenerNSProfiles}
}

func (g *gardenerAPI) projectInformer() (trackedInformer, bool) {
	return trackedInformer{g.factory.ForResource(gardenerProjects).Informer(), gardenerProjects}, true
}

// project is the first Project whose spec.namespace is namespace, as
// Gardener's scheduler takes it.
func (g *gardenerAPI) project(namespace string) string {
	objs, err := g.factory.ForResource(gardenerProjects).Informer().GetIndexer().ByIndex(projectNamespaceIndex, namespace)
	if err != nil || len(objs) == 0 {
		return ""
	}
	names := make([]string, 0, len(objs))
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			names = append(names, u.GetName())
		}
	}
	slices.Sort(names)
	return names[0]
}

func (g *gardenerAPI) getSeed(ctx context.Context, name string) (*corev1alpha1.Seed, error) {
	u, err := g.client.Resource(gardenerSeeds).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return convertAs[corev1alpha1.Seed](u)
}

func (g *gardenerAPI) getShoot(ctx context.Context, namespace, name string) (*corev1alpha1.Shoot, error) {
	u, err := g.client.Resource(gardenerShoots).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return convertShoot(u)
}

// bind binds through the shoots/binding subresource, as Gardener's scheduler
// does (shootbinding.Bind), preconditioned on the version the decision read.
// A shoot that changed in between is not bound: the write fails with a
// conflict and the informer brings the new version. The binding subresource
// takes the seed alone: the placement's time is not recorded.
func (g *gardenerAPI) bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, _ time.Time) (*corev1alpha1.Shoot, error) {
	bound, err := shootbinding.Bind(ctx, g.client.Resource(gardenerShoots).Namespace(shoot.Namespace), shoot.Name, shoot.ResourceVersion, seed, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return convertShoot(bound)
}

func (g *gardenerAPI) patchShootStatus(ctx context.Context, namespace, name string, patch []byte) (*corev1alpha1.Shoot, error) {
	u, err := g.client.Resource(gardenerShoots).Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return nil, err
	}
	return convertShoot(u)
}
