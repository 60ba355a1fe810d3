package descheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	graftlisters "github.com/graft-dev/client-go/listers/core/v1alpha1"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/noexecutetaints"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/overcapacity"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// Event reasons the descheduler emits.
const (
	// EventDescheduled is emitted on the shoot and on the seed for each eviction.
	EventDescheduled = "Descheduled"
	// EventWouldDeschedule is emitted on the shoot in dry-run mode.
	EventWouldDeschedule = "WouldDeschedule"
	// EventEvictionSkipped is emitted on the shoot when requireFit holds it back.
	EventEvictionSkipped = "EvictionSkipped"
)

// DefaultRegistry returns the registry of graft's descheduler plugins.
func DefaultRegistry() framework.Registry {
	r := framework.Registry{}
	noexecutetaints.Register(r)
	overcapacity.Register(r)
	return r
}

// Options are the descheduler's dependencies.
type Options struct {
	// Config is a defaulted and validated configuration.
	Config *configv1alpha1.DeschedulerConfiguration
	// Graft is the client for seeds, shoots and cloud profiles.
	Graft versioned.Interface
	// Kube is the client for the region ConfigMaps.
	Kube kubernetes.Interface
	// Recorder emits Events on shoots and seeds.
	Recorder record.EventRecorder
	// Metrics are updated when set.
	Metrics *Metrics
	// Clock is the real clock when nil.
	Clock clock.WithTicker
	// Registry is DefaultRegistry() when nil.
	Registry framework.Registry
}

// Descheduler evicts shoots from seeds that must not host them any more.
type Descheduler struct {
	cfg      *configv1alpha1.DeschedulerConfiguration
	graft    versioned.Interface
	recorder record.EventRecorder
	metrics  *Metrics
	clock    clock.WithTicker
	plugins  []framework.Plugin
	algo     algorithm.Config
	limiter  *rate.Limiter

	state *state
	queue workqueue.TypedDelayingInterface[string]

	graftInformers graftinformers.SharedInformerFactory
	kubeInformers  kubeinformers.SharedInformerFactory
	cloudProfiles  graftlisters.CloudProfileLister
	configMaps     corev1listers.ConfigMapLister
	synced         []cache.InformerSynced

	mu sync.Mutex
	// perSeed and total count the evictions of the current pass window (interval).
	perSeed map[string]int
	total   int
	// waiting are seeds held back by maxPendingEvicted or requireFit, looked
	// at again when an evicted shoot is placed or seeds and placements change.
	waiting sets.Set[string]
	// skipped remembers the last EvictionSkipped message per shoot so that an
	// unchanged reason is not written again on every pass.
	skipped map[string]string
}

