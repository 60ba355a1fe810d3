package capacity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// Event reasons of the forecast's scaler, on the ManagedSeedSet.
const (
	ReasonScaledOut       = "ScaledOut"
	ReasonScaledIn        = "ScaledIn"
	ReasonWouldScale      = "WouldScale"
	ReasonScaleOutAtMax   = "ScaleOutAtMax"
	ReasonCordonedToScale = "CordonedForScaleIn"
	ReasonUncordoned      = "UncordonedForDemand"
	ReasonScaleFailed     = "ScaleFailed"
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
	set      *configv1alpha1.ManagedSeedSetScaling
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

	lowSince   map[string]time.Time
	atMax      map[string]bool
	cordonedAt map[string]time.Time
	// reported is, per pool, the last dry-run step or failure reported, so
	// that one that repeats every period is reported once.
	reported map[string]string
}

func newForecaster(cfg *configv1alpha1.CapacityAnnotatorConfiguration, client garden.Client, sets *garden.ManagedSeedSets, kube kubernetes.Interface,
	informers garden.Informers, recorder record.EventRecorder, m *annotatorMetrics, clk clock.WithTicker,
	leases kubernetes.Interface, elector *leadership.Elector) (*forecaster, error) {
	f := &forecaster{
		cfg: cfg.Forecast, api: client.API(), client: client, sets: sets, kube: kube, informers: informers,
		seeds:    listers.NewSeedLister(informers.Seeds().Informer.GetIndexer()),
		shoots:   cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc),
		recorder: recorder, metrics: m, clock: clk,
		lowSince: map[string]time.Time{}, atMax: map[string]bool{}, cordonedAt: map[string]time.Time{}, reported: map[string]string{},
	}
	for _, p := range cfg.Pools {
		sel, err := metav1.LabelSelectorAsSelector(&p.SeedSelector)
		if err != nil {
			return nil, fmt.Errorf("pool %s: seedSelector: %w", p.Name, err)
		}
		f.pools = append(f.pools, pool{name: p.Name, selector: sel, set: p.ManagedSeedSet})
		if p.ManagedSeedSet != nil && sets == nil {
			return nil, fmt.Errorf("pool %s: scaling a ManagedSeedSet needs Gardener's API", p.Name)
		}
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
	informers.Projects()
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
	if projects, ok := f.informers.Projects(); ok {
		synced = append(synced, projects.Informer.HasSynced)
	}
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return nil
	}
	if f.publish != nil {
		go func() { _ = f.publish.Run(ctx) }() // logs its outcome; forecasting does not depend on it
		f.recallDepartures(ctx)
	}
	log.Info("Forecasting", "strategy", published.Strategy, "window", f.cfg.Window.Duration, "horizon", f.cfg.Horizon.Duration, "pools", len(f.pools))
	wait.NonSlidingUntilWithContext(ctx, func(ctx context.Context) { f.tick(klog.NewContext(ctx, log)) }, f.cfg.Period.Duration)
	return nil
}

// tick computes one forecast, publishes it and steps the scaled pools.
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
	for _, p := range f.pools {
		if p.set == nil {
			continue
		}
		pool := forecast.Pool{Kind: forecast.KindPool, Name: p.name}
		i := slices.IndexFunc(summaries, func(s forecast.Summary) bool { return s.Pool == pool })
		s := forecast.Summary{Pool: pool} // a pool without seeds
		if i >= 0 {
			s = summaries[i]
		}
		if err := f.scale(ctx, p, s, seeds, bySeed, now); err != nil {
			klog.FromContext(ctx).Error(err, "Scaling the pool's ManagedSeedSet", "pool", p.name, "managedSeedSet", p.set.Namespace+"/"+p.set.Name)
		}
	}
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

