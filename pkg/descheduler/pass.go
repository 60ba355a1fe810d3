package descheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// requeueSlack is added to a toleration's remaining time so that the seed is
// looked at when the toleration has surely run out.
const requeueSlack = 50 * time.Millisecond

// retryAfterError is when a seed is looked at again after a failed write.
const retryAfterError = 2 * time.Second

// eviction is one shoot to move, decided by a pass.
type eviction struct {
	shoot  *v1alpha1.Shoot
	seed   *v1alpha1.Seed
	plugin string
	reason string
	// cause is what the eviction is recorded under (plugin: Candidate.Cause).
	cause  string
	target string
	// recheck tells whether the plugin still wants the shoot off the seed as
	// it is now (read from the API server right before the write).
	recheck func(live *v1alpha1.Seed) bool
}

// passRun is the state of one pass: its view, the hypothetical placements of
// its evictions, and its writers.
type passRun struct {
	d    *Descheduler
	ctx  context.Context
	log  klog.Logger
	once bool
	view *view
	// real counts the shoots as they will be after this pass's evictions.
	real *algorithm.Snapshot
	// fit additionally places every shoot waiting for a seed (evicted or
	// new) and every eviction of this pass where the algorithm would put it,
	// so that requireFit does not promise the same free slot twice. The
	// waiting shoots are placed when the first candidate asks (fitSnapshot):
	// a pass without candidates does not schedule them.
	fit      *algorithm.Snapshot
	reserved bool
	evicted  sets.Set[string]
	// leaving counts this pass's evictions still counted on their seed
	// through status.seedName.
	leaving map[string]int
	// dryPending counts dry-run evictions as if they were pending.
	dryPending int
	stop       bool

	jobs chan eviction
	wg   sync.WaitGroup
	// written collects the evictions written, announced on their seeds
	// once the writers are done.
	written passEvictions
}

// pass looks at the named seeds once: runs the plugins, applies the safety
// rules and writes the evictions with concurrentEvictions writers. once is
// set for the single pass of interval 0 (no requeues).
func (d *Descheduler) pass(ctx context.Context, seedNames []string, once bool) {
	start := d.clock.Now()
	defer func() { d.metrics.PassDuration.Observe(d.clock.Since(start).Seconds()) }()
	d.passOver(ctx, d.state.takeView(seedNames, start), once)
}

// passOver makes a pass over the seeds of a view.
func (d *Descheduler) passOver(ctx context.Context, v *view, once bool) {
	if len(v.seeds) == 0 {
		// No plugin acts on any of the seeds.
		return
	}
	r := &passRun{
		d: d, ctx: ctx, log: klog.FromContext(ctx), once: once, view: v,
		real: v.snapshot, fit: v.snapshot.Fork(),
		evicted: sets.New[string](), leaving: map[string]int{},
	}
	if !d.cfg.DryRun {
		r.jobs = make(chan eviction)
		for range d.cfg.ConcurrentEvictions {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				for e := range r.jobs {
					if d.evict(ctx, e) {
						r.written.add(e)
					}
				}
			}()
		}
	}
	last := ""
	for _, name := range sets.List(sets.KeySet(v.seeds)) {
		if r.stop || ctx.Err() != nil {
			d.hold(name)
			continue
		}
		r.seed(name)
		last = name
	}
	if r.stop || ctx.Err() != nil {
		// The idle seeds the pass would have come to after the last one it
		// looked at are held back too, so that they are looked at again
		// when an evicted shoot is placed, as the others are.
		for _, name := range v.named {
			if _, taken := v.seeds[name]; taken || name <= last {
				continue
			}
			if _, known := v.snapshot.Seed(name); known {
				d.hold(name)
			}
		}
	}
	if r.jobs != nil {
		close(r.jobs)
		r.wg.Wait()
	}
	r.written.announce(d.recorder)
}

// fitSnapshot returns fit, having reserved a seed for every shoot waiting
// for one first: they will take one.
func (r *passRun) fitSnapshot() *algorithm.Snapshot {
	if !r.reserved {
		r.reserved = true
		algorithm.ReserveForWaiting(r.fit, append(r.view.pending, r.view.waiting...), func(s *v1alpha1.Shoot) (algorithm.Inputs, error) {
			return r.d.inputs(s), nil
		})
	}
	return r.fit
}

