package garden

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	graftlisters "github.com/graft-dev/client-go/listers/core/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/component/leadership"
)

// Informers are the shared informers of one API's shoots, seeds, cloud
// profiles and projects. Their stores hold graft's types whichever API they
// list, so that graft's listers, caches and algorithm work on them unchanged.
type Informers interface {
	Shoots() Informer
	Seeds() Informer
	CloudProfiles() Informer
	NamespacedCloudProfiles() Informer
	// Indexed are the informers the API needs beyond these, read only
	// through their indexes (Project): Gardener's Projects, which the
	// default-domain rule reads; none on graft's API. Asking for them makes
	// them start with the others.
	Indexed() []Informer
	// Project returns the name of the Project whose namespace is namespace,
	// or "" when the API has no Projects or none has it (the algorithm then
	// takes the name Gardener gives a project's namespace).
	Project(namespace string) string
	// Start starts the informers asked for so far.
	Start(stop <-chan struct{})
	// Shutdown waits for the started informers to stop; end their stop
	// channel first.
	Shutdown()
}

// Informer is an informer and what it lists, which the fence tracks.
type Informer struct {
	Informer cache.SharedIndexInformer
	Resource schema.GroupVersionResource
	// Namespace and LabelSelector narrow the list; empty for all.
	Namespace, LabelSelector string
}

// Track makes the fence's writes after a gap in lease renewals wait until
// these informers have caught up.
func Track(f *leadership.Fence, informers ...Informer) {
	for _, i := range informers {
		f.Track(i.Informer, i.Resource, i.Namespace, i.LabelSelector)
	}
}

// NewInformers returns the informers of api. transform trims what a daemon
// does not read (see cachetrim); on Gardener it runs after the conversion
// into graft's types.
func NewInformers(api API, graft versioned.Interface, gardener Dynamic, transform cache.TransformFunc) (Informers, error) {
	switch api {
	case Graft:
		if graft == nil {
			return nil, fmt.Errorf("no client for %s", Graft)
		}
		return &graftInformers{factory: graftinformers.NewSharedInformerFactoryWithOptions(graft, 0,
			graftinformers.WithTransform(transform))}, nil
	case Gardener:
		return newGardenerInformers(gardener, transform)
	}
	return nil, fmt.Errorf("unknown API %q", api)
}

// RegionConfigs are the informers of the region ConfigMaps, Gardener's
// scheduling.gardener.cloud/purpose=region-config, on either API.
type RegionConfigs struct {
	factory kubeinformers.SharedInformerFactory
	lister  corev1listers.ConfigMapLister
	// Namespace is the one namespace they count in: anyone who may create a
	// ConfigMap in a project namespace must not steer decisions.
	Namespace string
}

// regionConfigSelector selects the region ConfigMaps.
var regionConfigSelector = labels.SelectorFromSet(labels.Set{
	corev1alpha1.LabelSchedulingPurpose: corev1alpha1.LabelSchedulingPurposeRegionConfig}).String()

// NewRegionConfigs returns the informers of the region ConfigMaps in
// namespace, trimmed by cachetrim.Transform.
func NewRegionConfigs(kube kubernetes.Interface, namespace string) *RegionConfigs {
	r := &RegionConfigs{Namespace: namespace, factory: kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(namespace),
		kubeinformers.WithTransform(cachetrim.Transform),
		kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = regionConfigSelector }))}
	r.lister = r.factory.Core().V1().ConfigMaps().Lister()
	return r
}

// ConfigMaps is the informer of the region ConfigMaps.
func (r *RegionConfigs) ConfigMaps() Informer {
	return Informer{r.factory.Core().V1().ConfigMaps().Informer(), corev1.SchemeGroupVersion.WithResource("configmaps"), r.Namespace, regionConfigSelector}
}

// Lister lists the region ConfigMaps.
func (r *RegionConfigs) Lister() corev1listers.ConfigMapLister { return r.lister }

// List returns the region ConfigMaps the informer holds.
func (r *RegionConfigs) List() []*corev1.ConfigMap {
	cms, _ := r.lister.List(labels.Everything())
	return cms
}

// Start starts the informer.
func (r *RegionConfigs) Start(stop <-chan struct{}) { r.factory.Start(stop) }

// Shutdown waits for the informer to stop; end its stop channel first.
func (r *RegionConfigs) Shutdown() { r.factory.Shutdown() }

