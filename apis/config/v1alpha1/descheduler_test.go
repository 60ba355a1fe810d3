package v1alpha1

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDeschedulerDefaults(t *testing.T) {
	c := &DeschedulerConfiguration{}
	c.Default()
	if got := c.LeaderElection.ResourceName; got != "graft-descheduler" {
		t.Errorf("lease name = %q, want graft-descheduler", got)
	}
	if got := c.LeaderElection.ResourceNamespace; got != "garden" {
		t.Errorf("lease namespace = %q, want garden", got)
	}
	if c.Interval.Duration != time.Minute {
		t.Errorf("interval = %v, want 1m", c.Interval.Duration)
	}
	if !*c.RequireFit || *c.MaxEvictionsPerSeed != 10 || *c.MaxEvictionsTotal != 50 ||
		*c.EvictionRate != 1 || *c.EvictionBurst != 1 || *c.MaxPendingEvicted != 10 || c.ConcurrentEvictions != 4 {
		t.Errorf("safety defaults not applied: %+v", c)
	}
	if len(c.Plugins) != 1 || c.Plugins[0].Name != DeschedulerPluginNoExecuteTaints || !*c.Plugins[0].Enabled {
		t.Errorf("plugins = %+v, want NoExecuteTaints enabled", c.Plugins)
	}
	if errs := c.Validate(); len(errs) > 0 {
		t.Errorf("defaulted configuration is invalid: %v", errs)
	}
}

func TestDeschedulerDefaultsKeepExplicitValues(t *testing.T) {
	c := &DeschedulerConfiguration{
		Interval:          &metav1.Duration{},
		RequireFit:        ptr.To(false),
		MaxPendingEvicted: ptr.To[int32](0),
		EvictionRate:      ptr.To(0.0),
		Plugins: []DeschedulerPlugin{
			{Name: DeschedulerPluginOverCapacity},
			{Name: DeschedulerPluginNoExecuteTaints, Enabled: ptr.To(false)},
		},
	}
	c.Default()
	if c.Interval.Duration != 0 || *c.RequireFit || *c.MaxPendingEvicted != 0 || *c.EvictionRate != 0 {
		t.Errorf("explicit zero values were overwritten: %+v", c)
	}
	if len(c.Plugins) != 2 || !*c.Plugins[0].Enabled || *c.Plugins[1].Enabled {
		t.Errorf("plugins = %+v, want OverCapacity on and NoExecuteTaints off, in that order", c.Plugins)
	}
}

