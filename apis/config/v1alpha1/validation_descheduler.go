package v1alpha1

import (
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
)

// Validate returns every invalid field of the descheduler configuration.
// Plugin names are checked here; plugin arguments are checked by the plugins
// themselves when the descheduler is built.
func (c *DeschedulerConfiguration) Validate() field.ErrorList {
	errs := c.CommonConfiguration.Validate(nil)
	switch c.API {
	case APIGraft:
		for _, p := range []struct {
			name  string
			value *int32
		}{{"maxMigrationsInFlight", c.MaxMigrationsInFlight}, {"maxMigrationsInFlightPerSeed", c.MaxMigrationsInFlightPerSeed}} {
			if p.value != nil {
				errs = append(errs, field.Forbidden(field.NewPath(p.name), "only core.gardener.cloud migrates control planes; on core.graft.dev maxPendingEvicted bounds evictions"))
			}
		}
		if c.LiveMigration != "" {
			errs = append(errs, field.Forbidden(field.NewPath("liveMigration"), "only core.gardener.cloud migrates control planes"))
		}
		if len(c.LiveMigrationGardenletVersions) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("liveMigrationGardenletVersions"), "only core.gardener.cloud migrates control planes"))
		}
	case APIGardener:
		if c.RequireFit != nil && !*c.RequireFit {
			errs = append(errs, field.Invalid(field.NewPath("requireFit"), false, "must be true on core.gardener.cloud: a migration needs a destination seed"))
		}
		switch c.LiveMigration {
		case "", LiveMigrationNever, LiveMigrationPrefer:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("liveMigration"), c.LiveMigration, []LiveMigrationMode{LiveMigrationNever, LiveMigrationPrefer}))
		}
		errs = append(errs, ValidateGardenletVersions(c.LiveMigrationGardenletVersions, field.NewPath("liveMigrationGardenletVersions"))...)
		if len(c.LiveMigrationGardenletVersions) > 0 && c.LiveMigration != LiveMigrationPrefer {
			errs = append(errs, field.Invalid(field.NewPath("liveMigrationGardenletVersions"), c.LiveMigrationGardenletVersions, "needs liveMigration Prefer"))
		}
	default:
		errs = append(errs, field.NotSupported(field.NewPath("api"), c.API, []SchedulerAPI{APIGraft, APIGardener}))
	}
	if c.Interval != nil && c.Interval.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("interval"), c.Interval.Duration.String(), "must not be negative (0 runs one pass)"))
	}
	if w := c.MigrationTimeout; w != nil && w.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("migrationTimeout"), w.Duration.String(), "must not be negative (0: only a failed migration is stuck)"))
	}
	if w := c.RepeatEvictionWindow; w != nil && w.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("repeatEvictionWindow"), w.Duration.String(), "must not be negative (0 turns the guard off)"))
	}
	for _, p := range []struct {
		name  string
		value *int32
	}{
		{"maxEvictionsPerSeed", c.MaxEvictionsPerSeed},
		{"maxEvictionsTotal", c.MaxEvictionsTotal},
		{"maxPendingEvicted", c.MaxPendingEvicted},
		{"maxMigrationsInFlight", c.MaxMigrationsInFlight},
		{"maxMigrationsInFlightPerSeed", c.MaxMigrationsInFlightPerSeed},
		{"maxMovesInFlightPerProject", c.MaxMovesInFlightPerProject},
	} {
		if p.value != nil && *p.value < 0 {
			errs = append(errs, field.Invalid(field.NewPath(p.name), *p.value, "must not be negative (0 means no limit)"))
		}
	}
	if r := c.EvictionRate; r != nil && (*r < 0 || math.IsNaN(*r) || math.IsInf(*r, 0)) {
		errs = append(errs, field.Invalid(field.NewPath("evictionRate"), *r, "must be a finite number of evictions per second, 0 or more (0 means no limit)"))
	}
	if b := c.EvictionBurst; b != nil && *b < 1 {
		errs = append(errs, field.Invalid(field.NewPath("evictionBurst"), *b, "must be at least 1"))
	}
	for i, name := range c.SchedulerNames {
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("schedulerNames").Index(i), name, strings.Join(msgs, "; ")))
		}
	}
	for i, name := range c.MoveSchedulerNames {
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("moveSchedulerNames").Index(i), name, strings.Join(msgs, "; ")))
		}
	}
	budgeted := map[string]bool{}
	for i, b := range c.ProjectBudgets {
		path := field.NewPath("projectBudgets").Index(i)
		if msgs := validation.IsDNS1123Label(b.Namespace); len(msgs) > 0 {
			errs = append(errs, field.Invalid(path.Child("namespace"), b.Namespace, strings.Join(msgs, "; ")))
		} else if budgeted[b.Namespace] {
			errs = append(errs, field.Duplicate(path.Child("namespace"), b.Namespace))
		}
		budgeted[b.Namespace] = true
		if b.MaxMovesInFlight < 0 {
			errs = append(errs, field.Invalid(path.Child("maxMovesInFlight"), b.MaxMovesInFlight, "must not be negative (0 means no limit)"))
		}
	}
	if c.ConcurrentEvictions < 1 {
		errs = append(errs, field.Invalid(field.NewPath("concurrentEvictions"), c.ConcurrentEvictions, "must be at least 1"))
	}
	switch c.Strategy {
	case "", StrategySameRegion, StrategyMinimalDistance:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("strategy"), c.Strategy,
			[]SchedulingStrategy{StrategySameRegion, StrategyMinimalDistance}))
	}
	if c.RegionConfigNamespace != "" {
		errs = append(errs, validateRegionConfigNamespace(field.NewPath("regionConfigNamespace"), c.RegionConfigNamespace)...)
	}
	for _, msg := range validation.IsDNS1123Label(c.SchedulerLease.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("schedulerLease", "namespace"), c.SchedulerLease.Namespace, msg))
	}
	for _, msg := range validation.IsDNS1123Subdomain(c.SchedulerLease.Name) {
		errs = append(errs, field.Invalid(field.NewPath("schedulerLease", "name"), c.SchedulerLease.Name, msg))
	}
	if w := c.ScoreWeights; w != nil {
		errs = append(errs, validateScoreWeights(field.NewPath("scoreWeights"), w)...)
	}
	known := []string{DeschedulerPluginNoExecuteTaints, DeschedulerPluginOverCapacity, DeschedulerPluginRebalance, DeschedulerPluginComeHome}
	seen := map[string]bool{}
	for i, p := range c.Plugins {
		pPath := field.NewPath("plugins").Index(i).Child("name")
		switch {
		case p.Name == "":
			errs = append(errs, field.Required(pPath, "the plugin's name"))
		case !slices.Contains(known, p.Name):
			errs = append(errs, field.NotSupported(pPath, p.Name, known))
		case seen[p.Name]:
			errs = append(errs, field.Duplicate(pPath, p.Name))
		}
		seen[p.Name] = true
	}
	return errs
}