// seed runs every plugin over one seed, each seeing the evictions of the
// plugins before it.
func (r *passRun) seed(name string) {
	base := r.view.seeds[name]
	base.Seed = r.d.stampTaintClocks(r.ctx, base.Seed)
	for _, p := range r.d.plugins {
		st := *base
		st.Shoots = make([]*v1alpha1.Shoot, 0, len(base.Shoots))
		for _, s := range base.Shoots {
			if !r.evicted.Has(algorithm.ShootKey(s)) {
				st.Shoots = append(st.Shoots, s)
			}
		}
		st.Usage = r.real.Usage(name)
		st.Leaving = base.Leaving + r.leaving[name]
		res := p.Evaluate(&st)
		if res.RequeueAfter > 0 && !r.once {
			r.d.queue.AddAfter(name, res.RequeueAfter+requeueSlack)
		}
		for _, c := range res.Candidates {
			if !r.consider(p.Name(), base.Seed, c, stillWanted(p, st, c.Shoot)) {
				return
			}
		}
	}
}

// consider applies the safety rules to one candidate and evicts it. It
// returns false when no further eviction from this seed may happen in this
// pass.
func (r *passRun) consider(plugin string, seed *v1alpha1.Seed, c framework.Candidate, recheck func(live *v1alpha1.Seed) bool) bool {
	d := r.d
	key := algorithm.ShootKey(c.Shoot)
	if r.evicted.Has(key) {
		return true
	}
	log := r.log.WithValues("shoot", klog.KObj(c.Shoot), "seed", seed.Name, "plugin", plugin)
	cause := plugin + ": " + c.Cause
	if until, held := d.evictedBefore(c.Shoot, seed.Name, cause); held {
		if !r.once {
			d.queue.AddAfter(seed.Name, until.Sub(d.clock.Now())+requeueSlack)
		}
		d.skip(c.Shoot, plugin, ResultHeldRepeat, fmt.Sprintf("%s wants the shoot off seed %s (%s), but it was evicted from that seed for the same cause (%s) less than %s ago: held until %s, so that it does not move back and forth",
			plugin, seed.Name, c.Reason, cause, d.repeatWindow(), until.UTC().Format(time.RFC3339)))
		return true
	}
	if !d.takeBudget(seed.Name) {
		log.V(2).Info("Eviction budget of this pass used up; waiting for the next pass",
			"maxEvictionsPerSeed", *d.cfg.MaxEvictionsPerSeed, "maxEvictionsTotal", *d.cfg.MaxEvictionsTotal)
		return false
	}
	if max := int(*d.cfg.MaxPendingEvicted); max > 0 {
		if d.state.pendingCount()+r.dryPending >= max {
			// Look again as soon as an evicted shoot is placed. Re-check after
			// holding so that a placement in between is not missed.
			d.hold(seed.Name)
			if d.state.pendingCount()+r.dryPending >= max {
				d.returnBudget(seed.Name)
				log.V(2).Info("Too many evicted shoots wait for a seed; holding back", "maxPendingEvicted", max)
				r.stop = true
				return false
			}
		}
	}
	target, err := algorithm.FitsElsewhere(c.Shoot, r.fitSnapshot(), d.inputs(c.Shoot), seed.Name)
	if err != nil && *d.cfg.RequireFit && !c.Force {
		d.returnBudget(seed.Name)
		d.hold(seed.Name)
		result, why := ResultSkippedNoFit, "no other seed fits"
		var se *algorithm.ScheduleError
		if errors.As(err, &se) && se.Filter == algorithm.FilterLimitedToleration {
			// Moving would only trade one limited stay for another.
			result, why = ResultSkippedLimitedStay, "the seeds that fit elsewhere would let it stay only for a limited time, so it stays"
		}
		d.skip(c.Shoot, plugin, result, fmt.Sprintf("%s wants the shoot off seed %s (%s), but %s: %s",
			plugin, seed.Name, c.Reason, why, algorithm.ShortReason(err)))
		return true
	}
	r.evicted.Insert(key)
	// Updates, not adds: the pass's snapshots are forks (see takeView).
	r.real.UpdateShoot(c.Shoot, withSeed(c.Shoot, ""))
	r.fit.UpdateShoot(c.Shoot, withSeed(c.Shoot, target))
	if c.Shoot.Status.SeedName != nil && *c.Shoot.Status.SeedName == seed.Name {
		r.leaving[seed.Name]++
	}
	e := eviction{shoot: c.Shoot, seed: seed, plugin: plugin, reason: c.Reason, cause: cause, target: target, recheck: recheck}
	if d.cfg.DryRun {
		r.dryPending++
		where := "no seed fits it now"
		if target != "" {
			where = "it would go to seed " + target
		}
		log.Info("Dry run: would evict shoot", "reason", c.Reason, "target", target)
		d.recorder.Eventf(shootRef(c.Shoot), corev1.EventTypeNormal, EventWouldDeschedule,
			"Dry run: %s would evict the shoot from seed %s (%s); %s", plugin, seed.Name, c.Reason, where)
		d.metrics.Evictions.WithLabelValues(plugin, ResultDryRun).Inc()
		return true
	}
	// The writer waits for the token bucket, after reading the seed again.
	d.state.addInflight(1)
	r.jobs <- e
	return true
}

