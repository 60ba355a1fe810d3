//go:build gardener

package gardener

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
)

// TestSeedOfferingsOnGardener: graft-scheduler on Gardener's API applies
// Gardener's filters over what seeds offer. Of four ready seeds with room,
// "plain" offers no access restriction, "eu" offers eu-access-only,
// "stopped" offers it too but its shoots' reconciliations are stopped, and
// "enforce" offers it but enforces zone selection with a zone the shoot's
// worker pool does not use: the eu-access-only shoot can go to "eu" only.
// A shoot whose domain is <shoot>.<project>.<default domain of "plain"> can
// go to "plain" only; the project's namespace is not named after it, so the
// project is the Project's, not one read from the namespace's name.
func TestSeedOfferingsOnGardener(t *testing.T) {
	restricted := []string{gardenerlandscape.AccessRestriction}
	l := newLandscapeIn(t, "offer", "-ns",
		gardenerlandscape.SeedSpec{Name: "plain"},
		gardenerlandscape.SeedSpec{Name: "eu", AccessRestrictions: restricted},
		gardenerlandscape.SeedSpec{Name: "stopped", AccessRestrictions: restricted,
			Annotations: map[string]string{v1alpha1.AnnotationEmergencyStopShootReconciliations: "true"}},
		gardenerlandscape.SeedSpec{Name: "enforce", AccessRestrictions: restricted, Zones: []string{region + "b"}, ZoneSelection: "Enforce"},
	)
	plain, eu := l.seeds[0], l.seeds[1]
	for _, seed := range l.seeds {
		readySeed(t, seed, 10, nil)
	}
	startGraftScheduler(t, "graft-scheduler-offerings", l.schedulerName())

	euShoot := l.shootSpec("eu")
	euShoot.AccessRestrictions, euShoot.Zones = restricted, []string{region + "a"}
	l.createGraftShootFrom(t, euShoot)
	domain := l.shootSpec("dom")
	domain.Domain = "dom." + l.project + ".shoots." + plain + ".graft.example"
	l.createGraftShootFrom(t, domain)

	for name, want := range map[string]string{"eu": eu, "dom": plain} {
		bound := waitForShoot(t, l, name, "spec.seedName set", func(s *unstructured.Unstructured) bool {
			_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
			return found
		})
		if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != want {
			t.Errorf("shoot %s bound to %s, want %s", name, got, want)
		}
	}
}

// createGraftShootFrom creates the shoot the spec describes for
// graft-scheduler, selecting the landscape's seeds only.
func (l *landscape) createGraftShootFrom(t *testing.T, spec gardenerlandscape.ShootSpec) *unstructured.Unstructured {
	t.Helper()
	l.labelSeeds(t)
	spec.SchedulerName = l.schedulerName()
	spec.SeedSelector = map[string]string{landscapeLabel: l.project}
	obj := object(t, gardenerlandscape.Shoot(spec))
	var created *unstructured.Unstructured
	err := admitted(t, func(ctx context.Context) (err error) {
		created, err = dynamicClient(t).Resource(shoots).Namespace(l.namespace).Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating shoot %s: %v", spec.Name, err)
	}
	return created
}
