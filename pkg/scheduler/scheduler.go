package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	graftlisters "github.com/graft-dev/client-go/listers/core/v1alpha1"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// Name is the component's name: the Event source and the client's user agent.
const Name = "graft-scheduler"

// Event reasons.
const (
	// ReasonScheduled is the reason of the Event of a successful binding.
	ReasonScheduled = "Scheduled"
	// ReasonSchedulingFailed is the reason of the Warning Event when no seed fits.
	ReasonSchedulingFailed = "SchedulingFailed"
)

const (
	// initialBackoff and maxBackoff bound the retry delay of a shoot that could
	// not be scheduled, also when a change that may help requeues it.
	initialBackoff = time.Second
	maxBackoff     = time.Minute
	// assumeTTL is how long a written binding may stay unconfirmed by the
	// informer before the cache falls back to the informer's view.
	assumeTTL = 2 * time.Minute
	// maxDescriptionLength caps lastOperation.description (the long form
	// names every seed).
	maxDescriptionLength = 4096
)

// Options are what the in-process callers may change besides the configuration.
type Options struct {
	// Identity tells leader election replicas apart; empty means hostname plus a random suffix.
	Identity string
	// Registry receives the metrics; nil means the process's metrics in
	// component-base's legacy registry, which the /metrics endpoint serves.
	// Tests running several instances in one process may pass their own.
	Registry metrics.KubeRegistry
	// WrapShootHandler, when set, wraps the handler of shoot notifications
	// (tests hold notifications back with it, as a lagging informer would).
	WrapShootHandler func(cache.ResourceEventHandler) cache.ResourceEventHandler
	// Gardener is the client of Gardener's API; nil: one built from the
	// clients (tests pass a fake).
	Gardener garden.Dynamic
}

// Scheduler binds pending shoots to seeds. Create it with New, start it with Run.
type Scheduler struct {
	config    *configv1alpha1.SchedulerConfiguration
	algConfig algorithm.Config
	inputs    *algorithm.InputsBuilder
	clients   component.Clients
	runner    *component.Runner
	metrics   *schedulerMetrics
	// recorder is the runner's (tests replace it).
	recorder record.EventRecorder
	now      func() time.Time

	// informers and garden read seeds, shoots and cloud profiles and bind
	// shoots in graft's core.graft.dev or in a Gardener garden.
	informers     garden.Informers
	garden        garden.Client
	regionConfigs *garden.RegionConfigs
	shootLister   graftlisters.ShootLister
	synced        []cache.InformerSynced

	cache *schedulingCache
	queue workqueue.TypedRateLimitingInterface[string]
	// pool holds the shoots no seed fits until a change can help them.
	pool *unschedulablePool
}

