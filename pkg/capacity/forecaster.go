package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	listers "github.com/graft-dev/client-go/listers/core/v1alpha1"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/capacity/poolscaler"
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// publishedPoll is how often the forecast looks for graft-scheduler's
// published scheduling configuration until there is one.
const publishedPoll = 5 * time.Second

// unusablePublishedRetry is how long the forecast waits before reading a
// published configuration again that this build could not use.
const unusablePublishedRetry = time.Minute

// pool is one configured pool.
type pool struct {
	name     string
	selector labels.Selector
}

// forecaster computes the forecast every period and steps the pools'
// ManagedSeedSets. It runs while the annotator leads.
type forecaster struct {
	cfg       configv1alpha1.ForecastConfiguration
	pools     []pool
	api       garden.API
	client    garden.Client
	sets      *garden.ManagedSeedSets
	kube      kubernetes.Interface
	informers garden.Informers
	seeds     listers.SeedLister
	// shoots is the forecast's view of the shoots, fed by the same event
	// handler as departures: a shoot deleted and recreated is never seen
	// recreated before its deletion is a departure (the informer's own
	// store is updated before its handlers run).
	shoots   cache.Store
	recorder record.EventRecorder
	metrics  *annotatorMetrics
	clock    clock.WithTicker

	// inputs and schedulerName are set once the published scheduling
	// configuration was read.
	inputs        *algorithm.InputsBuilder
	schedulerName string

	// publish writes the forecast's configuration onto the annotator's
	// Lease, publishDepartures the departures within the window (each
	// period); nil without leader election.
	publish, publishDepartures *leadership.Publisher
	// departures are the placed shoots deleted within the window, seen by
	// this replica's informer (leading or not) or published by a leader.
	departures forecast.Departures

	// scaler steps the pools' ManagedSeedSets after each forecast, on its
	// own goroutine while leading; nil when no pool has one.
	scaler *poolscaler.Loop
}

func newForecaster(cfg *configv1alpha1.CapacityAnnotatorConfiguration, client garden.Client, sets *garden.ManagedSeedSets, kube kubernetes.Interface,
	informers garden.Informers, recorder record.EventRecorder, m *annotatorMetrics, clk clock.WithTicker,
	leases kubernetes.Interface, elector *leadership.Elector) (*forecaster, error) {
	f := &forecaster{
		cfg: cfg.Forecast, api: client.API(), client: client, sets: sets, kube: kube, informers: informers,
		seeds:    listers.NewSeedLister(informers.Seeds().Informer.GetIndexer()),
		shoots:   cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc),
		recorder: recorder, metrics: m, clock: clk,
	}
	var scaled []poolscaler.Pool
	for _, p := range cfg.Pools {
		sel, err := metav1.LabelSelectorAsSelector(&p.SeedSelector)
		if err != nil {
			return nil, fmt.Errorf("pool %s: seedSelector: %w", p.Name, err)
		}
		f.pools = append(f.pools, pool{name: p.Name, selector: sel})
		if p.ManagedSeedSet == nil {
			continue
		}
		if sets == nil {
			return nil, fmt.Errorf("pool %s: scaling a ManagedSeedSet needs Gardener's API", p.Name)
		}
		scaled = append(scaled, poolscaler.Pool{Name: p.Name, Selector: sel, Set: p.ManagedSeedSet})
	}
	if len(scaled) > 0 {
		r := poolscaler.New(poolscaler.Options{Sets: sets, Client: client, FieldManager: FieldManager, Recorder: recorder, Metrics: m, Horizon: cfg.Forecast.Horizon.Duration})
		f.scaler = poolscaler.NewLoop(r, scaled)
	}
	published := forecast.Published{Window: cfg.Forecast.Window, Horizon: cfg.Forecast.Horizon}
	for _, p := range cfg.Pools {
		pp := forecast.PublishedPool{Name: p.Name, SeedSelector: p.SeedSelector}
		if m := p.ManagedSeedSet; m != nil {
			pp.ManagedSeedSet = &forecast.PublishedSet{Namespace: m.Namespace, Name: m.Name, MinReplicas: m.MinReplicas,
				MaxReplicas: m.MaxReplicas, ScaleIn: m.ScaleIn.Enabled, DryRun: m.DryRun}
		}
		published.Pools = append(published.Pools, pp)
	}
	if le := cfg.LeaderElection; configv1alpha1.IsLeaderElectionEnabled(le) && elector != nil {
		value, err := published.Encode()
		if err != nil {
			return nil, fmt.Errorf("encoding the forecast configuration: %w", err)
		}
		f.publish = &leadership.Publisher{Leases: leases.CoordinationV1(), Namespace: le.ResourceNamespace, Name: le.ResourceName,
			Identity: elector.Identity, Annotation: forecast.Annotation, Value: value, What: "the forecast configuration"}
		f.publishDepartures = &leadership.Publisher{Leases: leases.CoordinationV1(), Namespace: le.ResourceNamespace, Name: le.ResourceName,
			Identity: elector.Identity, Annotation: forecast.DeparturesAnnotation, What: "the forecast's departures"}
	}
	if _, err := informers.Shoots().Informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { _ = f.shoots.Add(obj) },
		UpdateFunc: func(_, obj any) { _ = f.shoots.Update(obj) },
		DeleteFunc: f.departed,
	}); err != nil {
		return nil, fmt.Errorf("watching shoots for the forecast: %w", err)
	}
	// Asked for before the informers start, so that they start together.
	informers.CloudProfiles()
	informers.NamespacedCloudProfiles()
	informers.Indexed()
	return f, nil
}

