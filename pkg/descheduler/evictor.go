package descheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// evictor owns every limit on evictions and their writes, as the pass
// decides them: the pass window's budgets (maxEvictionsPerSeed,
// maxEvictionsTotal), maxPendingEvicted, the repeat guard, dry-run, the token
// bucket (evictionRate, evictionBurst), the seeds held back until an evicted
// shoot is placed, the EvictionSkipped Events, and the eviction write itself.
// The pass orchestrates the plugins and asks it.
type evictor struct {
	cfg    *configv1alpha1.DeschedulerConfiguration
	garden garden.Client
	// mover writes the evictions: on Gardener's API a migration to the
	// destination the pass chose (eviction.target).
	mover    garden.Mover
	recorder record.EventRecorder
	metrics  *Metrics
	clock    clock.WithTicker
	limiter  *rate.Limiter
	state    *state
	queue    workqueue.TypedRateLimitingInterface[string]
	// records signs the eviction records the evictor writes, and the repeat
	// guard trusts only the records it signed (records.go).
	records recordKey

	mu sync.Mutex
	// perSeed and total count the evictions of the current pass window (interval).
	perSeed map[string]int
	total   int
	// waiting are seeds held back by maxPendingEvicted or requireFit, looked
	// at again when an evicted shoot is placed or seeds and placements change.
	waiting sets.Set[string]
	// skipped remembers the reason of the last EvictionSkipped per shoot so
	// that an unchanged reason is not written again on every pass.
	skipped map[string]string
	// liveRefused are the shoots whose live migration Gardener's admission
	// refused: they move classically.
	liveRefused map[string]struct{}
	// asked is, per shoot and cause, when a deferrable move without a
	// deadline was first and last looked at (firstAsked).
	asked map[string]asked
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

	// churn are the improving plugins' limits (churn.go); churnPass counts
	// their moves in the pass window, churnHour their moves' times in the
	// last hour, oldest first.
	churn     churnLimits
	churnPass map[string]int
	churnHour map[string][]time.Time
	// movedAt is when this process last moved each shoot (by key), for the
	// improving plugins' cool-down; forgotten when the shoot is deleted.
	movedAt map[string]time.Time
}

// forget drops what the evictor remembers of a deleted shoot.
func (ev *evictor) forget(key string) {
	ev.mu.Lock()
	delete(ev.skipped, key)
	delete(ev.liveRefused, key)
	delete(ev.liveWritten, key)
	delete(ev.movedAt, key)
	ev.mu.Unlock()
}

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
	// A fresh read of the shoot is given after a conflict; nil otherwise.
	recheck func(live *v1alpha1.Seed, shoot *v1alpha1.Shoot) bool
	// timing is when the move may happen, asked again right before the
	// write: a wait for the token bucket must not carry a deferrable move
	// past the end of its window.
	timing moveTiming
	// live asks for a live control-plane migration (Gardener, GEP-39).
	live bool
	// to is the destination seed as the pass saw it (for a live intent).
	to *v1alpha1.Seed
}

// retryAfterError is when a seed is looked at again after a failed write.
const retryAfterError = 2 * time.Second

// retryAfterRefusal is when a seed is looked at again after Gardener refused
// a migration off it for a reason graft's migration rules do not predict.
const retryAfterRefusal = time.Minute

// newWindow starts a new pass window: the per-pass budgets start over.
func (ev *evictor) newWindow() {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.perSeed = map[string]int{}
	ev.total = 0
	ev.churnPass = map[string]int{}
	// A move not looked at for two days is over (firstAsked renews one a
	// MaxDeferral later anyway): forget it.
	now := ev.clock.Now()
	maps.DeleteFunc(ev.asked, func(_ string, a asked) bool { return now.Sub(a.last) > 48*time.Hour })
}

// wakeDelay gathers the wakes of held seeds: a pass reserves a seed for every
// waiting shoot first, so one pass per binding of a busy garden kept a core
// busy; the seeds wait this long for the changes that follow.
const wakeDelay = time.Second

