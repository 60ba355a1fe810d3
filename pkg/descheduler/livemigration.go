package descheduler

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
	if !ev.state.migrations || ev.cfg.LiveMigration != configv1alpha1.LiveMigrationPrefer || ev.liveOff.Load() {
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
	_, err := ev.mover.Move(ctx, e.shoot, e.seed.Name, e.target, evictionAnnotations(e.seed.Name, reason, record, e.live, true), Name, true)
	if err == nil {
		return true
	}
	log := klog.FromContext(ctx).WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "target", e.target)
	refusal := ev.refused(err, e)
	switch {
	case refusal != nil && strings.Contains(err.Error(), `"LiveControlPlaneMigration" feature gate is disabled`):
		if !ev.liveOff.Swap(true) {
			ev.metrics.LiveMigrationUnavailable.Set(1)
			log.Info("gardener-apiserver refuses live control-plane migrations (feature gate LiveControlPlaneMigration is off); control planes move classically from now on")
			ev.recorder.Event(ev.garden.API().ShootRef(e.shoot), corev1.EventTypeWarning, EventLiveMigrationUnavailable,
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
