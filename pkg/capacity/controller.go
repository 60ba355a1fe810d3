package capacity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	listers "github.com/graft-dev/client-go/listers/core/v1alpha1"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/component/ownwrites"
	"github.com/graft-dev/graft/pkg/garden"
)

// FieldManager is the field manager of every write the annotator makes.
const FieldManager = "graft-capacity-annotator"

// queueName names the work queue of seeds in client-go's workqueue metrics
// (workqueue_depth{name="graft_capacity_annotator"} and the others).
const queueName = "graft_capacity_annotator"

// Event reasons.
const (
	ReasonAllocatableChanged = "AllocatableChanged"
	ReasonOverCapacity       = "OverCapacity"
	ReasonInvalidAnnotation  = "InvalidCapacityAnnotation"
	ReasonNotReady           = "NotReady"
	ReasonNotReadyEviction   = "NotReadyEviction"
	ReasonReady              = "Ready"
)

// controllerOptions are the controller's dependencies.
type controllerOptions struct {
	// Client writes seeds.
	Client garden.Client
	// Seeds and Shoots are the shared informers to watch.
	Seeds  cache.SharedIndexInformer
	Shoots cache.SharedIndexInformer
	// Recorder records Events on seeds.
	Recorder record.EventRecorder
	// Metrics are published per seed; nil publishes none.
	Metrics *annotatorMetrics
	// Config is the defaulted, validated configuration.
	Config *configv1alpha1.CapacityAnnotatorConfiguration
	// Clock is the time source; nil is the real clock.
	Clock clock.WithTicker
}

// controller keeps seeds' capacity, allocatable, usage and not-ready taints.
type controller struct {
	client garden.Client
	// api is the client's: on Gardener's the annotator writes no status
	// (gardenlet reports capacity and allocatable; Gardener's Seed has no
	// usage) and keeps its taints in Gardener's shape.
	api garden.API
	// written are the seeds as the API server returned them after the
	// annotator's last write, until the informer's copy is at least as new:
	// see freshest.
	written      *ownwrites.Tracker[*v1alpha1.Seed]
	seedLister   listers.SeedLister
	seedsSynced  cache.InformerSynced
	shootsSynced cache.InformerSynced
	queue        workqueue.TypedRateLimitingInterface[string]
	recorder     record.EventRecorder
	metrics      *annotatorMetrics
	clock        clock.WithTicker

	rules         *Rules
	counter       *usageCounter
	syncPeriod    time.Duration
	taints        bool
	evictionDelay *time.Duration

	mu    sync.Mutex
	seeds map[string]*seedState
}

// seedState is what the controller remembers about one seed between syncs.
type seedState struct {
	// lastWrite is when the status was last written; the next write waits
	// until lastWrite + syncPeriod.
	lastWrite time.Time
	// firstUnhealthy is when the seed was first seen not ready; zero while ready.
	firstUnhealthy time.Time
	// overCapacity remembers that OverCapacity was reported, so that it is
	// reported once per episode.
	overCapacity bool
	// invalid is the last reported annotation error, reported once per value.
	invalid string
	// echoes are the annotator's own writes whose watch events have not
	// arrived yet: see ownEcho.
	echoes []*echo
}

// newController builds the controller and registers its event handlers on the informers.
func newController(opts controllerOptions) (*controller, error) {
	if opts.Client == nil || opts.Seeds == nil || opts.Shoots == nil || opts.Recorder == nil || opts.Config == nil {
		return nil, errors.New("capacity controller: client, informers, recorder and config are required")
	}
	rules, err := NewRules(opts.Config, FieldManager)
	if err != nil {
		return nil, fmt.Errorf("capacity controller: %w", err)
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	c := &controller{
		client:     opts.Client,
		api:        opts.Client.API(),
		seedLister: listers.NewSeedLister(opts.Seeds.GetIndexer()),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: queueName, Clock: clk},
		),
		recorder:   opts.Recorder,
		metrics:    opts.Metrics,
		clock:      clk,
		rules:      rules,
		counter:    newUsageCounter(),
		syncPeriod: opts.Config.SyncPeriod.Duration,
		taints:     opts.Config.HealthTaints.Enabled,
		seeds:      map[string]*seedState{},
		written:    ownwrites.New[*v1alpha1.Seed](),
	}
	if d := opts.Config.HealthTaints.UnhealthyEvictionDelay; d != nil {
		c.evictionDelay = &d.Duration
	}

	// Synced means the handlers have been given every object of the first
	// list, not only that the informers' stores hold them: usage is counted by
	// the shoot handler, and a seed synced before it would be written with
	// too few shoots.
	seedsReg, err := opts.Seeds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueSeed(obj) },
		UpdateFunc: func(oldObj, newObj any) {
			old, okOld := oldObj.(*v1alpha1.Seed)
			cur, okNew := newObj.(*v1alpha1.Seed)
			if okOld && okNew && old.ResourceVersion == cur.ResourceVersion {
				return // a resync: nothing changed
			}
			if okOld && okNew && c.ownEcho(old, cur) {
				return // the annotator's own write: nothing it did not decide on
			}
			c.enqueueSeed(newObj)
		},
		DeleteFunc: func(obj any) { c.enqueueSeed(obj) },
	})
	if err != nil {
		return nil, fmt.Errorf("capacity controller: watching seeds: %w", err)
	}
	shootsReg, err := opts.Shoots.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.shootChanged,
		UpdateFunc: func(_, newObj any) { c.shootChanged(newObj) },
		DeleteFunc: c.shootDeleted,
	})
	if err != nil {
		return nil, fmt.Errorf("capacity controller: watching shoots: %w", err)
	}
	c.seedsSynced, c.shootsSynced = seedsReg.HasSynced, shootsReg.HasSynced
	return c, nil
}

