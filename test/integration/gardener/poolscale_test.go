//go:build gardener

package gardener

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/pkg/capacity/poolscaler"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/test/framework"
)

// Gardener's ManagedSeedSet controller (in gardener-controller-manager)
// turns each replica into a Shoot that a gardenlet must reconcile into a
// real cluster before its ManagedSeed registers a seed: the test garden has
// no infrastructure for shoot clusters, so a replica's seed never comes.
// The test stands in for the controller and the new seed's gardenlet: it
// creates the seed <set>-<ordinal> a replica would register, and deletes the
// one Gardener's controller deletes first on scale-in (the lowest ordinal
// among the replicas holding no shoot, all being ready).

// createManagedSeedSet creates a ManagedSeedSet of replicas through
// gardener-apiserver's validation: its template registers seeds labelled
// landscapeLabel=l.project, its shoot template is the landscape's shoot.
func (l *landscape) createManagedSeedSet(t *testing.T, name string, replicas int) {
	t.Helper()
	seed, err := gardenerlandscape.Seed(gardenerlandscape.MakeSeed(name+"-0", region, 0).Obj(), l.project+"-dns")
	if err != nil {
		t.Fatal(err)
	}
	set, err := gardenerlandscape.ManagedSeedSet(name, replicas, map[string]string{landscapeLabel: l.project}, seed, l.shootObject(t, l.makeShoot(name)))
	if err != nil {
		t.Fatal(err)
	}
	createObject(t, garden.ManagedSeedSetResource, "garden", set)
}

// replicas is the set's spec.replicas.
func replicasOf(t *testing.T, name string) int64 {
	t.Helper()
	set, err := dynamicClient(t).Resource(garden.ManagedSeedSetResource).Namespace("garden").Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
	return n
}

// addReplicaSeed registers the seed of the set's replica ordinal, as its
// ManagedSeed would: labelled for the landscape, ready with allocatable
// shoots when ready.
func (l *landscape) addReplicaSeed(t *testing.T, set string, ordinal, allocatable int, ready bool) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", set, ordinal)
	obj, err := gardenerlandscape.Seed(gardenerlandscape.MakeSeed(name, region, 10+ordinal).Obj(), l.project+"-dns")
	if err != nil {
		t.Fatal(err)
	}
	obj.SetLabels(map[string]string{landscapeLabel: l.project})
	createObject(t, seeds, "", obj)
	l.seeds = append(l.seeds, name)
	if ready {
		markSeedReady(t, name, allocatable, nil)
	}
	return name
}

// startForecastingAnnotator runs graft-capacity-annotator as its chart
// deploys it with the forecast on and the values set, on clk.
func startForecastingAnnotator(t *testing.T, identity string, clk *clocktesting.FakeClock, set ...string) metrics.KubeRegistry {
	t.Helper()
	cfg, clients := chartDaemon[*configv1alpha1.CapacityAnnotatorConfiguration](t, "graft-capacity-annotator", identity,
		append([]string{"config.forecast.enabled=true", "config.forecast.period=200ms", "config.forecast.horizon=1s"}, set...)...)
	reg := metrics.NewKubeRegistry()
	a, err := capacity.New(cfg, clients, capacity.Options{Identity: identity, Registry: reg, ForecastClock: clk})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunUntilCleanup(t, identity, a.Run)
	return reg
}

// afterForecasts waits until the annotator has computed n more forecasts.
func afterForecasts(t *testing.T, reg metrics.KubeRegistry, n int) {
	t.Helper()
	const counter = "graft_capacity_forecasts_total"
	start := counterValue(t, reg, counter)
	waitFor(t, fmt.Sprintf("%d more forecasts", n), func() bool {
		return counterValue(t, reg, counter) >= start+float64(n)
	})
}

// waitFor waits, as the suite's waits do (framework.WaitFor), for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	framework.WaitFor(t, what, 60*time.Second, func(context.Context) (bool, error) { return cond(), nil })
}

