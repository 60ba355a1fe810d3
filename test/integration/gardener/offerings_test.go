//go:build gardener

package gardener

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
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
	const restricted = gardenerlandscape.AccessRestriction
	l := newLandscapeIn(t, "offer", "-ns",
		landscapeSeed{name: "plain"},
		landscapeSeed{"eu", func(s *coretest.SeedWrapper) { s.AccessRestrictions(restricted) }},
		landscapeSeed{"stopped", func(s *coretest.SeedWrapper) {
			s.AccessRestrictions(restricted).Annotation(v1alpha1.AnnotationEmergencyStopShootReconciliations, "true")
		}},
		landscapeSeed{"enforce", func(s *coretest.SeedWrapper) {
			s.AccessRestrictions(restricted).ZoneSelection(v1alpha1.ZoneSelectionModeEnforce, region+"b")
		}},
	)
	plain, eu := l.seeds[0], l.seeds[1]
	for _, seed := range l.seeds {
		markSeedReady(t, seed, 10, nil)
	}
	startGraftScheduler(t, "graft-scheduler-offerings", l.schedulerName())

	l.createGraftShootFrom(t, l.makeShoot("eu").AccessRestrictions(restricted).Workers([]string{region + "a"}))
	l.createGraftShootFrom(t, l.makeShoot("dom").Domain("dom."+l.project+".shoots."+plain+".graft.example"))

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

// createGraftShootFrom creates the shoot for graft-scheduler, selecting the
// landscape's seeds only.
func (l *landscape) createGraftShootFrom(t *testing.T, shoot *coretest.ShootWrapper) *unstructured.Unstructured {
	t.Helper()
	l.labelSeeds(t)
	obj := l.shootObject(t, shoot.SchedulerName(l.schedulerName()).SelectSeeds(map[string]string{landscapeLabel: l.project}))
	var created *unstructured.Unstructured
	err := admitted(t, func(ctx context.Context) (err error) {
		created, err = dynamicClient(t).Resource(shoots).Namespace(l.namespace).Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating shoot %s: %v", shoot.Name, err)
	}
	return created
}
