package descheduler

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/coretest"
	testframework "github.com/graft-dev/graft/test/framework"
)

// Every move makes progress: a move must leave the shoot somewhere it may
// stay longer than where it is. These tests pin the descheduler's side.

// The loop seen in a fault run: the shoot's seed must be left, and the
// three other seeds carry a NoExecute taint the shoot tolerates with
// tolerationSeconds 0. None of them is a place to stay, so nothing is
// evicted, with requireFit on, pass after pass.
func TestRunOutStaysAreNoTarget(t *testing.T) {
	maintenance := v1alpha1.SeedTaint{Key: "maintenance", Effect: v1alpha1.TaintEffectNoExecute}
	zero := v1alpha1.Toleration{Key: "maintenance", Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](0)}
	h := start(t, nil, coretest.MakeSeed("d").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("a").Allocatable(-1).Taints(maintenance).Obj(), coretest.MakeSeed("b").Allocatable(-1).Taints(maintenance).Obj(),
		coretest.MakeSeed("c").Allocatable(-1).Taints(maintenance).Obj(), coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("d").Tolerations(zero).Obj())
	for range 3 {
		h.pass(t)
		h.clock.Step(time.Minute)
	}
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted towards seeds it would have to leave at once")
	}
	events := h.events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning EvictionSkipped") || !strings.Contains(events[0], "NoExecute tolerated under a minute (3)") {
		t.Errorf("events = %v, want one EvictionSkipped naming the run-out stays", events)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultSkippedNoFit)); got != 3 {
		t.Errorf("skipped_no_fit = %v, want 3 (one per pass)", got)
	}
}

// Two drained seeds whose taints the shoot tolerates for 300 s: when its
// stay on one runs out, the other is no better, and the shoot stays where
// it is (an Event and skipped_limited_stay say why) instead of moving every
// 300 s. Once a seed where it may stay appears it moves there, once.
func TestLimitedStayIsNoTarget(t *testing.T) {
	limited300 := v1alpha1.Toleration{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	x := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(limited300).Obj()
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(clocked(drainTaint, t0)).Obj(), coretest.MakeSeed("b").Allocatable(-1).Taints(clocked(drainTaint, t0)).Obj(), x)
	h.pass(t)
	h.clock.Step(300 * time.Second)
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("moved from one limited stay to another")
	}
	events := h.events()
	if len(events) != 1 || !strings.Contains(events[0], "would let it stay only for a limited time") {
		t.Errorf("events = %v", events)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultSkippedLimitedStay)); got != 1 {
		t.Errorf("skipped_limited_stay = %v, want 1", got)
	}
	// The alert on stalled evictions reads this: one shoot must move, none did.
	if got := gauge(t, h.d.metrics.ToMove.WithLabelValues("NoExecuteTaints")); got != 1 {
		t.Errorf("shoots_to_move = %v, want 1", got)
	}

	// A seed where it may stay appears: the held seed is looked at again
	// and the shoot moves there.
	h.addSeed(t, coretest.MakeSeed("c").Allocatable(-1).Obj())
	h.pass(t)
	got := h.shoot(t, "x")
	if !evicted(got) {
		t.Fatal("not moved to the seed where it may stay")
	}
	if n := countPrefix(h.events(), "Normal Descheduled"); n != 2 {
		t.Errorf("want one Descheduled on the shoot and one on the seed, got %d", n)
	}
	if got := gauge(t, h.d.metrics.ToMove.WithLabelValues("NoExecuteTaints")); got != 0 {
		t.Errorf("shoots_to_move = %v after the move, want 0", got)
	}
}

// A shoot placed on a seed that has been tainted for an hour gets its full
// tolerationSeconds from its placement, as its binding recorded it, also in
// a descheduler started after the placement.
func TestPlacementStartsTheClockAcrossRestarts(t *testing.T) {
	placed := t0.Add(-10 * time.Second)
	x := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(limited30).Obj()
	x.CreationTimestamp = metav1.NewTime(t0.Add(-2 * time.Hour))
	x.Annotations = map[string]string{v1alpha1.AnnotationPlacedOn: helper.FormatPlacement("a", placed)}
	taint := clocked(drainTaint, t0.Add(-time.Hour))
	for _, restartedAt := range []time.Duration{0, 20 * time.Second} {
		st := newState()
		now := placed.Add(restartedAt)
		st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Taints(taint).Obj(), now)
		st.setShoot(version(x.DeepCopy(), "5"), now, false)
		v := st.takeView([]string{"a"}, now)
		if got := v.seeds["a"].TolerationStart(v.seeds["a"].Shoots[0], taint); !got.Equal(placed) {
			t.Errorf("started %s after the placement: toleration start = %v, want the placement %v", restartedAt, got, placed)
		}
	}

	// In a running descheduler: not evicted until placement + 30 s.
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(taint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), x)
	h.clock.SetTime(placed.Add(20 * time.Second))
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted before placement + tolerationSeconds (counted from timeAdded)")
	}
	h.clock.SetTime(placed.Add(30 * time.Second))
	h.pass(t)
	if !evicted(h.shoot(t, "x")) {
		t.Fatal("not evicted at placement + tolerationSeconds")
	}

	// A record of another seed, from the future or from before the shoot
	// existed does not count.
	for name, value := range map[string]string{
		"another seed": helper.FormatPlacement("b", placed),
		"future":       helper.FormatPlacement("a", placed.Add(time.Hour)),
		"before":       helper.FormatPlacement("a", t0.Add(-3*time.Hour)),
		"malformed":    "a@yesterday",
	} {
		st := newState()
		y := coretest.MakeShoot("garden-dev", "y").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(limited30).Obj()
		y.CreationTimestamp = x.CreationTimestamp
		y.Annotations = map[string]string{v1alpha1.AnnotationPlacedOn: value}
		st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Taints(taint).Obj(), placed)
		st.setShoot(version(y, "5"), placed, false)
		v := st.takeView([]string{"a"}, placed)
		if got := v.seeds["a"].TolerationStart(v.seeds["a"].Shoots[0], taint); !got.Equal(taint.TimeAdded.Time) {
			t.Errorf("%s: toleration start = %v, want timeAdded %v", name, got, taint.TimeAdded.Time)
		}
	}
}

