package descheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/comehome"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/noexecutetaints"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/overcapacity"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/rebalance"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// Event reasons the descheduler emits.
const (
	// EventDescheduled is emitted on the shoot for each eviction, and on the
	// seed once per pass for the shoots the pass evicted from it.
	EventDescheduled = "Descheduled"
	// EventWouldDeschedule is emitted on the shoot in dry-run mode.
	EventWouldDeschedule = "WouldDeschedule"
	// EventEvictionSkipped is emitted on the shoot when requireFit holds it back.
	EventEvictionSkipped = "EvictionSkipped"
	// EventEvictionDeferred is emitted on the shoot when its move waits for
	// its maintenance window or deadline.
	EventEvictionDeferred = "EvictionDeferred"
	// EventMoveStuck is emitted on the shoot and the seed it left when its
	// move is stuck: a migration failed or in flight past migrationTimeout,
	// or an evicted shoot no seed has taken for that long.
	EventMoveStuck = "MoveStuck"
)

// DefaultRegistry returns the registry of graft's descheduler plugins.
func DefaultRegistry() framework.Registry {
	r := framework.Registry{}
	noexecutetaints.Register(r)
	overcapacity.Register(r)
	rebalance.Register(r)
	comehome.Register(r)
	return r
}

// Descheduler evicts shoots from seeds that must not host them any more.
// Create it with New, start it with Run.
type Descheduler struct {
	cfg     *configv1alpha1.DeschedulerConfiguration
	api     garden.API
	garden  garden.Client
	kube    kubernetes.Interface
	runner  *component.Runner
	metrics *Metrics
	clock   clock.WithTicker
	plugins []framework.Plugin
	algo    algorithm.Config
	gate    *gate
	ev      *evictor

	state *state
	// toMove publishes the shoots picked to move and not evicted, deferred
	// those whose move waits for a window or deadline.
	toMove   *remaining
	deferred *remaining
	queue    workqueue.TypedRateLimitingInterface[string]

	informers     garden.Informers
	regionConfigs *garden.RegionConfigs
	inputsBuilder *algorithm.InputsBuilder
	synced        []cache.InformerSynced

	// sim is set for a planner's descheduler (planner.go): it writes the
	// moves and taint stamps into the planner's copy of the landscape.
	sim *planner
	// watcher, where set, is told what each pass decides (a planner's, a
	// drain's).
	watcher passWatcher
	// scope is the one seed a drain looks at; "" for every seed.
	scope string
}

// passWatcher is told what a pass decides of a seed's candidates: that it
// looks at the seed's moves anew, each move the gate refused, and each it
// admitted (before it is written).
type passWatcher interface {
	looked(seed string)
	refused(plugin, seed string, shoot *v1alpha1.Shoot, no *refusal)
	admitted(e eviction)
}

// New returns a descheduler for a defaulted and validated configuration:
// its runner, Event recorder, metrics and informers. Run starts it.
func New(cfg *configv1alpha1.DeschedulerConfiguration, clients component.Clients, opts Options) (*Descheduler, error) {
	if cfg == nil || clients.Kubernetes == nil {
		return nil, errors.New("descheduler: a configuration and the Kubernetes client are required")
	}
	// Every informer drops what no code path reads (cachetrim): at 100,000
	// shoots the shoot cache is most of the descheduler's memory.
	client, informers, err := garden.Open(string(cfg.API), clients, nil, cachetrim.Transform)
	if err != nil {
		return nil, fmt.Errorf("descheduler: %w", err)
	}
	d, err := build(cfg, client, informers, clients.Kubernetes, opts)
	if err != nil {
		return nil, err
	}
	// Each eviction emits two Events; enough writers keep them off the
	// eviction's path.
	d.runner = component.NewRunner(Name, cfg.CommonConfiguration, clients, component.RunnerOptions{
		Identity: opts.Identity, EventWriters: max(2, int(cfg.ConcurrentEvictions)), EventFlushTimeout: 5 * time.Second,
	})
	d.ev.recorder = d.runner.Recorder
	d.runner.Server.AddInformersSyncedCheck(d.Ready)
	trackInformers(clients.Fence, d)
	return d, nil
}

