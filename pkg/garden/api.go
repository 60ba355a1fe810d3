package garden

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// API is the API group graft reads and writes seeds, shoots and cloud profiles in.
type API string

const (
	// Graft is graft's own API, core.graft.dev/v1alpha1.
	Graft API = corev1alpha1.GroupName
	// Gardener is Gardener's API, core.gardener.cloud/v1beta1.
	Gardener API = GardenerGroup
)

// Flag names the global flag that chooses the API instead of discovery.
const Flag = "api"

// ParseAPI reads a value of --api; empty means "find out from discovery".
func ParseAPI(value string) (API, error) {
	switch API(value) {
	case "", Graft, Gardener:
		return API(value), nil
	}
	return "", fmt.Errorf("invalid --%s %q: must be %s (graft's own API) or %s (a Gardener garden)", Flag, value, Graft, Gardener)
}

// ConfiguredAPI is the API a daemon's configuration names in its api field:
// empty is graft's, as the configuration's defaulting makes it.
func ConfiguredAPI(value string) (API, error) {
	switch API(value) {
	case "", Graft:
		return Graft, nil
	case Gardener:
		return Gardener, nil
	}
	return "", fmt.Errorf("api %q is neither %s nor %s", value, Graft, Gardener)
}

// GroupVersion is the group and version graft reads of the API.
func (a API) GroupVersion() schema.GroupVersion {
	if a == Gardener {
		return schema.GroupVersion{Group: string(Gardener), Version: GardenerVersion}
	}
	return corev1alpha1.SchemeGroupVersion
}

// Resource is one of the API's resources (seeds, shoots, cloudprofiles, ...).
func (a API) Resource(resource string) schema.GroupVersionResource {
	return a.GroupVersion().WithResource(resource)
}

// SeedRef and ShootRef are what Events about a seed or shoot are recorded
// on, in the API's group and version: a reference carries the kind, which
// informer objects and converted objects may lack or give as graft's.
func (a API) SeedRef(s *corev1alpha1.Seed) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: a.GroupVersion().String(), Kind: "Seed",
		Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
	}
}

// ShootRef: see SeedRef.
func (a API) ShootRef(s *corev1alpha1.Shoot) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: a.GroupVersion().String(), Kind: "Shoot",
		Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
	}
}

// Discover asks the API server which of the two APIs it serves, graft's first
// when it serves both: a garden that runs graft next to Gardener keeps graft's
// objects in graft's group.
func Discover(client discovery.DiscoveryInterface) (API, error) {
	var missing []string
	for _, api := range []API{Graft, Gardener} {
		gv := api.GroupVersion().String()
		resources, err := client.ServerResourcesForGroupVersion(gv)
		switch {
		case err == nil && servesSeeds(resources.APIResources):
			return api, nil
		case err == nil || apierrors.IsNotFound(err):
			missing = append(missing, gv)
		default:
			return "", fmt.Errorf("finding out whether the cluster serves %s: %w", gv, err)
		}
	}
	return "", fmt.Errorf("the cluster serves neither %s nor %s seeds: install graft's CRDs, or point graftctl at a Gardener garden", missing[0], missing[1])
}

func servesSeeds(resources []metav1.APIResource) bool {
	for _, r := range resources {
		if r.Name == "seeds" {
			return true
		}
	}
	return false
}
