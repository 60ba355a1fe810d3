package descheduler

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	corev1 "k8s.io/api/core/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// evictor writes the moves the gate admits: it reads the seed again and
// asks the plugin, waits for the token bucket, asks the timing again, writes
// the move and its Events, and gives the ticket back by the outcome. It
// emits the Events of refused moves (note), and learns what gardenlets do
// with live migrations (livemigration.go).
type evictor struct {
	cfg *configv1alpha1.DeschedulerConfiguration
	// api is the API the Events are recorded in; garden reads and writes
	// it (nil for a planner's evictor, which writes nothing).
	api    garden.API
	garden garden.Client
	// mover writes the evictions: on Gardener's API a migration to the
	// destination the pass chose (eviction.target).
	mover    garden.Mover
	recorder record.EventRecorder
	metrics  *Metrics
	clock    clock.WithTicker
	gate     *gate
	state    *state
	// records signs the eviction records the evictor writes, and the repeat
	// guard trusts only the records it signed (records.go).
	records recordKey

	mu sync.Mutex
	// skipped remembers the reason of the last EvictionSkipped per shoot so
	// that an unchanged reason is not written again on every pass.
	skipped map[string]string
	// liveRefused are the shoots whose live migration Gardener's admission
	// refused: they move classically.
	liveRefused map[string]struct{}
	// liveOff is set once gardener-apiserver refused a live migration for
	// its feature gate.
	liveOff atomic.Bool
	// liveFlow is what this process knows of the gardenlets that run the
	// live flow: the configuration's versions, and what liveObserved saw
	// (by this process, or recalled from the Lease: livepublish.go).
	liveFlow algorithm.LiveFlow
	// liveWritten are the live intents written and not yet answered, by
	// shoot key.
	liveWritten map[string]liveWrite
	// livePublish asks publishLiveFlow to write the record again.
	livePublish chan struct{}
	// observer, where set, is told of each move written and each answer
	// noted (a drain's: drain.go).
	observer moveObserver
	// fieldManager names the writer of the moves; "": the descheduler.
	fieldManager string
}

func (ev *evictor) manager() string {
	if ev.fieldManager == "" {
		return Name
	}
	return ev.fieldManager
}

// moveObserver is told what the evictor does: each move it wrote, and each
// answer it notes (result and message, repeated when the same reason was
// noted before for the shoot).
type moveObserver interface {
	moved(e eviction, written *v1alpha1.Shoot)
	noted(shoot *v1alpha1.Shoot, result, msg string, repeated bool)
}

// forget drops what the evictor remembers of a deleted shoot.
func (ev *evictor) forget(key string) {
	ev.mu.Lock()
	delete(ev.skipped, key)
	delete(ev.liveRefused, key)
	delete(ev.liveWritten, key)
	ev.mu.Unlock()
	ev.gate.forget(key)
}

// eviction is one shoot to move, decided by a pass.
type eviction struct {
	shoot  *v1alpha1.Shoot
	seed   *v1alpha1.Seed
	plugin string
	reason string
	// cause is what the eviction is recorded under (plugin: Candidate.Cause).
	cause string
	// recheck tells whether the plugin still wants the shoot off the seed as
	// it is now (read from the API server right before the write).
	// A fresh read of the shoot is given after a conflict; nil otherwise.
	recheck func(live *v1alpha1.Seed, shoot *v1alpha1.Shoot) bool
	// ticket is what the gate admitted: the destination (target, to), a
	// live intent (live: GEP-39), the timing, and the budgets it took.
	*ticket
}

// retryAfterError is when a seed is looked at again after a failed write.
const retryAfterError = 2 * time.Second

// retryAfterRefusal is when a seed is looked at again after Gardener refused
// a migration off it for a reason graft's migration rules do not predict.
const retryAfterRefusal = time.Minute

// skip counts a candidate left in place under result and emits
// EvictionSkipped with msg, once per shoot and reason: again only when the
// reason changes. reason names what holds the shoot without what changes
// from pass to pass (seed counts, usage), so that a backlog of held shoots
// does not write an Event each per pass.
func (ev *evictor) skip(shoot *v1alpha1.Shoot, plugin, result, reason, msg string) {
	ev.note(shoot, plugin, result, reason, EventEvictionSkipped, corev1.EventTypeWarning, msg)
}