// build returns the descheduler's engine over a garden's client and
// informers: its state, gate, evictor, plugins and queue, with the informer
// handlers registered; the caller gives it an Event recorder and runs it
// (Run in the daemon, Drain from graftctl).
func build(cfg *configv1alpha1.DeschedulerConfiguration, client garden.Client, informers garden.Informers, kube kubernetes.Interface, opts Options) (*Descheduler, error) {
	api := client.API()
	if cfg.RegionConfigNamespace == "" {
		// Empty would watch every namespace and let tenants steer requireFit.
		return nil, errors.New("descheduler: regionConfigNamespace is empty")
	}
	registry := opts.Plugins
	if registry == nil {
		registry = DefaultRegistry()
	}
	plugins, err := registry.Build(cfg.Plugins)
	if err != nil {
		return nil, err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	metrics, err := metricsFor(opts.Registry)
	if err != nil {
		return nil, fmt.Errorf("descheduler: registering metrics: %w", err)
	}
	d := &Descheduler{
		cfg:       cfg,
		api:       api,
		garden:    client,
		informers: informers,
		kube:      kube,
		metrics:   metrics,
		clock:     clk,
		plugins:   plugins,
		algo:      schedulingconfig.FromComponentConfig(cfg.Strategy, cfg.ScoreWeights),
		state:     newState(),
		toMove:    newRemaining(metrics.ToMove),
		deferred:  newRemaining(metrics.Deferred),
		// Named, so that client-go's workqueue metrics carry it.
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: queueName, Clock: clk}),
	}
	if err := d.algo.Validate(); err != nil {
		return nil, fmt.Errorf("descheduler: %w", err)
	}
	d.metrics.zeroSeries(d.pluginNames())
	d.ev = newEvictor(cfg, api, metrics, clk, d.state)
	d.ev.garden, d.ev.mover = client, client.Mover()
	d.gate = newGate(cfg, clk, d.state, metrics, d.queue, &d.ev.records, churnLimitsOf(plugins), d.ev)
	d.ev.gate = d.gate
	d.configureState()

	// Region ConfigMaps count only in their one namespace, as for the
	// scheduler: a tenant's ConfigMap must not change what requireFit finds.
	d.regionConfigs = garden.NewRegionConfigs(kube, cfg.RegionConfigNamespace)
	d.inputsBuilder = &algorithm.InputsBuilder{Landscape: garden.NewView(api, d.informers, d.regionConfigs), Config: d.algo}
	if err := d.watch(); err != nil {
		return nil, err
	}
	return d, nil
}

// newEvictor builds the evictor that writes the moves the gate admits, once
// given its client and mover.
func newEvictor(cfg *configv1alpha1.DeschedulerConfiguration, api garden.API, metrics *Metrics, clk clock.WithTicker, st *state) *evictor {
	return &evictor{
		cfg: cfg, api: api, metrics: metrics, clock: clk, state: st,
		skipped: map[string]string{}, liveRefused: map[string]struct{}{},
		liveFlow:    algorithm.LiveFlow{Declared: sets.New(cfg.LiveMigrationGardenletVersions...), Observed: sets.New[string](), FellBack: sets.New[string]()},
		liveWritten: map[string]liveWrite{}, livePublish: make(chan struct{}, 1),
		records: newRecordKey(),
	}
}

// configureState gives the state the configuration's view of which shoots are
// the descheduler's and how it is told about pending evictions.
func (d *Descheduler) configureState() {
	cfg, st := d.cfg, d.state
	st.spread = len(d.gate.churn) > 0
	st.moves = d.api.Moves()
	if t := cfg.MigrationTimeout; t != nil {
		st.migrationTimeout = t.Duration
	}
	if len(cfg.SchedulerNames) > 0 {
		st.schedulers = sets.New(cfg.SchedulerNames...)
	}
	if len(cfg.MoveSchedulerNames) > 0 {
		st.movable = sets.New(cfg.MoveSchedulerNames...)
	}
	plugins := d.plugins
	st.actsOn = func(facts *framework.SeedState) bool { return actsOn(plugins, facts) }
	st.onPendingDrop = d.gate.wakeWaiting
	st.onPendingChange = func(n int) { d.metrics.PendingEvicted.Set(float64(n)) }
}