// Usage returns the number of shoots counted on seed now.
func (c *controller) Usage(seed string) int { return c.counter.Count(seed) }

// HasSynced tells whether both informers have synced.
func (c *controller) HasSynced() bool { return c.seedsSynced() && c.shootsSynced() }

func (c *controller) enqueueSeed(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

func (c *controller) shootChanged(obj any) {
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok {
		return
	}
	c.enqueueCoalesced(c.counter.Set(shoot))
}

func (c *controller) shootDeleted(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.enqueueCoalesced(c.counter.Delete(key))
}

// enqueueCoalesced enqueues seeds whose usage changed, each not before its
// next status write is allowed: all changes until then are written at once.
func (c *controller) enqueueCoalesced(seeds []string) {
	now := c.clock.Now()
	for _, s := range seeds {
		c.queue.AddAfter(s, c.untilWritable(s, now))
	}
}

// untilWritable is how long the status of seed must wait before its next write.
func (c *controller) untilWritable(seed string, now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.seeds[seed]
	if !ok || st.lastWrite.IsZero() {
		return 0
	}
	return st.lastWrite.Add(c.syncPeriod).Sub(now)
}

func (c *controller) state(seed string) *seedState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.seeds[seed]
	if !ok {
		st = &seedState{}
		c.seeds[seed] = st
	}
	return st
}

// Run waits for the informers to sync, then runs workers until ctx ends.
// The informers must have been started by the caller.
func (c *controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting capacity annotator", "workers", workers)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.seedsSynced, c.shootsSynced) {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return errors.New("capacity controller: informers did not sync")
	}
	component.RunWorkers(ctx, c.queue, workers, c.syncHandler)
	logger.Info("Stopping capacity annotator")
	return nil
}

// syncHandler reconciles one seed for the workers and counts and logs the
// result; the workers queue a failed seed again with backoff.
func (c *controller) syncHandler(ctx context.Context, name string) error {
	if err := c.syncSeed(ctx, name); err != nil {
		c.metrics.Reconciled(resultError)
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing seed failed, requeuing", "seed", name)
		return err
	}
	c.metrics.Reconciled(resultSuccess)
	return nil
}

