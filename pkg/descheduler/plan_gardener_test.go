package descheduler

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

// TestPlanIsWhatThePassDoesOnGardener is TestPlanIsWhatThePassDoes on
// Gardener's API, where a move is a control-plane migration: a binding to
// the destination the gate chose, in flight until the destination's
// gardenlet reports the shoot there, under the slots garden-wide and per
// destination; shoots with a highly available control plane between seeds
// whose gardenlet version runs the live flow move live (at once, windows or
// not) where the configuration prefers it.
func TestPlanIsWhatThePassDoesOnGardener(t *testing.T) {
	testPlanIsWhatThePassDoes(t, true)
}

// gardenerPlanCase makes a drawn case one of Gardener's API: migration
// slots, live migrations preferred between gardenlets v1.151.0 for half of
// them, and the objects as Gardener's informers hand them over.
func gardenerPlanCase(r *rand.Rand, c planCase) planCase {
	graftConfig := c.config
	inFlight, perSeed := int32(1+r.IntN(4)), int32(1+r.IntN(3))
	live := r.IntN(2) == 0
	c.config = func(cfg *configv1alpha1.DeschedulerConfiguration) {
		graftConfig(cfg)
		cfg.API = configv1alpha1.APIGardener
		// A migration needs a destination.
		cfg.RequireFit = ptr.To(true)
		cfg.MaxMigrationsInFlight, cfg.MaxMigrationsInFlightPerSeed = &inFlight, &perSeed
		cfg.LiveMigration = configv1alpha1.LiveMigrationNever
		if live {
			cfg.LiveMigration, cfg.LiveMigrationGardenletVersions = configv1alpha1.LiveMigrationPrefer, []string{"v1.151.0"}
		}
	}
	c.about = append(c.about, fmt.Sprintf("Gardener: %d migrations in flight, %d per destination, live %t", inFlight, perSeed, live))
	for i, s := range c.seeds {
		c.seeds[i] = mustFromGardener(asGardenerSeed(s)).(*v1alpha1.Seed)
	}
	for i, s := range c.shoots {
		c.shoots[i] = mustFromGardener(asGardenerShoot(s)).(*v1alpha1.Shoot)
	}
	return c
}

func mustFromGardener(u *unstructured.Unstructured) runtime.Object {
	obj, err := garden.FromGardener(u)
	if err != nil {
		panic(err)
	}
	return obj
}

// asGardenerSeed is the seed as gardener-apiserver stores it: taints as a
// key and a value, their effects and times in graft.dev/taints.
func asGardenerSeed(seed *v1alpha1.Seed) *unstructured.Unstructured {
	s := seed.DeepCopy()
	if a := garden.TaintsAnnotation(s.Spec.Taints); a != nil {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[v1alpha1.AnnotationTaints] = *a
	}
	for i := range s.Spec.Taints {
		s.Spec.Taints[i].Effect, s.Spec.Taints[i].TimeAdded = "", nil
	}
	return coretest.AsGardener(s, "Seed")
}

// asGardenerShoot is the shoot as gardener-apiserver stores it:
// tolerations as a key and a value, their limits in
// graft.dev/toleration-seconds.
func asGardenerShoot(shoot *v1alpha1.Shoot) *unstructured.Unstructured {
	s := shoot.DeepCopy()
	var limits []garden.TolerationLimit
	for i, tol := range s.Spec.Tolerations {
		if tol.TolerationSeconds != nil {
			limits = append(limits, garden.TolerationLimit{Key: tol.Key, Value: tol.Value, TolerationSeconds: *tol.TolerationSeconds})
		}
		s.Spec.Tolerations[i].Effect, s.Spec.Tolerations[i].TolerationSeconds = "", nil
	}
	if len(limits) > 0 {
		data, _ := json.Marshal(limits)
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[v1alpha1.AnnotationTolerationSeconds] = string(data)
	}
	return coretest.AsGardener(s, "Shoot")
}

