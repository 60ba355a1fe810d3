//go:build gardener

package gardener

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/test/framework"
)

// startClockedDescheduler is startGraftDescheduler with the descheduler's
// clock in the test's hands.
func startClockedDescheduler(t *testing.T, identity string, clk *clocktesting.FakeClock, set ...string) metrics.KubeRegistry {
	t.Helper()
	cfg, clients := chartDaemon[*configv1alpha1.DeschedulerConfiguration](t, "graft-descheduler", identity, append([]string{"config.strategy=SameRegion"}, set...)...)
	reg := metrics.NewKubeRegistry()
	d, err := descheduler.New(cfg, clients, descheduler.Options{Identity: identity, Registry: reg, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunUntilCleanup(t, identity, d.Run)
	return reg
}

// window gives a Gardener shoot a maintenance window of an hour from begin
// (UTC).
func window(begin time.Time) func(*unstructured.Unstructured) {
	return func(obj *unstructured.Unstructured) {
		tw := map[string]any{"begin": begin.UTC().Format("150405") + "+0000", "end": begin.Add(time.Hour).UTC().Format("150405") + "+0000"}
		if err := unstructured.SetNestedMap(obj.Object, tw, "spec", "maintenance", "timeWindow"); err != nil {
			panic(err)
		}
	}
}

// highlyAvailable gives a Gardener shoot a control plane tolerating node failures.
func highlyAvailable(obj *unstructured.Unstructured) {
	if err := unstructured.SetNestedField(obj.Object, "node", "spec", "controlPlane", "highAvailability", "failureTolerance", "type"); err != nil {
		panic(err)
	}
}

// labelledCounter sums the samples (counter or gauge) of a metric whose
// labels include want.
func labelledCounter(t *testing.T, reg metrics.KubeRegistry, name string, want map[string]string) float64 {
	t.Helper()
	v, err := framework.GatheredSum(reg.Gather, name, want)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// planned checks the plan's row of a shoot: its destination, when, how, and
// the start of why.
func planned(t *testing.T, out, shoot, dest, when, how, why string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != shoot {
			continue
		}
		if got := strings.Join(f[4:], " "); f[1] != dest || f[2] != when || f[3] != how || !strings.HasPrefix(got, why) {
			t.Errorf("plan row %q, want %s %s %s %s %q...", line, shoot, dest, when, how, why)
		}
		return
	}
	t.Errorf("the plan has no row of %s:\n%s", shoot, out)
}

// printedDeadline is the deadline graftctl drain --in-maintenance-windows
// printed for seed.
func printedDeadline(t *testing.T, out, seed string) time.Time {
	t.Helper()
	prefix := "seed/" + seed + " drained in maintenance windows until "
	i := strings.Index(out, prefix)
	if i < 0 {
		t.Fatalf("drain printed no deadline:\n%s", out)
	}
	deadline, err := time.Parse(time.RFC3339, strings.SplitN(out[i+len(prefix):], "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	return deadline
}

func counterValue(t *testing.T, reg metrics.KubeRegistry, name string) float64 {
	return labelledCounter(t, reg, name, nil)
}

// TestDrainInWindowsOnGardener: graftctl drain --in-maintenance-windows on
// a Gardener seed prints the plan and records the deadline; graft-descheduler
// (liveMigration Prefer, gardener-apiserver's gate off) learns from one dry
// run of a binding that live migrations are refused, says so once, and moves
// every control plane classically: the evening shoot in its window, the
// highly available one, whose window comes after the deadline, at the
// deadline; nothing before.
func TestDrainInWindowsOnGardener(t *testing.T) {
	l := migrationLandscape(t, "windows", 20, "src", "dst")
	src, dst := l.seeds[0], l.seeds[1]
	start := time.Now().UTC().Truncate(time.Second)
	eveningAt := start.Add(2 * time.Hour)
	l.createOn(t, "evening", src, window(eveningAt))
	l.createOn(t, "ha", src, window(start.Add(22*time.Hour)), highlyAvailable)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)

	out := onGardener(t, "drain", src, "--in-maintenance-windows", "--deadline=20h", "--plan", "--wait=false")
	// graftctl counts the deadline from its own now.
	deadline := printedDeadline(t, out, src)
	if deadline.Before(start.Add(20*time.Hour)) || deadline.After(start.Add(20*time.Hour+time.Minute)) {
		t.Fatalf("the drain's deadline %v, want 20h from %s", deadline, start)
	}
	for _, want := range []string{"seed/" + src + " cordoned\n",
		"2 shoot(s): 0 move now, 2 later, 0 cannot move, 0 stay on seed/" + src} {
		if !strings.Contains(out, want) {
			t.Errorf("drain printed:\n%s\nwant %q", out, want)
		}
	}
	planned(t, out, l.namespace+"/evening", dst, eveningAt.Format(time.RFC3339), "classic", "waits for its maintenance window")
	planned(t, out, l.namespace+"/ha", dst, deadline.Format(time.RFC3339), "classic", "its deadline "+deadline.Format(time.RFC3339)+" comes before its next maintenance window")

	clk := clocktesting.NewFakeClock(start)
	reg := startClockedDescheduler(t, "graft-descheduler-windows", clk, "config.interval=1m", "config.evictionRate=0", "config.liveMigration=Prefer")
	e := waitForEventFrom(t, descheduler.Name, l.namespace, "ha", descheduler.EventLiveMigrationUnavailable, corev1.EventTypeWarning)
	if !strings.Contains(e.Message, "LiveControlPlaneMigration") {
		t.Errorf("LiveMigrationUnavailable says %q", e.Message)
	}
	waitForEventFrom(t, descheduler.Name, l.namespace, "evening", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	// The seed is looked at again a pass later: the shoot then waits for
	// the deadline, its move being classic.
	clk.Step(time.Minute + time.Second)
	waitForEventFrom(t, descheduler.Name, l.namespace, "ha", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	framework.Never(t, "a control plane to move before its window or the deadline", 2*time.Second, func() bool {
		return g.movesOf(l.namespace+"/evening")+g.movesOf(l.namespace+"/ha") > 0
	})

	clk.SetTime(eveningAt.Add(time.Second))
	evening := l.migratedOff(t, "evening", src)
	if live := evening.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate]; live != "false" {
		t.Errorf("the evening shoot migrated with live-migrate %q, want false (classic)", live)
	}
	if g.movesOf(l.namespace+"/ha") != 0 {
		t.Fatal("the highly available shoot moved in another shoot's window")
	}
	clk.SetTime(deadline.Add(time.Second))
	ha := l.migratedOff(t, "ha", src)
	if dest, _, _ := unstructured.NestedString(ha.Object, "spec", "seedName"); dest != dst || ha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate] != "false" {
		t.Errorf("the highly available shoot went to %s with live-migrate %q; want %s, classic", dest, ha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate], dst)
	}
	if got := counterValue(t, reg, "graft_descheduler_live_migrations_total"); got != 0 {
		t.Errorf("graft_descheduler_live_migrations_total = %v with the gate off", got)
	}
	if got := counterValue(t, reg, "graft_descheduler_live_migration_unavailable"); got != 1 {
		t.Errorf("graft_descheduler_live_migration_unavailable = %v, want 1", got)
	}
}

// TestLiveMigrationOnGardener: with gardener-apiserver's feature gate
// LiveControlPlaneMigration on and liveMigration Prefer, a drain in windows
// moves the highly available shoot live at once (Gardener's real admission
// takes the binding with migration.gardener.cloud/live-migrate: "true", and
// no move is refused), and the shoot that cannot move live waits for its
// window.
func TestLiveMigrationOnGardener(t *testing.T) {
	env := framework.Shared(t)
	if err := env.Gardener.RestartWithFeatureGates(t.Context(), env.ControlPlane, "LiveControlPlaneMigration=true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Gardener.RestartWithFeatureGates(context.Background(), env.ControlPlane); err != nil {
			t.Errorf("restarting gardener-apiserver without the gate: %v", err)
		}
	})
	l := migrationLandscape(t, "live", 20, "src", "dst")
	src, dst := l.seeds[0], l.seeds[1]
	start := time.Now().UTC().Truncate(time.Second)
	l.createOn(t, "ha", src, window(start.Add(10*time.Hour)), highlyAvailable)
	l.createOn(t, "plain", src, window(start.Add(10*time.Hour)))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)

	out := onGardener(t, "drain", src, "--in-maintenance-windows", "--deadline=20h", "--plan", "--live-migration=Prefer", "--wait=false")
	planned(t, out, l.namespace+"/ha", dst, "now", "live", "a live migration disrupts nobody")
	planned(t, out, l.namespace+"/plain", dst, start.Add(10*time.Hour).Format(time.RFC3339), "classic", "waits for its maintenance window")
	clk := clocktesting.NewFakeClock(start)
	reg := startClockedDescheduler(t, "graft-descheduler-live", clk, "config.interval=1m", "config.evictionRate=0", "config.liveMigration=Prefer")
	ha := l.migratedOff(t, "ha", src)
	if dest, _, _ := unstructured.NestedString(ha.Object, "spec", "seedName"); dest != dst || ha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate] != "true" {
		t.Errorf("the highly available shoot went to %s with live-migrate %q; want %s, live", dest, ha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate], dst)
	}
	waitForEventFrom(t, descheduler.Name, l.namespace, "plain", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	framework.Never(t, "the shoot that cannot move live to move before its window", 2*time.Second, func() bool {
		return g.movesOf(l.namespace+"/plain") > 0
	})
	if got := counterValue(t, reg, "graft_descheduler_live_migrations_total"); got != 1 {
		t.Errorf("graft_descheduler_live_migrations_total = %v, want 1", got)
	}
	if got := counterValue(t, reg, "graft_descheduler_live_migration_unavailable"); got != 0 {
		t.Errorf("graft_descheduler_live_migration_unavailable = %v with the gate on", got)
	}
	for _, result := range []string{descheduler.ResultRefused, descheduler.ResultError} {
		if got := labelledCounter(t, reg, "graft_descheduler_evictions_total", map[string]string{"result": result}); got != 0 {
			t.Errorf("evictions with result %s: %v, want none", result, got)
		}
	}
}