// wakeWaiting queues the seeds held back by maxPendingEvicted or requireFit,
// after wakeDelay.
func (ev *evictor) wakeWaiting() {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for name := range ev.waiting {
		ev.queue.AddAfter(name, wakeDelay)
	}
	ev.waiting.Clear()
}

func (ev *evictor) hold(seeds ...string) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.waiting.Insert(seeds...)
}

// takeBudget takes one eviction from the pass window's budgets.
func (ev *evictor) takeBudget(seed string) bool {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if m := int(*ev.cfg.MaxEvictionsPerSeed); m > 0 && ev.perSeed[seed] >= m {
		return false
	}
	if m := int(*ev.cfg.MaxEvictionsTotal); m > 0 && ev.total >= m {
		return false
	}
	ev.perSeed[seed]++
	ev.total++
	return true
}

func (ev *evictor) returnBudget(seed string) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.perSeed[seed]--
	ev.total--
}

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
	if same {
		return
	}
	klog.V(1).InfoS("Eviction left for later", "shoot", klog.KObj(shoot), "result", result, "reason", msg)
	ev.recorder.Event(ev.garden.API().ShootRef(shoot), eventType, event, msg)
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
	ev.state.addInflight(ev.flight(e), -1)
	if ctx.Err() == nil {
		ev.queue.AddAfter(e.seed.Name, retryAfterError)
	}
	return false
}

