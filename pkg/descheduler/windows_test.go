package descheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	testframework "github.com/graft-dev/graft/test/framework"
)

// windowedDrainSeed is seed a drained in maintenance windows until deadline.
func windowedDrainSeed(deadline time.Time) *v1alpha1.Seed {
	return coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Annotation(v1alpha1.AnnotationDrainDeadline, deadline.Format(time.RFC3339)).Obj()
}

// TestDeferrableMovesWaitForTheirWindow: a drain in maintenance windows
// moves each shoot inside its window, the shoot without a window at once,
// and the rest at the deadline; an urgent move (another NoExecute taint) is
// not delayed, and the moves left for later say so and count as deferred,
// not as stalled.
func TestDeferrableMovesWaitForTheirWindow(t *testing.T) {
	// t0 is 12:00 UTC.
	deadline := t0.Add(20 * time.Hour) // 08:00 the next day
	objs := []runtime.Object{
		windowedDrainSeed(deadline),
		coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeSeed("c").Allocatable(-1).Taint("broken", nil, v1alpha1.TaintEffectNoExecute).Obj(),
		coretest.MakeShoot("garden-dev", "evening").Created(t0).Seed("a").MaintenanceWindow("180000+0000", "190000+0000").Obj(),
		coretest.MakeShoot("garden-dev", "local-evening").Created(t0).Seed("a").MaintenanceWindow("200000+0100", "210000+0100").Obj(), // 19:00-20:00 UTC
		coretest.MakeShoot("garden-dev", "morning").Created(t0).Seed("a").MaintenanceWindow("100000+0000", "110000+0000").Obj(),       // after the deadline
		coretest.MakeShoot("garden-dev", "no-window").Created(t0).Seed("a").Obj(),
		coretest.MakeShoot("garden-dev", "urgent").Created(t0).Seed("c").MaintenanceWindow("180000+0000", "190000+0000").Obj(),
	}
	// No scheduler places the evicted shoots here: they must not get stuck.
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MigrationTimeout = &metav1.Duration{}
	}, objs...)
	moved := func() string {
		var out []string
		for _, n := range []string{"evening", "local-evening", "morning", "no-window", "urgent"} {
			if evicted(h.shoot(t, n)) {
				out = append(out, n)
			}
		}
		return strings.Join(out, ",")
	}
	h.pass(t)
	if got := moved(); got != "no-window,urgent" {
		t.Fatalf("at 12:00 moved %q, want the shoot without a window and the urgent move", got)
	}
	events := h.events()
	want := `Normal EvictionDeferred NoExecuteTaints wants the shoot off seed a (seed a has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate, drained in maintenance windows until 2026-01-02T08:00:00Z), a move that can wait, due at 2026-01-01T18:00:00Z: waits for its maintenance window (18:00:00-19:00:00 UTC)`
	if !contains(events, want) {
		t.Errorf("Events %q\nwant %q", events, want)
	}
	if got := gauge(t, h.d.metrics.Deferred.WithLabelValues("NoExecuteTaints")); got != 3 {
		t.Errorf("graft_descheduler_shoots_deferred = %v, want 3", got)
	}
	if got := gauge(t, h.d.metrics.ToMove.WithLabelValues("NoExecuteTaints")); got != 0 {
		t.Errorf("graft_descheduler_shoots_to_move = %v, want 0: deferred moves are not stalled", got)
	}
	// Passes before a window change nothing, nor write the Event again.
	h.clock.SetTime(t0.Add(5*time.Hour + 59*time.Minute))
	h.pass(t)
	if got := moved(); got != "no-window,urgent" {
		t.Fatalf("at 17:59 moved %q", got)
	}
	if e := h.events(); len(e) != 0 {
		t.Errorf("Events written again: %q", e)
	}
	for _, step := range []struct {
		after time.Duration
		want  string
	}{
		{6 * time.Hour, "evening,no-window,urgent"},
		{7*time.Hour + 30*time.Minute, "evening,local-evening,no-window,urgent"},
		{20*time.Hour - time.Second, "evening,local-evening,no-window,urgent"},
		{20 * time.Hour, "evening,local-evening,morning,no-window,urgent"},
	} {
		h.clock.SetTime(t0.Add(step.after))
		h.pass(t)
		if got := moved(); got != step.want {
			t.Fatalf("at %s moved %q, want %q", h.clock.Now().UTC().Format("15:04:05"), got, step.want)
		}
	}
	if got := gauge(t, h.d.metrics.Deferred.WithLabelValues("NoExecuteTaints")); got != 0 {
		t.Errorf("graft_descheduler_shoots_deferred = %v after the deadline, want 0", got)
	}
}