func TestDeschedulerValidation(t *testing.T) {
	c := &DeschedulerConfiguration{
		Interval:            &metav1.Duration{Duration: -time.Second},
		MaxEvictionsPerSeed: ptr.To[int32](-1),
		EvictionRate:        ptr.To(-2.0),
		EvictionBurst:       ptr.To[int32](0),
		ConcurrentEvictions: -1,
		Strategy:            "Nearest",
		ScoreWeights:        &ScoreWeights{LeastAllocated: ptr.To[int32](101)},
		Plugins: []DeschedulerPlugin{
			{Name: "Unknown"},
			{Name: DeschedulerPluginOverCapacity},
			{Name: DeschedulerPluginOverCapacity},
			{},
		},
	}
	c.Default()
	errs := c.Validate()
	want := []string{
		"interval", "maxEvictionsPerSeed", "evictionRate", "evictionBurst", "concurrentEvictions",
		"strategy", "scoreWeights.leastAllocated", "plugins[1].name", "plugins[3].name", "plugins[4].name",
	}
	got := errs.ToAggregate().Error()
	for _, w := range want {
		if !strings.Contains(got, w+":") {
			t.Errorf("no error for %s in %s", w, got)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
}

func TestDeschedulerOnGardener(t *testing.T) {
	c := &DeschedulerConfiguration{API: APIGardener}
	c.Default()
	if *c.MaxMigrationsInFlight != DefaultMaxMigrationsInFlight || *c.MaxMigrationsInFlightPerSeed != DefaultMaxMigrationsInFlightPerSeed {
		t.Errorf("in-flight limits on Gardener = %d, %d; want the defaults", *c.MaxMigrationsInFlight, *c.MaxMigrationsInFlightPerSeed)
	}
	if c.MigrationTimeout == nil || c.MigrationTimeout.Duration != DefaultMigrationTimeout {
		t.Errorf("migrationTimeout on Gardener = %v, want %v", c.MigrationTimeout, DefaultMigrationTimeout)
	}
	if errs := c.Validate(); len(errs) > 0 {
		t.Errorf("defaulted configuration on Gardener is invalid: %v", errs)
	}

	graft := &DeschedulerConfiguration{}
	graft.Default()
	if graft.API != APIGraft || graft.MaxMigrationsInFlight != nil || graft.MaxMigrationsInFlightPerSeed != nil || graft.LiveMigration != "" {
		t.Errorf("on graft's API: api %q, in-flight limits %v %v, live migration %q; want core.graft.dev and none", graft.API, graft.MaxMigrationsInFlight, graft.MaxMigrationsInFlightPerSeed, graft.LiveMigration)
	}
	// Moves get stuck, and projects have budgets, on both APIs.
	for _, c := range []*DeschedulerConfiguration{c, graft} {
		if c.MigrationTimeout == nil || c.MigrationTimeout.Duration != DefaultMigrationTimeout || *c.MaxMovesInFlightPerProject != DefaultMaxMovesInFlightPerProject {
			t.Errorf("on %s: migrationTimeout %v, maxMovesInFlightPerProject %v; want the defaults", c.API, c.MigrationTimeout, *c.MaxMovesInFlightPerProject)
		}
	}
	if c.LiveMigration != LiveMigrationNever {
		t.Errorf("liveMigration on Gardener = %q, want Never", c.LiveMigration)
	}

	for name, tc := range map[string]struct {
		cfg  DeschedulerConfiguration
		want []string
	}{
		"limits on graft's API": {
			DeschedulerConfiguration{MaxMigrationsInFlight: ptr.To[int32](3), MaxMigrationsInFlightPerSeed: ptr.To[int32](1)},
			[]string{"maxMigrationsInFlight: Forbidden", "maxMigrationsInFlightPerSeed: Forbidden"},
		},
		"requireFit off on Gardener": {
			DeschedulerConfiguration{API: APIGardener, RequireFit: ptr.To(false)},
			[]string{"requireFit: Invalid value: false: must be true on core.gardener.cloud"},
		},
		"negative limits": {
			DeschedulerConfiguration{API: APIGardener, MaxMigrationsInFlight: ptr.To[int32](-1), MaxMigrationsInFlightPerSeed: ptr.To[int32](-1), MigrationTimeout: &metav1.Duration{Duration: -time.Second}},
			[]string{"maxMigrationsInFlight: Invalid value: -1", "maxMigrationsInFlightPerSeed: Invalid value: -1", `migrationTimeout: Invalid value: "-1s"`},
		},
		"live migration on graft's API": {
			DeschedulerConfiguration{LiveMigration: LiveMigrationPrefer},
			[]string{"liveMigration: Forbidden"},
		},
		"unknown live migration mode": {
			DeschedulerConfiguration{API: APIGardener, LiveMigration: "Always"},
			[]string{`liveMigration: Unsupported value: "Always"`},
		},
		"gardenlet versions on graft's API": {
			DeschedulerConfiguration{LiveMigrationGardenletVersions: []string{"v1.160.0"}},
			[]string{"liveMigrationGardenletVersions: Forbidden"},
		},
		"gardenlet versions without Prefer": {
			DeschedulerConfiguration{API: APIGardener, LiveMigrationGardenletVersions: []string{"v1.160.0"}},
			[]string{"needs liveMigration Prefer"},
		},
		"bad gardenlet versions": {
			DeschedulerConfiguration{API: APIGardener, LiveMigration: LiveMigrationPrefer, LiveMigrationGardenletVersions: []string{"1.160.0", "v1.161.0", "v1.161.0", "latest"}},
			[]string{`liveMigrationGardenletVersions[0]: Invalid value: "1.160.0"`, `liveMigrationGardenletVersions[2]: Duplicate value: "v1.161.0"`, `liveMigrationGardenletVersions[3]: Invalid value: "latest"`},
		},
		"bad project budgets": {
			DeschedulerConfiguration{MaxMovesInFlightPerProject: ptr.To[int32](-1), ProjectBudgets: []ProjectBudget{
				{Namespace: "garden-a", MaxMovesInFlight: 3}, {Namespace: "garden-a", MaxMovesInFlight: 1}, {Namespace: "Not/A/Namespace"}, {Namespace: "garden-b", MaxMovesInFlight: -2},
			}},
			[]string{"maxMovesInFlightPerProject: Invalid value: -1", `projectBudgets[1].namespace: Duplicate value: "garden-a"`, `projectBudgets[2].namespace: Invalid value: "Not/A/Namespace"`, "projectBudgets[3].maxMovesInFlight: Invalid value: -2"},
		},
		"unknown API": {
			DeschedulerConfiguration{API: "core.example.com"},
			[]string{`api: Unsupported value: "core.example.com"`},
		},
		"bad scheduler name to move": {
			DeschedulerConfiguration{MoveSchedulerNames: []string{"Not_A_Name"}},
			[]string{`moveSchedulerNames[0]: Invalid value: "Not_A_Name"`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := tc.cfg
			c.Default()
			got := c.Validate().ToAggregate()
			if got == nil {
				t.Fatalf("valid; want %v", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("errors %q do not say %q", got, w)
				}
			}
			if n := len(c.Validate()); n != len(tc.want) {
				t.Errorf("%d errors %q, want %d", n, got, len(tc.want))
			}
		})
	}
}