// scale decides and takes one step of a pool's ManagedSeedSet.
func (f *forecaster) scale(ctx context.Context, p pool, s forecast.Summary, seeds []*v1alpha1.Seed, usage map[string]int, now time.Time) error {
	log := klog.FromContext(ctx).WithValues("pool", p.name, "managedSeedSet", klog.KRef(p.set.Namespace, p.set.Name))
	set, err := f.sets.Get(ctx, p.set.Namespace, p.set.Name)
	if err != nil {
		return fmt.Errorf("reading the ManagedSeedSet: %w", err)
	}
	facts := setFacts{Replicas: set.Replicas, Pool: s}
	if at, ok := set.Annotations[AnnotationScaledAt]; ok {
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			facts.ScaledAt = t
		}
	}
	for _, seed := range seeds {
		ordinal, ok := parseReplica(p.set.Name, seed.Name)
		if !ok || !p.selector.Matches(labels.Set(seed.Labels)) {
			continue
		}
		r := replica{Name: seed.Name, Ordinal: ordinal, Usage: usage[seed.Name], Deleting: seed.DeletionTimestamp != nil}
		r.Ready = helper.SeedUnusableReason(seed) == ""
		if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
			r.Allocatable = q.Value()
		}
		for _, t := range seed.Spec.Taints {
			if t.Key == TaintScaleIn {
				r.Cordoned = true
			}
		}
		if r.Cordoned {
			if _, ok := f.cordonedAt[seed.Name]; !ok {
				f.cordonedAt[seed.Name] = now // after a restart: settle again
			}
			r.CordonedAt = f.cordonedAt[seed.Name]
		} else {
			delete(f.cordonedAt, seed.Name)
		}
		facts.Seeds = append(facts.Seeds, r)
	}
	horizon := f.cfg.Horizon.Duration
	if isLow(facts, p.set, horizon) {
		if f.lowSince[p.name].IsZero() {
			f.lowSince[p.name] = now
		}
	} else {
		delete(f.lowSince, p.name)
	}
	facts.LowSince = f.lowSince[p.name]
	st := decideStep(facts, p.set, horizon, now)
	f.metrics.SetSet(p.name, facts.Replicas, p.set, st)

	ref := set.Ref()
	atMax := st.Waiting == waitAtMax
	if atMax && !f.atMax[p.name] {
		f.recorder.Eventf(ref, corev1.EventTypeWarning, ReasonScaleOutAtMax,
			"The pool needs another seed (%s) but the set is at maxReplicas %d", st.Reason, p.set.MaxReplicas)
	}
	f.atMax[p.name] = atMax
	if st.Kind == stepNone {
		delete(f.reported, p.name)
		return nil
	}
	if p.set.DryRun {
		// The same decision comes every period while nothing changes: it is
		// reported and counted once.
		what := "dry run: " + describeStep(st, facts.Replicas)
		if f.reported[p.name] == what {
			return nil
		}
		f.reported[p.name] = what
		log.Info("Dry run: would step the ManagedSeedSet", "step", st.Kind, "replicas", st.To, "seed", st.Seed, "reason", st.Reason)
		f.recorder.Eventf(ref, corev1.EventTypeNormal, ReasonWouldScale, "Dry run: would %s: %s", describeStep(st, facts.Replicas), st.Reason)
		f.metrics.Stepped(p.name, st.Kind, stepResultDryRun)
		return nil
	}
	switch st.Kind {
	case stepOut, stepIn:
		err = f.setReplicas(ctx, set, facts.Replicas, st, now)
	case stepCordon, stepUncordon:
		err = f.cordon(ctx, st.Seed, st.Kind == stepCordon)
		if err == nil && st.Kind == stepCordon {
			f.cordonedAt[st.Seed] = now
		}
	}
	if err != nil {
		f.metrics.Stepped(p.name, st.Kind, stepResultError)
		if apierrors.IsConflict(err) {
			// Changed since it was read: decided again next period.
			log.V(2).Info("The ManagedSeedSet or seed changed while stepping, deciding again", "step", st.Kind, "err", err.Error())
			return nil
		}
		if what := "failed: " + describeStep(st, facts.Replicas) + ": " + err.Error(); f.reported[p.name] != what {
			f.reported[p.name] = what
			f.recorder.Eventf(ref, corev1.EventTypeWarning, ReasonScaleFailed, "Could not %s: %v", describeStep(st, facts.Replicas), err)
		}
		return err
	}
	delete(f.reported, p.name)
	f.metrics.Stepped(p.name, st.Kind, stepResultDone)
	log.Info("Stepped the ManagedSeedSet", "step", st.Kind, "replicas", st.To, "seed", st.Seed, "reason", st.Reason)
	reason := map[stepKind]string{stepOut: ReasonScaledOut, stepIn: ReasonScaledIn, stepCordon: ReasonCordonedToScale, stepUncordon: ReasonUncordoned}[st.Kind]
	f.recorder.Eventf(ref, corev1.EventTypeNormal, reason, "%s: %s", upperFirst(describeStep(st, facts.Replicas)), st.Reason)
	return nil
}

func describeStep(st step, from int32) string {
	switch st.Kind {
	case stepOut:
		return fmt.Sprintf("scale out from %d to %d replicas", from, st.To)
	case stepIn:
		return fmt.Sprintf("scale in from %d to %d replicas (seed %s goes)", from, st.To, st.Seed)
	case stepCordon:
		return fmt.Sprintf("cordon seed %s before scaling in", st.Seed)
	case stepUncordon:
		return fmt.Sprintf("uncordon seed %s", st.Seed)
	}
	return "do nothing"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// setReplicas writes the set's spec.replicas and the step's annotations,
// preconditioned on the resourceVersion read: a set changed meanwhile (by
// an operator, or a leader that lost its lease) is decided again next time.
func (f *forecaster) setReplicas(ctx context.Context, set *garden.ManagedSeedSet, from int32, st step, now time.Time) error {
	return f.sets.Scale(ctx, set, st.To, map[string]string{
		AnnotationScaledAt: now.UTC().Format(time.RFC3339),
		AnnotationScaled:   fmt.Sprintf("%s %d to %d", st.Kind, from, st.To),
	}, FieldManager)
}

// cordon adds or removes TaintScaleIn on a seed, preconditioned on the
// seed's resourceVersion.
func (f *forecaster) cordon(ctx context.Context, name string, add bool) error {
	seed, err := f.client.GetSeed(ctx, name)
	if err != nil {
		return err
	}
	var taints []v1alpha1.SeedTaint
	for _, t := range seed.Spec.Taints {
		if t.Key != TaintScaleIn {
			taints = append(taints, t)
		}
	}
	if add {
		taints = append(taints, v1alpha1.SeedTaint{Key: TaintScaleIn, Effect: v1alpha1.TaintEffectNoSchedule})
	}
	data, err := f.api.TaintsPatch(seed, taints)
	if err != nil {
		return err
	}
	_, err = f.client.PatchSeed(ctx, name, data, metav1.PatchOptions{FieldManager: FieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
