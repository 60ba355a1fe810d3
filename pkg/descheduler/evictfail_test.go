package descheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	testframework "github.com/graft-dev/graft/test/framework"
)

// TestRefusedEvictionIsDroppedAndRetried: when the API server refuses the
// eviction's update (the shoot changed or is gone: conflict; anything else:
// error), the shoot is left as it is, no Event claims an eviction, the
// pending count does not keep the refused write, the result is counted, and
// the seed is looked at again after retryAfterError.
func TestRefusedEvictionIsDroppedAndRetried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		result string
		// writes is how many writes are sent: a conflict is read again and
		// written again at once, maxConflictRetries times.
		writes int
	}{
		{"conflict", apierrors.NewConflict(v1alpha1.Resource("shoots"), "plain", errors.New("changed")), ResultConflict, 1 + maxConflictRetries},
		{"not found", apierrors.NewNotFound(v1alpha1.Resource("shoots"), "plain"), ResultConflict, 1},
		{"server error", apierrors.NewInternalError(errors.New("etcd is down")), ResultError, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The taint carries its timeAdded, so the pass writes no stamp
			// whose watch event could queue the seed on its own.
			stamped := drainTaint
			stamped.TimeAdded = ptr.To(metav1.NewTime(t0))
			h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(stamped).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "plain").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
			writes := 0
			h.client.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() == "" {
					writes++
					return true, nil, tc.err
				}
				return false, nil, nil
			})
			h.pass(t)
			if s := h.shoot(t, "plain"); evicted(s) || s.Annotations[v1alpha1.AnnotationDescheduledFrom] != "" {
				t.Errorf("shoot after a refused eviction: seed %v, annotations %v", s.Spec.SeedName, s.Annotations)
			}
			if n := countPrefix(h.events(), "Normal Descheduled"); n != 0 {
				t.Errorf("%d Descheduled Events for a refused eviction", n)
			}
			if got := h.d.state.pendingCount(h.clock.Now()); got != 0 {
				t.Errorf("pending = %d after a refused eviction, want 0", got)
			}
			if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", tc.result)); got != float64(tc.writes) {
				t.Errorf("evictions{result=%q} = %v, want %d", tc.result, got, tc.writes)
			}
			if writes != tc.writes {
				t.Errorf("%d writes of the shoot, want %d", writes, tc.writes)
			}
			h.d.gate.mu.Lock()
			perSeed, total := h.d.gate.perSeed["a"], h.d.gate.total
			h.d.gate.mu.Unlock()
			if tc.result == ResultConflict && (perSeed != 0 || total != 0) {
				t.Errorf("after a lost eviction the pass window's budgets hold %d of seed a and %d in total, want them given back", perSeed, total)
			}
			if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultEvicted)); got != 0 {
				t.Errorf("evictions{result=evicted} = %v, want 0", got)
			}
			if h.d.queue.Len() != 0 {
				t.Fatalf("seed queued at once after a refused eviction")
			}
			// The delaying queue takes the AddAfter on a goroutine of its
			// own: until it has, a step of the clock is not seen. Step until
			// the seed is queued (it was not queued before the step, above).
			testframework.WaitFor(t, fmt.Sprintf("the seed to be queued again %v after a refused eviction", retryAfterError), waitTimeout, func(context.Context) (bool, error) {
				if h.d.queue.Len() == 1 {
					return true, nil
				}
				h.clock.Step(retryAfterError)
				return false, nil
			})
			if key, _ := h.d.queue.Get(); key != "a" {
				t.Errorf("queued %q, want seed a", key)
			}
		})
	}
}

// TestDeletedSeedsAndShootsLeaveTheState: informer deletes (also as
// tombstones) remove seeds and shoots from what passes look at.
func TestDeletedSeedsAndShootsLeaveTheState(t *testing.T) {
	a, b := coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj()
	plain := coretest.MakeShoot("garden-dev", "plain").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
	h := start(t, nil, a, b, plain, coretest.MakeShoot("garden-dev", "other").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("b").Obj())

	h.d.onSeedDelete(b)
	h.d.onSeedDelete(cache.DeletedFinalStateUnknown{Key: "a", Obj: a})
	if got := h.d.state.seedNames(); len(got) != 0 {
		t.Errorf("seeds after their deletes: %v", got)
	}
	h.d.onSeed(nil, a)
	h.d.onSeed(nil, b)

	// The deleted shoot is not evicted, and a skip remembered for it goes.
	h.d.ev.mu.Lock()
	h.d.ev.skipped["garden-dev/plain"] = "no other seed fits"
	h.d.ev.mu.Unlock()
	h.d.onShootDelete(cache.DeletedFinalStateUnknown{Key: "garden-dev/plain", Obj: plain})
	h.d.ev.mu.Lock()
	_, skipped := h.d.ev.skipped["garden-dev/plain"]
	h.d.ev.mu.Unlock()
	if skipped {
		t.Error("the deleted shoot's skip is still remembered")
	}
	h.pass(t)
	if n := countPrefix(h.events(), "Normal Descheduled"); n != 0 {
		t.Errorf("%d Descheduled Events after the only untolerating shoot was deleted", n)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultEvicted)); got != 0 {
		t.Errorf("evictions{result=evicted} = %v after the shoot was deleted, want 0", got)
	}
	// Objects it cannot key are ignored.
	h.d.onShootDelete(42)
}

// counter reads a counter of a descheduler's metrics.
func counter(t testing.TB, c metrics.CounterMetric) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// gauge reads a gauge of a descheduler's metrics.
func gauge(t *testing.T, g metrics.GaugeMetric) float64 {
	t.Helper()
	v, err := testutil.GetGaugeMetricValue(g)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConflictDecidesAgainOnTheFreshShoot: a conflict is written again at
// once only when the plugin, reading the shoot again, still wants it off:
// here the write that won gave the shoot a toleration of the drain, and
// the eviction is dropped.
func TestConflictDecidesAgainOnTheFreshShoot(t *testing.T) {
	stamped := drainTaint
	stamped.TimeAdded = ptr.To(metav1.NewTime(t0))
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(stamped).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "plain").Created(t0).Seed("a").Obj())
	writes := 0
	h.client.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "" {
			return false, nil, nil
		}
		writes++
		// The tenant's write came first: the shoot now tolerates the drain.
		s, err := h.client.Tracker().Get(v1alpha1.SchemeGroupVersion.WithResource("shoots"), "garden-dev", "plain")
		if err != nil {
			return true, nil, err
		}
		tolerating := s.(*v1alpha1.Shoot).DeepCopy()
		tolerating.Spec.Tolerations = []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintUnschedulable}}
		if err := h.client.Tracker().Update(v1alpha1.SchemeGroupVersion.WithResource("shoots"), tolerating, "garden-dev"); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewConflict(v1alpha1.Resource("shoots"), "plain", errors.New("changed"))
	})
	h.pass(t)
	if writes != 1 {
		t.Errorf("%d writes, want the one that lost: the fresh shoot tolerates the drain", writes)
	}
	if s := h.shoot(t, "plain"); evicted(s) {
		t.Errorf("the shoot was evicted although it now tolerates the taint")
	}
}
