package helper

import (
	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// ShootSchedulerName returns the name of the scheduler responsible for the
// shoot: spec.schedulerName, or DefaultSchedulerName when it is unset or empty.
func ShootSchedulerName(shoot *v1alpha1.Shoot) string {
	if shoot.Spec.SchedulerName != nil && *shoot.Spec.SchedulerName != "" {
		return *shoot.Spec.SchedulerName
	}
	return v1alpha1.DefaultSchedulerName
}

// ShootBound tells whether the shoot has a seed: spec.seedName set and not
// empty. A shoot without one waits for its scheduler.
func ShootBound(shoot *v1alpha1.Shoot) bool {
	return shoot.Spec.SeedName != nil && *shoot.Spec.SeedName != ""
}

// ShootWaitsFor tells whether a scheduler named schedulerName must place
// shoot: it has no seed yet, is not being deleted, and names no other
// scheduler.
func ShootWaitsFor(shoot *v1alpha1.Shoot, schedulerName string) bool {
	if ShootBound(shoot) || shoot.DeletionTimestamp != nil {
		return false
	}
	return ShootSchedulerName(shoot) == schedulerName
}

// ShootHibernated tells whether the shoot's control plane sleeps: it is
// hibernated and is not waking up (spec.hibernation.enabled and
// status.isHibernated both true). Moving it disrupts nobody.
func ShootHibernated(shoot *v1alpha1.Shoot) bool {
	h := shoot.Spec.Hibernation
	return shoot.Status.IsHibernated && h != nil && h.Enabled != nil && *h.Enabled
}

// ShootInHibernation tells whether the shoot is hibernated, going to sleep
// or waking up: spec.hibernation.enabled or status.isHibernated, as
// Gardener's live migration refuses it.
func ShootInHibernation(shoot *v1alpha1.Shoot) bool {
	h := shoot.Spec.Hibernation
	return shoot.Status.IsHibernated || h != nil && h.Enabled != nil && *h.Enabled
}