// graftInformers list graft's own core.graft.dev/v1alpha1.
type graftInformers struct {
	factory graftinformers.SharedInformerFactory
}

func (g *graftInformers) Shoots() Informer {
	return Informer{Informer: g.factory.Core().V1alpha1().Shoots().Informer(), Resource: Graft.Resource("shoots")}
}

func (g *graftInformers) Seeds() Informer {
	return Informer{Informer: g.factory.Core().V1alpha1().Seeds().Informer(), Resource: Graft.Resource("seeds")}
}

func (g *graftInformers) CloudProfiles() Informer {
	return Informer{Informer: g.factory.Core().V1alpha1().CloudProfiles().Informer(), Resource: Graft.Resource("cloudprofiles")}
}

func (g *graftInformers) NamespacedCloudProfiles() Informer {
	return Informer{Informer: g.factory.Core().V1alpha1().NamespacedCloudProfiles().Informer(), Resource: Graft.Resource("namespacedcloudprofiles")}
}

// graft's API has no Projects.
func (g *graftInformers) Indexed() []Informer        { return nil }
func (g *graftInformers) Project(string) string      { return "" }
func (g *graftInformers) Start(stop <-chan struct{}) { g.factory.Start(stop) }
func (g *graftInformers) Shutdown()                  { g.factory.Shutdown() }

// gardenerInformers list a Gardener garden's core.gardener.cloud/v1beta1.
// Its Seeds, Shoots and cloud profiles come through the typed client, which
// decodes them straight into graft's types, or, for a Dynamic NewDynamic did
// not build, through the dynamic client and FromGardener; its Projects
// through the dynamic client.
type gardenerInformers struct {
	factory dynamicinformer.DynamicSharedInformerFactory
	// typed are the informers of gardenerKinds on the typed client.
	typed map[string]cache.SharedIndexInformer

	mu sync.Mutex
	// asked are the typed informers a caller asked for: only they start,
	// as the factory starts only the informers asked of it.
	asked   map[string]bool
	running map[string]bool
	wg      sync.WaitGroup
}

// projectNamespaceIndex indexes Projects by spec.namespace, as Gardener's
// scheduler finds a shoot's Project.
const projectNamespaceIndex = "spec.namespace"

// gardenerKinds are the resources whose objects are converted into graft's,
// and the type each is read into.
var gardenerKinds = map[string]runtime.Object{
	"shoots":                  &corev1alpha1.Shoot{},
	"seeds":                   &corev1alpha1.Seed{},
	"cloudprofiles":           &corev1alpha1.CloudProfile{},
	"namespacedcloudprofiles": &corev1alpha1.NamespacedCloudProfile{},
}

func newGardenerInformers(client Dynamic, transform cache.TransformFunc) (*gardenerInformers, error) {
	if client == nil {
		return nil, fmt.Errorf("no dynamic client for %s", GardenerGroup)
	}
	g := &gardenerInformers{factory: dynamicinformer.NewDynamicSharedInformerFactory(client, 0), asked: map[string]bool{}, running: map[string]bool{}}
	typed := typedOf(client)
	if typed != nil {
		g.typed = map[string]cache.SharedIndexInformer{}
	}
	for r, obj := range gardenerKinds {
		gvr := Gardener.Resource(r)
		if typed == nil {
			if err := g.factory.ForResource(gvr).Informer().SetTransform(cachetrim.After(fromGardener, transform)); err != nil {
				return nil, fmt.Errorf("converting %s in the informer: %w", r, err)
			}
			continue
		}
		informer := cache.NewSharedIndexInformerWithOptions(typedListWatch(typed, r), obj, cache.SharedIndexInformerOptions{
			Indexers:          cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			ObjectDescription: gvr.String(),
		})
		kind := gvr.GroupVersion().WithKind(reflect.TypeOf(obj).Elem().Name())
		if err := informer.SetTransform(cachetrim.After(withKind(kind), transform)); err != nil {
			return nil, fmt.Errorf("trimming %s in the informer: %w", r, err)
		}
		g.typed[r] = informer
	}
	projects := g.factory.ForResource(Gardener.Resource("projects")).Informer()
	if err := projects.SetTransform(trimProject); err != nil {
		return nil, fmt.Errorf("trimming projects in the informer: %w", err)
	}
	if err := projects.AddIndexers(cache.Indexers{projectNamespaceIndex: projectNamespace}); err != nil {
		return nil, fmt.Errorf("indexing projects: %w", err)
	}
	return g, nil
}

