package capacity

import (
	"slices"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// notReadyReason says why seed is not ready, or "" when it is ready. The
// health taints follow the seed agent's readiness
// (helper.SeedGardenletReadiness), not the scheduler's wider rule: failing
// backup buckets keep new shoots away but do not evict running control planes.
func notReadyReason(seed *v1alpha1.Seed) string {
	_, reason := helper.SeedGardenletReadiness(seed)
	return reason
}

// unhealthySince is when seed became not ready: the last transition of its
// GardenletReady condition when that condition is what makes it not ready and
// is older than firstObserved (the time the caller first saw the seed not
// ready), otherwise firstObserved. The condition survives restarts of the
// annotator; firstObserved covers seeds that never reported the condition.
func unhealthySince(seed *v1alpha1.Seed, firstObserved time.Time) time.Time {
	c := helper.GetCondition(seed.Status.Conditions, v1alpha1.SeedGardenletReady)
	if c == nil || c.Status == v1alpha1.ConditionTrue || c.LastTransitionTime.IsZero() {
		return firstObserved
	}
	if t := c.LastTransitionTime.Time; t.Before(firstObserved) {
		return t
	}
	return firstObserved
}

// taintDecision is what the seed's taints should be.
type taintDecision struct {
	// Ready tells whether the seed is ready; Reason says why not.
	Ready  bool
	Reason string
	// Taints is the seed's complete new taint list.
	Taints []v1alpha1.SeedTaint
	// Changed tells whether Taints differs from the seed's taints.
	Changed bool
	// RecheckAfter is, for a seed that is not ready and does not have the
	// NoExecute taint yet, how long until it is due; zero otherwise.
	RecheckAfter time.Duration
}

// decideTaints returns the taints seed should have at now. since is when it
// became not ready (see unhealthySince) and evictionDelay how long it may stay
// not ready before it also gets the NoExecute taint (nil: never). The NoExecute
// taint it adds records now as its timeAdded; taints already on the seed are
// kept as they are, with their timeAdded.
func decideTaints(seed *v1alpha1.Seed, since, now time.Time, evictionDelay *time.Duration) taintDecision {
	d := taintDecision{Reason: notReadyReason(seed)}
	d.Ready = d.Reason == ""

	wantNoSchedule := !d.Ready
	wantNoExecute := false
	if !d.Ready && evictionDelay != nil {
		if left := since.Add(*evictionDelay).Sub(now); left > 0 {
			d.RecheckAfter = left
		} else {
			wantNoExecute = true
		}
	}

	haveNoSchedule, haveNoExecute := false, false
	for _, t := range seed.Spec.Taints {
		if t.Key != v1alpha1.SeedTaintNotReady {
			d.Taints = append(d.Taints, t)
			continue
		}
		switch helper.TaintEffectOf(t) {
		case v1alpha1.TaintEffectNoSchedule:
			if wantNoSchedule && !haveNoSchedule {
				d.Taints = append(d.Taints, t)
			}
			haveNoSchedule = true
		case v1alpha1.TaintEffectNoExecute:
			if wantNoExecute && !haveNoExecute {
				d.Taints = append(d.Taints, t)
			}
			haveNoExecute = true
		default:
			// PreferNoSchedule is not the annotator's to manage.
			d.Taints = append(d.Taints, t)
		}
	}
	if wantNoSchedule && !haveNoSchedule {
		d.Taints = append(d.Taints, v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintNotReady, Effect: v1alpha1.TaintEffectNoSchedule})
	}
	if wantNoExecute && !haveNoExecute {
		// timeAdded is the moment the shoots' tolerations of the taint start
		// to count; the one already on the seed keeps its own.
		d.Taints = append(d.Taints, taintclock.Added(v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintNotReady, Effect: v1alpha1.TaintEffectNoExecute}, now))
	}
	d.Changed = !slices.EqualFunc(d.Taints, seed.Spec.Taints, helper.SameTaint)
	return d
}
