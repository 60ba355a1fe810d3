//go:build integration

package scheduler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/graftctl/get"
)

// TestBindingClearsPendingLastOperation: a shoot that waited for a seed, with
// the scheduler's Create/Pending (no seed fitted) or the Migrate/Pending an
// earlier graft-descheduler release wrote after evicting it, reads Pending no
// more once it is bound.
func TestBindingClearsPendingLastOperation(t *testing.T) {
	f := newFixture(t)
	// An evicted shoot as earlier graft-descheduler releases left it: no
	// seed, the annotations, lastOperation Migrate/Pending.
	evicted := f.newShoot("evicted", "eu-west-1")
	evicted.Annotations = map[string]string{
		v1alpha1.AnnotationDescheduledFrom:   f.name + "-gone",
		v1alpha1.AnnotationDescheduledReason: "NoExecuteTaints: test",
	}
	evicted = f.createShoot(evicted)
	evicted.Status.LastOperation = &v1alpha1.LastOperation{
		Type: v1alpha1.LastOperationTypeMigrate, State: v1alpha1.LastOperationStatePending,
		Description: "Evicted from seed " + f.name + "-gone, waiting for a new seed", LastUpdateTime: metav1.Now(),
	}
	if _, err := f.graft.CoreV1alpha1().Shoots(f.ns).UpdateStatus(f.ctx, evicted, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A new shoot for which no seed fits yet.
	f.createShoot(f.newShoot("waiting", "eu-west-1"))

	startScheduler(t, "sched-pending", nil)
	f.waitFor("the scheduler's Create/Pending on the waiting shoot", 30*time.Second, func() (bool, error) {
		lo := f.getShoot("waiting").Status.LastOperation
		return lo != nil && lo.Type == v1alpha1.LastOperationTypeCreate && lo.State == v1alpha1.LastOperationStatePending, nil
	})
	if lo := f.getShoot("evicted").Status.LastOperation; lo == nil || lo.State != v1alpha1.LastOperationStatePending {
		t.Fatalf("the evicted shoot's lastOperation before a seed exists: %+v", lo)
	}

	seed := f.createSeed("here", "eu-west-1", nil, nil).Name
	for _, name := range []string{"evicted", "waiting"} {
		if got := f.waitForSeed(name, 30*time.Second); got != seed {
			t.Fatalf("shoot %s bound to %s, want %s", name, got, seed)
		}
		// The status write follows the binding.
		f.waitFor("shoot "+name+" no longer Pending", 30*time.Second, func() (bool, error) {
			return get.ShootStatus(f.getShoot(name)) != string(v1alpha1.LastOperationStatePending), nil
		})
		if lo := f.getShoot(name).Status.LastOperation; lo != nil {
			t.Errorf("shoot %s keeps lastOperation %s/%s after the binding", name, lo.Type, lo.State)
		}
	}
}