// New builds a descheduler and its informers; Run starts them.
func New(o Options) (*Descheduler, error) {
	if o.Config == nil || o.Graft == nil || o.Kube == nil || o.Recorder == nil {
		return nil, errors.New("descheduler: Config, Graft, Kube and Recorder are required")
	}
	if o.Config.RegionConfigNamespace == "" {
		// Empty would watch every namespace and let tenants steer requireFit.
		return nil, errors.New("descheduler: regionConfigNamespace is empty")
	}
	registry := o.Registry
	if registry == nil {
		registry = DefaultRegistry()
	}
	plugins, err := registry.Build(o.Config.Plugins)
	if err != nil {
		return nil, err
	}
	clk := o.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	metrics := o.Metrics
	if metrics == nil {
		if metrics, err = NewMetrics(nil); err != nil {
			return nil, err
		}
	}
	d := &Descheduler{
		cfg:      o.Config,
		graft:    o.Graft,
		recorder: o.Recorder,
		metrics:  metrics,
		clock:    clk,
		plugins:  plugins,
		algo:     schedulingconfig.FromComponentConfig(o.Config.Strategy, o.Config.ScoreWeights),
		limiter:  newLimiter(o.Config),
		state:    newState(),
		queue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Name: "", Clock: clk,
		}),
		perSeed: map[string]int{},
		waiting: sets.New[string](),
		skipped: map[string]string{},
	}
	if err := d.algo.Validate(); err != nil {
		return nil, fmt.Errorf("descheduler: %w", err)
	}
	d.state.onPendingDrop = d.wakeWaiting
	d.state.onPendingChange = func(n int) { d.metrics.PendingEvicted.Set(float64(n)) }

	d.graftInformers = graftinformers.NewSharedInformerFactory(o.Graft, 0)
	// Region ConfigMaps count only in their one namespace, as for the
	// scheduler: a tenant's ConfigMap must not change what requireFit finds.
	d.kubeInformers = kubeinformers.NewSharedInformerFactoryWithOptions(o.Kube, 0,
		kubeinformers.WithNamespace(o.Config.RegionConfigNamespace),
		kubeinformers.WithTweakListOptions(func(lo *metav1.ListOptions) {
			lo.LabelSelector = labels.SelectorFromSet(labels.Set{v1alpha1.LabelSchedulingPurpose: v1alpha1.LabelSchedulingPurposeRegionConfig}).String()
		}))
	core := d.graftInformers.Core().V1alpha1()
	seeds, shoots, profiles := core.Seeds().Informer(), core.Shoots().Informer(), core.CloudProfiles().Informer()
	cms := d.kubeInformers.Core().V1().ConfigMaps().Informer()
	d.cloudProfiles = core.CloudProfiles().Lister()
	d.configMaps = d.kubeInformers.Core().V1().ConfigMaps().Lister()
	d.synced = []cache.InformerSynced{seeds.HasSynced, shoots.HasSynced, profiles.HasSynced, cms.HasSynced}
	if _, err := seeds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { d.onSeed(nil, obj) },
		UpdateFunc: d.onSeed,
		DeleteFunc: d.onSeedDelete,
	}); err != nil {
		return nil, fmt.Errorf("watching seeds: %w", err)
	}
	if _, err := shoots.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { d.onShoot(nil, obj) },
		UpdateFunc: d.onShoot,
		DeleteFunc: d.onShootDelete,
	}); err != nil {
		return nil, fmt.Errorf("watching shoots: %w", err)
	}
	// A new cloud profile or region ConfigMap can make a held-back shoot fit.
	wake := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { d.wakeWaiting() },
		UpdateFunc: func(any, any) { d.wakeWaiting() },
	}
	if _, err := profiles.AddEventHandler(wake); err != nil {
		return nil, fmt.Errorf("watching cloud profiles: %w", err)
	}
	if _, err := cms.AddEventHandler(wake); err != nil {
		return nil, fmt.Errorf("watching region ConfigMaps: %w", err)
	}
	return d, nil
}

func newLimiter(c *configv1alpha1.DeschedulerConfiguration) *rate.Limiter {
	burst := 1
	if c.EvictionBurst != nil {
		burst = int(*c.EvictionBurst)
	}
	if c.EvictionRate == nil || *c.EvictionRate == 0 {
		return rate.NewLimiter(rate.Inf, burst)
	}
	return rate.NewLimiter(rate.Limit(*c.EvictionRate), burst)
}

// Ready reports whether the informers have synced (on a standby replica
// too); until then the descheduler does nothing.
func (d *Descheduler) Ready() bool {
	for _, synced := range d.synced {
		if !synced() {
			return false
		}
	}
	return true
}

// Start starts the informers without descheduling, so that a standby replica
// keeps its view (and the times taints were first seen) warm. Calling it
// again does nothing; stop the informers by ending ctx.
func (d *Descheduler) Start(ctx context.Context) {
	d.graftInformers.Start(ctx.Done())
	d.kubeInformers.Start(ctx.Done())
}

// Shutdown waits for the informers started by Start to stop; end their
// context first.
func (d *Descheduler) Shutdown() {
	d.graftInformers.Shutdown()
	d.kubeInformers.Shutdown()
}

// Run starts the informers if needed, waits for them, and deschedules until
// ctx ends. With interval 0 it makes one pass over every seed and returns.
func (d *Descheduler) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("descheduler")
	ctx = klog.NewContext(ctx, logger)
	defer d.queue.ShutDown()
	d.Start(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), d.synced...) {
		return fmt.Errorf("descheduler: informers did not sync: %w", ctx.Err())
	}
	logger.Info("Descheduler started", "dryRun", d.cfg.DryRun, "interval", d.cfg.Interval.Duration, "plugins", d.pluginNames())

	if d.cfg.Interval.Duration == 0 {
		d.pass(ctx, d.state.seedNames(), true)
		return nil
	}
	for _, name := range d.state.seedNames() {
		d.queue.Add(name)
	}
	go func() {
		ticker := d.clock.NewTicker(d.cfg.Interval.Duration)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C():
				d.newWindow()
				for _, name := range d.state.seedNames() {
					d.queue.Add(name)
				}
			}
		}
	}()
	go func() {
		<-ctx.Done()
		d.queue.ShutDown()
	}()
	for d.processBatch(ctx) {
	}
	return nil
}

