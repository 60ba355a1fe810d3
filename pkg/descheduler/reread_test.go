package descheduler

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// liveSeed makes GETs of a seed answer with live, as the API server would
// after a change the informers have not delivered yet.
func liveSeed(h *harness, live *v1alpha1.Seed) {
	h.client.PrependReactor("get", "seeds", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.GetAction).GetName() != live.Name {
			return false, nil, nil
		}
		return true, live.DeepCopy(), nil
	})
}

// TestEvictionRereadsTheSeedsTaints: the pass sees a NoExecute taint that
// was removed a moment ago; the read right before the write shows it gone,
// and nothing is evicted.
func TestEvictionRereadsTheSeedsTaints(t *testing.T) {
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "plain").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
	liveSeed(h, coretest.MakeSeed("a").Allocatable(-1).Obj())
	h.pass(t)
	if evicted(h.shoot(t, "plain")) {
		t.Fatal("evicted for a taint the seed no longer has")
	}
	if events := h.events(); countPrefix(events, "Normal Descheduled") != 0 {
		t.Errorf("events %v, want no Descheduled", events)
	}
	if got, _ := testutil.GetCounterMetricValue(h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultConflict)); got != 1 {
		t.Errorf("conflict evictions counted %v, want 1", got)
	}
	if got := h.d.state.pendingCount(h.clock.Now()); got != 0 {
		t.Errorf("pending = %d, want 0", got)
	}
}

// TestEvictionRereadsTheSeedsAllocatable: the pass sees two shoots too many;
// the seed as read now has room for one of them, so only one moves.
func TestEvictionRereadsTheSeedsAllocatable(t *testing.T) {
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj()}
	for _, n := range []struct {
		name    string
		purpose v1alpha1.ShootPurpose
	}{{"prod", v1alpha1.ShootPurposeProduction}, {"prod2", v1alpha1.ShootPurposeProduction}, {"eval", v1alpha1.ShootPurposeEvaluation}, {"dev", v1alpha1.ShootPurposeDevelopment}} {
		s := coretest.MakeShoot("garden-dev", n.name).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
		s.Spec.Purpose = ptr.To(n.purpose)
		objs = append(objs, s)
	}
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: "OverCapacity"}}
	}, objs...)
	live := coretest.MakeSeed("a").Allocatable(2).Obj()
	live.Status.Allocatable[v1alpha1.ResourceShoots] = *resource.NewQuantity(3, resource.DecimalSI)
	liveSeed(h, live)
	h.pass(t)
	for name, want := range map[string]bool{"prod": false, "prod2": false, "eval": true, "dev": false} {
		if got := evicted(h.shoot(t, name)); got != want {
			t.Errorf("%s evicted = %v, want %v", name, got, want)
		}
	}
}