// fakeGarden is the API a stepped descheduler writes to, as the test reads
// and changes it.
type fakeGarden interface {
	// objects are the seeds and shoots as the informers would hand them.
	objects() ([]*v1alpha1.Seed, []*v1alpha1.Shoot, error)
	shoot(namespace, name string) (*v1alpha1.Shoot, error)
	update(shoot *v1alpha1.Shoot) error
	// patchedShoots are the shoots patched since the last call, by key, in
	// the order of their first patch.
	patchedShoots() []string
}

// noInformerReads makes the seed and shoot informers list and watch
// nothing: the test delivers.
func noInformerReads(f *clienttesting.Fake, emptyList func(resource string) runtime.Object) {
	for _, resource := range []string{"seeds", "shoots"} {
		f.PrependWatchReactor(resource, func(clienttesting.Action) (bool, watch.Interface, error) {
			return true, watch.NewFake(), nil
		})
		f.PrependReactor("list", resource, func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, emptyList(resource), nil
		})
	}
}

// patchedKeys are the shoots a fake's actions patched, in order.
func patchedKeys(actions []clienttesting.Action) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range actions {
		p, ok := a.(clienttesting.PatchAction)
		if !ok || p.GetResource().Resource != "shoots" {
			continue
		}
		if key := p.GetNamespace() + "/" + p.GetName(); !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	return out
}

// graftStepped is a stepped descheduler's engine over graft's typed fake.
func graftStepped(c planCase, cfg *configv1alpha1.DeschedulerConfiguration, clk *clocktesting.FakeClock) (*Descheduler, fakeGarden, error) {
	objs := []runtime.Object{cloudProfile()}
	for _, s := range c.seeds {
		objs = append(objs, s.DeepCopy())
	}
	for _, s := range c.shoots {
		objs = append(objs, s.DeepCopy())
	}
	client := fake.NewSimpleClientset(objs...)
	noInformerReads(&client.Fake, func(resource string) runtime.Object {
		if resource == "seeds" {
			return &v1alpha1.SeedList{}
		}
		return &v1alpha1.ShootList{}
	})
	d, err := New(cfg, component.Clients{Graft: client, Kubernetes: kubefake.NewSimpleClientset()}, Options{Registry: metrics.NewKubeRegistry(), Clock: clk})
	return d, graftFake{client}, err
}

type graftFake struct{ c *fake.Clientset }

func (g graftFake) objects() ([]*v1alpha1.Seed, []*v1alpha1.Shoot, error) {
	seeds, err := g.c.Tracker().List(v1alpha1.SchemeGroupVersion.WithResource("seeds"), v1alpha1.SchemeGroupVersion.WithKind("Seed"), "")
	if err != nil {
		return nil, nil, err
	}
	shoots, err := g.c.Tracker().List(v1alpha1.SchemeGroupVersion.WithResource("shoots"), v1alpha1.SchemeGroupVersion.WithKind("Shoot"), "")
	if err != nil {
		return nil, nil, err
	}
	var outSeeds []*v1alpha1.Seed
	for i := range seeds.(*v1alpha1.SeedList).Items {
		outSeeds = append(outSeeds, &seeds.(*v1alpha1.SeedList).Items[i])
	}
	var outShoots []*v1alpha1.Shoot
	for i := range shoots.(*v1alpha1.ShootList).Items {
		outShoots = append(outShoots, &shoots.(*v1alpha1.ShootList).Items[i])
	}
	return outSeeds, outShoots, nil
}

func (g graftFake) shoot(namespace, name string) (*v1alpha1.Shoot, error) {
	obj, err := g.c.Tracker().Get(v1alpha1.SchemeGroupVersion.WithResource("shoots"), namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*v1alpha1.Shoot), nil
}

func (g graftFake) update(shoot *v1alpha1.Shoot) error {
	return g.c.Tracker().Update(v1alpha1.SchemeGroupVersion.WithResource("shoots"), shoot, shoot.Namespace)
}

