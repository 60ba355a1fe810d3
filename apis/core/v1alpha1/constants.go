package v1alpha1

import corev1 "k8s.io/api/core/v1"

// Well-known condition types of seeds.
const (
	// SeedGardenletReady reports whether the seed's agent is ready.
	SeedGardenletReady ConditionType = "GardenletReady"
	// SeedBackupBucketsReady reports whether the seed's backup buckets are ready.
	SeedBackupBucketsReady ConditionType = "BackupBucketsReady"
)

// Well-known taint keys of seeds.
const (
	// SeedTaintProtected marks a seed that only shoots in the garden namespace may use.
	SeedTaintProtected = "seed.gardener.cloud/protected"
	// SeedTaintUnschedulable marks a cordoned (NoSchedule) or drained (NoExecute) seed.
	SeedTaintUnschedulable = "seed.gardener.cloud/unschedulable"
	// SeedTaintNotReady marks a seed whose agent is not ready.
	SeedTaintNotReady = "seed.gardener.cloud/not-ready"
)

// Region configuration for the MinimalDistance strategy.
const (
	// LabelSchedulingPurpose labels ConfigMaps by their role for scheduling.
	LabelSchedulingPurpose = "scheduling.gardener.cloud/purpose"
	// LabelSchedulingPurposeRegionConfig is the value of LabelSchedulingPurpose for region distance ConfigMaps.
	LabelSchedulingPurposeRegionConfig = "region-config"
	// AnnotationSchedulingCloudProfiles lists, comma-separated, the cloud profiles a region ConfigMap applies to.
	AnnotationSchedulingCloudProfiles = "scheduling.gardener.cloud/cloudprofiles"
	// AnnotationEmergencyStopShootReconciliations set to "true" on a seed
	// stops Gardener's reconciliations of its shoots; the seed takes no new
	// shoots meanwhile. Any other value means nothing.
	AnnotationEmergencyStopShootReconciliations = "shoot.gardener.cloud/emergency-stop-reconciliations"
	// LabelProjectName on a namespace names the Project the namespace belongs to.
	LabelProjectName = "project.gardener.cloud/name"
)

// Resources that seeds offer to shoots.
const (
	// ResourceShoots is the number of shoot control planes a seed may host.
	ResourceShoots corev1.ResourceName = "shoots"
)

// Annotations graft reads and writes.
const (
	// AnnotationCapacityShoots overrides a seed's shoot capacity.
	AnnotationCapacityShoots = "capacity.graft.dev/shoots"
	// AnnotationReservedShoots overrides how many of a seed's shoot slots are reserved.
	AnnotationReservedShoots = "reserved.graft.dev/shoots"
	// AnnotationDescheduledFrom records the seed a shoot was evicted from.
	AnnotationDescheduledFrom = "graft.dev/descheduled-from"
	// AnnotationDescheduledReason records why a shoot was evicted.
	AnnotationDescheduledReason = "graft.dev/descheduled-reason"
	// AnnotationEvict set to "false" protects a shoot from capacity evictions.
	AnnotationEvict = "graft.dev/evict"
	// AnnotationPlacedOn records, in the binding that sets spec.seedName, the
	// seed and the time the shoot was placed there ("seed@RFC3339"): a
	// toleration of a NoExecute taint already on that seed counts from then,
	// also for a graft-descheduler started later.
	AnnotationPlacedOn = "graft.dev/placed-on"
	// AnnotationEvictions records, in each eviction, the shoot's recent
	// evictions (a JSON list of seed, cause and time), so that no shoot is
	// evicted twice for the same cause within graft-descheduler's
	// repeatEvictionWindow, across restarts and failovers.
	AnnotationEvictions = "graft.dev/evictions"
	// AnnotationTaints keeps, on a Gardener Seed, what Gardener's taints lack:
	// a JSON list of graft's SeedTaints with their effect and timeAdded. A
	// NoSchedule or NoExecute taint counts only while spec.taints holds its
	// key and value; a PreferNoSchedule taint lives here alone.
	AnnotationTaints = "graft.dev/taints"
	// AnnotationTolerationSeconds limits, on a Gardener Shoot, how long its
	// tolerations let it stay under a NoExecute taint: a JSON list of key,
	// value and tolerationSeconds, each applying to the toleration of
	// spec.tolerations with that key and value. It can only shorten a stay.
	AnnotationTolerationSeconds = "graft.dev/toleration-seconds"
	// AnnotationDrainDeadline, on a seed drained with NoExecute taint
	// seed.gardener.cloud/unschedulable, makes that drain's moves
	// deferrable: each shoot moves in its maintenance window, and those no
	// window reached by this time (RFC 3339) move then. Written by
	// `graftctl drain --in-maintenance-windows --deadline`; seeds are the
	// operator's, no tenant writes them.
	AnnotationDrainDeadline = "graft.dev/drain-deadline"
	// AnnotationLiveMigrate on a Gardener Shoot, set in the same
	// shoots/binding change, asks for a live control-plane migration
	// (GEP-39): no API-server downtime, when both seeds and the shoot meet
	// its prerequisites.
	AnnotationLiveMigrate = "migration.gardener.cloud/live-migrate"
	// AnnotationAllowDistantRegions on a Gardener Shoot lets a live
	// migration cross more than the inter-region distance threshold.
	AnnotationAllowDistantRegions = "migration.gardener.cloud/allow-distant-regions"
	// AnnotationInterRegionDistanceThreshold on a region ConfigMap is the
	// largest distance a live migration may cross; 180 when unset.
	AnnotationInterRegionDistanceThreshold = "migration.gardener.cloud/inter-region-distance-threshold"
)

// DefaultSchedulerName is the scheduler responsible for shoots without spec.schedulerName.
const DefaultSchedulerName = "default-scheduler"

// GardenNamespace is the namespace of the garden's own shoots and region ConfigMaps.
const GardenNamespace = "garden"