// note counts a candidate left in place under result and emits the Event,
// once per shoot and reason (see skip).
func (ev *evictor) note(shoot *v1alpha1.Shoot, plugin, result, reason, event, eventType, msg string) {
	key := algorithm.ShootKey(shoot)
	ev.metrics.Evictions.WithLabelValues(plugin, result).Inc()
	reason = plugin + "|" + result + "|" + reason
	ev.mu.Lock()
	same := ev.skipped[key] == reason
	ev.skipped[key] = reason
	ev.mu.Unlock()
	if ev.observer != nil {
		ev.observer.noted(shoot, result, msg, same)
	}
	if same {
		return
	}
	klog.V(1).InfoS("Eviction left for later", "shoot", klog.KObj(shoot), "result", result, "reason", msg)
	ev.recorder.Event(ev.api.ShootRef(shoot), eventType, event, msg)
}

// evictionWriteTimeout bounds the writes of one eviction once its spec
// update is sent; they do not end with the descheduler's context.
const evictionWriteTimeout = 30 * time.Second

// rereadAfterWait is how long a wait for the token bucket may take before the
// seed is read again.
const rereadAfterWait = 200 * time.Millisecond

// reasonHolds reads the seed from the API server and asks the plugin again:
// false when the reason is gone or the seed cannot be read.
func (ev *evictor) reasonHolds(ctx context.Context, e eviction) bool {
	if e.recheck == nil {
		return true
	}
	live, err := ev.garden.GetSeed(ctx, e.seed.Name)
	if err == nil && e.recheck(live, nil) {
		return true
	}
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "plugin", e.plugin)
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		log.Error(err, "Reading the seed before evicting failed")
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultError).Inc()
	} else {
		log.V(1).Info("The reason no longer holds on the seed as read now; eviction dropped", "reason", e.reason, "err", err)
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
	}
	return false
}

// evict writes one admitted move and gives its ticket back by the outcome;
// later gathers when the seed is looked at again. It returns whether the
// shoot moved. docs/daemons.md ("An eviction") says why no status.
func (ev *evictor) evict(ctx context.Context, e eviction, later *requeues) bool {
	o, written := ev.attempt(ctx, e, later)
	e.release(o, written)
	if o != moved {
		return false
	}
	ev.metrics.Evictions.WithLabelValues(e.plugin, ResultEvicted).Inc()
	ev.mu.Lock()
	delete(ev.skipped, algorithm.ShootKey(written))
	ev.mu.Unlock()
	if e.live {
		ev.metrics.LiveMigrations.Inc()
		ev.liveWrote(written, e.seed, e.to, e.target)
	}
	klog.FromContext(ctx).Info("Moved shoot off its seed", "shoot", klog.KObj(written), "seed", e.seed.Name, "plugin", e.plugin,
		"reason", e.reason, "target", e.target, "migration", ev.state.moves.Migrates(), "live", e.live)
	ev.recorder.Event(ev.api.ShootRef(written), corev1.EventTypeNormal, EventDescheduled, ev.mover.Moved(e.seed.Name, e.target, e.plugin+": "+e.reason))
	if ev.observer != nil {
		ev.observer.moved(e, written)
	}
	return true
}

// attempt writes the move once the seed, read again, still gives the
// plugin's reason, the token bucket allows and its timing still does: one
// merge patch on the read resourceVersion, read again and decided again
// after a conflict.
func (ev *evictor) attempt(ctx context.Context, e eviction, later *requeues) (outcome, *v1alpha1.Shoot) {
	retry := func(o outcome) (outcome, *v1alpha1.Shoot) {
		if ctx.Err() == nil {
			later.after(e.seed.Name, ev.clock.Now().Add(retryAfterError))
		}
		return o, nil
	}
	if !ev.reasonHolds(ctx, e) {
		return retry(failed)
	}
	// The token bucket paces the writes themselves. A long wait for a token
	// makes the read above old: read again.
	waitStart := time.Now()
	if err := ev.gate.limiter.Wait(ctx); err != nil {
		return dropped, nil
	}
	if time.Since(waitStart) > rereadAfterWait && !ev.reasonHolds(ctx, e) {
		return retry(failed)
	}
	if e.timing.live && ev.liveBlocker(algorithm.GardenletVersion(e.seed), algorithm.GardenletVersion(e.to)) != "" {
		// A live migration between these gardenlets fell back since the pass.
		e.timing.live = false
	}
	if when := e.timing.at(ev.clock.Now()); !when.Now {
		no := timingRefusal(e.plugin, e.seed.Name, e.reason, e.cause, e.shoot, when)
		ev.refusedMove(e.shoot, e.plugin, no)
		later.refused(e.seed.Name, no)
		return dropped, nil
	}
	// Once sent, an eviction is written to the end (the patch, then its
	// Events) even when the descheduler is told to stop: a shutdown in
	// between would leave a shoot moved with no Event saying why. The lease
	// is released only after this returns, and a lost lease closes the
	// fence, which refuses this write as it does any other.
	wctx, cancelWrites := context.WithTimeout(context.WithoutCancel(ctx), evictionWriteTimeout)
	defer cancelWrites()
	reason := e.plugin + ": " + e.reason
	if e.live && !ev.liveAdmitted(wctx, e, reason, ev.record(e)) {
		return retry(dropped)
	}
	e, updated, tested, err := ev.writeRetrying(wctx, e, reason)
	return ev.judge(ctx, e, updated, tested, err, later)
}