func (g graftFake) patchedShoots() []string {
	defer g.c.ClearActions()
	return patchedKeys(g.c.Actions())
}

// gardenerStepped is a stepped descheduler's engine over a fake
// gardener-apiserver (a dynamic fake), whose dry runs write nothing.
func gardenerStepped(c planCase, cfg *configv1alpha1.DeschedulerConfiguration, clk *clocktesting.FakeClock) (*Descheduler, fakeGarden, error) {
	objs := []runtime.Object{coretest.AsGardener(cloudProfile(), "CloudProfile")}
	for _, s := range c.seeds {
		objs = append(objs, asGardenerSeed(s))
	}
	for _, s := range c.shoots {
		objs = append(objs, asGardenerShoot(s))
	}
	dyn := coretest.FakeGardener(objs...)
	noInformerReads(&dyn.Fake, func(resource string) runtime.Object {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("core.gardener.cloud/v1beta1")
		list.SetKind(map[string]string{"seeds": "SeedList", "shoots": "ShootList"}[resource])
		return list
	})
	dyn.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p, ok := a.(clienttesting.PatchActionImpl)
		if !ok || len(p.PatchOptions.DryRun) == 0 {
			return false, nil, nil
		}
		obj, err := dyn.Tracker().Get(coretest.GardenerResource("shoots"), p.GetNamespace(), p.GetName())
		return true, obj, err
	})
	client, err := garden.New(garden.Gardener, nil, dyn)
	if err != nil {
		return nil, nil, err
	}
	informers, err := client.Informers(cachetrim.Transform)
	if err != nil {
		return nil, nil, err
	}
	d, err := build(cfg, client, informers, kubefake.NewSimpleClientset(), Options{Registry: metrics.NewKubeRegistry(), Clock: clk})
	return d, gardenerFake{dyn}, err
}

type gardenerFake struct {
	c *dynamicfake.FakeDynamicClient
}

func (g gardenerFake) list(resource, kind string) ([]runtime.Object, error) {
	obj, err := g.c.Tracker().List(coretest.GardenerResource(resource), coretest.GardenerResource(resource).GroupVersion().WithKind(kind), "")
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	for i := range obj.(*unstructured.UnstructuredList).Items {
		o, err := garden.FromGardener(&obj.(*unstructured.UnstructuredList).Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

func (g gardenerFake) objects() ([]*v1alpha1.Seed, []*v1alpha1.Shoot, error) {
	seeds, err := g.list("seeds", "Seed")
	if err != nil {
		return nil, nil, err
	}
	shoots, err := g.list("shoots", "Shoot")
	if err != nil {
		return nil, nil, err
	}
	outSeeds := make([]*v1alpha1.Seed, 0, len(seeds))
	for _, s := range seeds {
		outSeeds = append(outSeeds, s.(*v1alpha1.Seed))
	}
	outShoots := make([]*v1alpha1.Shoot, 0, len(shoots))
	for _, s := range shoots {
		outShoots = append(outShoots, s.(*v1alpha1.Shoot))
	}
	return outSeeds, outShoots, nil
}

func (g gardenerFake) shoot(namespace, name string) (*v1alpha1.Shoot, error) {
	obj, err := g.c.Tracker().Get(coretest.GardenerResource("shoots"), namespace, name)
	if err != nil {
		return nil, err
	}
	s, err := garden.FromGardener(obj.(*unstructured.Unstructured))
	if err != nil {
		return nil, err
	}
	return s.(*v1alpha1.Shoot), nil
}

func (g gardenerFake) update(shoot *v1alpha1.Shoot) error {
	u := asGardenerShoot(shoot)
	u.SetResourceVersion("")
	return g.c.Tracker().Update(coretest.GardenerResource("shoots"), u, shoot.Namespace)
}

func (g gardenerFake) patchedShoots() []string {
	defer g.c.ClearActions()
	return patchedKeys(g.c.Actions())
}
