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
