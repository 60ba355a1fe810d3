package descheduler

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// EventLiveMigrationUnavailable is emitted on the shoot whose live
// migration gardener-apiserver refused for its feature gate: from then on
// control planes move classically.
const EventLiveMigrationUnavailable = "LiveMigrationUnavailable"

// liveWanted tells whether the shoot's control plane should move live: on
// Gardener with liveMigration Prefer, while gardener-apiserver has not
// refused live migrations, for a shoot that meets GEP-39's own
// prerequisites and that admission has not refused a live move before.
func (ev *evictor) liveWanted(shoot *v1alpha1.Shoot) bool {
	if ev.cfg.LiveMigration != configv1alpha1.LiveMigrationPrefer || ev.liveOff.Load() {
		return false
	}
	if algorithm.ShootLiveMigrationBlocker(shoot) != "" {
		return false
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	_, refused := ev.liveRefused[algorithm.ShootKey(shoot)]
	return !refused
}

// liveAdmitted asks Gardener's admission, by a dry run of the same binding,
// whether it takes the live migration; only then is it written, so that no
// live migration is attempted with the feature gate off. A refusal for the
// gate turns live migrations off for good (an Event, and
// graft_descheduler_live_migration_unavailable); another refusal makes the
// shoot move classically. In both cases the seed is looked at again.
func (ev *evictor) liveAdmitted(ctx context.Context, e eviction, reason, record string) bool {
	_, err := ev.mover.Move(ctx, e.shoot, e.seed.Name, e.target, ev.state.moves.Annotations(e.seed.Name, reason, record, e.live), Name, true)
	if err == nil {
		return true
	}
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "target", e.target)
	refusal := ev.mover.Refusal(err, e.seed.Name, e.target)
	switch {
	case refusal != nil && strings.Contains(err.Error(), `"LiveControlPlaneMigration" feature gate is disabled`):
		if !ev.liveOff.Swap(true) {
			ev.metrics.LiveMigrationUnavailable.Set(1)
			log.Info("gardener-apiserver refuses live control-plane migrations (feature gate LiveControlPlaneMigration is off); control planes move classically from now on")
			ev.recorder.Event(ev.api.ShootRef(e.shoot), corev1.EventTypeWarning, EventLiveMigrationUnavailable,
				fmt.Sprintf("graft-descheduler would migrate the control plane live to seed %s, but gardener-apiserver refuses live migrations (its feature gate LiveControlPlaneMigration is off): every control plane moves classically from now on, in its maintenance window when the move can wait", e.target))
		}
	case refusal != nil:
		ev.mu.Lock()
		ev.liveRefused[algorithm.ShootKey(e.shoot)] = struct{}{}
		ev.mu.Unlock()
		ev.skip(e.shoot, e.plugin, ResultRefused, e.seed.Name+"|"+e.target+"|live", fmt.Sprintf("%s wants the shoot off seed %s (%s), but Gardener refused its live migration to seed %s: %s; it moves classically",
			e.plugin, e.seed.Name, e.reason, e.target, refusal))
	default:
		log.Error(err, "Asking Gardener's admission about a live migration failed")
		ev.metrics.Evictions.WithLabelValues(e.plugin, ResultError).Inc()
	}
	return false
}

// EventLiveMigrationFellBack is emitted on a shoot whose live migration
// graft asked for and whose gardenlet ran a classic one.
const EventLiveMigrationFellBack = "LiveMigrationFellBack"

// liveWrite is a live intent this process wrote, waiting for the
// destination's gardenlet to say what it runs.
type liveWrite struct {
	uid    types.UID
	pair   string
	from   string
	to     string
	target string
	// before is the shoot's last operation when the intent was written: only
	// a new one answers.
	before *v1alpha1.LastOperation
}

// liveBlocker says why a move between gardenlet versions from and to is
// not timed as live (algorithm.LiveFlow.Blocker on what this process
// knows); "" when it is.
func (ev *evictor) liveBlocker(from, to string) string {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.liveFlow.Blocker(from, to)
}

// liveWrote remembers a live intent written for shoot (as the binding left
// it), to judge it by what its gardenlet reports (liveObserved).
func (ev *evictor) liveWrote(shoot *v1alpha1.Shoot, from, to *v1alpha1.Seed, target string) {
	fv, tv := algorithm.GardenletVersion(from), algorithm.GardenletVersion(to)
	w := liveWrite{uid: shoot.UID, pair: algorithm.LivePair(fv, tv), from: fv, to: tv, target: target}
	if op := shoot.Status.LastOperation; op != nil {
		// What LiveOutcome compares, not the description: the record
		// published on the Lease stays small.
		w.before = &v1alpha1.LastOperation{Type: op.Type, State: op.State, LastUpdateTime: op.LastUpdateTime}
	}
	ev.mu.Lock()
	ev.liveWritten[algorithm.ShootKey(shoot)] = w
	ev.mu.Unlock()
	ev.liveChanged()
}

// liveObserved judges a live intent this process wrote by the shoot's new
// last operation: LiveMigrate is evidence that both gardenlets run the live
// flow; Migrate or Restore a fallback, which stops live timing for the
// version pair (a Warning Event on the shoot and
// graft_descheduler_live_migration_fallbacks_total) until
// liveMigrationGardenletVersions changes (the record on the Lease keeps it
// across restarts). Only gardenlet writes a shoot's status, so a tenant
// cannot forge either.
func (ev *evictor) liveObserved(shoot *v1alpha1.Shoot) {
	key := algorithm.ShootKey(shoot)
	ev.mu.Lock()
	w, ok := ev.liveWritten[key]
	if !ok {
		ev.mu.Unlock()
		return
	}
	if w.uid != shoot.UID {
		delete(ev.liveWritten, key)
		ev.mu.Unlock()
		return
	}
	observed, fellBack := algorithm.LiveOutcome(shoot, w.before)
	switch {
	case observed:
		ev.liveFlow.Observed.Insert(w.from, w.to)
	case fellBack:
		ev.liveFlow.FellBack.Insert(w.pair)
	}
	if observed || fellBack {
		delete(ev.liveWritten, key)
	}
	ev.mu.Unlock()
	if observed || fellBack {
		ev.liveChanged()
	}
	switch {
	case observed:
		klog.InfoS("Gardenlet runs live control-plane migrations; moves between these versions are timed as live", "shoot", klog.KObj(shoot), "from", w.from, "to", w.to)
	case fellBack:
		op := shoot.Status.LastOperation
		ev.metrics.LiveMigrationFallbacks.Inc()
		klog.InfoS("A live control-plane migration fell back to a classic one; moves between these gardenlet versions are no longer timed as live", "shoot", klog.KObj(shoot), "target", w.target, "from", w.from, "to", w.to, "lastOperation", op.Type)
		ev.recorder.Event(ev.api.ShootRef(shoot), corev1.EventTypeWarning, EventLiveMigrationFellBack,
			fmt.Sprintf("graft-descheduler asked for a live migration of the control plane to seed %s, but gardenlet ran a classic migration (last operation %s %s), with downtime: moves from gardenlet %s to %s are no longer timed as live, and wait for their maintenance windows when they can",
				w.target, op.Type, op.State, algorithm.Clip(w.from), algorithm.Clip(w.to)))
	}
}
