package v1alpha1

import (
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Scheduler defaults that are not shared with the other components.
const (
	// DefaultSchedulerConcurrentSyncs is how many shoots are bound at once by default.
	DefaultSchedulerConcurrentSyncs = 10
	// DefaultSchedulerLeaseName is the default name of graft-scheduler's Lease.
	DefaultSchedulerLeaseName = "graft-scheduler"
)

var _ Configuration = &SchedulerConfiguration{}

// Default fills every unset field of the scheduler configuration.
func (c *SchedulerConfiguration) Default() {
	c.CommonConfiguration.Default(CommonDefaults{
		LeaseName:              DefaultSchedulerLeaseName,
		HealthProbeBindAddress: ":10251",
		MetricsBindAddress:     ":19251",
	})
	if c.API == "" {
		c.API = APIGraft
	}
	if c.SchedulerName == "" {
		c.SchedulerName = corev1alpha1.DefaultSchedulerName
	}
	if c.Strategy == "" {
		c.Strategy = StrategySameRegion
	}
	if c.RegionConfigNamespace == "" {
		c.RegionConfigNamespace = corev1alpha1.GardenNamespace
	}
	if c.ConcurrentSyncs == 0 {
		c.ConcurrentSyncs = DefaultSchedulerConcurrentSyncs
	}
}