// TestDeferredMoveRequeuesItsSeed: the pass that defers a move asks for
// another look at the seed when the window opens, so that no poll is needed.
func TestDeferredMoveRequeuesItsSeed(t *testing.T) {
	h := start(t, nil, windowedDrainSeed(t0.Add(48*time.Hour)), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeShoot("garden-dev", "evening").Created(t0).Seed("a").MaintenanceWindow("180000+0000", "190000+0000").Obj())
	h.pass(t)
	if h.d.queue.Len() != 0 {
		t.Fatalf("queued at once: %d", h.d.queue.Len())
	}
	h.clock.SetTime(t0.Add(6*time.Hour + time.Second))
	testframework.WaitFor(t, "seed a queued when the window opens", waitTimeout, func(context.Context) (bool, error) {
		return h.d.queue.Len() == 1, nil
	})
	if k, _ := h.d.queue.Get(); k != "a" {
		t.Errorf("queued %q, want a", k)
	}
}

// TestUrgentBeforeDeferrable: with a garden-wide budget of one eviction, the
// urgent move goes first even though the deferrable one is on a seed the
// pass looks at before; among moves of one class, a hibernated shoot goes
// first.
func TestUrgentBeforeDeferrable(t *testing.T) {
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxEvictionsTotal = ptr.To[int32](1)
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: configv1alpha1.DeschedulerPluginNoExecuteTaints}, {Name: configv1alpha1.DeschedulerPluginOverCapacity}}
	},
		coretest.MakeSeed("a-full").Allocatable(1).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeSeed("c-tainted").Allocatable(-1).Taint("broken", nil, v1alpha1.TaintEffectNoExecute).Obj(),
		coretest.MakeShoot("garden-dev", "full-1").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a-full").Obj(),
		coretest.MakeShoot("garden-dev", "full-2").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a-full").Obj(),
		coretest.MakeShoot("garden-dev", "running").Created(t0).Seed("c-tainted").Obj(),
		coretest.MakeShoot("garden-dev", "sleeping").Created(t0).Seed("c-tainted").Hibernated().Obj(),
	)
	h.pass(t)
	got := []string{}
	for _, n := range []string{"full-1", "full-2", "running", "sleeping"} {
		if evicted(h.shoot(t, n)) {
			got = append(got, n)
		}
	}
	if fmt.Sprint(got) != "[sleeping]" {
		t.Errorf("evicted %v with a budget of one, want the hibernated shoot of the urgent seed", got)
	}
}

