package scheduler

import (
	"slices"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// responsible tells whether a scheduler named schedulerName must place shoot:
// it has no seed yet, is not being deleted, and names no other scheduler.
func responsible(shoot *corev1alpha1.Shoot, schedulerName string) bool {
	if helper.ShootBound(shoot) || shoot.DeletionTimestamp != nil {
		return false
	}
	return helper.ShootSchedulerName(shoot) == schedulerName
}

// seedMayNowFit tells whether a seed update could make an unschedulable shoot
// fit: everything the filters read changed, except usage (which the scheduler
// counts itself) and bookkeeping such as resourceVersion or conditions'
// timestamps. A false negative only delays a shoot until its next backoff retry.
func seedMayNowFit(old, cur *corev1alpha1.Seed) bool {
	if cur.DeletionTimestamp != nil {
		return false
	}
	if old.Generation != cur.Generation || !slices.Equal(mapPairs(old.Labels), mapPairs(cur.Labels)) {
		return true
	}
	// Whether the seed may take shoots at all (visibility, lastOperation,
	// conditions) is one rule; a change of its answer is what matters.
	if helper.SeedUnusableReason(old) != helper.SeedUnusableReason(cur) {
		return true
	}
	oldAlloc, oldSet := old.Status.Allocatable[corev1alpha1.ResourceShoots]
	curAlloc, curSet := cur.Status.Allocatable[corev1alpha1.ResourceShoots]
	if oldSet != curSet || (oldSet && oldAlloc.Cmp(curAlloc) != 0) {
		return true
	}
	// Taints, networks and provider are spec fields: a CRD without generation
	// bookkeeping would still change them in the spec, so compare the parts the
	// filters read when the generation did not move.
	return !slices.EqualFunc(old.Spec.Taints, cur.Spec.Taints, helper.SameTaint) ||
		!slices.Equal(old.Spec.Provider.Zones, cur.Spec.Provider.Zones) ||
		old.Spec.Provider.Region != cur.Spec.Provider.Region || old.Spec.Provider.Type != cur.Spec.Provider.Type
}

func mapPairs(m map[string]string) []string {
	out := make([]string, 0, 2*len(m))
	for k, v := range m {
		out = append(out, k+"\x00"+v)
	}
	slices.Sort(out)
	return out
}
