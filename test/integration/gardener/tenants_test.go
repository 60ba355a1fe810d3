//go:build gardener

package gardener

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
)

// TestTenantWritesDoNotHoldAMigrationOnGardener: a project member writes an
// annotation of its own shoot every 5 ms while its seed is drained. Each
// binding preconditioned on the resourceVersion loses to those writes; the
// descheduler decides again on the fresh shoot and at last binds with a
// JSON patch of shoots/binding that tests only what its decision read, so
// the control plane is migrated within a pass, and the tenant's annotation
// is kept.
func TestTenantWritesDoNotHoldAMigrationOnGardener(t *testing.T) {
	l := migrationLandscape(t, "hammer", 4, "src", "dst")
	src, dst := l.seeds[0], l.seeds[1]
	l.createOn(t, "hammered", src)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	newGardenletStandIn(time.Second).start(t, ctx)
	// One pass at the start and none for ten minutes: the move has to come
	// from the pass the taint's event starts.
	reg, _ := startGraftDescheduler(t, "graft-descheduler-hammer", "config.interval=10m", "config.evictionRate=0", "config.logging.verbosity=4")

	var wg sync.WaitGroup
	var writes atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := dynamicClient(t).Resource(shoots).Namespace(l.namespace)
		for i := 0; ctx.Err() == nil; i++ {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{"tenant.example/tick":"%d"}}}`, i)
			if _, err := client.Patch(ctx, "hammered", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
				writes.Add(1)
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	waitFor(t, "the tenant writing its shoot", func() bool { return writes.Load() > 20 })
	onGardener(t, "taint", "seed", src, "maintenance:NoExecute")
	tainted := time.Now()
	// The graft API's bound (TestTenantWritesDoNotHoldAnEviction): a lost
	// conflict once held this move 45 to 64 s.
	s := l.migratedOffWithin(t, "hammered", src, 20*time.Second)
	moved := time.Now()
	cancel()
	wg.Wait()
	if got := s.GetAnnotations(); got[corev1alpha1.AnnotationDescheduledFrom] != src || got["tenant.example/tick"] == "" {
		t.Errorf("the migration lost an annotation: %v", got)
	}
	if seed, _, _ := unstructured.NestedString(s.Object, "spec", "seedName"); seed != dst {
		t.Errorf("migrated to %q, want %s", seed, dst)
	}
	conflicts, err := framework.GatheredSum(reg.Gather, "graft_descheduler_evictions_total", map[string]string{"result": "conflict"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the tenant wrote its shoot %d times; the migration lost %v conflicts and came %s after the taint", writes.Load(), conflicts, moved.Sub(tainted).Round(time.Millisecond))
}