// New returns a scheduler for a defaulted and validated configuration.
func New(cfg *configv1alpha1.SchedulerConfiguration, clients component.Clients, opts Options) (*Scheduler, error) {
	opts.Identity = replicaIdentity(opts.Identity) // publish.go needs it
	algConfig := schedulingconfig.FromComponentConfig(cfg.Strategy, cfg.ScoreWeights)
	if err := algConfig.Validate(); err != nil {
		return nil, fmt.Errorf("invalid scheduling configuration: %w", err)
	}
	if cfg.RegionConfigNamespace == "" {
		// Empty would watch every namespace and let tenants steer decisions.
		return nil, errors.New("invalid scheduling configuration: regionConfigNamespace is empty")
	}
	m, err := metricsFor(opts.Registry)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	m.zeroSeries()
	s := &Scheduler{
		config:    cfg,
		algConfig: algConfig,
		metrics:   m,
		clients:   clients,
		runner: component.NewRunner(Name, cfg.CommonConfiguration, clients, component.RunnerOptions{
			Identity: opts.Identity, EventWriters: int(cfg.ConcurrentSyncs), EventFlushTimeout: 10 * time.Second,
		}),
		now:   time.Now,
		cache: newSchedulingCache(),
		queue: newFairWorkQueue("graft_scheduler",
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](initialBackoff, maxBackoff)),
	}
	if s.runner.Recorder != nil {
		s.recorder = s.runner.Recorder
	}
	s.pool = newUnschedulablePool(func(key string, after time.Duration) {
		if after <= 0 {
			s.queue.Add(key)
		} else {
			s.queue.AddAfter(key, after)
		}
	}, s.admitsAlone, func() time.Time { return s.now() })

	if s.garden, s.informers, err = garden.Open(string(cfg.API), clients, opts.Gardener, cachetrim.Unbound); err != nil {
		return nil, fmt.Errorf("invalid scheduling configuration: %w", err)
	}
	api := s.garden.API()
	s.regionConfigs = garden.NewRegionConfigs(clients.Kubernetes, cfg.RegionConfigNamespace)
	shoots, seeds, profiles := s.informers.Shoots(), s.informers.Seeds(), s.informers.CloudProfiles()
	configMaps := s.regionConfigs.ConfigMaps()
	s.shootLister = graftlisters.NewShootLister(shoots.Informer.GetIndexer())
	nsProfiles := s.informers.NamespacedCloudProfiles()
	s.inputs = &algorithm.InputsBuilder{Landscape: garden.NewView(api, s.informers, s.regionConfigs), Config: algConfig}

	var shootHandler cache.ResourceEventHandler = cache.ResourceEventHandlerFuncs{AddFunc: s.onShootAdd, UpdateFunc: s.onShootUpdate, DeleteFunc: s.onShootDelete}
	if opts.WrapShootHandler != nil {
		shootHandler = opts.WrapShootHandler(shootHandler)
	}
	handlers := []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{shoots.Informer, shootHandler},
		{seeds.Informer, cache.ResourceEventHandlerFuncs{AddFunc: s.onSeedAdd, UpdateFunc: s.onSeedUpdate, DeleteFunc: s.onSeedDelete}},
		{profiles.Informer, cache.ResourceEventHandlerFuncs{AddFunc: s.onProfileAdd, UpdateFunc: s.onProfileUpdate}},
		{nsProfiles.Informer, cache.ResourceEventHandlerFuncs{AddFunc: s.onProfileAdd, UpdateFunc: s.onNamespacedProfileUpdate}},
		{configMaps.Informer, cache.ResourceEventHandlerFuncs{AddFunc: s.onConfigMapAdd, UpdateFunc: s.onConfigMapUpdate, DeleteFunc: s.onConfigMapDelete}},
	}
	indexed := s.informers.Indexed()
	for _, i := range indexed {
		// Read through the index only; a new Project needs no decision.
		handlers = append(handlers, struct {
			informer cache.SharedIndexInformer
			handler  cache.ResourceEventHandler
		}{i.Informer, cache.ResourceEventHandlerFuncs{}})
	}
	for _, h := range handlers {
		reg, err := h.informer.AddEventHandler(h.handler)
		if err != nil {
			return nil, fmt.Errorf("registering event handlers: %w", err)
		}
		s.synced = append(s.synced, reg.HasSynced)
	}
	s.runner.Server.AddInformersSyncedCheck(s.synced...)
	// After a gap in lease renewals, writes wait until these views are current.
	garden.Track(clients.Fence, append([]garden.Informer{shoots, seeds, profiles, nsProfiles, configMaps}, indexed...)...)
	return s, nil
}

// algorithmConfig translates the configuration into the algorithm's terms.
// HealthAddr is where /healthz and /readyz are served once Run started (nil when disabled).
func (s *Scheduler) HealthAddr() net.Addr { return s.runner.Server.HealthAddr() }

// MetricsAddr is where /metrics is served once Run started (nil when disabled).
func (s *Scheduler) MetricsAddr() net.Addr { return s.runner.Server.MetricsAddr() }

// IsLeader tells whether this instance holds the lease and schedules.
func (s *Scheduler) IsLeader() bool { return s.runner.Elector.IsLeader() }