func (d *Descheduler) pluginNames() []string {
	out := make([]string, 0, len(d.plugins))
	for _, p := range d.plugins {
		out = append(out, p.Name())
	}
	return out
}

// processBatch takes every queued seed and makes one pass over them.
func (d *Descheduler) processBatch(ctx context.Context) bool {
	first, shutdown := d.queue.Get()
	if shutdown {
		return false
	}
	keys := []string{first}
	for d.queue.Len() > 0 {
		k, shutdown := d.queue.Get()
		if shutdown {
			break
		}
		keys = append(keys, k)
	}
	d.pass(ctx, keys, false)
	for _, k := range keys {
		d.queue.Done(k)
	}
	return ctx.Err() == nil
}

// newWindow starts a new pass window: the per-pass budgets start over.
func (d *Descheduler) newWindow() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.perSeed = map[string]int{}
	d.total = 0
}

// wakeWaiting queues the seeds held back by maxPendingEvicted or requireFit.
func (d *Descheduler) wakeWaiting() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for name := range d.waiting {
		d.queue.Add(name)
	}
	d.waiting.Clear()
}

func (d *Descheduler) hold(seeds ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.waiting.Insert(seeds...)
}

func (d *Descheduler) onSeed(oldObj, obj any) {
	seed, ok := obj.(*v1alpha1.Seed)
	if !ok {
		return
	}
	old, _ := oldObj.(*v1alpha1.Seed)
	if d.state.setSeed(old, seed, d.clock.Now()) {
		d.queue.Add(seed.Name)
	}
	d.wakeWaiting()
}

func (d *Descheduler) onSeedDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		d.state.removeSeed(t.Key)
		return
	}
	if seed, ok := obj.(*v1alpha1.Seed); ok {
		d.state.removeSeed(seed.Name)
	}
}

func (d *Descheduler) onShoot(oldObj, obj any) {
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok {
		return
	}
	d.state.setShoot(shoot, d.clock.Now(), false)
	if old, ok := oldObj.(*v1alpha1.Shoot); ok && !samePlacement(old, shoot) {
		d.wakeWaiting()
	}
}

func samePlacement(a, b *v1alpha1.Shoot) bool {
	pa, pb := algorithm.SeedNamesCountedFor(a), algorithm.SeedNamesCountedFor(b)
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if pa[i] != pb[i] {
			return false
		}
	}
	return true
}

func (d *Descheduler) onShootDelete(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	d.state.removeShoot(key)
	d.mu.Lock()
	delete(d.skipped, key)
	d.mu.Unlock()
	d.wakeWaiting()
}

// inputs gathers what the algorithm needs for a shoot besides the snapshot.
func (d *Descheduler) inputs(shoot *v1alpha1.Shoot) algorithm.Inputs {
	name := algorithm.CloudProfileNameOf(shoot)
	in := algorithm.Inputs{Config: d.algo}
	if cp, err := d.cloudProfiles.Get(name); err == nil {
		in.CloudProfile = cp
	}
	if cms, err := d.configMaps.List(labels.Everything()); err == nil {
		in.RegionConfigMap = algorithm.SelectRegionConfigMap(name, cms)
	}
	return in
}

// withSeed returns a shallow copy of the shoot bound to seed ("" for none),
// for hypothetical placements in a pass's snapshots.
func withSeed(shoot *v1alpha1.Shoot, seed string) *v1alpha1.Shoot {
	c := *shoot
	if seed == "" {
		c.Spec.SeedName = nil
	} else {
		c.Spec.SeedName = &seed
	}
	return &c
}

// shootRef and seedRef are what Events are recorded on: references carry the
// kind, which informer objects do not.
func shootRef(s *v1alpha1.Shoot) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Shoot",
		Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
	}
}

func seedRef(s *v1alpha1.Seed) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Seed",
		Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
	}
}