func (g *gardenerInformers) informer(resource string) Informer {
	gvr := Gardener.Resource(resource)
	if informer, ok := g.typed[resource]; ok {
		g.mu.Lock()
		g.asked[resource] = true
		g.mu.Unlock()
		return Informer{Informer: informer, Resource: gvr}
	}
	return Informer{Informer: g.factory.ForResource(gvr).Informer(), Resource: gvr}
}

func (g *gardenerInformers) Shoots() Informer        { return g.informer("shoots") }
func (g *gardenerInformers) Seeds() Informer         { return g.informer("seeds") }
func (g *gardenerInformers) CloudProfiles() Informer { return g.informer("cloudprofiles") }
func (g *gardenerInformers) NamespacedCloudProfiles() Informer {
	return g.informer("namespacedcloudprofiles")
}
func (g *gardenerInformers) Indexed() []Informer { return []Informer{g.informer("projects")} }

// Start starts the informers not started yet.
func (g *gardenerInformers) Start(stop <-chan struct{}) {
	g.factory.Start(stop)
	g.mu.Lock()
	defer g.mu.Unlock()
	for r, informer := range g.typed {
		if g.asked[r] && !g.running[r] {
			g.running[r] = true
			g.wg.Go(func() { informer.Run(stop) })
		}
	}
}

func (g *gardenerInformers) Shutdown() {
	g.factory.Shutdown()
	g.wg.Wait()
}

// Project is the first Project whose spec.namespace is namespace, as
// Gardener's scheduler takes it.
func (g *gardenerInformers) Project(namespace string) string {
	objs, err := g.informer("projects").Informer.GetIndexer().ByIndex(projectNamespaceIndex, namespace)
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

// withKind sets the apiVersion and kind of the objects the typed client
// decoded to Gardener's, as fromGardener does.
func withKind(gvk schema.GroupVersionKind) cache.TransformFunc {
	return func(obj any) (any, error) {
		if o, ok := obj.(runtime.Object); ok {
			o.GetObjectKind().SetGroupVersionKind(gvk)
		}
		return obj, nil
	}
}

// fromGardener is the informers' conversion, before the daemon's transform
// trims what it returns: it stores graft's type of each Gardener object,
// keeping Gardener's apiVersion and kind so that the Events about it name the
// object the user sees. It is idempotent, as a transform must be.
func fromGardener(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	gvk := u.GroupVersionKind()
	converted, err := FromGardener(u)
	if err != nil {
		return nil, fmt.Errorf("converting %s %s into graft's type: %w", gvk.Kind, cache.MetaObjectToName(u), err)
	}
	converted.GetObjectKind().SetGroupVersionKind(gvk)
	return converted, nil
}

// View is the landscape the daemons decide on (algorithm.Landscape): the
// stores of their informers, which hold graft's types on either API.
type View struct {
	api        API
	informers  Informers
	profiles   graftlisters.CloudProfileLister
	namespaced graftlisters.NamespacedCloudProfileLister
	regions    *RegionConfigs
}

var _ algorithm.Landscape = (*View)(nil)

// NewView returns the view of the informers' cloud profiles,
// NamespacedCloudProfiles and Projects and of the region ConfigMaps; it asks
// the informers for the profiles' (Projects are the caller's to ask for).
func NewView(api API, informers Informers, regions *RegionConfigs) *View {
	return &View{
		api:        api,
		informers:  informers,
		profiles:   graftlisters.NewCloudProfileLister(informers.CloudProfiles().Informer.GetIndexer()),
		namespaced: graftlisters.NewNamespacedCloudProfileLister(informers.NamespacedCloudProfiles().Informer.GetIndexer()),
		regions:    regions,
	}
}

func (v *View) CloudProfile(name string) (*corev1alpha1.CloudProfile, error) {
	return v.profiles.Get(name)
}

func (v *View) NamespacedCloudProfile(namespace, name string) (*corev1alpha1.NamespacedCloudProfile, error) {
	return v.namespaced.NamespacedCloudProfiles(namespace).Get(name)
}

func (v *View) Project(namespace string) string { return v.informers.Project(namespace) }

func (v *View) RegionConfigMaps() []*corev1.ConfigMap { return v.regions.List() }

func (v *View) Migration() bool { return v.api == Gardener }
