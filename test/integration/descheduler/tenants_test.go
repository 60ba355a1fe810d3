//go:build integration

package descheduler

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// TestDrainCompletesBesideForgedDecoys: twenty shoots that look evicted and
// never get a seed (a tenant's decoys, written here by the admin, as in a
// garden without graft's admission policies, where a tenant may write
// graft.dev/descheduled-from) do not hold a drain back at the default
// maxPendingEvicted of 10, nor take the free seed's slots: ten carry the
// mark but no eviction record of the descheduler and a seed selector no
// seed matches, ten carry a record copied from a real eviction but name a
// scheduler nobody runs. Seed b has room for exactly the three shoots of
// the drained seed a.
func TestDrainCompletesBesideForgedDecoys(t *testing.T) {
	ctx, env, l := setup(t, "decoys")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", 3))
	var shoots []*v1alpha1.Shoot
	for i := range 3 {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("x%d", i), "a"))
	}
	forgedRecord := `[{"seed":"` + l.SeedName("a") + `","cause":"NoExecuteTaints: forged","at":"` + time.Now().UTC().Format(time.RFC3339) + `"}]`
	for i := range 10 {
		marked := l.NewShoot(fmt.Sprintf("marked%d", i), "")
		marked.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: l.SeedName("a")}
		marked.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"decoy": "matches-nothing"}}}
		nobody := l.NewShoot(fmt.Sprintf("nobody%d", i), "")
		nobody.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: l.SeedName("a"), v1alpha1.AnnotationEvictions: forgedRecord}
		nobody.Spec.SchedulerName = ptr.To("nobody")
		shoots = append(shoots, marked, nobody)
	}
	if err := l.CreateShoots(ctx, shoots, 8); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "decoys-scheduler")
	startDescheduler(t, ctx, env, "decoys-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		c.EvictionRate = ptr.To(0.0)
		c.MaxPendingEvicted = ptr.To[int32](10)
	})
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 90*time.Second, "the drained seed's shoots on seed b", func() (bool, error) {
		byName := shootsByName(t, ctx, l)
		for i := range 3 {
			s := byName[fmt.Sprintf("x%d", i)]
			if fixture.Of(&s) != l.SeedName("b") {
				return false, nil
			}
		}
		return true, nil
	})
}
