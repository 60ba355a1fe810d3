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