// evict writes one eviction once the seed, read again, still gives the
// plugin's reason and the token bucket allows: one merge patch on the read
// resourceVersion and the shoot's Descheduled Event. It returns whether the
// shoot was evicted. docs/daemons.md ("An eviction") says why no status.
func (ev *evictor) evict(ctx context.Context, e eviction) bool {
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "plugin", e.plugin)
	reason := e.plugin + ": " + e.reason
	shoot := e.shoot
	if !ev.reasonHolds(ctx, e) {
		return false
	}
	// The token bucket paces the writes themselves. A long wait for a token
	// makes the read above old: read again.
	waitStart := time.Now()
	if err := ev.limiter.Wait(ctx); err != nil {
		ev.returnBudget(e.seed.Name)
		ev.state.addInflight(ev.flight(e), -1)
		return false
	}
	if time.Since(waitStart) > rereadAfterWait && !ev.reasonHolds(ctx, e) {
		return false
	}
	if e.timing.live && ev.liveBlocker(algorithm.GardenletVersion(e.seed), algorithm.GardenletVersion(e.to)) != "" {
		// A live migration between these gardenlets fell back since the pass.
		e.timing.live = false
	}
	if when := e.timing.at(ev.clock.Now()); !when.Now {
		ev.returnBudget(e.seed.Name)
		ev.state.addInflight(ev.flight(e), -1)
		ev.wait(shoot, e.seed.Name, e.plugin, e.reason, e.cause, when, true)
		return false
	}
	// Once sent, an eviction is written to the end (the patch, then its
	// Events) even when the descheduler is told to stop: a shutdown in
	// between would leave a shoot moved with no Event saying why. The lease
	// is released only after this returns, and a lost lease closes the
	// fence, which refuses this write as it does any other.
	wctx, cancelWrites := context.WithTimeout(context.WithoutCancel(ctx), evictionWriteTimeout)
	defer cancelWrites()
	record := helper.RecordEviction(ev.records.verified(shoot), ev.records.sign(shoot.UID, helper.Eviction{Seed: e.seed.Name, Cause: e.cause, At: ev.clock.Now()}), ev.recordsKept())
	if e.live && !ev.liveAdmitted(wctx, e, reason, record) {
		ev.returnBudget(e.seed.Name)
		ev.state.addInflight(ev.flight(e), -1)
		if ctx.Err() == nil {
			ev.queue.AddAfter(e.seed.Name, retryAfterError)
		}
		return false
	}
	updated, err := ev.write(wctx, e, reason, record, false)
	tested := false
	for attempt := 1; apierrors.IsConflict(err) && attempt <= maxConflictRetries; attempt++ {
		// Another write came between the read and ours (often the shoot's
		// tenant's): read the shoot again and decide again at once, rather
		// than leave a move a tenant can put off by writing its shoot. The
		// last attempt is preconditioned only on what the decision reads.
		again, ok := ev.again(wctx, e)
		if !ok {
			break
		}
		e, shoot, tested = again, again.shoot, attempt == maxConflictRetries
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
		record = helper.RecordEviction(ev.records.verified(shoot), ev.records.sign(shoot.UID, helper.Eviction{Seed: e.seed.Name, Cause: e.cause, At: ev.clock.Now()}), ev.recordsKept())
		updated, err = ev.write(wctx, e, reason, record, tested)
	}
	refusal := ev.refused(err, e)
	switch {
	case apierrors.IsConflict(err), apierrors.IsNotFound(err), tested && apierrors.IsInvalid(err):
		// The shoot changed since it was read, in what the decision reads:
		// that change wins. The budget goes back at once, for the seed's
		// other moves, and the seed is looked at again with the new state.
		log.V(1).Info("Shoot changed concurrently; eviction dropped", "err", err)
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultConflict).Inc()
		ev.returnBudget(e.seed.Name)
		ev.state.addInflight(ev.flight(e), -1)
		ev.queue.AddAfter(e.seed.Name, retryAfterError)
		return false
	case err != nil && ctx.Err() != nil:
		// Shutting down or the lease was lost, and the update was refused
		// or timed out: the next leader decides again.
		log.V(1).Info("Eviction stopped", "err", err)
		ev.state.addInflight(ev.flight(e), -1)
		return false
	case refusal != nil:
		// The migration rules graft knows let the destination through, and
		// Gardener refused: say so on the shoot, and try again later.
		ev.returnBudget(e.seed.Name)
		ev.state.addInflight(ev.flight(e), -1)
		ev.skip(shoot, e.plugin, ResultRefused, e.seed.Name+"|"+e.target, fmt.Sprintf("%s wants the shoot off seed %s (%s), but Gardener refused its migration: %s",
			e.plugin, e.seed.Name, e.reason, refusal))
		ev.queue.AddAfter(e.seed.Name, retryAfterRefusal)
		return false
	case err != nil:
		log.Error(err, "Evicting shoot failed")
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultError).Inc()
		ev.state.addInflight(ev.flight(e), -1)
		ev.queue.AddAfter(e.seed.Name, retryAfterError)
		return false
	}
	ev.state.settleEviction(updated, ev.clock.Now(), ev.flight(e))
	ev.metrics.Evictions.WithLabelValues(e.plugin, ResultEvicted).Inc()
	ev.mu.Lock()
	delete(ev.skipped, algorithm.ShootKey(shoot))
	ev.movedAt[algorithm.ShootKey(shoot)] = ev.clock.Now()
	ev.mu.Unlock()
	if e.live {
		ev.metrics.LiveMigrations.Inc()
		ev.liveWrote(updated, e.seed, e.to, e.target)
	}
	log.Info("Moved shoot off its seed", "reason", e.reason, "target", e.target, "migration", ev.state.migrations, "live", e.live)
	ev.recorder.Event(ev.garden.API().ShootRef(updated), corev1.EventTypeNormal, EventDescheduled, ev.mover.Moved(e.seed.Name, e.target, reason))
	return true
}