func validateScoreWeights(wPath *field.Path, w *ScoreWeights) field.ErrorList {
	var errs field.ErrorList
	for _, p := range []struct {
		name   string
		weight *int32
	}{
		{"minimalDistance", w.MinimalDistance},
		{"leastAllocated", w.LeastAllocated},
		{"preferNoSchedule", w.PreferNoSchedule},
	} {
		if p.weight != nil && (*p.weight < 0 || *p.weight > maxScoreWeight) {
			errs = append(errs, field.Invalid(wPath.Child(p.name), *p.weight, "must be between 0 and 100"))
		}
	}
	return errs
}

// validateRegionConfigNamespace checks the namespace region ConfigMaps are
// read from: a namespace name, never empty (empty would mean all namespaces).
func validateRegionConfigNamespace(fldPath *field.Path, ns string) field.ErrorList {
	if ns == "" {
		return field.ErrorList{field.Required(fldPath, "the namespace region ConfigMaps are read from")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(ns) {
		errs = append(errs, field.Invalid(fldPath, ns, msg))
	}
	return errs
}

// maxGardenletVersions bounds liveMigrationGardenletVersions.
const maxGardenletVersions = 32

// ValidateGardenletVersions checks gardenlet versions as seeds report them:
// semantic versions with a leading v, each once, at most 32.
func ValidateGardenletVersions(versions []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(versions) > maxGardenletVersions {
		errs = append(errs, field.TooMany(path, len(versions), maxGardenletVersions))
	}
	seen := map[string]bool{}
	for i, v := range versions {
		p := path.Index(i)
		if _, err := version.ParseSemantic(v); err != nil || !strings.HasPrefix(v, "v") {
			errs = append(errs, field.Invalid(p, v, "must be a gardenlet version as a seed reports it in status.gardener.version, for example v1.160.0"))
			continue
		}
		if seen[v] {
			errs = append(errs, field.Duplicate(p, v))
		}
		seen[v] = true
	}
	return errs
}