// watch registers the informer handlers that build the state and wake held
// seeds, and records what Ready waits for.
func (d *Descheduler) watch() error {
	seeds, shoots, profiles := d.informers.Seeds().Informer, d.informers.Shoots().Informer, d.informers.CloudProfiles().Informer
	cms := d.regionConfigs.ConfigMaps().Informer
	nsProfiles := d.informers.NamespacedCloudProfiles()
	// The state passes read is built by the seed and shoot handlers: synced
	// means they have been given every object of the first list, not only
	// that the informers' stores hold them, or a first pass (the only one
	// with interval 0) could judge a seed without all its shoots.
	seedsReg, err := seeds.AddEventHandler(upsertHandler(d.onSeed, d.onSeedDelete))
	if err != nil {
		return fmt.Errorf("watching seeds: %w", err)
	}
	shootsReg, err := shoots.AddEventHandler(upsertHandler(d.onShoot, d.onShootDelete))
	if err != nil {
		return fmt.Errorf("watching shoots: %w", err)
	}
	d.synced = []cache.InformerSynced{seedsReg.HasSynced, shootsReg.HasSynced, profiles.HasSynced, nsProfiles.Informer.HasSynced, cms.HasSynced}
	for _, indexed := range d.informers.Indexed() {
		// Read through the index only (the default-domain rule's Projects).
		reg, err := indexed.Informer.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		if err != nil {
			return fmt.Errorf("watching %s: %w", indexed.Resource, err)
		}
		d.synced = append(d.synced, reg.HasSynced)
	}
	// A new cloud profile or region ConfigMap can make a held-back shoot fit.
	wake := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { d.gate.wakeWaiting() },
		UpdateFunc: func(any, any) { d.gate.wakeWaiting() },
	}
	if _, err := profiles.AddEventHandler(wake); err != nil {
		return fmt.Errorf("watching cloud profiles: %w", err)
	}
	if _, err := nsProfiles.Informer.AddEventHandler(wake); err != nil {
		return fmt.Errorf("watching NamespacedCloudProfiles: %w", err)
	}
	if _, err := cms.AddEventHandler(wake); err != nil {
		return fmt.Errorf("watching region ConfigMaps: %w", err)
	}
	return nil
}

// SchedulingConfiguration is the strategy and score weights requireFit asks
// the algorithm with.
func (d *Descheduler) SchedulingConfiguration() algorithm.Config { return d.algo }

// actsOn reports whether some plugin may act on a seed, from the seed's own
// facts: a plugin that cannot tell (no framework.SeedFilter) may.
func actsOn(plugins []framework.Plugin, facts *framework.SeedState) bool {
	for _, p := range plugins {
		if f, ok := p.(framework.SeedFilter); !ok || f.ActsOn(facts) {
			return true
		}
	}
	return false
}

// upsertHandler hands adds and updates to upsert, an add as an update from
// nothing (old is nil), and deletes to onDelete.
func upsertHandler(upsert func(old, obj any), onDelete func(obj any)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { upsert(nil, obj) },
		UpdateFunc: upsert,
		DeleteFunc: onDelete,
	}
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

// startInformers starts the informers without descheduling, so that a
// standby replica keeps its view (and the times taints were first seen) warm.
// Stop them by ending ctx.
func (d *Descheduler) startInformers(ctx context.Context) error {
	d.informers.Start(ctx.Done())
	d.regionConfigs.Start(ctx.Done())
	return nil
}

// shutdownInformers waits for the informers to stop; end their context first.
func (d *Descheduler) shutdownInformers() {
	d.informers.Shutdown()
	d.regionConfigs.Shutdown()
}