// Run reads graft-scheduler's published configuration (waiting for it, and
// saying why, as long as it takes; one it cannot use is logged and read
// again later, and never stops the annotator), starts the informers the
// algorithm needs, then computes the forecast every period until ctx ends.
func (f *forecaster) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("forecast")
	ref := f.cfg.SchedulerLease
	var published schedulingconfig.Published
	for {
		var err error
		published, _, err = schedulingconfig.Wait(ctx, f.kube.CoordinationV1(), ref.Namespace, ref.Name, Name, publishedPoll, 0, log)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		// One this build cannot use (a newer scheduler's): no forecast, but
		// capacity and usage are still kept; look again now and then.
		log.Error(err, "No forecast: graft-scheduler's scheduling configuration cannot be used", "retryIn", unusablePublishedRetry)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(unusablePublishedRetry):
		}
	}
	regions := garden.NewRegionConfigs(f.kube, published.RegionConfigNamespace)
	f.inputs = &algorithm.InputsBuilder{Landscape: garden.NewView(f.api, f.informers, regions), Config: published.Config()}
	f.schedulerName = published.SchedulerName
	regions.Start(ctx.Done())
	defer regions.Shutdown()
	f.informers.Start(ctx.Done())
	synced := []cache.InformerSynced{regions.ConfigMaps().Informer.HasSynced,
		f.informers.CloudProfiles().Informer.HasSynced, f.informers.NamespacedCloudProfiles().Informer.HasSynced}
	for _, indexed := range f.informers.Indexed() {
		synced = append(synced, indexed.Informer.HasSynced)
	}
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return nil
	}
	if f.publish != nil {
		go func() { _ = f.publish.Run(ctx) }() // logs its outcome; forecasting does not depend on it
		f.recallDepartures(ctx)
	}
	if f.scaler != nil {
		go f.scaler.Run(klog.NewContext(ctx, log))
	}
	log.Info("Forecasting", "strategy", published.Strategy, "window", f.cfg.Window.Duration, "horizon", f.cfg.Horizon.Duration, "pools", len(f.pools))
	wait.NonSlidingUntilWithContext(ctx, func(ctx context.Context) { f.tick(klog.NewContext(ctx, log)) }, f.cfg.Period.Duration)
	return nil
}

// tick computes one forecast, publishes it and hands it to the scaler.
func (f *forecaster) tick(ctx context.Context) {
	now := f.clock.Now()
	seeds, err := f.seeds.List(labels.Everything())
	if err != nil {
		klog.FromContext(ctx).Error(err, "Listing seeds for the forecast")
		return
	}
	departures := f.departures.Within(now, f.cfg.Window.Duration)
	summaries, bySeed := f.compute(now, seeds, f.shoots.List(), departures)
	f.metrics.SetPools(summaries, f.cfg.Horizon.Duration)
	f.publishDeparted(ctx, departures)
	if f.scaler == nil {
		return
	}
	byPool := map[string]forecast.Summary{}
	for _, s := range summaries {
		if s.Kind == forecast.KindPool {
			byPool[s.Name] = s
		}
	}
	f.scaler.Forecast(poolscaler.Forecast{Now: now, Summaries: byPool, Seeds: seeds, Usage: bySeed})
}

// departed records a placed shoot's deletion (forecast.Departure).
func (f *forecaster) departed(obj any) {
	_ = f.shoots.Delete(obj)
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok || !helper.ShootBound(shoot) {
		return
	}
	f.departures.Add(forecast.Departure{UID: shoot.UID, Seed: *shoot.Spec.SeedName, Created: shoot.CreationTimestamp.Time, Deleted: f.clock.Now()})
}

// recallDepartures adds the departures the last leader published, so that
// a restart or a new leader does not read recreated shoots as growth.
func (f *forecaster) recallDepartures(ctx context.Context) {
	p := f.publishDepartures
	lease, err := p.Leases.Leases(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reading the published departures; the forecast counts only those this replica sees")
		return
	}
	value, ok := lease.Annotations[forecast.DeparturesAnnotation]
	if !ok {
		return
	}
	list, err := forecast.DecodeDepartures(value)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Published departures ignored")
		return
	}
	for _, dep := range list {
		f.departures.Add(dep)
	}
}

// publishDeparted publishes the departures within the window once per
// period; one that fails is tried again the next.
func (f *forecaster) publishDeparted(ctx context.Context, list []forecast.Departure) {
	p := f.publishDepartures
	if p == nil {
		return
	}
	value, err := forecast.EncodeDepartures(list)
	if err == nil {
		p.Value = value
		err = p.Publish(ctx)
	}
	if err != nil && !errors.Is(err, leadership.ErrNotHolder) && ctx.Err() == nil {
		klog.FromContext(ctx).V(1).Info("Could not publish the forecast's departures; next period", "err", err)
	}
}

// compute makes the forecast of the informers' objects (forecast.Make).
func (f *forecaster) compute(now time.Time, seeds []*v1alpha1.Seed, objs []any, departures []forecast.Departure) ([]forecast.Summary, map[string]int) {
	shoots := make([]*v1alpha1.Shoot, 0, len(objs))
	for _, obj := range objs {
		if shoot, ok := obj.(*v1alpha1.Shoot); ok {
			shoots = append(shoots, shoot)
		}
	}
	g := forecast.Garden{Now: now, Window: f.cfg.Window.Duration, Seeds: seeds, Shoots: shoots, Pools: f.selectors(), SchedulerName: f.schedulerName, Departures: departures}
	if f.inputs != nil {
		g.Inputs = f.inputs.Inputs
	}
	return forecast.Make(g)
}

func (f *forecaster) selectors() []forecast.Selector {
	out := make([]forecast.Selector, 0, len(f.pools))
	for _, p := range f.pools {
		out = append(out, forecast.Selector{Name: p.name, Selector: p.selector})
	}
	return out
}