// TestProjectBudget: at most maxMovesInFlightPerProject moves of one
// project are in flight; a namespace the operator gave another budget gets
// it; a shoot's move that no seed takes for migrationTimeout is stuck,
// reported once, and no longer counts.
func TestProjectBudget(t *testing.T) {
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj()}
	for _, ns := range []string{"garden-one", "garden-two", "garden-big"} {
		for i := range 3 {
			objs = append(objs, coretest.MakeShoot(ns, fmt.Sprintf("s%d", i)).Created(t0).Seed("a").Obj())
		}
	}
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxMovesInFlightPerProject = ptr.To[int32](1)
		c.ProjectBudgets = []configv1alpha1.ProjectBudget{{Namespace: "garden-big", MaxMovesInFlight: 2}}
		c.MigrationTimeout = nil
	}, objs...)
	count := func() map[string]int {
		out := map[string]int{}
		for _, ns := range []string{"garden-one", "garden-two", "garden-big"} {
			list, err := h.client.CoreV1alpha1().Shoots(ns).List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range list.Items {
				if evicted(&s) {
					out[ns]++
				}
			}
		}
		return out
	}
	h.pass(t)
	if got := count(); got["garden-one"] != 1 || got["garden-two"] != 1 || got["garden-big"] != 2 {
		t.Fatalf("evicted per project %v, want 1, 1 and 2 (garden-big's own budget)", got)
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultWaitingForProject)); got != 5 {
		t.Errorf("waiting_for_project = %v, want the 5 shoots left", got)
	}
	// Nothing more while they wait; after migrationTimeout (1h by default)
	// they are stuck, reported, and the next shoots move.
	h.pass(t)
	if got := count(); got["garden-one"] != 1 {
		t.Fatalf("a second pass moved more: %v", got)
	}
	h.events()
	h.clock.SetTime(t0.Add(time.Hour))
	h.pass(t)
	if got := count(); got["garden-one"] != 2 || got["garden-two"] != 2 || got["garden-big"] != 3 {
		t.Errorf("after the moves got stuck, evicted per project %v, want 2, 2 and 3", got)
	}
	if got := gauge(t, h.d.metrics.MigrationsStuck); got != 4 {
		t.Errorf("graft_descheduler_migrations_stuck = %v, want 4", got)
	}
	events := h.events()
	if n := countPrefix(events, "Warning MoveStuck The shoot's move off seed a is stuck: in flight since 2026-01-01T12:00:00Z, longer than migrationTimeout (1h0m0s)"); n != 4 {
		t.Errorf("%d MoveStuck Events on shoots, want 4: %q", n, events)
	}
	if n := countPrefix(events, "Warning MoveStuck The move of shoot garden-one/s0 off this seed is stuck"); n != 1 {
		t.Errorf("%d MoveStuck Events on seed a for garden-one/s0, want 1: %q", n, events)
	}
	h.pass(t)
	if n := countPrefix(h.events(), "Warning MoveStuck"); n != 0 {
		t.Errorf("stuck moves reported again")
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestFailedShootsMoveLast: an urgent move of a shoot whose last operation
// failed goes after the others; a deferrable one does not start, and says
// why.
func TestFailedShootsMoveLast(t *testing.T) {
	failed := func(s *coretest.ShootWrapper) *coretest.ShootWrapper {
		return s.With(func(s *v1alpha1.Shoot) {
			s.Status.LastOperation = &v1alpha1.LastOperation{Type: "Reconcile", State: v1alpha1.LastOperationStateFailed, Description: "credentials invalid"}
		})
	}
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) { c.MaxEvictionsTotal = ptr.To[int32](1) },
		windowedDrainSeed(t0.Add(time.Hour)), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeSeed("c").Allocatable(-1).Taint("broken", nil, v1alpha1.TaintEffectNoExecute).Obj(),
		failed(coretest.MakeShoot("garden-dev", "a-broken")).Created(t0).Seed("c").Obj(),
		coretest.MakeShoot("garden-dev", "b-healthy").Created(t0).Seed("c").Obj(),
		failed(coretest.MakeShoot("garden-dev", "deferrable-broken")).Created(t0).Seed("a").Obj(),
	)
	h.pass(t)
	if !evicted(h.shoot(t, "b-healthy")) || evicted(h.shoot(t, "a-broken")) {
		t.Errorf("with a budget of one, the healthy shoot must go before the broken one")
	}
	h.d.gate.newWindow()
	h.pass(t)
	if !evicted(h.shoot(t, "a-broken")) {
		t.Errorf("the broken shoot's urgent move must still happen")
	}
	if evicted(h.shoot(t, "deferrable-broken")) {
		t.Errorf("the broken shoot's deferrable move started")
	}
	want := "Warning EvictionSkipped NoExecuteTaints wants the shoot off seed a (seed a has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate, drained in maintenance windows until 2026-01-01T13:00:00Z), a move that can wait, but the shoot's last operation failed (credentials invalid): it moves once the shoot is healthy again, or at its deadline 2026-01-01T13:00:00Z"
	if events := h.events(); !contains(events, want) {
		t.Errorf("Events %q\nwant %q", events, want)
	}
}

// TestFailedShootLeavesAtTheDeadline: a tenant that breaks its own shoot
// (its credentials) holds a drain's deferrable move only until the drain's
// deadline; then the shoot moves as any other, and the pass had asked to
// look at the seed again at that moment.
func TestFailedShootLeavesAtTheDeadline(t *testing.T) {
	deadline := t0.Add(time.Hour)
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) { c.MigrationTimeout = &metav1.Duration{} },
		windowedDrainSeed(deadline), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeShoot("garden-dev", "broken").Created(t0).Seed("a").With(func(s *v1alpha1.Shoot) {
			s.Status.LastOperation = &v1alpha1.LastOperation{Type: "Reconcile", State: v1alpha1.LastOperationStateFailed, Description: "credentials invalid"}
		}).Obj(),
	)
	q := h.recordAfter()
	h.pass(t)
	if evicted(h.shoot(t, "broken")) {
		t.Fatalf("the failed shoot's deferrable move started before the deadline")
	}
	if !q.asked("a", deadline.Sub(t0)+requeueSlack) {
		t.Errorf("seed a was not asked to be looked at again at the drain's deadline: %v", q.after)
	}
	h.clock.SetTime(deadline.Add(72 * time.Hour))
	h.pass(t)
	if !evicted(h.shoot(t, "broken")) {
		t.Fatalf("72 hours past the drain's deadline the failed shoot is still on the drained seed")
	}
}