// Run starts the informers and, while this instance holds the lease,
// schedules. It returns nil when ctx ends and leadership.ErrLeaseLost when
// the lease is lost (scheduling has stopped by then). A Scheduler runs once.
func (s *Scheduler) Run(ctx context.Context) error {
	defer s.queue.ShutDown()
	return s.runner.Run(ctx, s.startInformers, s.schedule)
}

func (s *Scheduler) startInformers(ctx context.Context) error {
	s.informers.Start(ctx.Done())
	s.regionConfigs.Start(ctx.Done())
	return nil
}

// schedule runs while leading: it waits for the informers, then runs the
// workers until ctx ends (lease lost or shutdown).
func (s *Scheduler) schedule(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), s.synced...) {
		return nil
	}
	logger.Info("Scheduling", "schedulerName", s.config.SchedulerName, "strategy", s.config.Strategy, "workers", s.config.ConcurrentSyncs)

	var wg sync.WaitGroup
	wg.Go(func() { s.housekeep(ctx) })
	wg.Go(func() { s.publishConfiguration(ctx) })
	component.RunWorkers(ctx, s.queue, int(s.config.ConcurrentSyncs), s.syncHandler)
	wg.Wait()
	logger.Info("Stopped scheduling")
	return nil
}

// housekeep expires stale assumptions and publishes the pending gauges.
func (s *Scheduler) housekeep(ctx context.Context) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		expired, freed := s.cache.expire(s.now(), assumeTTL, s.currentShoot)
		for _, key := range expired {
			klog.FromContext(ctx).Info("Binding not confirmed by the informer in time, using the informer's view", "shoot", key)
			s.queue.Add(key)
		}
		s.capacityFreed(freed)
		s.pool.retryParked(s.config.UnschedulableRetryInterval.Duration)
		n := s.pool.parked()
		s.metrics.pendingShoots.WithLabelValues(queueActive).Set(float64(s.queue.Len()))
		s.metrics.pendingShoots.WithLabelValues(queueUnschedulable).Set(float64(n))
	}
}

func (s *Scheduler) currentShoot(key string) *corev1alpha1.Shoot {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	shoot, err := s.shootLister.Shoots(ns).Get(name)
	if err != nil {
		return nil
	}
	return shoot
}

