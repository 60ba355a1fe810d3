package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Scheduler defaults that are not shared with the other components.
const (
	// DefaultSchedulerConcurrentSyncs is how many shoots are bound at once by default.
	DefaultSchedulerConcurrentSyncs = 10
	// DefaultSchedulerLeaseName is the default name of graft-scheduler's Lease.
	DefaultSchedulerLeaseName = "graft-scheduler"
	// DefaultUnschedulableRetryInterval is how long a shoot no seed fits
	// waits for a helpful change before it is decided again anyway.
	DefaultUnschedulableRetryInterval = 5 * time.Minute
	// MinUnschedulableRetryInterval keeps the safety net from turning into
	// the retry loop it replaces.
	MinUnschedulableRetryInterval = 10 * time.Second
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
	if c.UnschedulableRetryInterval == nil {
		c.UnschedulableRetryInterval = &metav1.Duration{Duration: DefaultUnschedulableRetryInterval}
	}
}
