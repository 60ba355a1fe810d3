//go:build gardener

package gardener

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.MainWithOptions(m, framework.Options{Gardener: true}) }

var (
	cloudProfiles       = gardenerlandscape.CloudProfiles
	projects            = gardenerlandscape.Projects
	seeds               = gardenerlandscape.Seeds
	shoots              = gardenerlandscape.Shoots
	credentialsBindings = gardenerlandscape.CredentialsBindings
	secrets             = gardenerlandscape.Secrets
	apiServices         = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	crds                = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

const (
	providerType  = gardenerlandscape.ProviderType
	region        = "eu-west-1"
	shootPods     = gardenerlandscape.ShootPods
	shootServices = gardenerlandscape.ShootServices
)

// landscape is a Gardener landscape of one project: a CloudProfile, the
// project's namespace, a Secret with a CredentialsBinding to it, and seeds
// that shoots may be bound to. Cluster-scoped names carry the project's name,
// so that tests sharing the garden do not collide.
type landscape struct {
	project      string
	namespace    string
	cloudProfile string
	credentials  string
	seeds        []string
}

// landscapes numbers the landscapes of a test binary, so that a test run
// again in the same garden (go test -count) gets names of its own.
var landscapes atomic.Int32

// landscapeSeed is a seed of a landscape: its name within the landscape and
// how it differs from gardenerlandscape.MakeSeed's (nil: not at all).
type landscapeSeed struct {
	name string
	with func(*coretest.SeedWrapper)
}

// newLandscape creates a landscape with the named seeds for a project named
// prefix and a number (Gardener allows project names of at most 10
// characters), each object through Gardener's validation and admission.
func newLandscape(t *testing.T, prefix string, seedNames ...string) *landscape {
	t.Helper()
	seeds := make([]landscapeSeed, 0, len(seedNames))
	for _, name := range seedNames {
		seeds = append(seeds, landscapeSeed{name: name})
	}
	return newLandscapeWith(t, prefix, seeds...)
}

// newLandscapeWith is newLandscape with seeds that differ (backup, DNS
// domains, labels); their region, DNS credentials and networks are the
// landscape's.
func newLandscapeWith(t *testing.T, prefix string, seeds ...landscapeSeed) *landscape {
	t.Helper()
	return newLandscapeIn(t, prefix, "", seeds...)
}

// newLandscapeIn is newLandscapeWith with the project's namespace named
// garden-<project><suffix> instead of Gardener's usual garden-<project>.
func newLandscapeIn(t *testing.T, prefix, suffix string, seeds ...landscapeSeed) *landscape {
	t.Helper()
	ctx := t.Context()
	project := fmt.Sprintf("%s%d", prefix, landscapes.Add(1))
	if len(project) > 10 {
		t.Fatalf("project name %s is longer than Gardener's 10 characters", project)
	}
	l := &landscape{
		project:      project,
		namespace:    "garden-" + project + suffix,
		cloudProfile: project + "-profile",
		credentials:  project + "-credentials",
	}
	p := gardenerlandscape.ProjectSpec{Name: project, Namespace: l.namespace, CloudProfile: l.cloudProfile,
		Credentials: l.credentials, DNSSecret: project + "-dns", Regions: []string{region}}
	for i, s := range seeds {
		seed := gardenerlandscape.MakeSeed(project+"-"+s.name, region, i)
		if s.with != nil {
			s.with(seed)
		}
		p.Seeds = append(p.Seeds, seed.Obj())
		l.seeds = append(l.seeds, seed.Name)
	}
	if err := creator(t).Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	return l
}

// makeShoot is a shoot of the landscape's project that Gardener's validation
// accepts, without a seed (see shootObject).
func (l *landscape) makeShoot(name string) *coretest.ShootWrapper {
	return gardenerlandscape.MakeShoot(l.namespace, name, l.cloudProfile, region)
}

// shootObject is the shoot as a Gardener Shoot with the landscape's
// credentials.
func (l *landscape) shootObject(t *testing.T, shoot *coretest.ShootWrapper) *unstructured.Unstructured {
	t.Helper()
	obj, err := gardenerlandscape.Shoot(shoot.Obj(), l.credentials)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func (l *landscape) createShoot(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	return createObject(t, shoots, l.namespace, l.shootObject(t, l.makeShoot(name)))
}

func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(framework.Shared(t).Config())
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// object parses a manifest.
func object(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj, err := gardenerlandscape.Object(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// creator creates objects through gardener-apiserver for the test, each
// repeated write logged.
func creator(t *testing.T) gardenerlandscape.Creator {
	return gardenerlandscape.Creator{Dynamic: dynamicClient(t), Kube: framework.Shared(t).KubeClient(), OnMiss: func(err error) {
		t.Logf("gardener-apiserver has not seen a referenced object yet, writing again: %v", err)
	}}
}

// create creates the manifest's object (see createObject).
func create(t *testing.T, gvr schema.GroupVersionResource, namespace, manifest string) *unstructured.Unstructured {
	t.Helper()
	return createObject(t, gvr, namespace, object(t, manifest))
}

// createObject creates the object and fails the test with the API server's
// reason when Gardener refuses it.
func createObject(t *testing.T, gvr schema.GroupVersionResource, namespace string, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	created, err := creator(t).Apply(t.Context(), gvr, namespace, obj)
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// admitted is gardenerlandscape.Admitted for the test, each repeated write
// logged.
func admitted(t *testing.T, write func(ctx context.Context) error) error {
	t.Helper()
	return gardenerlandscape.Admitted(t.Context(), write, func(err error) {
		t.Logf("gardener-apiserver has not seen a referenced object yet, writing again: %v", err)
	})
}
