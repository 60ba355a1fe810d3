package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Descheduler defaults that are not shared with the other components.
const (
	// DefaultDeschedulerLeaseName is the default name of graft-descheduler's
	// Lease; graftctl drain looks for it to tell whether a descheduler runs.
	DefaultDeschedulerLeaseName = "graft-descheduler"
	// DefaultDeschedulerInterval is the default time between full passes.
	DefaultDeschedulerInterval = time.Minute
	// DefaultMaxEvictionsPerSeed is the default per-seed eviction budget of a pass.
	DefaultMaxEvictionsPerSeed = 10
	// DefaultMaxEvictionsTotal is the default eviction budget of a pass.
	DefaultMaxEvictionsTotal = 50
	// DefaultEvictionRate is the default number of evictions per second.
	DefaultEvictionRate = 1.0
	// DefaultEvictionBurst is the default token-bucket size.
	DefaultEvictionBurst = 1
	// DefaultMaxPendingEvicted is the default number of evicted shoots that may
	// wait for a seed before evictions stop.
	DefaultMaxPendingEvicted = 10
	// DefaultRepeatEvictionWindow is the default time a shoot is not evicted
	// again for the same cause.
	DefaultRepeatEvictionWindow = 10 * time.Minute
	// DefaultMaxMigrationsInFlight is the default bound on control-plane
	// migrations in flight in a Gardener garden.
	DefaultMaxMigrationsInFlight = 10
	// DefaultMaxMigrationsInFlightPerSeed is the default bound on migrations
	// in flight to one destination seed.
	DefaultMaxMigrationsInFlightPerSeed = 3
	// DefaultMigrationTimeout is the default time after which a move still
	// in flight is stuck.
	DefaultMigrationTimeout = time.Hour
	// DefaultMaxMovesInFlightPerProject is the default bound on one
	// project's moves in flight.
	DefaultMaxMovesInFlightPerProject = 1
	// DefaultConcurrentEvictions is the default number of evictions written at once.
	DefaultConcurrentEvictions = 4
)

var _ Configuration = &DeschedulerConfiguration{}

// Default fills every unset field of the descheduler configuration. The
// defaults are the safe ones: a slow, bounded, fit-checked eviction.
func (c *DeschedulerConfiguration) Default() {
	c.CommonConfiguration.Default(CommonDefaults{
		LeaseName:              DefaultDeschedulerLeaseName,
		HealthProbeBindAddress: ":10258",
		MetricsBindAddress:     ":19258",
	})
	if c.API == "" {
		c.API = APIGraft
	}
	if c.API == APIGardener {
		if c.MaxMigrationsInFlight == nil {
			c.MaxMigrationsInFlight = ptr.To[int32](DefaultMaxMigrationsInFlight)
		}
		if c.MaxMigrationsInFlightPerSeed == nil {
			c.MaxMigrationsInFlightPerSeed = ptr.To[int32](DefaultMaxMigrationsInFlightPerSeed)
		}
		if c.LiveMigration == "" {
			c.LiveMigration = LiveMigrationNever
		}
	}
	if c.MigrationTimeout == nil {
		c.MigrationTimeout = &metav1.Duration{Duration: DefaultMigrationTimeout}
	}
	if c.MaxMovesInFlightPerProject == nil {
		c.MaxMovesInFlightPerProject = ptr.To[int32](DefaultMaxMovesInFlightPerProject)
	}
	if c.Interval == nil {
		c.Interval = &metav1.Duration{Duration: DefaultDeschedulerInterval}
	}
	if c.RequireFit == nil {
		c.RequireFit = ptr.To(true)
	}
	if c.MaxEvictionsPerSeed == nil {
		c.MaxEvictionsPerSeed = ptr.To[int32](DefaultMaxEvictionsPerSeed)
	}
	if c.MaxEvictionsTotal == nil {
		c.MaxEvictionsTotal = ptr.To[int32](DefaultMaxEvictionsTotal)
	}
	if c.EvictionRate == nil {
		c.EvictionRate = ptr.To(DefaultEvictionRate)
	}
	if c.EvictionBurst == nil {
		c.EvictionBurst = ptr.To[int32](DefaultEvictionBurst)
	}
	if c.MaxPendingEvicted == nil {
		c.MaxPendingEvicted = ptr.To[int32](DefaultMaxPendingEvicted)
	}
	if c.RepeatEvictionWindow == nil {
		c.RepeatEvictionWindow = &metav1.Duration{Duration: DefaultRepeatEvictionWindow}
	}
	if len(c.SchedulerNames) == 0 {
		c.SchedulerNames = []string{corev1alpha1.DefaultSchedulerName}
	}
	if c.ConcurrentEvictions == 0 {
		c.ConcurrentEvictions = DefaultConcurrentEvictions
	}
	if c.SchedulerLease.Namespace == "" {
		c.SchedulerLease.Namespace = corev1alpha1.GardenNamespace
	}
	if c.SchedulerLease.Name == "" {
		c.SchedulerLease.Name = DefaultSchedulerLeaseName
	}
	listed := false
	for i := range c.Plugins {
		if c.Plugins[i].Enabled == nil {
			c.Plugins[i].Enabled = ptr.To(true)
		}
		if c.Plugins[i].Name == DeschedulerPluginNoExecuteTaints {
			listed = true
		}
	}
	// NoExecuteTaints is on by default: draining a seed relies on it.
	if !listed {
		c.Plugins = append([]DeschedulerPlugin{{Name: DeschedulerPluginNoExecuteTaints, Enabled: ptr.To(true)}}, c.Plugins...)
	}
}