// stillWanted returns a check whether plugin, seeing the state of the pass
// with the seed replaced by a fresh read, still picks shoot. The pass's view
// of the seed may be old (a lagging informer, a paused process), and a taint
// removed or allocatable raised since must not evict.
func stillWanted(plugin framework.Plugin, st framework.SeedState, shoot *v1alpha1.Shoot) func(*v1alpha1.Seed) bool {
	key := algorithm.ShootKey(shoot)
	return func(live *v1alpha1.Seed) bool {
		again := st
		again.Seed = live
		for _, c := range plugin.Evaluate(&again).Candidates {
			if algorithm.ShootKey(c.Shoot) == key {
				return true
			}
		}
		return false
	}
}

// takeBudget takes one eviction from the pass window's budgets.
func (d *Descheduler) takeBudget(seed string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m := int(*d.cfg.MaxEvictionsPerSeed); m > 0 && d.perSeed[seed] >= m {
		return false
	}
	if m := int(*d.cfg.MaxEvictionsTotal); m > 0 && d.total >= m {
		return false
	}
	d.perSeed[seed]++
	d.total++
	return true
}

func (d *Descheduler) returnBudget(seed string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.perSeed[seed]--
	d.total--
}

// skip counts a candidate left in place under result and emits
// EvictionSkipped, once per distinct message and shoot.
func (d *Descheduler) skip(shoot *v1alpha1.Shoot, plugin, result, msg string) {
	key := algorithm.ShootKey(shoot)
	d.metrics.Evictions.WithLabelValues(plugin, result).Inc()
	d.mu.Lock()
	same := d.skipped[key] == msg
	d.skipped[key] = msg
	d.mu.Unlock()
	if same {
		return
	}
	klog.V(1).InfoS("Eviction skipped", "shoot", klog.KObj(shoot), "reason", msg)
	d.recorder.Event(shootRef(shoot), corev1.EventTypeWarning, EventEvictionSkipped, msg)
}

// evictionWriteTimeout bounds the writes of one eviction once its spec
// update is sent; they do not end with the descheduler's context.
const evictionWriteTimeout = 30 * time.Second

// rereadAfterWait is how long a wait for the token bucket may take before the
// seed is read again.
const rereadAfterWait = 200 * time.Millisecond

// reasonHolds reads the seed from the API server and asks the plugin again;
// when the reason is gone (or the seed cannot be read) it drops the eviction
// and looks at the seed again later.
func (d *Descheduler) reasonHolds(ctx context.Context, e eviction) bool {
	if e.recheck == nil {
		return true
	}
	live, err := d.garden.GetSeed(ctx, e.seed.Name)
	if err == nil && e.recheck(live) {
		return true
	}
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "plugin", e.plugin)
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		log.Error(err, "Reading the seed before evicting failed")
		d.metrics.Evictions.WithLabelValues(e.plugin, ResultError).Inc()
	} else {
		log.V(1).Info("The reason no longer holds on the seed as read now; eviction dropped", "reason", e.reason, "err", err)
		d.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
	}
	d.state.addInflight(-1)
	if ctx.Err() == nil {
		d.queue.AddAfter(e.seed.Name, retryAfterError)
	}
	return false
}