// record is the shoot's graft.dev/evictions with this move added, signed.
func (ev *evictor) record(e eviction) string {
	return helper.RecordEviction(ev.records.verified(e.shoot), ev.records.sign(e.shoot.UID, helper.Eviction{Seed: e.seed.Name, Cause: e.cause, At: ev.clock.Now()}), ev.gate.recordsKept())
}

// writeRetrying writes the move and, after a conflict, reads the shoot
// again and decides again at once: another write came between the read and
// ours (often the shoot's tenant's), and a tenant must not put a move off
// by writing its shoot. The last attempt is preconditioned only on what the
// decision reads (tested).
func (ev *evictor) writeRetrying(ctx context.Context, e eviction, reason string) (eviction, *v1alpha1.Shoot, bool, error) {
	updated, err := ev.write(ctx, e, reason, ev.record(e), false)
	tested := false
	for attempt := 1; apierrors.IsConflict(err) && attempt <= maxConflictRetries; attempt++ {
		again, ok := ev.again(ctx, e)
		if !ok {
			break
		}
		e, tested = again, attempt == maxConflictRetries
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
		updated, err = ev.write(ctx, e, reason, ev.record(e), tested)
	}
	return e, updated, tested, err
}

// judge turns the write's answer into the move's outcome, and says when the
// seed is looked at again.
func (ev *evictor) judge(ctx context.Context, e eviction, updated *v1alpha1.Shoot, tested bool, err error, later *requeues) (outcome, *v1alpha1.Shoot) {
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "plugin", e.plugin)
	now := ev.clock.Now()
	refusal := ev.mover.Refusal(err, e.seed.Name, e.target)
	switch {
	case err == nil:
		return moved, updated
	case apierrors.IsConflict(err), apierrors.IsNotFound(err), tested && apierrors.IsInvalid(err):
		// The shoot changed since it was read, in what the decision reads:
		// that change wins. The budget goes back at once, for the seed's
		// other moves, and the seed is looked at again with the new state.
		log.V(1).Info("Shoot changed concurrently; eviction dropped", "err", err)
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
		later.after(e.seed.Name, now.Add(retryAfterError))
		return dropped, nil
	case ctx.Err() != nil:
		// Shutting down or the lease was lost, and the update was refused
		// or timed out: the next leader decides again.
		log.V(1).Info("Eviction stopped", "err", err)
		return failed, nil
	case refusal != nil:
		// The migration rules graft knows let the destination through, and
		// Gardener refused: say so on the shoot, and try again later.
		ev.skip(e.shoot, e.plugin, ResultRefused, e.seed.Name+"|"+e.target, fmt.Sprintf("%s wants the shoot off seed %s (%s), but Gardener refused its migration: %s",
			e.plugin, e.seed.Name, e.reason, refusal))
		later.after(e.seed.Name, now.Add(retryAfterRefusal))
		return dropped, nil
	}
	log.Error(err, "Evicting shoot failed")
	ev.metrics.Evictions.WithLabelValues(e.plugin, ResultError).Inc()
	later.after(e.seed.Name, now.Add(retryAfterError))
	return failed, nil
}

// refusedMove counts a move the gate refused under its result, and emits
// its Event once per shoot and reason (note); a refusal without an Event is
// logged.
func (ev *evictor) refusedMove(shoot *v1alpha1.Shoot, plugin string, no *refusal) {
	if no.event == "" {
		ev.metrics.Evictions.WithLabelValues(plugin, no.result()).Inc()
		klog.V(2).InfoS("Move refused for now", "shoot", klog.KObj(shoot), "plugin", plugin, "refusal", no.result(), "why", no.why)
		return
	}
	ev.note(shoot, plugin, no.result(), no.same, no.event, no.eventType, no.msg)
}

