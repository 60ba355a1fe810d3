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
	}{
		{"conflict", apierrors.NewConflict(v1alpha1.Resource("shoots"), "plain", errors.New("changed")), ResultConflict},
		{"not found", apierrors.NewNotFound(v1alpha1.Resource("shoots"), "plain"), ResultConflict},
		{"server error", apierrors.NewInternalError(errors.New("etcd is down")), ResultError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The taint carries its timeAdded, so the pass writes no stamp
			// whose watch event could queue the seed on its own.
			stamped := drainTaint
			stamped.TimeAdded = ptr.To(metav1.NewTime(t0))
			h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(stamped).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "plain").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
			h.client.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() == "" {
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
			if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", tc.result)); got != 1 {
				t.Errorf("evictions{result=%q} = %v, want 1", tc.result, got)
			}
			if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultEvicted)); got != 0 {
				t.Errorf("evictions{result=evicted} = %v, want 0", got)
			}
			if h.d.queue.Len() != 0 {
				t.Fatalf("seed queued at once after a refused eviction")
			}
			h.clock.Step(retryAfterError)
			testframework.WaitFor(t, fmt.Sprintf("the seed to be queued again %v after a refused eviction", retryAfterError), waitTimeout, func(context.Context) (bool, error) { return h.d.queue.Len() == 1, nil })
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