// deschedule runs while leading: it waits for the informers, then
// deschedules until ctx ends. With interval 0 it makes one pass over every
// seed and returns.
func (d *Descheduler) deschedule(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("descheduler")
	ctx = klog.NewContext(ctx, logger)
	defer d.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), d.synced...) {
		return fmt.Errorf("descheduler: informers did not sync: %w", ctx.Err())
	}
	key, err := loadRecordKey(ctx, d.kube, d.cfg.LeaderElection.ResourceNamespace, d.cfg.DryRun)
	if err != nil {
		return fmt.Errorf("descheduler: %w", err)
	}
	d.ev.records = key
	d.gate.recallChurn(d.state.eachShoot)
	if p := d.liveLease(); p != nil {
		recalled := d.recallLiveFlow(ctx, p)
		if !d.cfg.DryRun {
			go d.publishLiveFlow(ctx, p)
			if recalled {
				// The record now says this leader's declaration.
				d.ev.liveChanged()
			}
		}
	}
	go d.publishConfiguration(ctx)
	logger.Info("Descheduler started", "dryRun", d.cfg.DryRun, "interval", d.cfg.Interval.Duration, "plugins", d.pluginNames())

	if d.cfg.Interval.Duration == 0 {
		d.pass(ctx, d.state.seedNames(), true)
		return nil
	}
	for _, name := range d.state.seedNames() {
		d.queue.Add(name)
	}
	go d.tick(ctx, d.state.seedNames)
	go func() {
		<-ctx.Done()
		d.queue.ShutDown()
	}()
	d.runWorker(ctx)
	return nil
}

// tick starts a new pass window every interval and queues the seeds named,
// until ctx ends.
func (d *Descheduler) tick(ctx context.Context, seeds func() []string) {
	ticker := d.clock.NewTicker(d.cfg.Interval.Duration)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			d.gate.newWindow()
			for _, name := range seeds() {
				d.queue.Add(name)
			}
		}
	}
}

// runWorker processes queued seeds until the queue shuts down. There is one
// worker: a pass decides about several seeds at once, within budgets shared
// by all of them, so the queue is taken in batches rather than a key at a
// time by component.RunWorkers.
func (d *Descheduler) runWorker(ctx context.Context) {
	for d.processNextWorkItem(ctx) {
	}
}

func (d *Descheduler) pluginNames() []string {
	out := make([]string, 0, len(d.plugins))
	for _, p := range d.plugins {
		out = append(out, p.Name())
	}
	return out
}

// processNextWorkItem takes every queued seed and hands them to
// syncHandler together; false once the queue shut down or descheduling
// stopped.
func (d *Descheduler) processNextWorkItem(ctx context.Context) bool {
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
	d.syncHandler(ctx, keys)
	for _, k := range keys {
		d.queue.Done(k)
	}
	return ctx.Err() == nil
}

// syncHandler makes one pass over the given seeds. The pass queues again,
// with AddAfter, the seeds it must look at later (a failed eviction, a
// toleration running out).
func (d *Descheduler) syncHandler(ctx context.Context, seeds []string) {
	d.pass(ctx, seeds, false)
}

func (d *Descheduler) onSeed(oldObj, obj any) {
	seed, ok := obj.(*v1alpha1.Seed)
	if !ok {
		return
	}
	old, _ := oldObj.(*v1alpha1.Seed)
	if d.state.setSeed(old, seed, d.clock.Now()) {
		d.gate.queue.Add(seed.Name)
	}
	d.gate.wakeWaiting()
}

func (d *Descheduler) onSeedDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		d.state.removeSeed(t.Key)
		d.toMove.dropSeed(t.Key)
		d.deferred.dropSeed(t.Key)
		return
	}
	if seed, ok := obj.(*v1alpha1.Seed); ok {
		d.state.removeSeed(seed.Name)
		d.toMove.dropSeed(seed.Name)
		d.deferred.dropSeed(seed.Name)
	}
}

func (d *Descheduler) onShoot(oldObj, obj any) {
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok {
		return
	}
	d.state.setShoot(shoot, d.clock.Now(), false)
	d.ev.liveObserved(shoot)
	if old, ok := oldObj.(*v1alpha1.Shoot); ok && !samePlacement(old, shoot) {
		d.gate.wakeWaiting()
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
	d.ev.forget(key)
	d.gate.wakeWaiting()
}

// inputs gathers what the algorithm needs for a shoot besides the snapshot.
// A shoot whose cloud profile is not (yet) known is decided without one: the
// algorithm then finds it fits nowhere, which holds its eviction back.
func (d *Descheduler) inputs(shoot *v1alpha1.Shoot) algorithm.Inputs {
	in, _ := d.inputsBuilder.Inputs(shoot)
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