// waitForSetEvent waits for an Event of reason on the ManagedSeedSet.
func waitForSetEvent(t *testing.T, set, reason string) corev1.Event {
	t.Helper()
	var found corev1.Event
	selector := fields.Set{"involvedObject.name": set, "involvedObject.kind": "ManagedSeedSet", "reason": reason}.AsSelector().String()
	waitFor(t, "Event "+reason+" on ManagedSeedSet "+set, func() bool {
		events, err := framework.Shared(t).KubeClient().CoreV1().Events("garden").List(t.Context(), metav1.ListOptions{FieldSelector: selector})
		if err != nil || len(events.Items) == 0 {
			return false
		}
		found = events.Items[len(events.Items)-1]
		return true
	})
	return found
}

func hasScaleInTaint(t *testing.T, seed string) bool {
	t.Helper()
	keys, _ := seedTaints(t, seed)
	return strings.Contains(keys, poolscaler.TaintScaleIn)
}

// TestPoolScalesOutOnGardener: shoots waiting only for capacity raise the
// pool's ManagedSeedSet by one; the next step waits for the new replica's
// seed to be ready, even past the cool-down; at maxReplicas the set stays
// and says so.
func TestPoolScalesOutOnGardener(t *testing.T) {
	l := newLandscape(t, "grow")
	set := l.project + "-set"
	l.createManagedSeedSet(t, set, 1)
	l.addReplicaSeed(t, set, 0, 3, true)

	startGraftScheduler(t, "graft-scheduler-pool", l.schedulerName())
	clk := clocktesting.NewFakeClock(time.Now())
	reg := startForecastingAnnotator(t, "graft-capacity-annotator-grow", clk,
		"config.pools[0].name=grow",
		`config.pools[0].seedSelector.matchLabels.graft\.dev/landscape=`+l.project,
		"config.pools[0].managedSeedSet.name="+set,
		"config.pools[0].managedSeedSet.maxReplicas=3",
		"config.pools[0].managedSeedSet.coolDown=10m")
	pool := map[string]string{"kind": "pool", "pool": "grow"}

	// Three shoots fill the one seed; the fourth waits for capacity alone.
	for i := range 4 {
		l.createGraftShoot(t, fmt.Sprintf("s%d", i))
	}
	waitFor(t, "one shoot waiting for capacity in the pool", func() bool {
		return gaugeValue(reg, "graft_capacity_pool_waiting_shoots", pool) == 1
	})
	ev := waitForSetEvent(t, set, poolscaler.ReasonScaledOut)
	t.Logf("ManagedSeedSet %s: %s", set, ev.Message)
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d after the first step, want 2", got)
	}

	// The replica asked for has no seed yet: no further step, though the
	// shoot still waits and the cool-down has passed.
	clk.Step(11 * time.Minute)
	afterForecasts(t, reg, 3)
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d while the new replica's seed is missing, want 2", got)
	}
	seed1 := l.addReplicaSeed(t, set, 1, 3, false)
	afterForecasts(t, reg, 3)
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d while the new seed is not ready, want 2", got)
	}
	markSeedReady(t, seed1, 3, nil)
	waitFor(t, "the waiting shoot placed on the new seed", func() bool {
		return gaugeValue(reg, "graft_capacity_pool_waiting_shoots", pool) == 0 &&
			gaugeValue(reg, "graft_capacity_pool_free_shoots", pool) == 2
	})
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d with room for every shoot, want 2", got)
	}

	// Three more: two fill the new seed, one waits; a third replica.
	for i := 4; i < 7; i++ {
		l.createGraftShoot(t, fmt.Sprintf("s%d", i))
	}
	waitFor(t, "replicas 3", func() bool { return replicasOf(t, set) == 3 })
	l.addReplicaSeed(t, set, 2, 1, true)
	// The waiting shoot takes the third seed's one slot; the pool is full at
	// max: the set stays at 3 and says so.
	ev = waitForSetEvent(t, set, poolscaler.ReasonScaleOutAtMax)
	t.Logf("ManagedSeedSet %s: %s", set, ev.Message)
	waitFor(t, "graft_capacity_pool_at_max 1", func() bool {
		return gaugeValue(reg, "graft_capacity_pool_at_max", map[string]string{"pool": "grow"}) == 1
	})
	clk.Step(time.Hour)
	afterForecasts(t, reg, 3)
	if got := replicasOf(t, set); got != 3 {
		t.Fatalf("replicas %d at maxReplicas 3", got)
	}

	// One more shoot waits at max.
	l.createGraftShoot(t, "s7")
	waitFor(t, "one shoot waiting for capacity at max", func() bool {
		return gaugeValue(reg, "graft_capacity_pool_waiting_shoots", pool) == 1
	})
	if got := replicasOf(t, set); got != 3 {
		t.Fatalf("replicas %d at maxReplicas 3", got)
	}

	// graftctl makes the same forecast with the pools the annotator
	// publishes on its Lease.
	want := "0 free, 1 waiting for capacity"
	var out string
	waitFor(t, "graftctl describe seed showing pool grow", func() bool {
		out = onGardener(t, "describe", "seed", set+"-2", "--scheduler-lease-name=graft-scheduler")
		return strings.Contains(out, "Pool grow:")
	})
	for _, w := range []string{want, "full now (within the horizon)", fmt.Sprintf("ManagedSeedSet garden/%s, 1 to 3 replicas", set)} {
		if !strings.Contains(out, w) {
			t.Errorf("graftctl describe seed %s-2 lacks %q:\n%s", set, w, out)
		}
	}
	wide := onGardener(t, "get", "seeds", set+"-0", set+"-2", "-o", "wide")
	if !strings.Contains(wide, "grow") || !strings.Contains(wide, "now (grow)") {
		t.Errorf("graftctl get seeds -o wide shows no pool grow full now:\n%s", wide)
	}
}

