package descheduler

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	testframework "github.com/graft-dev/graft/test/framework"
)

func clocked(t v1alpha1.SeedTaint, added time.Time) v1alpha1.SeedTaint {
	t.TimeAdded = ptr.To(metav1.NewTime(added))
	return t
}

var limited30 = v1alpha1.Toleration{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}

// A descheduler that starts (after a restart or a failover) while a taint
// with timeAdded is already 20s old lets a shoot tolerating it for 30s stay
// only 10s more, and looks at the seed again exactly then.
func TestTolerationCountsFromTimeAdded(t *testing.T) {
	x := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(limited30).Obj()
	x.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour))
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(clocked(drainTaint, t0.Add(-20*time.Second))).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), x)
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted before timeAdded + tolerationSeconds")
	}
	h.clock.Step(10*time.Second - time.Millisecond)
	testframework.Never(t, "requeued before the toleration ran out", 2*time.Second, func() bool { return h.d.queue.Len() > 0 })
	h.clock.Step(time.Millisecond + requeueSlack)
	testframework.WaitFor(t, "the seed to be requeued at timeAdded + tolerationSeconds (counting from the restart)", waitTimeout, func(context.Context) (bool, error) { return h.d.queue.Len() == 1, nil })
	h.pass(t)
	if !evicted(h.shoot(t, "x")) {
		t.Fatal("not evicted at timeAdded + tolerationSeconds")
	}
}

// A shoot found on its seed when the descheduler starts has not just arrived
// there: its toleration counts from timeAdded, not from the start.
func TestArrivalUnknownAtStart(t *testing.T) {
	st := newState()
	taint := clocked(drainTaint, t0)
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Taints(taint).Obj(), t0.Add(time.Hour))
	st.setShoot(version(coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), "5"), t0.Add(time.Hour), false)
	v := st.takeView([]string{"a"}, t0.Add(time.Hour))
	if got := v.seeds["a"].TolerationStart(v.seeds["a"].Shoots[0], taint); !got.Equal(t0) {
		t.Errorf("toleration start = %v, want timeAdded %v", got, t0)
	}
}

// The first pass stamps timeAdded on a NoExecute taint that lacks it: one
// merge patch of the seed, preconditioned on its resourceVersion, with the
// time the descheduler first saw the taint; later passes write nothing more.
func TestStampsTimeAdded(t *testing.T) {
	cordon := v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoSchedule}
	seed := coretest.MakeSeed("a").Allocatable(-1).Taints(cordon, drainTaint).Obj()
	seed.ResourceVersion = "7"
	h := start(t, nil, seed, coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(limited30).Obj())
	h.clock.Step(10 * time.Second)
	h.pass(t)
	h.pass(t)

	var patches []clienttesting.PatchAction
	for _, a := range h.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "seeds" {
			patches = append(patches, p)
		}
	}
	if len(patches) != 1 {
		t.Fatalf("want one patch of the seed, got %d", len(patches))
	}
	var body struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patches[0].GetPatch(), &body); err != nil || body.Metadata.ResourceVersion != "7" {
		t.Errorf("patch %s is not preconditioned on resourceVersion 7 (%v)", patches[0].GetPatch(), err)
	}
	got, err := h.client.CoreV1alpha1().Seeds().Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Taints) != 2 || got.Spec.Taints[0].TimeAdded != nil {
		t.Fatalf("taints = %+v: the NoSchedule taint must stay without timeAdded", got.Spec.Taints)
	}
	if at := got.Spec.Taints[1].TimeAdded; at == nil || !at.Time.Equal(t0) {
		t.Errorf("timeAdded = %v, want the first sighting %v", at, t0)
	}
	if evicted(h.shoot(t, "x")) {
		t.Error("evicted before its toleration ran out")
	}
}

// The stamp is the descheduler's own write: an informer event older than it
// must not bring the unstamped taint back into a pass.
func TestOwnSeedWriteWinsOverStaleEvent(t *testing.T) {
	st := newState()
	old := coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj()
	old.ResourceVersion = "11"
	st.setSeed(nil, old, t0)
	stamped := coretest.MakeSeed("a").Allocatable(-1).Taints(clocked(drainTaint, t0)).Obj()
	stamped.ResourceVersion = "12"
	st.setOwnSeed(stamped, t0)
	if st.setSeed(nil, old, t0) {
		t.Error("a stale event counted as a change")
	}
	if s, _ := st.snapshot.Seed("a"); s.Spec.Taints[0].TimeAdded == nil {
		t.Fatal("a stale informer event undid the stamp")
	}
	// A later change by someone else (timeAdded moved) is one.
	moved := coretest.MakeSeed("a").Allocatable(-1).Taints(clocked(drainTaint, t0.Add(-time.Hour))).Obj()
	moved.ResourceVersion = "13"
	if !st.setSeed(stamped, moved, t0) {
		t.Error("a changed timeAdded is not a change")
	}
}
