package garden

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Client reads seeds, shoots and cloud profiles of one API as graft's types,
// and writes what graft writes to them: seed patches, shoot bindings and
// shoot status.
type Client interface {
	// API is the API the client talks to.
	API() API
	GetSeed(ctx context.Context, name string) (*corev1alpha1.Seed, error)
	ListSeeds(ctx context.Context, opts metav1.ListOptions) ([]corev1alpha1.Seed, error)
	// PatchSeed sends a JSON merge patch, written in the API's own shape.
	PatchSeed(ctx context.Context, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Seed, error)
	GetShoot(ctx context.Context, namespace, name string) (*corev1alpha1.Shoot, error)
	ListShoots(ctx context.Context, namespace string, opts metav1.ListOptions) ([]corev1alpha1.Shoot, error)
	ListCloudProfiles(ctx context.Context, opts metav1.ListOptions) ([]corev1alpha1.CloudProfile, error)
	// ListNamespacedCloudProfiles lists the NamespacedCloudProfiles of a
	// namespace (metav1.NamespaceAll: of every namespace).
	ListNamespacedCloudProfiles(ctx context.Context, namespace string, opts metav1.ListOptions) ([]corev1alpha1.NamespacedCloudProfile, error)
	// ListProjects returns the name of the Project of each namespace that
	// one names as its spec.namespace (the name sorting first when several
	// do), as the informers' Project reads it; nil on graft's API, which has
	// no Projects.
	ListProjects(ctx context.Context) (map[string]string, error)
	// Bind sets a new shoot's spec.seedName, preconditioned on what the
	// decision read, and returns the bound shoot. at is the placement's
	// time, which graft's API records with it (graft.dev/placed-on).
	Bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time) (*corev1alpha1.Shoot, error)
	// PatchShoot sends a JSON merge patch of the shoot, written in the
	// API's own shape.
	PatchShoot(ctx context.Context, namespace, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Shoot, error)
	// PatchSeedStatus sends a JSON merge patch of the seed's status
	// subresource.
	PatchSeedStatus(ctx context.Context, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Seed, error)
	// PatchShootStatus merge-patches the shoot's status subresource.
	PatchShootStatus(ctx context.Context, namespace, name string, patch []byte) (*corev1alpha1.Shoot, error)
	// GetSeedConfig returns the object holding the seed's gardenlet
	// configuration in the garden, nil when there is none (always on graft's
	// API, whose seeds no gardenlet writes).
	GetSeedConfig(ctx context.Context, seed string) (*SeedConfig, error)
	// ListSeedConfigs returns every seed's configuration object by seed name.
	ListSeedConfigs(ctx context.Context) (map[string]*SeedConfig, error)
	// PatchSeedConfigTaints replaces the configuration's seedConfig.spec.taints,
	// preconditioned on the resourceVersion it was read at.
	PatchSeedConfigTaints(ctx context.Context, config *SeedConfig, taints []corev1alpha1.SeedTaint, opts metav1.PatchOptions) (*SeedConfig, error)
	// Mover moves bound shoots off their seeds as the API does.
	Mover() Mover
	// Informers returns informers of the client's API, objects trimmed by
	// transform (see NewInformers).
	Informers(transform cache.TransformFunc) (Informers, error)
}

// NewGraft returns a Client over graft's typed clientset.
func NewGraft(client versioned.Interface) Client { return graftClient{client} }

type graftClient struct{ c versioned.Interface }

func (graftClient) API() API { return Graft }

func (g graftClient) GetSeed(ctx context.Context, name string) (*corev1alpha1.Seed, error) {
	return g.c.CoreV1alpha1().Seeds().Get(ctx, name, metav1.GetOptions{})
}