// write sends one eviction (the mover's move: on graft's API clearing
// spec.seedName, on Gardener's a binding to the chosen destination), recording
// where from, why and the shoot's recent evictions in its annotations, in the
// same write, preconditioned on the version read, or with tested on what the
// decision read (Mover.MoveTested).
func (ev *evictor) write(ctx context.Context, e eviction, reason, record string, tested bool) (*v1alpha1.Shoot, error) {
	annotations := evictionAnnotations(e.seed.Name, reason, record, e.live, ev.state.migrations)
	if tested {
		return ev.mover.MoveTested(ctx, e.shoot, e.seed.Name, e.target, annotations, Name)
	}
	return ev.mover.Move(ctx, e.shoot, e.seed.Name, e.target, annotations, Name, false)
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
		ev.state.migrations && algorithm.Migrating(fresh) {
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

// refused is the API's refusal of the move, nil for any other answer.
func (ev *evictor) refused(err error, e eviction) *algorithm.MigrationRefusal {
	return ev.mover.Refusal(err, e.seed.Name, e.target)
}

// flight is what an eviction counts in flight against: its shoot's
// namespace, and its target where evictions are migrations.
func (ev *evictor) flight(e eviction) flight {
	f := flight{namespace: e.shoot.Namespace}
	if ev.state.migrations {
		f.target = e.target
	}
	return f
}

// evictionAnnotations record an eviction on the shoot: the seed it leaves,
// why, and its recent evictions (graft.dev/evictions, for the repeat guard);
// on a migration, whether it is live (migration.gardener.cloud/live-migrate,
// written either way: a value the tenant left must not decide it).
func evictionAnnotations(seed, reason, evictions string, live, migration bool) map[string]string {
	out := map[string]string{
		v1alpha1.AnnotationDescheduledFrom:   seed,
		v1alpha1.AnnotationDescheduledReason: reason,
		v1alpha1.AnnotationEvictions:         evictions,
	}
	if migration {
		out[v1alpha1.AnnotationLiveMigrate] = strconv.FormatBool(live)
	}
	return out
}

// evictedBefore reports whether the shoot's graft.dev/evictions records an
// eviction from seed for cause within repeatEvictionWindow, and until when
// that holds another one back. The record is written, signed, with each
// eviction, so the guard survives restarts and failovers; a record without
// the descheduler's signature for this shoot (a tenant's) counts for nothing. A record dated further in
// the future than clocks drift apart was not written by an eviction and
// holds nothing back: a shoot cannot buy itself a stay that way.
func (ev *evictor) evictedBefore(shoot *v1alpha1.Shoot, seed, cause string) (time.Time, bool) {
	window := ev.repeatWindow()
	if window <= 0 {
		return time.Time{}, false
	}
	now := ev.clock.Now()
	// A shoot cannot have been evicted from its seed after it came there: a
	// later record was written by someone else (on Gardener, where no
	// admission guards graft's annotations, its tenant) and holds nothing
	// back.
	arrived, known := ev.state.arrivedOn(algorithm.ShootKey(shoot), seed)
	var until time.Time
	for _, e := range ev.records.verified(shoot) {
		if e.Seed != seed || e.Cause != cause || e.At.After(now.Add(maxClockSkew)) || known && e.At.After(arrived) {
			continue
		}
		if end := e.At.Add(window); end.After(now) && end.After(until) {
			until = end
		}
	}
	return until, !until.IsZero()
}

// recordsKept is how long eviction records are kept: for the repeat guard
// and for the improving plugins' cool-downs.
func (ev *evictor) recordsKept() time.Duration {
	return max(ev.repeatWindow(), ev.churn.longestCoolDown())
}

// maxClockSkew is how far ahead of ours an eviction record's time may be.
const maxClockSkew = time.Minute

// repeatWindow is repeatEvictionWindow, 0 (off) when unset.
func (ev *evictor) repeatWindow() time.Duration {
	if ev.cfg.RepeatEvictionWindow == nil {
		return 0
	}
	return ev.cfg.RepeatEvictionWindow.Duration
}

// admission is the evictor's answer to a candidate before requireFit.
type admission int

const (
	// admitted: the candidate took one eviction of the pass window's budgets.
	admitted admission = iota
	// budgetSpent: the pass window's budget for the seed or in total is
	// used up; the next pass window goes on.
	budgetSpent
	// tooManyPending: maxPendingEvicted evicted shoots wait for a seed; the
	// seed is held back until one is placed, and the pass stops.
	tooManyPending
	// projectFull: the shoot's project has its budget of moves in flight;
	// the seed is held back until one finishes, and the pass goes on with
	// the next candidate.
	projectFull
)

// admit takes one eviction from the budgets for a candidate on seed and
// checks maxPendingEvicted and the budget of the shoot's project, counting
// dryPending dry-run evictions of the pass as pending, dryIn of them in the
// shoot's namespace.
func (ev *evictor) admit(log klog.Logger, plugin, seed, namespace string, dryPending, dryIn int) admission {
	if !ev.takeBudget(seed) {
		log.V(2).Info("Eviction budget of this pass used up; waiting for the next pass",
			"maxEvictionsPerSeed", *ev.cfg.MaxEvictionsPerSeed, "maxEvictionsTotal", *ev.cfg.MaxEvictionsTotal)
		return budgetSpent
	}
	if max := int(*ev.cfg.MaxPendingEvicted); max > 0 {
		if ev.state.pendingCount(ev.clock.Now())+dryPending >= max {
			// Look again as soon as an evicted shoot is placed. Re-check after
			// holding so that a placement in between is not missed.
			ev.hold(seed)
			if ev.state.pendingCount(ev.clock.Now())+dryPending >= max {
				ev.returnBudget(seed)
				log.V(2).Info("Too many evicted shoots wait for a seed; holding back", "maxPendingEvicted", max)
				return tooManyPending
			}
		}
	}
	if max := ev.projectBudget(namespace); max > 0 {
		if ev.state.movesInFlightIn(namespace, ev.clock.Now())+dryIn >= max {
			ev.hold(seed)
			if ev.state.movesInFlightIn(namespace, ev.clock.Now())+dryIn >= max {
				ev.returnBudget(seed)
				ev.metrics.Evictions.WithLabelValues(plugin, ResultWaitingForProject).Inc()
				log.V(2).Info("The project has its budget of moves in flight; holding back", "namespace", namespace, "maxMovesInFlight", max)
				return projectFull
			}
		}
	}
	return admitted
}

// projectBudget is how many moves of the namespace's shoots may be in
// flight at once: its projectBudgets entry, or maxMovesInFlightPerProject;
// 0 means no limit.
func (ev *evictor) projectBudget(namespace string) int {
	for _, b := range ev.cfg.ProjectBudgets {
		if b.Namespace == namespace {
			return int(b.MaxMovesInFlight)
		}
	}
	return int(ptr.Deref(ev.cfg.MaxMovesInFlightPerProject, 0))
}

// slot is the evictor's answer to a migration before it is written.
type slot int

const (
	// slotFree: the migration may start.
	slotFree slot = iota
	// gardenFull: maxMigrationsInFlight migrations are in flight; the seed is
	// held back until one finishes, and the pass stops.
	gardenFull
	// destinationFull: maxMigrationsInFlightPerSeed migrations are in flight
	// to the destination; the seed is held back until one finishes, and the
	// pass goes on with the next candidate.
	destinationFull
)

// migrationSlot checks, for a migration admitted to the budgets, the
// migrations in flight in the garden and to its destination, counting the
// pass's dry-run migrations (dryTotal, dryTo) as in flight. When there is no
// slot, the budget is returned and the seed held back: a migration that
// finishes (status.seedName catching up) wakes it.
func (ev *evictor) migrationSlot(log klog.Logger, plugin, seed, target string, dryTotal, dryTo int) slot {
	check := func() slot {
		// The stuck ones are counted for graft_descheduler_migrations_stuck
		// by reportStuck alone, at the start of each pass.
		total, to, _ := ev.state.migrationsInFlight(target, ev.clock.Now())
		ev.metrics.MigrationsInFlight.Set(float64(total))
		if m := ptr.Deref(ev.cfg.MaxMigrationsInFlight, 0); m > 0 && total+dryTotal >= int(m) {
			return gardenFull
		}
		if m := ptr.Deref(ev.cfg.MaxMigrationsInFlightPerSeed, 0); m > 0 && to+dryTo >= int(m) {
			return destinationFull
		}
		return slotFree
	}
	if check() == slotFree {
		return slotFree
	}
	// Re-check after holding, so that a migration finishing in between is
	// not missed.
	ev.hold(seed)
	s := check()
	if s == slotFree {
		return slotFree
	}
	ev.returnBudget(seed)
	ev.metrics.Evictions.WithLabelValues(plugin, ResultWaitingForMigrations).Inc()
	log.V(2).Info("Too many control-plane migrations in flight; holding back", "target", target,
		"maxMigrationsInFlight", ptr.Deref(ev.cfg.MaxMigrationsInFlight, 0), "maxMigrationsInFlightPerSeed", ptr.Deref(ev.cfg.MaxMigrationsInFlightPerSeed, 0))
	return s
}

// heldRepeat tells whether the repeat guard holds the candidate on seed
// back, and then says so (EvictionSkipped) and, with requeue, looks at the
// seed again when it no longer does.
func (ev *evictor) heldRepeat(shoot *v1alpha1.Shoot, seed, plugin, reason, cause string, requeue bool) bool {
	until, held := ev.evictedBefore(shoot, seed, cause)
	if !held {
		return false
	}
	if requeue {
		ev.queue.AddAfter(seed, until.Sub(ev.clock.Now())+requeueSlack)
	}
	ev.skip(shoot, plugin, ResultHeldRepeat, seed+"|"+cause+"|"+until.String(), fmt.Sprintf("%s wants the shoot off seed %s (%s), but it was evicted from that seed for the same cause (%s) less than %s ago: held until %s, so that it does not move back and forth",
		plugin, seed, reason, cause, ev.repeatWindow(), until.UTC().Format(time.RFC3339)))
	return true
}

// noFit leaves an admitted candidate in place because requireFit found no
// other seed (err says why): its budget is returned and the seed held back
// until an evicted shoot is placed.
func (ev *evictor) noFit(shoot *v1alpha1.Shoot, seed, plugin, reason, cause string, err error) {
	ev.returnBudget(seed)
	ev.hold(seed)
	result, why := ResultSkippedNoFit, "no other seed fits"
	var se *algorithm.ScheduleError
	if errors.As(err, &se) && se.Filter == algorithm.FilterLimitedToleration {
		// Moving would only trade one limited stay for another.
		result, why = ResultSkippedLimitedStay, "the seeds that fit elsewhere would let it stay only for a limited time, so it stays"
	}
	ev.skip(shoot, plugin, result, seed+"|"+cause+"|"+algorithm.StableReason(err), fmt.Sprintf("%s wants the shoot off seed %s (%s), but %s: %s",
		plugin, seed, reason, why, algorithm.ShortReason(err)))
}

// notImproving leaves an admitted improving candidate in place: the
// scheduler would not send it where its plugin wants it (why). Its budget is
// returned and the seed held back until seeds or placements change. No
// Event: nothing is wrong with the shoot.
func (ev *evictor) notImproving(log klog.Logger, seed, plugin, why string) {
	ev.returnBudget(seed)
	ev.hold(seed)
	ev.metrics.Evictions.WithLabelValues(plugin, ResultNotImproving).Inc()
	log.V(2).Info("No improvement for the shoot now", "why", why)
}

// wouldEvict reports an eviction dry-run mode does not write.
func (ev *evictor) wouldEvict(log klog.Logger, e eviction) {
	where := "no seed fits it now"
	if e.target != "" {
		where = "it would go to seed " + e.target
	}
	log.Info("Dry run: would evict shoot", "reason", e.reason, "target", e.target)
	ev.recorder.Eventf(ev.garden.API().ShootRef(e.shoot), corev1.EventTypeNormal, EventWouldDeschedule,
		"Dry run: %s would evict the shoot from seed %s (%s); %s", e.plugin, e.seed.Name, e.reason, where)
	ev.metrics.Evictions.WithLabelValues(e.plugin, ResultDryRun).Inc()
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
func (ev *evictor) startWriters(ctx context.Context) *writers {
	if ev.cfg.DryRun {
		return nil
	}
	w := &writers{ev: ev, jobs: make(chan eviction)}
	for range ev.cfg.ConcurrentEvictions {
		w.wg.Go(func() {
			for e := range w.jobs {
				if ev.evict(ctx, e) {
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
	w.ev.state.addInflight(w.ev.flight(e), 1)
	w.jobs <- e
}

// finish waits for the writers and announces the evictions on their seeds.
func (w *writers) finish() {
	if w == nil {
		return
	}
	close(w.jobs)
	w.wg.Wait()
	w.written.announce(w.ev.garden.API(), w.ev.mover.Verb(), w.ev.recorder)
}