// syncHandler schedules one shoot: decide and reserve under the cache lock,
// then bind. A shoot no seed fits waits in the pool for a change that can
// help it, not for a backoff retry.
func (s *Scheduler) syncHandler(ctx context.Context, key string) error {
	logger := klog.FromContext(ctx).WithValues("shoot", key)
	shoot := s.currentShoot(key)
	if shoot == nil || !responsible(shoot, s.config.SchedulerName) {
		s.pool.forget(key)
		return nil
	}
	if err := s.clients.Fence.Check(); err != nil {
		// Paused past its lease, or catching up after a gap: a decision now
		// reads a view that may be stale and its writes would be refused.
		logger.V(4).Info("Not deciding while writes are fenced", "reason", err.Error())
		return err
	}
	start := s.now()
	trigger, prevReason := s.pool.begin(key)
	seed, err := s.decide(shoot)
	if errors.Is(err, errAssumed) {
		s.pool.end(key)
		return nil
	}
	if err != nil {
		s.metrics.scheduleAttempts.WithLabelValues(resultUnschedulable).Inc()
		s.pool.park(key, algorithm.CloudProfileNameOf(shoot), err)
		s.reportFailure(ctx, shoot, err)
		if trigger != "" {
			outcome := outcomeOtherFailure
			if algorithm.StableReason(err) == prevReason {
				outcome = outcomeSameFailure
			}
			s.metrics.requeues.WithLabelValues(trigger, outcome).Inc()
		}
		s.metrics.attemptDuration.WithLabelValues(resultUnschedulable).Observe(s.now().Sub(start).Seconds())
		return nil
	}
	if ctx.Err() != nil {
		// The lease was lost between decision and write: the new leader decides.
		s.bindFailed(key, shoot)
		return ctx.Err()
	}
	if shoot.Annotations[corev1alpha1.AnnotationDescheduledFrom] == seed {
		if err := s.confirmSeed(ctx, key, seed); err != nil {
			s.bindFailed(key, shoot)
			logger.V(2).Info("Not sending an evicted shoot back before its seed is confirmed", "seed", seed, "reason", err.Error())
			return err
		}
	}
	boundRV, err := s.bind(ctx, shoot, seed, s.now())
	if err != nil {
		s.bindFailed(key, s.currentShoot(key))
		s.metrics.scheduleAttempts.WithLabelValues(resultError).Inc()
		s.metrics.attemptDuration.WithLabelValues(resultError).Observe(s.now().Sub(start).Seconds())
		if apierrors.IsNotFound(err) {
			return nil
		}
		if ctx.Err() != nil {
			logger.V(2).Info("Binding interrupted: scheduling stopped", "seed", seed)
		} else if apierrors.IsConflict(err) {
			// The shoot changed since it was read; the informer brings the new version.
			logger.V(2).Info("Shoot changed while binding, retrying", "seed", seed)
		} else {
			logger.Error(err, "Binding failed", "seed", seed)
		}
		return err
	}
	s.cache.bindSucceeded(key, boundRV, s.now())
	s.pool.forget(key)
	if trigger != "" {
		s.metrics.requeues.WithLabelValues(trigger, outcomeScheduled).Inc()
		if trigger == triggerPeriodic {
			logger.Info("The periodic retry placed a shoot no change had requeued: a queueing hint was missed", "seed", seed)
		}
	}
	now := s.now()
	s.metrics.scheduleAttempts.WithLabelValues(resultScheduled).Inc()
	s.metrics.attemptDuration.WithLabelValues(resultScheduled).Observe(now.Sub(start).Seconds())
	s.metrics.schedulingDuration.Observe(now.Sub(shoot.CreationTimestamp.Time).Seconds())
	s.recorder.Eventf(shoot, corev1.EventTypeNormal, ReasonScheduled, "Scheduled to seed %s", seed)
	logger.V(2).Info("Scheduled", "seed", seed)
	return nil
}

func (s *Scheduler) decide(shoot *corev1alpha1.Shoot) (string, error) {
	in, err := s.inputs.Inputs(shoot)
	if err != nil {
		return "", err
	}
	return s.cache.decide(shoot, in)
}

// confirmSeed reads the seed an evicted shoot would return to from the API
// server: a lagging seed informer may miss the taint that evicted it. A seed
// changed since the decision read it goes into the cache and the shoot is
// decided again (docs/daemons.md, "A binding").
func (s *Scheduler) confirmSeed(ctx context.Context, key, name string) error {
	live, err := s.garden.GetSeed(ctx, name)
	if err != nil {
		return fmt.Errorf("reading seed %s: %w", name, err)
	}
	if live.ResourceVersion == s.cache.decidedOnSeedVersion(key) {
		return nil
	}
	if live.ResourceVersion != s.cache.seedResourceVersion(name) {
		s.cache.addSeed(live)
	}
	return errSeedChanged
}

// errSeedChanged makes the worker decide again with the seed just read.
var errSeedChanged = errors.New("the seed changed since the cache saw it")

// bind writes spec.seedName, preconditioned on what the decision read, and
// clears a Pending lastOperation; it returns the binding's resourceVersion
// for the cache. docs/daemons.md ("A binding") says why it is shaped so.
func (s *Scheduler) bind(ctx context.Context, shoot *corev1alpha1.Shoot, seed string, at time.Time) (boundRV string, err error) {
	bound, err := s.garden.Bind(ctx, shoot, seed, at)
	if err != nil {
		return "", err
	}
	s.clearPending(ctx, bound, seed)
	return bound.ResourceVersion, nil
}