// The guard: a shoot is not evicted twice from one seed for the same cause
// within repeatEvictionWindow, counted from graft.dev/evictions, which each
// eviction writes; held_repeat counts the evictions it held back, and the
// seed is looked at again when the window ends.
func TestRepeatEvictionGuard(t *testing.T) {
	record := func(seed, cause string, at time.Time) string {
		return helper.RecordEviction(nil, testRecordKey.sign(coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj().UID, helper.Eviction{Seed: seed, Cause: cause, At: at}), time.Hour)
	}
	const cause = "NoExecuteTaints: " + v1alpha1.SeedTaintUnschedulable + ":NoExecute"
	withRecord := func(value string) runtime.Object {
		x := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
		x.Annotations = map[string]string{v1alpha1.AnnotationEvictions: value}
		return x
	}
	for _, tc := range []struct {
		name   string
		record string
		held   bool
	}{
		{"same seed and cause a minute ago", record("a", cause, t0.Add(-time.Minute)), true},
		{"same seed and cause beyond the window", record("a", cause, t0.Add(-11*time.Minute)), false},
		{"another seed", record("b", cause, t0.Add(-time.Minute)), false},
		{"another cause", record("a", "OverCapacity: over capacity", t0.Add(-time.Minute)), false},
		{"dated far in the future", record("a", cause, t0.Add(24*time.Hour)), false},
		// x was created on a at t0: it cannot have left a since.
		{"dated after the shoot came to the seed (written by its tenant)", record("a", cause, t0.Add(30*time.Second)), false},
		{"malformed", "not json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), withRecord(tc.record))
			h.pass(t)
			if got := evicted(h.shoot(t, "x")); got == tc.held {
				t.Fatalf("evicted = %v, want %v", got, !tc.held)
			}
			held := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultHeldRepeat))
			if tc.held != (held == 1) {
				t.Errorf("held_repeat = %v", held)
			}
			if !tc.held {
				return
			}
			events := h.events()
			if len(events) != 1 || !strings.Contains(events[0], "evicted from that seed for the same cause") {
				t.Errorf("events = %v", events)
			}
			// Looked at again when the window ends, and then evicted.
			h.clock.Step(9*time.Minute + requeueSlack)
			testframework.WaitFor(t, "the seed to be requeued when the window ends", waitTimeout, func(context.Context) (bool, error) { return h.d.queue.Len() == 1, nil })
			h.pass(t)
			if !evicted(h.shoot(t, "x")) {
				t.Error("not evicted after the window")
			}
		})
	}
}

// Each eviction records itself in graft.dev/evictions, keeping the records
// of the window: the guard's count survives restarts.
func TestEvictionIsRecorded(t *testing.T) {
	uid := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj().UID
	earlier := helper.RecordEviction(nil, testRecordKey.sign(uid, helper.Eviction{Seed: "c", Cause: "OverCapacity: over capacity", At: t0.Add(-5 * time.Minute)}), time.Hour)
	old := helper.RecordEviction(nil, testRecordKey.sign(uid, helper.Eviction{Seed: "c", Cause: "OverCapacity: over capacity", At: t0.Add(-time.Hour)}), time.Hour)
	for _, tc := range []struct {
		record string
		want   int
	}{{"", 1}, {earlier, 2}, {old, 1}} {
		x := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
		if tc.record != "" {
			x.Annotations = map[string]string{v1alpha1.AnnotationEvictions: tc.record}
		}
		h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
			c.RepeatEvictionWindow = &metav1.Duration{Duration: 10 * time.Minute}
		}, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), x)
		h.pass(t)
		got := helper.Evictions(h.shoot(t, "x"))
		if len(got) != tc.want {
			t.Fatalf("records = %+v, want %d", got, tc.want)
		}
		last := got[len(got)-1]
		if last.Seed != "a" || last.Cause != "NoExecuteTaints: "+v1alpha1.SeedTaintUnschedulable+":NoExecute" || !last.At.Equal(t0) {
			t.Errorf("record = %+v", last)
		}
	}
}

