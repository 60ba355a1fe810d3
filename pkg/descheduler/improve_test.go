package descheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/coretest"
	testframework "github.com/graft-dev/graft/test/framework"
)

// improving configures the descheduler with one improving plugin and its
// arguments, and no timeout for moves (no scheduler places the evicted
// shoots here).
func improving(plugin, args string, strategy configv1alpha1.SchedulingStrategy) func(*configv1alpha1.DeschedulerConfiguration) {
	return func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: plugin, Args: runtime.RawExtension{Raw: []byte(args)}}}
		c.MigrationTimeout = &metav1.Duration{}
		c.Strategy = strategy
	}
}

// filled returns n shoots on the seed named prefix-i.
func filled(seed, prefix string, n int) []runtime.Object {
	out := make([]runtime.Object, n)
	for i := range out {
		out[i] = coretest.MakeShoot("garden-dev", fmt.Sprintf("%s-%d", prefix, i)).Created(t0).Seed(seed).Obj()
	}
	return out
}

// movedFrom lists the shoots evicted and the seed each left, sorted.
func (h *harness) movedFrom(t *testing.T) []string {
	t.Helper()
	list, err := h.client.CoreV1alpha1().Shoots("garden-dev").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range list.Items {
		if evicted(&s) {
			out = append(out, s.Annotations[v1alpha1.AnnotationDescheduledFrom]+"/"+s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestRebalanceMovesExcessToALowSeed: seeds above the high mark give their
// excess to the new seed under the low mark, one pass window's budget at a
// time, and nothing more once the marks hold.
func TestRebalanceMovesExcessToALowSeed(t *testing.T) {
	objs := []runtime.Object{
		coretest.MakeSeed("a").Allocatable(10).Obj(),
		coretest.MakeSeed("b").Allocatable(10).Obj(),
		coretest.MakeSeed("c").Allocatable(10).Obj(),
	}
	objs = append(objs, filled("a", "a", 10)...) // 100%: 2 over 85%
	objs = append(objs, filled("b", "b", 9)...)  // 90%: 1 over
	h := start(t, improving("Rebalance", `{"maxMovesPerPass":2}`, configv1alpha1.StrategySameRegion), objs...)
	h.pass(t)
	first := h.movedFrom(t)
	if len(first) != 2 {
		t.Fatalf("first pass window moved %v, want 2 (maxMovesPerPass)", first)
	}
	h.pass(t)
	if got := h.movedFrom(t); len(got) != 2 {
		t.Fatalf("a second pass in the same window moved %v", got)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("Rebalance", ResultChurnLimited)); got == 0 {
		t.Error("churn_limited not counted")
	}
	h.d.gate.newWindow()
	h.pass(t)
	got := h.movedFrom(t)
	per := map[string]int{}
	for _, m := range got {
		per[m[:1]]++
	}
	if per["a"] != 2 || per["b"] != 1 {
		t.Fatalf("moved %v, want 2 off a and 1 off b", got)
	}
	h.d.gate.newWindow()
	h.pass(t)
	if again := h.movedFrom(t); len(again) != 3 {
		t.Errorf("moved %v once the marks held", again)
	}
}

// TestRebalanceNeverAgainstTheScheduler: a seed under the low mark that the
// scheduler would not choose for the shoot (another region under
// SameRegion, a taint the shoots do not tolerate, or a fuller seed than
// another it would pick) takes nothing.
func TestRebalanceNeverAgainstTheScheduler(t *testing.T) {
	objs := []runtime.Object{
		coretest.MakeSeed("a").Allocatable(10).Obj(),
		coretest.MakeSeed("far").Provider("aws", "us-east-1").Allocatable(10).Obj(),
		coretest.MakeSeed("tainted").Allocatable(10).Taint("dedicated", nil, v1alpha1.TaintEffectNoSchedule).Obj(),
		// The scheduler's choice for a's shoots: in the region and least
		// used, but at 70%, not under the low mark.
		coretest.MakeSeed("mid").Allocatable(100).Obj(),
	}
	objs = append(objs, filled("a", "a", 10)...)
	objs = append(objs, filled("mid", "m", 70)...)
	h := start(t, improving("Rebalance", `{}`, configv1alpha1.StrategySameRegion), objs...)
	h.pass(t)
	if got := h.movedFrom(t); len(got) != 0 {
		t.Fatalf("moved %v against the scheduler's choice", got)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("Rebalance", ResultNotImproving)); got == 0 {
		t.Error("not_improving not counted")
	}
	if got := gauge(t, h.d.metrics.ToMove.WithLabelValues("Rebalance")); got != 0 {
		t.Errorf("shoots_to_move = %v for moves that are no improvement", got)
	}
}

// TestImprovedShootCoolsDown: a shoot the descheduler moved (by an
// improving plugin or for any other cause) is not moved by an improving
// plugin within the cool-down, by its signed record; a forged record holds
// nothing, a deleted one does not end this process's memory of the move,
// and after the cool-down the shoot may move.
func TestImprovedShootCoolsDown(t *testing.T) {
	moved := coretest.MakeShoot("garden-dev", "moved").Created(t0).Seed("far").Obj()
	moved.UID = "uid-moved"
	forged := coretest.MakeShoot("garden-dev", "forged").Created(t0).Seed("far").Obj()
	forged.UID = "uid-forged"
	drained := coretest.MakeShoot("garden-dev", "drained").Created(t0).Seed("far").Obj()
	drained.UID = "uid-drained"
	drained.Annotations = map[string]string{v1alpha1.AnnotationEvictions: helper.RecordEviction(nil,
		testRecordKey.sign(drained.UID, helper.Eviction{Seed: "x", Cause: "NoExecuteTaints: drain:NoExecute", At: t0.Add(-time.Hour)}), time.Hour)}
	record := func(uid string, sign bool) string {
		e := helper.Eviction{Seed: "x", Cause: "Rebalance: above the high mark", At: t0.Add(-time.Hour)}
		if sign {
			e = testRecordKey.sign(k8stypes.UID(uid), e)
		} else {
			e.MAC = "forged"
		}
		return helper.RecordEviction(nil, e, 30*24*time.Hour)
	}
	moved.Annotations = map[string]string{v1alpha1.AnnotationEvictions: record("uid-moved", true)}
	forged.Annotations = map[string]string{v1alpha1.AnnotationEvictions: record("uid-forged", false)}
	h := start(t, improving("ComeHome", `{"coolDown":"48h"}`, configv1alpha1.StrategyMinimalDistance),
		coretest.MakeSeed("home").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj(), moved, forged, drained)
	h.pass(t)
	if got := h.movedFrom(t); !slices.Equal(got, []string{"far/forged"}) {
		t.Fatalf("moved %v, want only the shoot with a forged record", got)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("ComeHome", ResultCoolingDown)); got == 0 {
		t.Error("cooling_down not counted")
	}
	// The record kept on the moved shoot lasts the cool-down, not just the
	// repeat guard's window.
	if rs := testRecordKey.verified(h.shoot(t, "forged")); len(rs) != 1 || rs[0].Cause != "ComeHome: away from its region" {
		t.Errorf("records on the moved shoot: %+v", rs)
	}
	// The tenant puts it back and deletes the record: this process still
	// knows it moved the shoot.
	back := h.shoot(t, "forged")
	back.Spec.SeedName = ptr.To("far")
	back.Annotations = nil
	if _, err := h.client.CoreV1alpha1().Shoots("garden-dev").Update(context.Background(), back, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testframework.WaitFor(t, "the shoot back on far", waitTimeout, func(context.Context) (bool, error) {
		h.d.state.mu.Lock()
		defer h.d.state.mu.Unlock()
		return h.d.state.snapshot.Usage("far") == 3, nil
	})
	h.clock.SetTime(t0.Add(47*time.Hour - time.Second))
	h.d.gate.newWindow()
	h.pass(t)
	if got := h.movedFrom(t); len(got) != 0 {
		t.Fatalf("moved %v within the cool-down", got)
	}
	h.clock.SetTime(t0.Add(47 * time.Hour))
	h.d.gate.newWindow()
	h.pass(t)
	if got := h.movedFrom(t); !slices.Equal(got, []string{"far/drained", "far/moved"}) {
		t.Fatalf("moved %v once the first cool-downs ended, want the shoots moved 48h ago only", got)
	}
}

// TestComeHomeInItsWindowOnly: a shoot away from its region goes to a seed
// the scheduler now chooses in its region, in its maintenance window; a
// shoot already as close as any seed that takes it stays.
func TestComeHomeInItsWindowOnly(t *testing.T) {
	h := start(t, improving("ComeHome", `{}`, configv1alpha1.StrategyMinimalDistance),
		coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj(),
		coretest.MakeSeed("home").Obj(),
		coretest.MakeShoot("garden-dev", "evening").Created(t0).Seed("far").MaintenanceWindow("180000+0000", "190000+0000").Obj(),
		coretest.MakeShoot("garden-dev", "us").Created(t0).Provider("aws", "us-east-1").Seed("far").Obj(),
		coretest.MakeShoot("garden-dev", "ohio").Created(t0).Provider("aws", "us-east-2").Seed("far").Obj(),
	)
	h.pass(t)
	if got := h.movedFrom(t); len(got) != 0 {
		t.Fatalf("moved %v outside the window (ohio has no closer seed than far)", got)
	}
	if e := h.events(); len(e) != 0 {
		t.Errorf("Events for moves not due: %q", e)
	}
	h.clock.SetTime(t0.Add(6 * time.Hour))
	h.pass(t)
	if got := h.movedFrom(t); !slices.Equal(got, []string{"far/evening"}) {
		t.Fatalf("moved %v in the window, want evening", got)
	}
}

// TestHourlyBudgetSurvivesARestart: the moves of the last hour that the
// shoots' signed records show count against the hourly budget of a
// descheduler that just started.
func TestHourlyBudgetSurvivesARestart(t *testing.T) {
	before := coretest.MakeShoot("garden-dev", "before").Created(t0).Seed("home").Obj()
	before.UID = "uid-before"
	before.Annotations = map[string]string{v1alpha1.AnnotationEvictions: helper.RecordEviction(nil,
		testRecordKey.sign(before.UID, helper.Eviction{Seed: "far", Cause: "ComeHome: away from its region", At: t0.Add(-30 * time.Minute)}), time.Hour)}
	h := start(t, improving("ComeHome", `{"maxMovesPerHour":1}`, configv1alpha1.StrategyMinimalDistance),
		coretest.MakeSeed("home").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj(), before,
		coretest.MakeShoot("garden-dev", "away").Created(t0).Seed("far").Obj())
	h.d.gate.recallChurn(h.d.state.eachShoot)
	h.pass(t)
	if got := h.movedFrom(t); len(got) != 0 {
		t.Fatalf("moved %v with the hour's budget spent before the start", got)
	}
	h.clock.SetTime(t0.Add(30*time.Minute + time.Second))
	h.pass(t)
	if got := h.movedFrom(t); !slices.Equal(got, []string{"far/away"}) {
		t.Fatalf("moved %v once the earlier move left the hour", got)
	}
}

// TestCopiedRecordCountsOnce: a tenant that copies its shoot's one genuine
// ComeHome record 25 times into graft.dev/evictions spends one move of the
// hour's budget at the next start, not 25: another tenant's shoot still
// moves.
func TestCopiedRecordCountsOnce(t *testing.T) {
	copied := coretest.MakeShoot("garden-evil", "copied").Created(t0).Seed("home").Obj()
	copied.UID = "uid-copied"
	genuine := testRecordKey.sign(copied.UID, helper.Eviction{Seed: "far", Cause: "ComeHome: away from its region", At: t0.Add(-30 * time.Minute)})
	records := make([]helper.Eviction, 25)
	for i := range records {
		records[i] = genuine
	}
	value, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	copied.Annotations = map[string]string{v1alpha1.AnnotationEvictions: string(value)}
	h := start(t, improving("ComeHome", `{"maxMovesPerHour":2}`, configv1alpha1.StrategyMinimalDistance),
		coretest.MakeSeed("home").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj(), copied,
		coretest.MakeShoot("garden-dev", "away").Created(t0).Seed("far").Obj())
	if n := len(h.d.ev.records.verified(copied)); n != 1 {
		t.Errorf("%d verified records, want the one genuine move", n)
	}
	h.d.gate.recallChurn(h.d.state.eachShoot)
	h.pass(t)
	if got := h.movedFrom(t); !slices.Equal(got, []string{"far/away"}) {
		t.Fatalf("moved %v: 25 copies of one record spent the hour's budget of 2", got)
	}
}
