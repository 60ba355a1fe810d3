package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DeschedulerConfiguration configures graft-descheduler, which evicts shoots
// from seeds that must not host them any more by clearing spec.seedName, so
// that graft-scheduler places them again.
type DeschedulerConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// CommonConfiguration holds clientConnection, leaderElection, server and logging.
	CommonConfiguration `json:",inline"`

	// API is the API group the descheduler reads Seeds and Shoots from and
	// moves shoots in, as for graft-scheduler: core.graft.dev (default),
	// where an eviction clears spec.seedName and graft-scheduler places the
	// shoot again, or core.gardener.cloud, where Gardener refuses to clear it
	// and an eviction is a control-plane migration: the descheduler chooses
	// the destination (requireFit always holds there, with Gardener's
	// migration rules) and binds the shoot to it through shoots/binding.
	// +optional
	API SchedulerAPI `json:"api,omitempty"`
	// Interval is the time between two full passes over all seeds; a pass also
	// runs for a seed when its taints change. 0 runs one pass and exits (for a
	// CronJob). Default 1m.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`
	// DryRun computes every eviction, logs it and emits WouldDeschedule Events
	// saying where each shoot would go, but changes no shoot.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`
	// RequireFit evicts a shoot only if the scheduling algorithm finds another
	// seed for it right now; otherwise an EvictionSkipped Event says why and
	// the shoot is tried again later. A plugin's force argument overrides it.
	// Default true.
	// +optional
	RequireFit *bool `json:"requireFit,omitempty"`
	// MaxEvictionsPerSeed bounds the evictions from one seed per pass
	// (interval). 0 means no limit. Default 10.
	// +optional
	MaxEvictionsPerSeed *int32 `json:"maxEvictionsPerSeed,omitempty"`
	// MaxEvictionsTotal bounds the evictions from all seeds per pass
	// (interval). 0 means no limit. Default 50.
	// +optional
	MaxEvictionsTotal *int32 `json:"maxEvictionsTotal,omitempty"`
	// EvictionRate is the token-bucket rate of evictions per second. 0 means
	// no rate limit. Default 1.
	// +optional
	EvictionRate *float64 `json:"evictionRate,omitempty"`
	// EvictionBurst is the token-bucket size: how many evictions may happen at
	// once after a quiet period. Default 1.
	// +optional
	EvictionBurst *int32 `json:"evictionBurst,omitempty"`
	// MaxPendingEvicted stops new evictions while this many evicted shoots
	// (annotated graft.dev/descheduled-from and without spec.seedName) wait
	// for a seed, which protects the fleet when the scheduler is down.
	// 0 means no limit. Default 10.
	// +optional
	MaxPendingEvicted *int32 `json:"maxPendingEvicted,omitempty"`
	// RepeatEvictionWindow is how long a shoot is not evicted again for the
	// same cause (the same plugin, seed and taint) after an eviction. The
	// other rules already keep a shoot from moving back and forth (a move
	// must leave it where it may stay longer); this is the guard should they
	// fail, counted durably in the shoot's graft.dev/evictions annotation.
	// Held evictions count in graft_descheduler_evictions_total with result
	// held_repeat, which should stay at zero. 0 turns the guard off.
	// Default 10m.
	// +optional
	RepeatEvictionWindow *metav1.Duration `json:"repeatEvictionWindow,omitempty"`
	// MaxMigrationsInFlight bounds, on core.gardener.cloud, the control-plane
	// migrations in flight in the whole garden: every shoot whose
	// status.seedName names another seed than its spec.seedName, whoever
	// started its move. No migration starts while this many are in flight.
	// 0 means no limit. Default 10 on core.gardener.cloud; not allowed on
	// core.graft.dev, where maxPendingEvicted bounds evictions.
	// +optional
	MaxMigrationsInFlight *int32 `json:"maxMigrationsInFlight,omitempty"`
	// MaxMigrationsInFlightPerSeed bounds, as MaxMigrationsInFlight, the
	// migrations in flight to one destination seed, whose gardenlet restores
	// each control plane. 0 means no limit. Default 3 on core.gardener.cloud.
	// +optional
	MaxMigrationsInFlightPerSeed *int32 `json:"maxMigrationsInFlightPerSeed,omitempty"`
	// MigrationTimeout is how long a move may stay in flight before it is
	// stuck: on core.gardener.cloud a control-plane migration, on
	// core.graft.dev an evicted shoot waiting for a seed. It is counted from
	// when this process first saw the move in flight (never from a time the
	// shoot records, which its tenant can write; after a restart each move
	// still in flight gets the whole timeout again). A stuck move, and a
	// migration whose lastOperation failed, gets a MoveStuck Event on the
	// shoot and the seed it leaves, counts in
	// graft_descheduler_migrations_stuck, and no longer counts against
	// maxMigrationsInFlight, maxMigrationsInFlightPerSeed, maxPendingEvicted
	// or the project's budget, nor keeps its source seed closed as being
	// evacuated: a tenant that breaks its own shoot's migration holds up
	// nobody else's. It still counts on both seeds' usage. 0: only a failed
	// lastOperation makes a move stuck. Default 1h.
	// +optional
	MigrationTimeout *metav1.Duration `json:"migrationTimeout,omitempty"`
	// MaxMovesInFlightPerProject bounds the moves of one project's shoots
	// (one namespace) in flight at a time, so that an evacuation does not
	// take several of a tenant's control planes down at once: on
	// core.gardener.cloud its migrations in flight, on core.graft.dev its
	// evicted shoots waiting for a seed, with the moves being written in
	// both. Stuck moves (see migrationTimeout) do not count. 0 means no
	// limit. Default 1.
	// +optional
	MaxMovesInFlightPerProject *int32 `json:"maxMovesInFlightPerProject,omitempty"`
	// ProjectBudgets give namespaces another bound than
	// maxMovesInFlightPerProject. They are the operator's: nothing a
	// tenant writes raises its budget.
	// +optional
	ProjectBudgets []ProjectBudget `json:"projectBudgets,omitempty"`
	// LiveMigration chooses, on core.gardener.cloud, whether control planes
	// move by live migration (GEP-39, gardener-apiserver's
	// LiveControlPlaneMigration feature gate): Never (default), or Prefer,
	// which asks for a live migration (the annotation
	// migration.gardener.cloud/live-migrate in the binding) of a shoot that
	// meets its prerequisites (a highly available control plane, not
	// hibernated) to a destination that meets them too (the same provider
	// type and gardenlet version as its seed, within the inter-region
	// distance threshold). Gardener's gardenlet v1.150.0 runs every such
	// move as a classic migration, so a move is timed as live (at once,
	// even when it could wait for the maintenance window) only when both
	// seeds' gardenlets are known to run the live flow: named in
	// liveMigrationGardenletVersions, or seen reporting a LiveMigrate
	// operation. Not allowed on core.graft.dev.
	// +optional
	LiveMigration LiveMigrationMode `json:"liveMigration,omitempty"`
	// LiveMigrationGardenletVersions are the gardenlet versions (as seeds
	// report them in status.gardener.version, for example v1.160.0) that the
	// operator knows to run GEP-39's live migration flow. Empty by default:
	// no released Gardener does yet. A version whose live migration was
	// seen falling back to a classic one is not trusted again until the
	// descheduler restarts. Only with liveMigration Prefer.
	// +optional
	LiveMigrationGardenletVersions []string `json:"liveMigrationGardenletVersions,omitempty"`
	// MoveSchedulerNames, when set, limits what the descheduler moves to the
	// shoots whose spec.schedulerName is one of these (a shoot without one
	// names default-scheduler): on a garden where some projects keep
	// Gardener's own scheduling, their shoots stay where they are. Empty:
	// every shoot may move.
	// +optional
	MoveSchedulerNames []string `json:"moveSchedulerNames,omitempty"`
	// SchedulerNames are the spec.schedulerName values of the graft-schedulers
	// that place shoots again after this descheduler evicts them. Only
	// shoots one of them is responsible for count as waiting for a seed:
	// against maxPendingEvicted (and then only those whose eviction record
	// this descheduler wrote), and for the seed slots requireFit keeps free
	// for them. Shoots of other schedulers are still evicted. Default
	// [default-scheduler].
	// +optional
	SchedulerNames []string `json:"schedulerNames,omitempty"`
	// ConcurrentEvictions is how many evictions are written at the same time.
	// Default 4.
	// +optional
	ConcurrentEvictions int32 `json:"concurrentEvictions,omitempty"`
	// SchedulerLease is graft-scheduler's leader election Lease, on which its
	// leader publishes the scheduling configuration it applies: the strategy,
	// score weights and region ConfigMap namespace requireFit asks the
	// algorithm with, unless set below. Default garden/graft-scheduler.
	// +optional
	SchedulerLease LeaseReference `json:"schedulerLease,omitempty"`
	// Strategy overrides the scheduling strategy graft-scheduler publishes;
	// a value that differs from it is logged as a warning. Empty: the
	// scheduler's.
	// +optional
	Strategy SchedulingStrategy `json:"strategy,omitempty"`
	// RegionConfigNamespace overrides, as for Strategy, the namespace
	// graft-scheduler reads region ConfigMaps (labelled
	// scheduling.gardener.cloud/purpose=region-config) from, as Gardener's
	// scheduler reads them from its garden namespace; ConfigMaps in any other
	// namespace, such as a project's, are ignored. Empty: the scheduler's.
	// +optional
	RegionConfigNamespace string `json:"regionConfigNamespace,omitempty"`
	// ScoreWeights override, as for Strategy, graft-scheduler's score
	// weights. Unset: the scheduler's.
	// +optional
	ScoreWeights *ScoreWeights `json:"scoreWeights,omitempty"`
	// Plugins select what to evict. NoExecuteTaints runs unless it is listed
	// with enabled false; OverCapacity, Rebalance and ComeHome run only when
	// listed. Plugins run in the order listed.
	// +optional
	Plugins []DeschedulerPlugin `json:"plugins,omitempty"`
}