// reportFailure emits the Warning Event and records lastOperation (Create,
// Pending) unless it already gives the same stable reason: the counts and
// per-seed details change with every seed that fills up elsewhere, what a
// user acts on does not (docs/daemons.md, "A failure").
func (s *Scheduler) reportFailure(ctx context.Context, shoot *corev1alpha1.Shoot, cause error) {
	key := algorithm.ShootKey(shoot)
	short := algorithm.ShortReason(cause)
	s.recorder.Event(shoot, corev1.EventTypeWarning, ReasonSchedulingFailed, short)
	klog.FromContext(ctx).V(1).Info("No seed fits", "shoot", key, "reason", short)

	description, stable := failureDescription(cause)
	if lo := shoot.Status.LastOperation; lo != nil && lo.Type == corev1alpha1.LastOperationTypeCreate &&
		lo.State == corev1alpha1.LastOperationStatePending && strings.HasPrefix(lo.Description, stable) {
		return
	}
	// Preconditioned on the version decided on: a shoot bound or evicted
	// meanwhile must not be marked as failing to schedule. The informer
	// brings the new version and the shoot is decided again.
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": shoot.ResourceVersion},
		"status": map[string]any{"lastOperation": corev1alpha1.LastOperation{
			Type:           corev1alpha1.LastOperationTypeCreate,
			State:          corev1alpha1.LastOperationStatePending,
			Description:    description,
			LastUpdateTime: metav1.NewTime(s.now()),
		}},
	})
	utilruntime.Must(err)
	s.metrics.failureStatusWrites.Inc()
	_, err = s.garden.PatchShootStatus(ctx, shoot.Namespace, shoot.Name, patch)
	switch {
	case err == nil, apierrors.IsNotFound(err):
	case apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Shoot changed before the scheduling failure was recorded; deciding again", "shoot", key)
		s.queue.Add(key)
	default:
		klog.FromContext(ctx).Error(err, "Could not record the scheduling failure in the shoot's status", "shoot", key)
	}
}

// failureDescription is lastOperation.description for a failed decision and
// its stable prefix: "Failed to schedule shoot (<the rejecting filters in
// words>): " and the long form, whose counts and per-seed reasons are those
// of the decision that wrote it. An error that is not a decision's (a
// missing cloud profile, a malformed region ConfigMap) is stable as a whole.
func failureDescription(cause error) (description, stable string) {
	var se *algorithm.ScheduleError
	if !errors.As(cause, &se) {
		const prefix = "Failed to schedule shoot: "
		description = prefix + algorithm.TruncatedError(cause, maxDescriptionLength-len(prefix))
		return description, description
	}
	stable = "Failed to schedule shoot (" + algorithm.StableReason(cause) + "): "
	return stable + algorithm.TruncatedError(cause, maxDescriptionLength-len(stable)), stable
}

// admitsAlone decides the shoot of key against seed alone (capacity as the
// seed reports it, none used): the filter that rejects it, empty when the
// seed could take it or the shoot cannot be decided now. A new seed gets a
// waiting shoot decided again only when it passes.
func (s *Scheduler) admitsAlone(key string, seed *corev1alpha1.Seed) algorithm.Filter {
	shoot := s.currentShoot(key)
	if shoot == nil {
		return ""
	}
	in, err := s.inputs.Inputs(shoot)
	if err != nil {
		return ""
	}
	snap := algorithm.NewSnapshot()
	snap.AddSeed(seed)
	var se *algorithm.ScheduleError
	if _, err := algorithm.Schedule(shoot, snap, in); errors.As(err, &se) && len(se.Rejections) == 1 {
		return se.Rejections[0].Hint()
	}
	return ""
}

// bindFailed rolls a reservation back; the capacity it held may help a
// waiting shoot.
func (s *Scheduler) bindFailed(key string, current *corev1alpha1.Shoot) {
	s.pool.end(key)
	for _, seed := range s.cache.bindFailed(key, current) {
		s.pool.event(poolEvent{trigger: triggerCapacityFreed, seed: seed})
	}
}
