//go:build integration

package descheduler

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
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

// TestTenantWritesDoNotHoldAnEviction: a tenant writes its own shoot every
// 5 ms (an annotation, as often as the API server takes it), so that the
// descheduler's eviction, preconditioned on the resourceVersion it read,
// conflicts. The descheduler reads the shoot again and writes again at once,
// and its last attempt is preconditioned only on what the decision reads:
// the shoot leaves the drained seed within seconds, not a pass window late
// or never, and the conflicts it lost are counted. (It came 45 to 64 s late,
// retried every 2 s on the informer's version.)
func TestTenantWritesDoNotHoldAnEviction(t *testing.T) {
	ctx, env, l := setup(t, "conflicts")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{l.NewShoot("hammered", "a")}, 1); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "conflicts-scheduler")
	d := startDescheduler(t, ctx, env, "conflicts-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.Interval = &metav1.Duration{Duration: 10 * time.Minute}
	})
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })

	tenantCtx, stopTenant := context.WithCancel(ctx)
	defer stopTenant()
	var wg sync.WaitGroup
	var writes atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		shoots := l.Graft.CoreV1alpha1().Shoots(l.Name)
		for i := 0; tenantCtx.Err() == nil; i++ {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{"tenant.example/tick":"%d"}}}`, i)
			if _, err := shoots.Patch(tenantCtx, "hammered", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
				writes.Add(1)
			}
			select {
			case <-tenantCtx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	eventually(t, ctx, 10*time.Second, "the tenant writing its shoot", func() (bool, error) { return writes.Load() > 20, nil })
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 20*time.Second, "the hammered shoot off the drained seed", func() (bool, error) {
		s := shootsByName(t, ctx, l)["hammered"]
		return fixture.Of(&s) != l.SeedName("a"), nil
	})
	stopTenant()
	wg.Wait()
	s := shootsByName(t, ctx, l)["hammered"]
	if s.Annotations[v1alpha1.AnnotationDescheduledFrom] != l.SeedName("a") || s.Annotations["tenant.example/tick"] == "" {
		t.Errorf("the eviction lost an annotation: %v", s.Annotations)
	}
	conflicts, err := framework.GatheredSum(d.Registry.Gather, "graft_descheduler_evictions_total", map[string]string{"result": "conflict"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the tenant wrote its shoot %d times; the eviction lost %v conflicts", writes.Load(), conflicts)
}