// TestForgedRecordsBuyNoStay: on Gardener a tenant writes its shoot's
// annotations at will. A binding record (graft.dev/placed-on) of a moment
// ago with an eviction record from the same seed dated just before it read,
// at every descheduler start, as "evicted from here, came back": the repeat
// guard then held a shoot that tolerates no drain on the drained seed for
// repeatEvictionWindow. Only records signed with the descheduler's key for
// this very shoot count; the signed record of a real eviction still holds.
func TestForgedRecordsBuyNoStay(t *testing.T) {
	const cause = "NoExecuteTaints: " + v1alpha1.SeedTaintUnschedulable + ":NoExecute"
	other := recordKey("another-garden-or-a-guessed-key!")
	for _, tc := range []struct {
		name string
		sign func(uid types.UID, e helper.Eviction) helper.Eviction
		held bool
	}{
		{"unsigned (written by the tenant)", func(_ types.UID, e helper.Eviction) helper.Eviction { return e }, false},
		{"signed with another key", other.sign, false},
		{"a signature copied from another shoot", func(_ types.UID, e helper.Eviction) helper.Eviction {
			return testRecordKey.sign("uid-of-another-shoot", e)
		}, false},
		{"signed by the descheduler for this shoot", testRecordKey.sign, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := coretest.MakeShoot("garden-dev", "x").Created(t0.Add(-time.Hour)).Seed("a").Obj()
			x.UID = "uid-x"
			e := tc.sign(x.UID, helper.Eviction{Seed: "a", Cause: cause, At: t0.Add(-2 * time.Minute)})
			x.Annotations = map[string]string{
				v1alpha1.AnnotationPlacedOn:  helper.FormatPlacement("a", t0.Add(-time.Minute)),
				v1alpha1.AnnotationEvictions: helper.RecordEviction(nil, e, time.Hour),
			}
			h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), x)
			h.pass(t)
			if got := evicted(h.shoot(t, "x")); got == tc.held {
				t.Fatalf("evicted = %v, want %v", got, !tc.held)
			}
			if tc.held {
				return
			}
			// The record the eviction writes is signed, and keeps none of
			// the tenant's.
			records := helper.Evictions(h.shoot(t, "x"))
			if len(records) != 1 || records[0].At.Equal(e.At) || len(testRecordKey.verified(h.shoot(t, "x"))) != 1 {
				t.Errorf("records after the eviction = %+v, want the descheduler's own, signed", records)
			}
		})
	}
}

// The key lives in a Secret the first replica creates; a second replica, or
// the next leader, reads the same key. A Secret with too short a key is an
// error that says what to do; dry-run mode creates nothing.
func TestRecordKeySecret(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewSimpleClientset()
	first, err := loadRecordKey(ctx, kube, "garden", false)
	if err != nil {
		t.Fatal(err)
	}
	second, err := loadRecordKey(ctx, kube, "garden", false)
	if err != nil || string(first) != string(second) || len(first) != 32 {
		t.Fatalf("second replica's key %x (%v), want the first's %x", second, err, first)
	}
	if _, err := loadRecordKey(ctx, kubefake.NewSimpleClientset(), "garden", true); err != nil {
		t.Errorf("dry run without a Secret: %v", err)
	}
	dry := kubefake.NewSimpleClientset()
	_, _ = loadRecordKey(ctx, dry, "garden", true)
	if list, _ := dry.CoreV1().Secrets("garden").List(ctx, metav1.ListOptions{}); len(list.Items) != 0 {
		t.Errorf("dry run created %d Secrets", len(list.Items))
	}
	short := kubefake.NewSimpleClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: RecordKeySecret}, Data: map[string][]byte{"key": []byte("short")}})
	if _, err := loadRecordKey(ctx, short, "garden", false); err == nil || !strings.Contains(err.Error(), "delete it to have a new one made") {
		t.Errorf("a short key: %v", err)
	}
}

// A shoot pinned to a zone is evicted only towards a seed with that zone:
// on Gardener's API nothing checks the zones again on the binding. With the
// other seed lacking the zone it stays, and the Event says why; once a seed
// with the zone appears it goes.
func TestPinnedShootLeavesOnlyForItsZone(t *testing.T) {
	pinned := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("d").PinZones("z2").Obj()
	h := start(t, nil, coretest.MakeSeed("d").Allocatable(-1).Zones("z1", "z2").Taints(drainTaint).Obj(),
		coretest.MakeSeed("a").Allocatable(-1).Zones("z1", "z3").Obj(), pinned)
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted although no other seed has the pinned zone")
	}
	if events := h.events(); len(events) != 1 || !strings.Contains(events[0], "lacks a pinned zone (1)") {
		t.Errorf("events = %v, want one EvictionSkipped naming the zone pinning", events)
	}
	h.addSeed(t, coretest.MakeSeed("b").Allocatable(-1).Zones("z2").Obj())
	h.pass(t)
	if !evicted(h.shoot(t, "x")) {
		t.Fatal("not evicted once a seed with the pinned zone is there")
	}
}