// syncSeed brings one seed's taints and status up to date.
func (c *controller) syncSeed(ctx context.Context, name string) error {
	logger := klog.FromContext(ctx).WithValues("seed", name)
	ctx = klog.NewContext(ctx, logger)
	cached, err := c.seedLister.Get(name)
	if apierrors.IsNotFound(err) {
		c.mu.Lock()
		delete(c.seeds, name)
		c.mu.Unlock()
		c.written.Forget(name)
		c.metrics.DeleteSeed(name)
		return nil
	}
	if err != nil {
		return err
	}
	seed := c.freshest(cached)
	var errs []error
	if c.taints {
		// The status is decided on the seed as the taint write left it.
		if seed, err = c.syncTaints(ctx, seed); err != nil {
			errs = append(errs, err)
		}
	}
	if err := c.syncStatus(ctx, seed); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// syncStatus writes capacity, allocatable and usage when they changed, at most
// once per syncPeriod.
func (c *controller) syncStatus(ctx context.Context, seed *v1alpha1.Seed) error {
	now := c.clock.Now()
	st := c.state(seed.Name)
	if c.api.SeedStatusOwned() {
		c.observeOnly(seed, st)
		return nil
	}
	decision := c.rules.decide(seed)
	c.reportInvalid(seed, st, decision.Invalid)

	count := c.counter.Count(seed.Name)
	used := corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(int64(count), resource.DecimalSI)}

	patch := statusPatch{}
	patch.add("capacity", seed.Status.Capacity, decision.Capacity)
	patch.add("allocatable", seed.Status.Allocatable, decision.Allocatable)
	patch.add("usage", seed.Status.Usage, used)

	// What the seed has once this sync is done, for metrics and events.
	capacity := merged(seed.Status.Capacity, decision.Capacity)
	allocatable := merged(seed.Status.Allocatable, decision.Allocatable)
	c.metrics.SetSeed(seed.Name, capacity, allocatable, used)
	c.reportOverCapacity(seed, st, count, allocatable)

	if patch.empty() {
		return nil
	}
	if wait := c.untilWritable(seed.Name, now); wait > 0 {
		c.queue.AddAfter(seed.Name, wait)
		return nil
	}
	data, err := json.Marshal(map[string]any{"status": patch})
	if err != nil {
		return fmt.Errorf("encoding the status patch of seed %s: %w", seed.Name, err)
	}
	want := seed.DeepCopy()
	patch.applyTo(&want.Status)
	e := c.expect(seed, want)
	written, err := c.client.PatchSeedStatus(ctx, seed.Name, data,
		metav1.PatchOptions{FieldManager: FieldManager})
	c.wrote(e, written, err)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile; the delete event cleans up
		}
		return fmt.Errorf("writing the status of seed %s: %w", seed.Name, err)
	}
	// Measured after the write landed, so that two writes are a full period
	// apart as the API server sees them, however long a write takes.
	c.mu.Lock()
	st.lastWrite = c.clock.Now()
	c.mu.Unlock()
	c.metrics.Wrote(writeStatus)
	klog.FromContext(ctx).V(4).Info("Wrote seed status", "patch", string(data))

	for name, q := range decision.Allocatable {
		old, had := seed.Status.Allocatable[name]
		if had && old.Cmp(q) == 0 {
			continue
		}
		from := "unset"
		if had {
			from = old.String()
		}
		c.recorder.Eventf(c.api.SeedRef(seed), corev1.EventTypeNormal, ReasonAllocatableChanged,
			"Allocatable %s changed from %s to %s (capacity %s, from %s)", name, from, q.String(), capacityString(decision.Capacity, name), sourceString(decision))
	}
	return nil
}

// observeOnly publishes, for a Gardener seed, the usage counted next to the
// capacity and allocatable gardenlet reports, and says when the seed holds
// more shoots than its allocatable; it writes nothing.
func (c *controller) observeOnly(seed *v1alpha1.Seed, st *seedState) {
	count := c.counter.Count(seed.Name)
	used := corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(int64(count), resource.DecimalSI)}
	c.metrics.SetSeed(seed.Name, seed.Status.Capacity, seed.Status.Allocatable, used)
	c.reportOverCapacity(seed, st, count, seed.Status.Allocatable)
}

func (c *controller) reportInvalid(seed *v1alpha1.Seed, st *seedState, invalid []error) {
	msg := errors.Join(invalid...)
	text := ""
	if msg != nil {
		text = msg.Error()
	}
	c.mu.Lock()
	report := text != "" && text != st.invalid
	st.invalid = text
	c.mu.Unlock()
	if report {
		c.recorder.Eventf(c.api.SeedRef(seed), corev1.EventTypeWarning, ReasonInvalidAnnotation,
			"Ignoring invalid capacity annotation, keeping the last good capacity and allocatable: %s", text)
	}
}

func (c *controller) reportOverCapacity(seed *v1alpha1.Seed, st *seedState, count int, allocatable corev1.ResourceList) {
	alloc, ok := allocatable[v1alpha1.ResourceShoots]
	over := ok && int64(count) > alloc.Value()
	c.mu.Lock()
	report := over && !st.overCapacity
	st.overCapacity = over
	c.mu.Unlock()
	if report {
		c.recorder.Eventf(c.api.SeedRef(seed), corev1.EventTypeWarning, ReasonOverCapacity,
			"%d shoots are counted on the seed, more than its allocatable %s", count, alloc.String())
	}
}

