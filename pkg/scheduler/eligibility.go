package scheduler

import (
	"reflect"

	"k8s.io/utils/ptr"

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

// decisionInputChanged tells whether a shoot's update changed what deciding
// it reads: its spec (generation), deletion, the seed its status names, or
// graft.dev/descheduled-from (the seed a decision sets aside). Its labels,
// its other annotations and its status alone, such as the lastOperation the
// scheduler writes when no seed fits, need no decision: a tenant patching
// them must not buy decisions. A nil old (an object the informer could not
// type) counts as changed.
func decisionInputChanged(old, cur *corev1alpha1.Shoot) bool {
	if old == nil || old.Generation != cur.Generation || (old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil) {
		return true
	}
	if old.Annotations[corev1alpha1.AnnotationDescheduledFrom] != cur.Annotations[corev1alpha1.AnnotationDescheduledFrom] {
		return true
	}
	return ptr.Deref(old.Status.SeedName, "") != ptr.Deref(cur.Status.SeedName, "") ||
		!reflect.DeepEqual(old.Spec, cur.Spec)
}