// TestWindowMovedAheadHoldsAnOverfullSeedADayAtMost: the tenant whose
// newest shoot is a seed's excess moves its window ahead before each
// opening. OverCapacity's move waits for the window at most maxDeferral (a
// day by default) from the first pass that asked for it; then it happens
// (it stayed over its allocatable for 72 hours).
func TestWindowMovedAheadHoldsAnOverfullSeedADayAtMost(t *testing.T) {
	windowAt := func(at time.Time) (string, string) {
		return at.UTC().Format("150405") + "+0000", at.Add(time.Hour).UTC().Format("150405") + "+0000"
	}
	begin, end := windowAt(t0.Add(2 * time.Hour))
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: "OverCapacity"}}
		c.MigrationTimeout = &metav1.Duration{}
	},
		coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeShoot("garden-dev", "old1").Created(t0.Add(-48*time.Hour)).Seed("a").Obj(),
		coretest.MakeShoot("garden-dev", "old2").Created(t0.Add(-48*time.Hour)).Seed("a").Obj(),
		coretest.MakeShoot("garden-dev", "newest").Created(t0.Add(-time.Hour)).Seed("a").MaintenanceWindow(begin, end).Obj(),
	)
	for hour := 0; hour < 24; hour++ {
		now := t0.Add(time.Duration(hour) * time.Hour)
		h.clock.SetTime(now)
		// The tenant moves the window two hours ahead of now.
		s := h.shoot(t, "newest")
		begin, end := windowAt(now.Add(2 * time.Hour))
		s.Spec.Maintenance.TimeWindow = &v1alpha1.MaintenanceTimeWindow{Begin: begin, End: end}
		if _, err := h.client.CoreV1alpha1().Shoots("garden-dev").Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		testframework.WaitFor(t, "the descheduler to see the moved window", waitTimeout, func(context.Context) (bool, error) {
			h.d.state.mu.Lock()
			defer h.d.state.mu.Unlock()
			seen := h.d.state.shoots["garden-dev/newest"]
			return seen != nil && seen.Spec.Maintenance.TimeWindow.Begin == begin, nil
		})
		h.d.gate.newWindow()
		h.pass(t)
		if evicted(h.shoot(t, "newest")) {
			t.Fatalf("moved at %s, inside no window and before a day had passed: %q", now, h.events())
		}
	}
	h.clock.SetTime(t0.Add(24 * time.Hour))
	h.d.gate.newWindow()
	h.pass(t)
	if !evicted(h.shoot(t, "newest")) {
		t.Fatalf("a day after the first pass the seed is still over its allocatable")
	}
	if evicted(h.shoot(t, "old1")) || evicted(h.shoot(t, "old2")) {
		t.Errorf("another shoot moved instead of the excess")
	}
}

// TestForgedHibernationJumpsOnlyItsOwnProject: on graft's API, where RBAC
// may grant a tenant shoots/status, a tenant reports its running shoot
// hibernated to have it moved first in an urgent evacuation. Hibernation
// orders only its own project's moves: the other tenant's shoot, first in
// the plugin's order, still takes the only free slot.
func TestForgedHibernationJumpsOnlyItsOwnProject(t *testing.T) {
	h := start(t, nil,
		coretest.MakeSeed("b").Allocatable(1).Obj(),
		coretest.MakeSeed("c").Allocatable(-1).Taint("broken", nil, v1alpha1.TaintEffectNoExecute).Obj(),
		coretest.MakeShoot("garden-victim", "a-victim").Created(t0).Seed("c").Obj(),
		coretest.MakeShoot("garden-zz-evil", "b-forger").Created(t0).Seed("c").Hibernated().Obj(),
	)
	h.pass(t)
	get := func(ns, name string) *v1alpha1.Shoot {
		s, err := h.client.CoreV1alpha1().Shoots(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if !evicted(get("garden-victim", "a-victim")) || evicted(get("garden-zz-evil", "b-forger")) {
		t.Errorf("the forged hibernation took the only free slot from another tenant's urgent move")
	}
}