func (g graftClient) ListSeeds(ctx context.Context, opts metav1.ListOptions) ([]corev1alpha1.Seed, error) {
	list, err := g.c.CoreV1alpha1().Seeds().List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (g graftClient) PatchSeed(ctx context.Context, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Seed, error) {
	return g.c.CoreV1alpha1().Seeds().Patch(ctx, name, types.MergePatchType, patch, opts)
}

func (g graftClient) GetShoot(ctx context.Context, namespace, name string) (*corev1alpha1.Shoot, error) {
	return g.c.CoreV1alpha1().Shoots(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (g graftClient) ListShoots(ctx context.Context, namespace string, opts metav1.ListOptions) ([]corev1alpha1.Shoot, error) {
	list, err := g.c.CoreV1alpha1().Shoots(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (g graftClient) PatchShoot(ctx context.Context, namespace, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Shoot, error) {
	return g.c.CoreV1alpha1().Shoots(namespace).Patch(ctx, name, types.MergePatchType, patch, opts)
}

func (g graftClient) PatchSeedStatus(ctx context.Context, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Seed, error) {
	return g.c.CoreV1alpha1().Seeds().Patch(ctx, name, types.MergePatchType, patch, opts, "status")
}

func (g graftClient) PatchShootStatus(ctx context.Context, namespace, name string, patch []byte) (*corev1alpha1.Shoot, error) {
	return g.c.CoreV1alpha1().Shoots(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
}

func (g graftClient) ListCloudProfiles(ctx context.Context, opts metav1.ListOptions) ([]corev1alpha1.CloudProfile, error) {
	list, err := g.c.CoreV1alpha1().CloudProfiles().List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (g graftClient) ListNamespacedCloudProfiles(ctx context.Context, namespace string, opts metav1.ListOptions) ([]corev1alpha1.NamespacedCloudProfile, error) {
	list, err := g.c.CoreV1alpha1().NamespacedCloudProfiles(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (graftClient) GetSeedConfig(context.Context, string) (*SeedConfig, error) { return nil, nil }

func (graftClient) ListProjects(context.Context) (map[string]string, error) { return nil, nil }

func (graftClient) ListSeedConfigs(context.Context) (map[string]*SeedConfig, error) {
	return nil, nil
}

func (graftClient) PatchSeedConfigTaints(context.Context, *SeedConfig, []corev1alpha1.SeedTaint, metav1.PatchOptions) (*SeedConfig, error) {
	return nil, fmt.Errorf("graft's API has no seed configuration objects")
}

func (g graftClient) Informers(transform cache.TransformFunc) (Informers, error) {
	return NewInformers(Graft, g.c, nil, transform)
}

// NewGardener returns a Client that reads Gardener's core.gardener.cloud/v1beta1
// through the dynamic client and converts each object into graft's type.
func NewGardener(client dynamic.Interface) Client { return gardenerClient{client} }

type gardenerClient struct{ c dynamic.Interface }

func (gardenerClient) API() API { return Gardener }

func (g gardenerClient) resource(name string) dynamic.NamespaceableResourceInterface {
	return g.c.Resource(Gardener.Resource(name))
}

func (g gardenerClient) GetSeed(ctx context.Context, name string) (*corev1alpha1.Seed, error) {
	return convert[corev1alpha1.Seed](g.resource("seeds").Get(ctx, name, metav1.GetOptions{}))
}

func (g gardenerClient) ListSeeds(ctx context.Context, opts metav1.ListOptions) ([]corev1alpha1.Seed, error) {
	return convertList[corev1alpha1.Seed](g.resource("seeds").List(ctx, opts))
}

func (g gardenerClient) PatchSeed(ctx context.Context, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Seed, error) {
	return convert[corev1alpha1.Seed](g.resource("seeds").Patch(ctx, name, types.MergePatchType, patch, opts))
}

func (g gardenerClient) PatchSeedStatus(ctx context.Context, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Seed, error) {
	return convert[corev1alpha1.Seed](g.resource("seeds").Patch(ctx, name, types.MergePatchType, patch, opts, "status"))
}

func (g gardenerClient) GetShoot(ctx context.Context, namespace, name string) (*corev1alpha1.Shoot, error) {
	return convert[corev1alpha1.Shoot](g.resource("shoots").Namespace(namespace).Get(ctx, name, metav1.GetOptions{}))
}

func (g gardenerClient) ListShoots(ctx context.Context, namespace string, opts metav1.ListOptions) ([]corev1alpha1.Shoot, error) {
	return convertList[corev1alpha1.Shoot](g.resource("shoots").Namespace(namespace).List(ctx, opts))
}

func (g gardenerClient) PatchShoot(ctx context.Context, namespace, name string, patch []byte, opts metav1.PatchOptions) (*corev1alpha1.Shoot, error) {
	return convert[corev1alpha1.Shoot](g.resource("shoots").Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, opts))
}

func (g gardenerClient) PatchShootStatus(ctx context.Context, namespace, name string, patch []byte) (*corev1alpha1.Shoot, error) {
	return convert[corev1alpha1.Shoot](g.resource("shoots").Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"))
}

func (g gardenerClient) ListCloudProfiles(ctx context.Context, opts metav1.ListOptions) ([]corev1alpha1.CloudProfile, error) {
	return convertList[corev1alpha1.CloudProfile](g.resource("cloudprofiles").List(ctx, opts))
}

func (g gardenerClient) ListNamespacedCloudProfiles(ctx context.Context, namespace string, opts metav1.ListOptions) ([]corev1alpha1.NamespacedCloudProfile, error) {
	return convertList[corev1alpha1.NamespacedCloudProfile](g.resource("namespacedcloudprofiles").Namespace(namespace).List(ctx, opts))
}

func (g gardenerClient) ListProjects(ctx context.Context) (map[string]string, error) {
	list, err := g.resource("projects").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i := range list.Items {
		name := list.Items[i].GetName()
		namespaces, _ := projectNamespace(&list.Items[i])
		for _, ns := range namespaces {
			if cur, ok := out[ns]; !ok || name < cur {
				out[ns] = name
			}
		}
	}
	return out, nil
}

func (g gardenerClient) GetSeedConfig(ctx context.Context, seed string) (*SeedConfig, error) {
	return seedConfigs{g.c}.get(ctx, seed)
}

func (g gardenerClient) ListSeedConfigs(ctx context.Context) (map[string]*SeedConfig, error) {
	return seedConfigs{g.c}.list(ctx)
}

func (g gardenerClient) PatchSeedConfigTaints(ctx context.Context, config *SeedConfig, taints []corev1alpha1.SeedTaint, opts metav1.PatchOptions) (*SeedConfig, error) {
	return seedConfigs{g.c}.patchTaints(ctx, config, taints, opts)
}

func (g gardenerClient) Informers(transform cache.TransformFunc) (Informers, error) {
	return NewInformers(Gardener, nil, g.c, transform)
}

// convert turns one of Gardener's objects, as the API server returned it for
// a T (a Seed, Shoot or CloudProfile), into graft's T by FromGardener, with
// graft's apiVersion. (The informers keep Gardener's, for the Events about
// the objects they hold.)
// It passes on the error of the request that returned u.
func convert[T any](u *unstructured.Unstructured, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	obj, err := FromGardener(u)
	if err != nil {
		return nil, fmt.Errorf("converting %s %s into graft's type: %w", u.GetKind(), objectName(u), err)
	}
	t, ok := any(obj).(*T)
	if !ok {
		return nil, fmt.Errorf("the API server returned a %s, not the %T asked for", u.GetKind(), t)
	}
	return t, nil
}

// convertList converts a list's items, which the dynamic client returns with
// their apiVersion and kind.
func convertList[T any](list *unstructured.UnstructuredList, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(list.Items))
	for i := range list.Items {
		item, err := convert[T](&list.Items[i], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, *item)
	}
	return out, nil
}

func objectName(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() != "" {
		return obj.GetNamespace() + "/" + obj.GetName()
	}
	return obj.GetName()
}

// Dynamic is the client of the groups graft has no typed client for:
// Gardener's core.gardener.cloud. Only this package reads it.
type Dynamic = dynamic.Interface

// New returns the Client of api: over graft's typed clientset for graft's,
// over the dynamic client for Gardener's.
func New(api API, graft versioned.Interface, gardener Dynamic) (Client, error) {
	switch api {
	case Graft:
		if graft == nil {
			return nil, fmt.Errorf("no client for %s", Graft)
		}
		return NewGraft(graft), nil
	case Gardener:
		if gardener == nil {
			return nil, fmt.Errorf("no dynamic client for %s", GardenerGroup)
		}
		return NewGardener(gardener), nil
	}
	return nil, fmt.Errorf("unknown API %q", api)
}