// write sends one eviction (the mover's move: on graft's API clearing
// spec.seedName, on Gardener's a binding to the chosen destination), recording
// where from, why and the shoot's recent evictions in its annotations, in the
// same write, preconditioned on the version read, or with tested on what the
// decision read (Mover.MoveTested).
func (ev *evictor) write(ctx context.Context, e eviction, reason, record string, tested bool) (*v1alpha1.Shoot, error) {
	annotations := ev.state.moves.Annotations(e.seed.Name, reason, record, e.live)
	if tested {
		return ev.mover.MoveTested(ctx, e.shoot, e.seed.Name, e.target, annotations, ev.manager())
	}
	return ev.mover.Move(ctx, e.shoot, e.seed.Name, e.target, annotations, ev.manager(), false)
}

// maxConflictRetries bounds the writes of one eviction after a conflict,
// each on a fresh read.
const maxConflictRetries = 3

// again reads the shoot and its seed anew after a conflict and decides
// again: the move goes on only while the shoot is still on the seed and not
// being deleted (on Gardener not migrating), the plugin still picks it on
// the fresh reads, and its timing, from the fresh shoot, still allows it
// now.
func (ev *evictor) again(ctx context.Context, e eviction) (eviction, bool) {
	fresh, err := ev.garden.GetShoot(ctx, e.shoot.Namespace, e.shoot.Name)
	if err != nil || fresh.UID != e.shoot.UID || fresh.DeletionTimestamp != nil || fresh.Spec.SeedName == nil || *fresh.Spec.SeedName != e.seed.Name ||
		ev.state.inFlight(fresh) {
		return e, false
	}
	if e.recheck != nil {
		live, err := ev.garden.GetSeed(ctx, e.seed.Name)
		if err != nil || !e.recheck(live, fresh) {
			return e, false
		}
	}
	m, _ := maintenance.MoveOf(fresh, e.timing.Urgency, e.timing.Deadline)
	e.timing.Move = m
	if !e.timing.at(ev.clock.Now()).Now {
		return e, false
	}
	e.shoot = fresh
	return e, true
}

// wouldEvict reports an eviction dry-run mode does not write.
func (ev *evictor) wouldEvict(log klog.Logger, e eviction) {
	where := "no seed fits it now"
	if e.target != "" {
		where = "it would go to seed " + e.target
	}
	log.Info("Dry run: would evict shoot", "reason", e.reason, "target", e.target)
	ev.recorder.Eventf(ev.api.ShootRef(e.shoot), corev1.EventTypeNormal, EventWouldDeschedule,
		"Dry run: %s would evict the shoot from seed %s (%s); %s", e.plugin, e.seed.Name, e.reason, where)
	ev.metrics.Evictions.WithLabelValues(e.plugin, ResultDryRun).Inc()
}

// moveWriter writes a pass's admitted moves: the evictor's writers, or a
// planner's (planner.go).
type moveWriter interface {
	submit(e eviction)
	finish()
}

// writers write one pass's evictions, concurrentEvictions at a time.
type writers struct {
	ev   *evictor
	jobs chan eviction
	wg   sync.WaitGroup
	// written collects the evictions written, announced on their seeds
	// once the writers are done.
	written passEvictions
}

// startWriters starts a pass's writers; nil in dry-run mode, which writes
// nothing.
func (ev *evictor) startWriters(ctx context.Context, later *requeues) *writers {
	if ev.cfg.DryRun {
		return nil
	}
	w := &writers{ev: ev, jobs: make(chan eviction)}
	for range ev.cfg.ConcurrentEvictions {
		w.wg.Go(func() {
			for e := range w.jobs {
				if ev.evict(ctx, e, later) {
					w.written.add(e)
				}
			}
		})
	}
	return w
}

// submit hands an eviction to a writer, which waits for the token bucket
// after reading the seed again.
func (w *writers) submit(e eviction) {
	w.jobs <- e
}

// finish waits for the writers and announces the evictions on their seeds.
func (w *writers) finish() {
	if w == nil {
		return
	}
	close(w.jobs)
	w.wg.Wait()
	w.written.announce(w.ev.api, w.ev.mover.Verb(), w.ev.recorder)
}