// ProjectBudget bounds the moves in flight of one project.
type ProjectBudget struct {
	// Namespace is the project's namespace.
	Namespace string `json:"namespace"`
	// MaxMovesInFlight bounds its moves in flight; 0 means no limit.
	MaxMovesInFlight int32 `json:"maxMovesInFlight"`
}

// LiveMigrationMode chooses whether control planes move live.
type LiveMigrationMode string

const (
	// LiveMigrationNever moves every control plane by a classic migration.
	LiveMigrationNever LiveMigrationMode = "Never"
	// LiveMigrationPrefer moves a control plane live where GEP-39's
	// prerequisites hold, classically elsewhere.
	LiveMigrationPrefer LiveMigrationMode = "Prefer"
)

// DeschedulerPlugin turns one descheduler plugin on or off and passes its arguments.
type DeschedulerPlugin struct {
	// Name is the plugin's name: NoExecuteTaints, OverCapacity, Rebalance
	// or ComeHome.
	Name string `json:"name"`
	// Enabled runs the plugin. Default true for a listed plugin.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
	// Args are the plugin's arguments; each plugin documents its own.
	// +optional
	Args runtime.RawExtension `json:"args,omitempty"`
}

// Names of the descheduler plugins.
const (
	// DeschedulerPluginNoExecuteTaints evicts shoots from seeds with NoExecute
	// taints they do not tolerate, or no longer tolerate.
	DeschedulerPluginNoExecuteTaints = "NoExecuteTaints"
	// DeschedulerPluginOverCapacity evicts the excess shoots of seeds whose
	// usage exceeds their allocatable shoots. Its purposeOrder argument lists
	// the purposes that may move, least valuable first; shoots of unlisted
	// purposes never move (default: every purpose).
	DeschedulerPluginOverCapacity = "OverCapacity"
	// DeschedulerPluginRebalance moves shoots, in their maintenance windows,
	// from seeds above a high utilisation mark to seeds under a low one,
	// where the scheduler would place them now, within churn limits.
	DeschedulerPluginRebalance = "Rebalance"
	// DeschedulerPluginComeHome moves shoots placed outside their region,
	// in their maintenance windows, to a closer seed the scheduler would
	// choose now, within churn limits.
	DeschedulerPluginComeHome = "ComeHome"
)

// LeaseReference names a Lease.
type LeaseReference struct {
	// Namespace of the Lease. Default garden.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name of the Lease. Default graft-scheduler.
	// +optional
	Name string `json:"name,omitempty"`
}
