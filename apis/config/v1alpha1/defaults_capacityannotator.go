package v1alpha1

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

const (
	// DefaultCapacityAnnotatorLeaseName is the default name of graft-capacity-annotator's Lease.
	DefaultCapacityAnnotatorLeaseName = "graft-capacity-annotator"
	// DefaultSeedShootCapacity is how many shoots a seed holds when nothing says otherwise.
	DefaultSeedShootCapacity = 200
	// DefaultCapacityAnnotatorSyncPeriod is the default shortest time between two status writes to one seed.
	DefaultCapacityAnnotatorSyncPeriod = 5 * time.Second
	// DefaultCapacityAnnotatorConcurrentSyncs is how many seeds are reconciled at once by default.
	DefaultCapacityAnnotatorConcurrentSyncs = 5
	// DefaultForecastPeriod is how often the forecast is computed by default.
	DefaultForecastPeriod = 30 * time.Second
	// DefaultForecastWindow is how far back arrivals are counted by default.
	DefaultForecastWindow = 6 * time.Hour
	// DefaultForecastHorizon is how soon a pool must fill to count as filling.
	DefaultForecastHorizon = 24 * time.Hour
	// DefaultPoolScaleCoolDown is the least time between two steps of a set.
	DefaultPoolScaleCoolDown = 30 * time.Minute
	// DefaultScaleInLowUtilisation is the default low mark of scale-in, in percent.
	DefaultScaleInLowUtilisation = 50
	// DefaultScaleInAfter is how long a pool stays low before scale-in by default.
	DefaultScaleInAfter = time.Hour
)

var _ Configuration = &CapacityAnnotatorConfiguration{}

// Default fills every unset field of the capacity annotator's configuration.
func (c *CapacityAnnotatorConfiguration) Default() {
	c.CommonConfiguration.Default(CommonDefaults{
		LeaseName:              DefaultCapacityAnnotatorLeaseName,
		HealthProbeBindAddress: ":10252",
		MetricsBindAddress:     ":19252",
	})
	if c.API == "" {
		c.API = APIGraft
	}
	if c.SyncPeriod.Duration == 0 {
		c.SyncPeriod.Duration = DefaultCapacityAnnotatorSyncPeriod
	}
	if c.ConcurrentSyncs == 0 {
		c.ConcurrentSyncs = DefaultCapacityAnnotatorConcurrentSyncs
	}
	c.Forecast.Default()
	for i := range c.Pools {
		if m := c.Pools[i].ManagedSeedSet; m != nil {
			m.Default()
		}
	}
	if c.API == APIGardener {
		// gardenlet reports capacity and allocatable there.
		return
	}
	if c.Capacity == nil {
		c.Capacity = corev1.ResourceList{}
	}
	if _, ok := c.Capacity[corev1alpha1.ResourceShoots]; !ok {
		c.Capacity[corev1alpha1.ResourceShoots] = *resource.NewQuantity(DefaultSeedShootCapacity, resource.DecimalSI)
	}
	if c.Reserved == nil {
		c.Reserved = corev1.ResourceList{}
	}
	if _, ok := c.Reserved[corev1alpha1.ResourceShoots]; !ok {
		c.Reserved[corev1alpha1.ResourceShoots] = *resource.NewQuantity(0, resource.DecimalSI)
	}
}

// Default fills the forecast's unset fields.
func (f *ForecastConfiguration) Default() {
	if f.Period.Duration == 0 {
		f.Period.Duration = DefaultForecastPeriod
	}
	if f.Window.Duration == 0 {
		f.Window.Duration = DefaultForecastWindow
	}
	if f.Horizon.Duration == 0 {
		f.Horizon.Duration = DefaultForecastHorizon
	}
	if f.SchedulerLease.Namespace == "" {
		f.SchedulerLease.Namespace = corev1alpha1.GardenNamespace
	}
	if f.SchedulerLease.Name == "" {
		f.SchedulerLease.Name = DefaultSchedulerLeaseName
	}
}

// Default fills a scaled set's unset fields.
func (m *ManagedSeedSetScaling) Default() {
	if m.Namespace == "" {
		m.Namespace = corev1alpha1.GardenNamespace
	}
	if m.MinReplicas == 0 {
		m.MinReplicas = 1
	}
	if m.CoolDown.Duration == 0 {
		m.CoolDown.Duration = DefaultPoolScaleCoolDown
	}
	if m.ScaleIn.LowUtilisation == 0 {
		m.ScaleIn.LowUtilisation = DefaultScaleInLowUtilisation
	}
	if m.ScaleIn.After.Duration == 0 {
		m.ScaleIn.After.Duration = DefaultScaleInAfter
	}
}