// evict writes one eviction: it reads the seed again and drops the eviction
// when the plugin's reason no longer holds, waits for the token bucket, then
// writes the eviction patch with the read resourceVersion and the shoot's
// Descheduled Event. It returns whether the shoot was evicted; the pass
// announces its evictions on each seed in one Event (passEvictions).
//
// The patch is the whole eviction. Why the shoot moves and from where are
// in its annotations, written with the cleared spec.seedName in that one
// request, and in the shoot's Event; lastOperation is not written. The Shoot
// CRD has a status subresource, so a status write would be a second request
// that graft-scheduler's binding races (and its clearing of that Pending
// state a third): two writes per move for a state the annotations and the
// empty spec.seedName already show, and that graftctl shows as Pending. When
// no seed takes the shoot, graft-scheduler records that in lastOperation.
//
// It is a merge patch naming only what it changes, never the cached shoot
// sent back: the informers keep only what graft reads (cachetrim), and an
// update built from such a copy would erase the rest on the server.
func (d *Descheduler) evict(ctx context.Context, e eviction) bool {
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "plugin", e.plugin)
	reason := e.plugin + ": " + e.reason
	shoot := e.shoot
	if !d.reasonHolds(ctx, e) {
		return false
	}
	// The token bucket paces the writes themselves. A long wait for a token
	// makes the read above old: read again.
	waitStart := time.Now()
	if err := d.limiter.Wait(ctx); err != nil {
		d.returnBudget(e.seed.Name)
		d.state.addInflight(-1)
		return false
	}
	if time.Since(waitStart) > rereadAfterWait && !d.reasonHolds(ctx, e) {
		return false
	}
	// Once sent, an eviction is written to the end (the patch, then its
	// Events) even when the descheduler is told to stop: a shutdown in
	// between would leave a shoot moved with no Event saying why. The lease
	// is released only after this returns, and a lost lease closes the
	// fence, which refuses this write as it does any other.
	wctx, cancelWrites := context.WithTimeout(context.WithoutCancel(ctx), evictionWriteTimeout)
	defer cancelWrites()
	record := helper.RecordEviction(shoot, helper.Eviction{Seed: e.seed.Name, Cause: e.cause, At: d.clock.Now()}, d.repeatWindow())
	patch := evictionPatch(shoot.ResourceVersion, e.seed.Name, reason, record)
	updated, err := d.garden.PatchShoot(wctx, shoot.Namespace, shoot.Name, patch, metav1.PatchOptions{FieldManager: Name})
	switch {
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		// The shoot changed since it was read: that change wins, and the seed
		// is looked at again with the new state.
		log.V(1).Info("Shoot changed concurrently; eviction dropped", "err", err)
		d.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
		d.state.addInflight(-1)
		d.queue.AddAfter(e.seed.Name, retryAfterError)
		return false
	case err != nil && ctx.Err() != nil:
		// Shutting down or the lease was lost, and the update was refused
		// or timed out: the next leader decides again.
		log.V(1).Info("Eviction stopped", "err", err)
		d.state.addInflight(-1)
		return false
	case err != nil:
		log.Error(err, "Evicting shoot failed")
		d.metrics.Evictions.WithLabelValues(e.plugin, ResultError).Inc()
		d.state.addInflight(-1)
		d.queue.AddAfter(e.seed.Name, retryAfterError)
		return false
	}
	d.state.settleEviction(updated, d.clock.Now())
	d.metrics.Evictions.WithLabelValues(e.plugin, ResultEvicted).Inc()
	d.mu.Lock()
	delete(d.skipped, algorithm.ShootKey(shoot))
	d.mu.Unlock()
	log.Info("Evicted shoot", "reason", e.reason, "expectedTarget", e.target)
	d.recorder.Eventf(shootRef(updated), corev1.EventTypeNormal, EventDescheduled,
		"Evicted from seed %s: %s", e.seed.Name, reason)
	return true
}

// evictionPatch is the merge patch of an eviction: it clears spec.seedName
// and records where from and why in the shoot's annotations, with the
// shoot's recent evictions (graft.dev/evictions, for the repeat guard), on
// the condition that the shoot is still at resourceVersion (the API server
// answers a conflict otherwise).
func evictionPatch(resourceVersion, seed, reason, evictions string) []byte {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"resourceVersion": resourceVersion,
			"annotations": map[string]string{
				v1alpha1.AnnotationDescheduledFrom:   seed,
				v1alpha1.AnnotationDescheduledReason: reason,
				v1alpha1.AnnotationEvictions:         evictions,
			},
		},
		"spec": map[string]any{"seedName": nil},
	})
	utilruntime.Must(err) // strings only: encoding cannot fail
	return patch
}

// evictedBefore reports whether the shoot's graft.dev/evictions records an
// eviction from seed for cause within repeatEvictionWindow, and until when
// that holds another one back. The record is written with each eviction,
// so the guard survives restarts and failovers. A record dated further in
// the future than clocks drift apart was not written by an eviction and
// holds nothing back: a shoot cannot buy itself a stay that way.
func (d *Descheduler) evictedBefore(shoot *v1alpha1.Shoot, seed, cause string) (time.Time, bool) {
	window := d.repeatWindow()
	if window <= 0 {
		return time.Time{}, false
	}
	now := d.clock.Now()
	var until time.Time
	for _, e := range helper.Evictions(shoot) {
		if e.Seed != seed || e.Cause != cause || e.At.After(now.Add(maxClockSkew)) {
			continue
		}
		if end := e.At.Add(window); end.After(now) && end.After(until) {
			until = end
		}
	}
	return until, !until.IsZero()
}

// maxClockSkew is how far ahead of ours an eviction record's time may be.
const maxClockSkew = time.Minute

// repeatWindow is repeatEvictionWindow, 0 (off) when unset.
func (d *Descheduler) repeatWindow() time.Duration {
	if d.cfg.RepeatEvictionWindow == nil {
		return 0
	}
	return d.cfg.RepeatEvictionWindow.Duration
}
