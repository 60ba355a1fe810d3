//go:build gardener

package gardener

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/maintenance"
	"github.com/graft-dev/graft/test/framework"
)

// startClockedDescheduler is startGraftDescheduler with the descheduler's
// clock in the test's hands.
func startClockedDescheduler(t *testing.T, identity string, clk *clocktesting.FakeClock, set ...string) metrics.KubeRegistry {
	t.Helper()
	reg, _, _ := runClockedDescheduler(t, identity, clk, set...)
	return reg
}

// runClockedDescheduler is startClockedDescheduler that also returns the
// configuration it runs with and a function that stops it (the Lease is
// released, for the next leader).
func runClockedDescheduler(t *testing.T, identity string, clk *clocktesting.FakeClock, set ...string) (metrics.KubeRegistry, *configv1alpha1.DeschedulerConfiguration, func()) {
	t.Helper()
	cfg, clients := chartDaemon[*configv1alpha1.DeschedulerConfiguration](t, "graft-descheduler", identity, append([]string{"config.strategy=SameRegion"}, set...)...)
	reg := metrics.NewKubeRegistry()
	d, err := descheduler.New(cfg, clients, descheduler.Options{Identity: identity, Registry: reg, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return reg, cfg, framework.RunUntilCleanup(t, identity, d.Run)
}

// liveRecordOf reads the live migration record graft-descheduler's leader
// keeps on its Lease; empty while there is none.
func liveRecordOf(t *testing.T, cfg *configv1alpha1.DeschedulerConfiguration) algorithm.LiveRecord {
	t.Helper()
	le := cfg.LeaderElection
	lease, err := framework.Shared(t).KubeClient().CoordinationV1().Leases(le.ResourceNamespace).Get(t.Context(), le.ResourceName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	value, ok := lease.Annotations[algorithm.LiveRecordAnnotation]
	if !ok {
		return algorithm.LiveRecord{} // none yet
	}
	rec, err := algorithm.DecodeLiveRecord(value)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// eventsSaying counts the Events of component about the shoot with that
// reason whose message contains text: one per process that emitted it.
func eventsSaying(t *testing.T, component, namespace, shoot, reason, text string) int {
	t.Helper()
	selector := fields.Set{"involvedObject.name": shoot, "reason": reason}.AsSelector().String()
	list, err := framework.Shared(t).KubeClient().CoreV1().Events(namespace).List(t.Context(), metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range list.Items {
		if e.Source.Component == component && strings.Contains(e.Message, text) {
			n++
		}
	}
	return n
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
// (liveMigration Prefer, no gardenlet known to run the live flow,
// gardener-apiserver's gate off) moves every control plane classically: the
// evening shoot in its window, the highly available one, whose window comes
// after the deadline, at the deadline, where it learns from one dry run of a
// binding that live migrations are refused and says so once; nothing
// before.
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
	waitForEventFrom(t, descheduler.Name, l.namespace, "evening", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	// No gardenlet is known to run the live flow: the highly available
	// shoot waits for the deadline like any other.
	e := waitForEventFrom(t, descheduler.Name, l.namespace, "ha", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	if !strings.Contains(e.Message, "not timed as live: gardenlet") {
		t.Errorf("the highly available shoot's EvictionDeferred says %q", e.Message)
	}
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
	// Its move is asked to be live; the dry run is refused for the gate, and
	// the seed is looked at again (the descheduler's clock) to move it
	// classically.
	e = waitForEventFrom(t, descheduler.Name, l.namespace, "ha", descheduler.EventLiveMigrationUnavailable, corev1.EventTypeWarning)
	if !strings.Contains(e.Message, "LiveControlPlaneMigration") {
		t.Errorf("LiveMigrationUnavailable says %q", e.Message)
	}
	moved := func() bool { on, done := l.seedNameOf(t, "ha"); return on != src && done }
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 2*time.Minute, true, stepping(clk, moved)); err != nil {
		t.Fatalf("the highly available shoot did not move at the deadline: %v", err)
	}
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

// declaredLive is the gardenlet version the live test declares as running
// GEP-39's live flow; no released Gardener does.
const declaredLive = "v1.160.0"

// reportsGardenlet makes the seed report gardenlet version v, as a
// gardenlet of that version would.
func reportsGardenlet(t *testing.T, seed, v string) {
	t.Helper()
	client := dynamicClient(t).Resource(seeds)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := client.Get(t.Context(), seed, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(obj.Object, v, "status", "gardener", "version"); err != nil {
			return err
		}
		_, err = client.UpdateStatus(t.Context(), obj, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("seed %s reporting gardenlet %s: %v", seed, v, err)
	}
}

// TestLiveMigrationOnGardener: with gardener-apiserver's feature gate
// LiveControlPlaneMigration on and liveMigration Prefer, a move is timed as
// live only with evidence that both gardenlets run the live flow.
//   - Seeds src and dst run gardenlet v1.150.0, which migrates classically:
//     the highly available shoot there waits for its window (the plan and
//     the EvictionDeferred Event say why it is not live), and then moves
//     with the live intent that Gardener's admission takes.
//   - Seeds lsrc, ldst and lother report the version the operator
//     declares: the highly available shoot on lsrc moves at once, live. The
//     gardenlet stand-in reports the classic Restore: a LiveMigrationFellBack
//     Event and metric, and the shoot on lother, drained next, waits for
//     its window.
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
	l := migrationLandscape(t, "live", 20, "src", "dst", "lsrc", "ldst", "lother")
	src, dst, lsrc, ldst, lother := l.seeds[0], l.seeds[1], l.seeds[2], l.seeds[3], l.seeds[4]
	for _, seed := range []string{lsrc, ldst, lother} {
		reportsGardenlet(t, seed, declaredLive)
	}
	start := time.Now().UTC().Truncate(time.Second)
	evening := window(start.Add(10 * time.Hour))
	l.createOn(t, "ha", src, evening, highlyAvailable)
	l.createOn(t, "plain", src, evening)
	l.createOn(t, "lha", lsrc, evening, highlyAvailable)
	l.createOn(t, "lha2", lother, evening, highlyAvailable)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)

	// The plans: no evidence for v1.150.0, the declaration for lsrc's.
	out := onGardener(t, "drain", src, "--in-maintenance-windows", "--deadline=20h", "--plan", "--live-migration=Prefer", "--wait=false")
	t.Logf("plan of %s:\n%s", src, out)
	due := start.Add(10 * time.Hour).Format(time.RFC3339)
	planned(t, out, l.namespace+"/ha", dst, due, "classic", "waits for its maintenance window")
	for _, want := range []string{"not live: gardenlet " + controlplane.GardenerVersion + " is not known to run the live flow", "not live: its control plane is not highly available",
		"0 move(s) live; 1 more would go live without: gardenlet " + controlplane.GardenerVersion + " is not known"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan of %s does not say %q", src, want)
		}
	}
	if strings.Contains(out, "disrupts nobody") {
		t.Errorf("the plan of %s says a classic migration disrupts nobody", src)
	}
	out = onGardener(t, "drain", lsrc, "--in-maintenance-windows", "--deadline=20h", "--plan", "--live-migration=Prefer", "--live-gardenlet-versions="+declaredLive, "--wait=false")
	t.Logf("plan of %s:\n%s", lsrc, out)
	planned(t, out, l.namespace+"/lha", ldst, "now", "live", maintenance.LiveWhy)
	if !strings.Contains(out, "1 move(s) live\n") {
		t.Errorf("the plan of %s does not count its live move", lsrc)
	}

	clk := clocktesting.NewFakeClock(start)
	// A Lease of its own: the record on it must not reach other tests.
	live := []string{"config.interval=1m", "config.evictionRate=0", "config.liveMigration=Prefer", "config.leaderElection.resourceName=graft-descheduler-live"}
	reg, cfg, stop := runClockedDescheduler(t, "graft-descheduler-live", clk, append(live, "config.liveMigrationGardenletVersions[0]="+declaredLive)...)

	// (2) Declared: at once, live.
	lha := l.migratedOff(t, "lha", lsrc)
	if dest, _, _ := unstructured.NestedString(lha.Object, "spec", "seedName"); dest != ldst || lha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate] != "true" {
		t.Errorf("the declared shoot went to %s with live-migrate %q; want %s, live", dest, lha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate], ldst)
	}
	// (3) The stand-in ran it classically.
	e := waitForEventFrom(t, descheduler.Name, l.namespace, "lha", descheduler.EventLiveMigrationFellBack, corev1.EventTypeWarning)
	if !strings.Contains(e.Message, "gardenlet ran a classic migration (last operation Restore Succeeded)") {
		t.Errorf("LiveMigrationFellBack says %q", e.Message)
	}
	waitForCounter(t, reg, "graft_descheduler_live_migration_fallbacks_total", 1)
	onGardener(t, "drain", lother, "--in-maintenance-windows", "--deadline=20h", "--wait=false")
	e = waitForEventFrom(t, descheduler.Name, l.namespace, "lha2", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	fellBack := "not timed as live: a live migration from gardenlet " + declaredLive + " to " + declaredLive + " fell back to a classic one"
	if !strings.Contains(e.Message, fellBack) {
		t.Errorf("the next shoot's EvictionDeferred says %q", e.Message)
	}

	// The fallback outlives the leader: the record on the Lease keeps it,
	// and the next leader with the same declaration still defers lha2 (its
	// own EvictionDeferred, the second saying so).
	var rec algorithm.LiveRecord
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		rec = liveRecordOf(t, cfg)
		return slices.Contains(rec.FellBack, algorithm.LivePair(declaredLive, declaredLive)) && len(rec.Pending) == 0, nil
	}); err != nil {
		t.Fatalf("the live migration record on the Lease is %+v; want the fallback %s -> %s and nothing pending", rec, declaredLive, declaredLive)
	}
	// The plan reads the record as the descheduler does.
	out = onGardener(t, "drain", lother, "--in-maintenance-windows", "--deadline=20h", "--plan", "--live-migration=Prefer", "--live-gardenlet-versions="+declaredLive,
		"--descheduler-lease-namespace="+cfg.LeaderElection.ResourceNamespace, "--descheduler-lease-name="+cfg.LeaderElection.ResourceName, "--wait=false")
	t.Logf("plan of %s after the fallback:\n%s", lother, out)
	dest := lsrc
	if !strings.Contains(out, " "+lsrc+" ") {
		dest = ldst
	}
	planned(t, out, l.namespace+"/lha2", dest, due, "classic", "waits for its maintenance window")
	if !strings.Contains(out, "not live: a live migration from gardenlet "+declaredLive+" to "+declaredLive+" fell back") {
		t.Errorf("the plan of %s does not give the fallback as lha2's blocker", lother)
	}
	stop()
	_, _, stop = runClockedDescheduler(t, "graft-descheduler-live-2", clk, append(live, "config.liveMigrationGardenletVersions[0]="+declaredLive)...)
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return eventsSaying(t, descheduler.Name, l.namespace, "lha2", descheduler.EventEvictionDeferred, fellBack) >= 2, nil
	}); err != nil {
		t.Fatalf("the next leader did not defer lha2 for the recorded fallback: %v", err)
	}
	if n := g.movesOf(l.namespace + "/lha2"); n != 0 {
		t.Fatalf("lha2 moved %d time(s) after the fallback, before its window", n)
	}
	// A changed declaration forgets the fallback: lha2 moves at once, live.
	stop()
	_, _, stop = runClockedDescheduler(t, "graft-descheduler-live-3", clk, append(live, "config.liveMigrationGardenletVersions[0]="+declaredLive, "config.liveMigrationGardenletVersions[1]=v1.161.0")...)
	defer stop()
	lha2 := l.migratedOff(t, "lha2", lother)
	if lha2.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate] != "true" {
		t.Errorf("lha2 moved without the live intent once the declaration changed")
	}

	// (1) No evidence: the window.
	e = waitForEventFrom(t, descheduler.Name, l.namespace, "ha", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	if !strings.Contains(e.Message, "not timed as live: gardenlet "+controlplane.GardenerVersion+" is not known to run the live flow") {
		t.Errorf("the highly available shoot's EvictionDeferred says %q", e.Message)
	}
	waitForEventFrom(t, descheduler.Name, l.namespace, "plain", descheduler.EventEvictionDeferred, corev1.EventTypeNormal)
	framework.Never(t, "a shoot without live evidence to move before its window", 2*time.Second, func() bool {
		return g.movesOf(l.namespace+"/ha")+g.movesOf(l.namespace+"/plain") > 0
	})
	clk.SetTime(start.Add(10*time.Hour + time.Minute))
	// One move of the project at a time: the descheduler looks at a seed
	// held for it again a second (its clock's) after the move finished.
	settled := func() bool {
		for _, s := range []struct{ name, from string }{{"ha", src}, {"plain", src}, {"lha2", lother}} {
			if on, done := l.seedNameOf(t, s.name); on == s.from || !done {
				return false
			}
		}
		return true
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 2*time.Minute, true, stepping(clk, settled)); err != nil {
		t.Fatalf("the shoots without live evidence did not move in their window: %v", err)
	}
	ha := l.migratedOff(t, "ha", src)
	if dest, _, _ := unstructured.NestedString(ha.Object, "spec", "seedName"); dest != dst || ha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate] != "true" {
		t.Errorf("the highly available shoot went to %s with live-migrate %q; want %s with the live intent", dest, ha.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate], dst)
	}
	l.migratedOff(t, "plain", src)
	l.migratedOff(t, "lha2", lother)
	if got := counterValue(t, reg, "graft_descheduler_live_migration_unavailable"); got != 0 {
		t.Errorf("graft_descheduler_live_migration_unavailable = %v with the gate on", got)
	}
	for _, result := range []string{descheduler.ResultRefused, descheduler.ResultError} {
		if got := labelledCounter(t, reg, "graft_descheduler_evictions_total", map[string]string{"result": result}); got != 0 {
			t.Errorf("evictions with result %s: %v, want none", result, got)
		}
	}
}

// waitForCounter waits up to a minute for the metric to reach want.
func waitForCounter(t *testing.T, reg metrics.KubeRegistry, name string, want float64) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return counterValue(t, reg, name) >= want, nil
	})
	if err != nil {
		t.Fatalf("%s = %v, want %v", name, counterValue(t, reg, name), want)
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
