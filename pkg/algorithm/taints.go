package algorithm

import (
	"math"
	"slices"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// ShootTolerations returns the tolerations the algorithm honours for a shoot:
// every admitted one, plus the protected taint's for a shoot in the garden
// namespace, where Gardener defaults it. The shoot's own slice is returned
// when nothing changes; callers must not modify the result.
func ShootTolerations(shoot *v1alpha1.Shoot) []v1alpha1.Toleration {
	own := shoot.Spec.Tolerations
	if shoot.Namespace == v1alpha1.GardenNamespace && !slices.ContainsFunc(own, isProtectedToleration) {
		out := make([]v1alpha1.Toleration, len(own), len(own)+1)
		copy(out, own)
		return append(out, v1alpha1.Toleration{Key: v1alpha1.SeedTaintProtected})
	}
	return own
}

// UsesProtectedToleration reports whether a shoot outside the garden
// namespace tolerates the protected taint: admission let it, by a project's
// whitelist or an operator's hand, and an operator reading a decision
// should know.
func UsesProtectedToleration(shoot *v1alpha1.Shoot) bool {
	return shoot.Namespace != v1alpha1.GardenNamespace && slices.ContainsFunc(shoot.Spec.Tolerations, isProtectedToleration)
}

func isProtectedToleration(t v1alpha1.Toleration) bool {
	return t.Key == v1alpha1.SeedTaintProtected
}

// untoleratedMessage is the explanation of a seed rejected for the taints the
// shoot does not tolerate. A protected seed refused to a shoot outside the
// garden namespace says whose it is.
func untoleratedMessage(shoot *v1alpha1.Shoot, untolerated []v1alpha1.SeedTaint) string {
	msg := "shoot does not tolerate the seed's taints (" + formatTaints(untolerated) + ")"
	if shoot.Namespace == v1alpha1.GardenNamespace || !slices.ContainsFunc(untolerated, func(t v1alpha1.SeedTaint) bool {
		return t.Key == v1alpha1.SeedTaintProtected
	}) {
		return msg
	}
	return msg + "; seed is protected: it is for shoots in namespace " + v1alpha1.GardenNamespace +
		" and those whose project may tolerate " + v1alpha1.SeedTaintProtected
}

// ToleratesTaint reports whether one toleration matches one taint: equal keys;
// equal values when the taint has a value (a toleration without value then
// matches only an empty value, as in Gardener); and the toleration's effect
// empty or equal to the taint's effect (see helper.TaintEffectOf).
func ToleratesTaint(toleration v1alpha1.Toleration, taint v1alpha1.SeedTaint) bool {
	if toleration.Key != taint.Key {
		return false
	}
	if taint.Value != nil {
		value := ""
		if toleration.Value != nil {
			value = *toleration.Value
		}
		if value != *taint.Value {
			return false
		}
	}
	return toleration.Effect == "" || toleration.Effect == helper.TaintEffectOf(taint)
}

// TaintTolerated reports whether any of the tolerations matches the taint.
func TaintTolerated(taint v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) bool {
	for i := range tolerations {
		if ToleratesTaint(tolerations[i], taint) {
			return true
		}
	}
	return false
}

// UntoleratedTaints returns the taints no toleration matches, restricted to the
// given effects (all effects when none are given), in the seed's order.
func UntoleratedTaints(taints []v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration, effects ...v1alpha1.TaintEffect) []v1alpha1.SeedTaint {
	var out []v1alpha1.SeedTaint
	for _, taint := range taints {
		if len(effects) > 0 && !containsEffect(effects, helper.TaintEffectOf(taint)) {
			continue
		}
		if !TaintTolerated(taint, tolerations) {
			out = append(out, taint)
		}
	}
	return out
}

// LimitedNoExecuteTaints returns the NoExecute taints that the tolerations
// match only with tolerationSeconds: a shoot may stay a while, not for ever.
func LimitedNoExecuteTaints(taints []v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) []v1alpha1.SeedTaint {
	var out []v1alpha1.SeedTaint
	for _, taint := range taints {
		if helper.TaintEffectOf(taint) != v1alpha1.TaintEffectNoExecute {
			continue
		}
		if tolerated, _, limited := NoExecuteStay(taint, tolerations); tolerated && limited {
			out = append(out, taint)
		}
	}
	return out
}

// NoExecuteStay is how long the tolerations let a shoot stay under one
// NoExecute taint: not tolerated at all, for ever (limited false), or for
// seconds from when its toleration starts to count (limited true). When
// several tolerations match, the most permissive wins: one without
// tolerationSeconds tolerates for ever, otherwise the longest applies.
func NoExecuteStay(taint v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) (tolerated bool, seconds int64, limited bool) {
	for _, toleration := range tolerations {
		if !ToleratesTaint(toleration, taint) {
			continue
		}
		if toleration.TolerationSeconds == nil {
			return true, 0, false
		}
		if !tolerated || *toleration.TolerationSeconds > seconds {
			seconds = *toleration.TolerationSeconds
		}
		tolerated = true
	}
	return tolerated, seconds, tolerated
}

// MinimumStay is the shortest stay a placement may promise a shoot: a seed
// whose NoExecute taint the shoot tolerates for less (tolerationSeconds
// counts from the placement) would see it evicted about as soon as it
// arrived, so for placement such a taint counts as not tolerated
// (FilterTolerationRunsOut). Kubernetes places a pod there and evicts it at
// once; for a control plane every move is a migration.
const MinimumStay = time.Minute

// stayRunsOut reports whether a shoot placed on a seed with this taint now
// would have to leave within MinimumStay.
func stayRunsOut(taint v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) bool {
	tolerated, seconds, limited := NoExecuteStay(taint, tolerations)
	return tolerated && limited && seconds < int64(MinimumStay/time.Second)
}

// RunOutNoExecuteTaints returns the NoExecute taints the tolerations match
// only for less than MinimumStay.
func RunOutNoExecuteTaints(taints []v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) []v1alpha1.SeedTaint {
	var out []v1alpha1.SeedTaint
	for _, taint := range taints {
		if helper.TaintEffectOf(taint) == v1alpha1.TaintEffectNoExecute && stayRunsOut(taint, tolerations) {
			out = append(out, taint)
		}
	}
	return out
}

func containsEffect(effects []v1alpha1.TaintEffect, effect v1alpha1.TaintEffect) bool {
	for _, e := range effects {
		if e == effect {
			return true
		}
	}
	return false
}

// NoExecuteStatus is what a seed's NoExecute taints mean for a shoot running on it.
type NoExecuteStatus struct {
	// Untolerated are the NoExecute taints no toleration of the shoot matches:
	// the shoot must leave now.
	Untolerated []v1alpha1.SeedTaint
	// StayUntil is the earliest time a tolerated NoExecute taint's
	// tolerationSeconds runs out. It is meaningful only when LimitingTaint is set.
	StayUntil time.Time
	// LimitingTaint is the tolerated taint whose tolerationSeconds sets
	// StayUntil; nil when no tolerated taint limits the stay.
	LimitingTaint *v1alpha1.SeedTaint
}

// MustLeave reports whether the shoot must leave at the given time: it has an
// untolerated NoExecute taint, or now is at or after StayUntil.
func (s NoExecuteStatus) MustLeave(now time.Time) bool {
	return len(s.Untolerated) > 0 || (s.LimitingTaint != nil && !now.Before(s.StayUntil))
}

// maxStaySeconds is the longest toleration CheckNoExecute counts (about 290
// years): longer ones would overflow time.Duration.
const maxStaySeconds = int64(math.MaxInt64 / time.Second)

// CheckNoExecute reports which of the seed's NoExecute taints the shoot does not
// tolerate and, for tolerated ones whose tolerations are limited by
// tolerationSeconds, until when the shoot may stay. firstSeen returns when a
// taint was first observed on the seed (the caller's clock, not ours); it may be
// nil when no time is known, and then limited tolerations count from the zero
// time (the shoot must leave).
//
// When several tolerations match one taint the most permissive wins: one
// without tolerationSeconds tolerates the taint for ever, otherwise the longest
// applies. tolerationSeconds <= 0 means the shoot must leave at firstSeen.
// The tolerations are those of ShootTolerations.
func CheckNoExecute(shoot *v1alpha1.Shoot, seed *v1alpha1.Seed, firstSeen func(v1alpha1.SeedTaint) time.Time) NoExecuteStatus {
	var status NoExecuteStatus
	tolerations := ShootTolerations(shoot)
	for i := range seed.Spec.Taints {
		taint := seed.Spec.Taints[i]
		if helper.TaintEffectOf(taint) != v1alpha1.TaintEffectNoExecute {
			continue
		}
		matched, longest, limited := NoExecuteStay(taint, tolerations)
		forever := matched && !limited
		switch {
		case forever:
			continue
		case !matched:
			status.Untolerated = append(status.Untolerated, taint)
		default:
			var seen time.Time
			if firstSeen != nil {
				seen = firstSeen(taint)
			}
			until := seen
			if longest > 0 {
				// Beyond what a Duration holds the stay has no end in sight.
				until = seen.Add(time.Duration(min(longest, maxStaySeconds)) * time.Second)
			}
			if status.LimitingTaint == nil || until.Before(status.StayUntil) {
				status.StayUntil = until
				status.LimitingTaint = &seed.Spec.Taints[i]
			}
		}
	}
	return status
}