// TestPoolScalesInOnGardener: of three replicas, the empty one that
// Gardener deletes first is cordoned once the pool has been low long
// enough, the set shrinks by one once it still holds no shoot, and never
// below minReplicas, however empty the rest is.
func TestPoolScalesInOnGardener(t *testing.T) {
	l := migrationLandscape(t, "shrink", 4)
	set := l.project + "-set"
	l.createManagedSeedSet(t, set, 3)
	var replicas []string
	for i := range 3 {
		replicas = append(replicas, l.addReplicaSeed(t, set, i, 4, true))
	}
	l.createOn(t, "busy", replicas[1])

	startGraftScheduler(t, "graft-scheduler-shrink", l.schedulerName())
	clk := clocktesting.NewFakeClock(time.Now())
	reg := startForecastingAnnotator(t, "graft-capacity-annotator-shrink", clk,
		"config.pools[0].name=shrink",
		`config.pools[0].seedSelector.matchLabels.graft\.dev/landscape=`+l.project,
		"config.pools[0].managedSeedSet.name="+set,
		"config.pools[0].managedSeedSet.minReplicas=2",
		"config.pools[0].managedSeedSet.maxReplicas=5",
		"config.pools[0].managedSeedSet.coolDown=10m",
		"config.pools[0].managedSeedSet.scaleIn.enabled=true",
		"config.pools[0].managedSeedSet.scaleIn.after=5m")
	afterForecasts(t, reg, 2)
	if hasScaleInTaint(t, replicas[0]) {
		t.Fatal("a seed was cordoned before the pool had been low for scaleIn.after")
	}
	clk.Step(6 * time.Minute)
	ev := waitForSetEvent(t, set, poolscaler.ReasonCordonedToScale)
	t.Logf("ManagedSeedSet %s: %s", set, ev.Message)
	if !hasScaleInTaint(t, replicas[0]) || hasScaleInTaint(t, replicas[1]) || hasScaleInTaint(t, replicas[2]) {
		t.Fatalf("want only %s (empty, the lowest ordinal) cordoned", replicas[0])
	}
	afterForecasts(t, reg, 2)
	if got := replicasOf(t, set); got != 3 {
		t.Fatalf("replicas %d before the cordon settled, want 3", got)
	}
	clk.Step(2 * time.Minute)
	ev = waitForSetEvent(t, set, poolscaler.ReasonScaledIn)
	t.Logf("ManagedSeedSet %s: %s", set, ev.Message)
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d after scale-in, want 2", got)
	}
	// Gardener's controller deletes the empty replica.
	if err := dynamicClient(t).Resource(seeds).Delete(t.Context(), replicas[0], metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	// At minReplicas: the other empty seed stays, uncordoned.
	clk.Step(2 * time.Hour)
	afterForecasts(t, reg, 5)
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d at minReplicas 2", got)
	}
	if hasScaleInTaint(t, replicas[2]) {
		t.Fatalf("seed %s cordoned although the set is at minReplicas", replicas[2])
	}
}