// syncTaints adds or removes the not-ready taints. It returns the seed as it
// is after its write (seed itself when it wrote nothing or failed).
func (c *controller) syncTaints(ctx context.Context, seed *v1alpha1.Seed) (*v1alpha1.Seed, error) {
	now := c.clock.Now()
	st := c.state(seed.Name)
	var decision taintDecision
	var written *v1alpha1.Seed
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c.mu.Lock()
		if notReadyReason(seed) == "" {
			st.firstUnhealthy = time.Time{}
		} else if st.firstUnhealthy.IsZero() {
			st.firstUnhealthy = now
		}
		since := unhealthySince(seed, st.firstUnhealthy)
		c.mu.Unlock()

		decision = decideTaints(seed, since, now, c.evictionDelay)
		if !decision.Changed {
			return nil
		}
		// The resourceVersion makes the API server refuse the patch when the
		// taints changed since the decision was made. On Gardener the effects
		// and timeAdded go to the graft.dev/taints annotation.
		data, err := c.api.TaintsPatch(seed, decision.Taints)
		if err != nil {
			return fmt.Errorf("the taint patch of seed %s: %w", seed.Name, err)
		}
		want := seed.DeepCopy()
		want.Spec.Taints = decision.Taints
		e := c.expect(seed, want)
		written, err = c.client.PatchSeed(ctx, seed.Name, data, metav1.PatchOptions{FieldManager: FieldManager})
		c.wrote(e, written, err)
		if apierrors.IsConflict(err) {
			fresh, getErr := c.client.GetSeed(ctx, seed.Name)
			if getErr != nil {
				return getErr
			}
			seed = fresh
		}
		return err
	})
	if apierrors.IsNotFound(err) {
		return seed, nil
	}
	if err != nil {
		return seed, fmt.Errorf("writing the taints of seed %s: %w", seed.Name, err)
	}
	if decision.RecheckAfter > 0 {
		c.queue.AddAfter(seed.Name, decision.RecheckAfter)
	}
	if !decision.Changed {
		return seed, nil
	}
	c.metrics.Wrote(writeTaints)
	c.reportTaints(ctx, seed, decision)
	return written, nil
}

func (c *controller) reportTaints(ctx context.Context, seed *v1alpha1.Seed, d taintDecision) {
	had := map[v1alpha1.TaintEffect]bool{}
	for _, t := range seed.Spec.Taints {
		if t.Key == v1alpha1.SeedTaintNotReady {
			had[helper.TaintEffectOf(t)] = true
		}
	}
	has := map[v1alpha1.TaintEffect]bool{}
	for _, t := range d.Taints {
		if t.Key == v1alpha1.SeedTaintNotReady {
			has[helper.TaintEffectOf(t)] = true
		}
	}
	logger := klog.FromContext(ctx)
	switch {
	case has[v1alpha1.TaintEffectNoExecute] && !had[v1alpha1.TaintEffectNoExecute]:
		logger.Info("Seed stayed not ready, tainting NoExecute", "reason", d.Reason)
		c.recorder.Eventf(c.api.SeedRef(seed), corev1.EventTypeWarning, ReasonNotReadyEviction,
			"Seed is still not ready (%s): added taint %s:NoExecute", d.Reason, v1alpha1.SeedTaintNotReady)
	case has[v1alpha1.TaintEffectNoSchedule] && !had[v1alpha1.TaintEffectNoSchedule]:
		logger.Info("Seed not ready, tainting NoSchedule", "reason", d.Reason)
		c.recorder.Eventf(c.api.SeedRef(seed), corev1.EventTypeWarning, ReasonNotReady,
			"Seed is not ready (%s): added taint %s:NoSchedule", d.Reason, v1alpha1.SeedTaintNotReady)
	case d.Ready:
		logger.Info("Seed ready again, removed the not-ready taints")
		c.recorder.Eventf(c.api.SeedRef(seed), corev1.EventTypeNormal, ReasonReady, "Seed is ready: removed the %s taints", v1alpha1.SeedTaintNotReady)
	}
}

// statusPatch collects, per status field, the resources whose value differs.
type statusPatch map[string]corev1.ResourceList

func (p statusPatch) add(field string, current, desired corev1.ResourceList) {
	for name, q := range desired {
		if cur, ok := current[name]; ok && cur.Cmp(q) == 0 {
			continue
		}
		if p[field] == nil {
			p[field] = corev1.ResourceList{}
		}
		p[field][name] = q
	}
}

func (p statusPatch) empty() bool { return len(p) == 0 }

// applyTo sets what the patch sets in status, as the API server applies it.
func (p statusPatch) applyTo(status *v1alpha1.SeedStatus) {
	for field, list := range p {
		var dst *corev1.ResourceList
		switch field {
		case "capacity":
			dst = &status.Capacity
		case "allocatable":
			dst = &status.Allocatable
		case "usage":
			dst = &status.Usage
		default:
			continue
		}
		if *dst == nil {
			*dst = corev1.ResourceList{}
		}
		maps.Copy(*dst, list)
	}
}

func merged(current, desired corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range current {
		out[k] = v
	}
	for k, v := range desired {
		out[k] = v
	}
	return out
}

func capacityString(l corev1.ResourceList, name corev1.ResourceName) string {
	if q, ok := l[name]; ok {
		return q.String()
	}
	return "unset"
}

func sourceString(d capacityDecision) string {
	if d.Source == sourceOverride {
		return fmt.Sprintf("override %d", d.Override)
	}
	return string(d.Source)
}
