package descheduler

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestForgedEvictionsHoldNothingBack: shoots a tenant marked as evicted
// (graft.dev/descheduled-from without the descheduler's record, or with a
// record but a scheduler nobody runs) neither count against
// maxPendingEvicted nor take the slots requireFit keeps for waiting shoots:
// the drain of seed a goes on. Shoots the known scheduler will place still
// take their slot.
func TestForgedEvictionsHoldNothingBack(t *testing.T) {
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(4).Obj()}
	for i := range 3 {
		objs = append(objs, coretest.MakeShoot("garden-dev", fmt.Sprintf("x%d", i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
	}
	for i := range 10 {
		// Marked without a record; fit b as far as the algorithm knows, but
		// their seed selector matches no seed.
		d := coretest.MakeShoot("garden-dev", fmt.Sprintf("marked%d", i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
		d.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: "a"}
		d.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"nothing": "matches"}}}
		objs = append(objs, d)
		// A record as the descheduler writes it, but no scheduler places it.
		n := coretest.MakeShoot("garden-dev", fmt.Sprintf("nobody%d", i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
		markEvicted(n, "a")
		n.Spec.SchedulerName = ptr.To("nobody")
		objs = append(objs, n)
	}
	// One shoot the known scheduler will place takes one of b's four slots.
	objs = append(objs, coretest.MakeShoot("garden-dev", "new").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj())

	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxPendingEvicted = ptr.To[int32](10)
		c.MaxEvictionsPerSeed = ptr.To[int32](10)
	}, objs...)
	h.pass(t)
	for i := range 3 {
		if s := h.shoot(t, fmt.Sprintf("x%d", i)); !evicted(s) {
			t.Errorf("x%d stays on drained seed a: the decoys held the drain back", i)
		}
	}
	if got := h.d.state.pendingCount(h.clock.Now()); got != 3 {
		t.Errorf("%d evicted shoots counted as waiting, want the 3 this pass evicted", got)
	}

	// A fourth shoot on a finds no slot: b's last one is kept for "new".
	h = start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxEvictionsPerSeed = ptr.To[int32](10)
	}, append(objs, coretest.MakeShoot("garden-dev", "x3").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), coretest.MakeShoot("garden-dev", "x4").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())...)
	h.pass(t)
	n := 0
	for i := range 5 {
		if evicted(h.shoot(t, fmt.Sprintf("x%d", i))) {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d of 5 shoots evicted to seed b with 4 slots, one kept for a new shoot: want 3", n)
	}
}

// TestSchedulerNames: the shoots of a scheduler named in schedulerNames are
// counted; others not.
func TestSchedulerNames(t *testing.T) {
	second := coretest.MakeShoot("garden-dev", "second").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
	markEvicted(second, "a")
	second.Spec.SchedulerName = ptr.To("graft-distance-scheduler")
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.SchedulerNames = []string{"default-scheduler", "graft-distance-scheduler"}
	}, coretest.MakeSeed("a").Allocatable(-1).Obj(), coretest.MakeSeed("b").Allocatable(4).Obj(), second)
	h.pass(t)
	if got := h.d.state.pendingCount(h.clock.Now()); got != 1 {
		t.Errorf("pending %d, want the shoot of the second known scheduler", got)
	}
}