// failedReconcile reports, as gardenlet does once a tenant broke its
// credentials, that the shoot's last reconcile failed for good.
func failedReconcile(t *testing.T, l *landscape, name string) {
	t.Helper()
	shoot := l.shootOf(t, name)
	if err := unstructured.SetNestedMap(shoot.Object, map[string]any{"type": "Reconcile", "state": "Failed", "progress": int64(50),
		"description": "credentials invalid", "lastUpdateTime": time.Now().UTC().Format(time.RFC3339)}, "status", "lastOperation"); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).UpdateStatus(t.Context(), shoot, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("reporting shoot %s failed: %v", name, err)
	}
}

// TestFailedShootLeavesAtTheDeadlineOnGardener: a tenant breaks its own
// shoot's credentials, so its last operation fails. A drain in maintenance
// windows skips the shoot's move until the deadline (an EvictionSkipped
// Warning saying so) and migrates it once the deadline has passed; the plan
// shows the same.
func TestFailedShootLeavesAtTheDeadlineOnGardener(t *testing.T) {
	l := migrationLandscape(t, "failed", 20, "src", "dst")
	src, dst := l.seeds[0], l.seeds[1]
	start := time.Now().UTC().Truncate(time.Second)
	l.createOn(t, "broken", src)
	failedReconcile(t, l, "broken")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)

	out := onGardener(t, "drain", src, "--in-maintenance-windows", "--deadline=2h", "--plan", "--wait=false")
	deadline := printedDeadline(t, out, src)
	planned(t, out, l.namespace+"/broken", dst, deadline.Format(time.RFC3339), "classic", "its last operation failed: it moves once the shoot is healthy again, or at its deadline")

	clk := clocktesting.NewFakeClock(start)
	startClockedDescheduler(t, "graft-descheduler-failed", clk, "config.interval=1m", "config.evictionRate=0")
	e := waitForEventFrom(t, descheduler.Name, l.namespace, "broken", descheduler.EventEvictionSkipped, corev1.EventTypeWarning)
	if !strings.Contains(e.Message, "credentials invalid") || !strings.Contains(e.Message, "or at its deadline "+deadline.Format(time.RFC3339)) {
		t.Errorf("EvictionSkipped says %q", e.Message)
	}
	framework.Never(t, "the failed shoot to move before the deadline", 2*time.Second, func() bool { return g.movesOf(l.namespace+"/broken") > 0 })
	clk.SetTime(deadline.Add(time.Second))
	broken := l.migratedOff(t, "broken", src)
	if dest, _, _ := unstructured.NestedString(broken.Object, "spec", "seedName"); dest != dst {
		t.Errorf("the failed shoot went to %s, want %s", dest, dst)
	}
}
