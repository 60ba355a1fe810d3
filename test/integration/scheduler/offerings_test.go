//go:build integration

package scheduler

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// TestSeedOfferings is TestSeedOfferingsOnGardener on graft's API: an
// eu-access-only shoot goes only to the seed that offers the restriction,
// is neither stopped nor enforcing a zone its worker pool lacks, and a shoot
// named under a seed's default domain goes to that seed.
func TestSeedOfferings(t *testing.T) {
	f := newFixture(t)
	const restriction = "eu-access-only"
	offer := func(s *v1alpha1.Seed) {
		s.Spec.AccessRestrictions = []v1alpha1.AccessRestriction{{Name: restriction}}
	}
	plain := f.createSeed("a-plain", "eu-west-1", nil, func(s *v1alpha1.Seed) {
		s.Spec.DNS.Defaults = []v1alpha1.SeedDNSDefault{{Type: "local", Domain: "shoots." + f.name + ".example"}}
	}).Name
	// Named so that each would win on name order among equals.
	f.createSeed("b-enforce", "eu-west-1", nil, func(s *v1alpha1.Seed) {
		offer(s)
		s.Spec.Provider.Zones = []string{"eu-west-1b"}
		s.Spec.Settings = &v1alpha1.SeedSettings{ZoneSelection: &v1alpha1.SeedSettingZoneSelection{Mode: v1alpha1.ZoneSelectionModeEnforce}}
	})
	f.createSeed("c-stopped", "eu-west-1", nil, func(s *v1alpha1.Seed) {
		offer(s)
		s.Annotations = map[string]string{v1alpha1.AnnotationEmergencyStopShootReconciliations: "true"}
	})
	eu := f.createSeed("d-eu", "eu-west-1", nil, offer).Name

	startScheduler(t, "sched-offerings", nil)
	restricted := f.newShoot("eu", "eu-west-1")
	restricted.Spec.AccessRestrictions = []v1alpha1.AccessRestrictionWithOptions{{AccessRestriction: v1alpha1.AccessRestriction{Name: restriction}}}
	restricted.Spec.Provider.Workers = []v1alpha1.Worker{{Name: "pool", Zones: []string{"eu-west-1a"}}}
	f.createShoot(restricted)
	named := f.newShoot("dom", "eu-west-1")
	named.Spec.DNS = &v1alpha1.DNS{Domain: ptr.To("dom." + algorithm.ProjectOf(f.ns) + ".shoots." + f.name + ".example")}
	f.createShoot(named)

	for name, want := range map[string]string{"eu": eu, "dom": plain} {
		if got := f.waitForSeed(name, 30*time.Second); got != want {
			t.Errorf("shoot %s bound to %s, want %s", name, got, want)
		}
	}
}