// TestRecreatedShootsScaleNoPoolOnGardener: a tenant deletes and recreates
// its five shoots of a pool, twice. They exist and are young, but the five
// that existed when the window began are gone: the pool's net growth is the
// one genuinely new shoot, and the set stays. Genuine growth still scales
// it. (Before departures counted, the recreations read as six new shoots an
// hour, and the set grew at once.)
func TestRecreatedShootsScaleNoPoolOnGardener(t *testing.T) {
	l := newLandscape(t, "churn")
	set := l.project + "-set"
	l.createManagedSeedSet(t, set, 1)
	seed := l.addReplicaSeed(t, set, 0, 10, true)
	var names []string
	for i := range 5 {
		names = append(names, fmt.Sprintf("s%d", i))
		l.createOn(t, names[i], seed)
	}
	var newest time.Time
	for _, name := range names {
		if created := l.shootOf(t, name).GetCreationTimestamp().Time; created.After(newest) {
			newest = created
		}
	}
	// The window (one hour) begins a second after the newest of the five:
	// they were there when it began; whatever is created from the next
	// second on arrives within it.
	begins := newest.Add(time.Second)
	// The forecast reads graft-scheduler's published configuration.
	startGraftScheduler(t, "graft-scheduler-churn", l.schedulerName())
	clk := clocktesting.NewFakeClock(begins.Add(time.Hour))
	reg := startForecastingAnnotator(t, "graft-capacity-annotator-churn", clk,
		"config.forecast.window=1h", "config.forecast.horizon=2h",
		"config.pools[0].name=churn",
		`config.pools[0].seedSelector.matchLabels.graft\.dev/landscape=`+l.project,
		"config.pools[0].managedSeedSet.name="+set,
		"config.pools[0].managedSeedSet.maxReplicas=3",
		"config.pools[0].managedSeedSet.coolDown=10m")
	pool := map[string]string{"kind": "pool", "pool": "churn"}
	afterForecasts(t, reg, 2)
	if got := gaugeValue(reg, "graft_capacity_pool_arrivals_per_hour", pool); got != 0 {
		t.Fatalf("arrivals %v an hour before any change, want 0", got)
	}
	waitFor(t, "a creation within the window", func() bool { return time.Now().After(begins.Add(time.Second)) })

	c := creator(t)
	for round := range 2 {
		for _, name := range names {
			if err := c.DeleteShoot(t.Context(), l.namespace, name); err != nil {
				t.Fatalf("round %d: deleting shoot %s: %v", round, name, err)
			}
			l.createOn(t, name, seed)
		}
	}
	// One genuinely new shoot; once the forecast counts it, it has seen
	// every deletion and creation before it.
	l.createOn(t, "new", seed)
	waitFor(t, "the forecast counting the new shoot", func() bool {
		return gaugeValue(reg, "graft_capacity_pool_free_shoots", pool) == 4
	})
	afterForecasts(t, reg, 3)
	if got := gaugeValue(reg, "graft_capacity_pool_arrivals_per_hour", pool); got != 1 {
		t.Errorf("arrivals %v an hour after the recreations, want the one new shoot (1)", got)
	}
	if got := replicasOf(t, set); got != 1 {
		t.Fatalf("replicas %d after shoots were only recreated, want 1", got)
	}

	// Three more new shoots: four an hour fill the last free slot within
	// the horizon, and the set grows.
	for i := range 3 {
		l.createOn(t, fmt.Sprintf("new%d", i), seed)
	}
	ev := waitForSetEvent(t, set, poolscaler.ReasonScaledOut)
	t.Logf("ManagedSeedSet %s: %s", set, ev.Message)
	if got := replicasOf(t, set); got != 2 {
		t.Fatalf("replicas %d after genuine growth, want 2", got)
	}
}
