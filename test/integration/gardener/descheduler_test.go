//go:build gardener

package gardener

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/test/framework"
)

// startGraftDescheduler runs graft-descheduler in the test process as its
// chart deploys it with config.api core.gardener.cloud and the values set
// (see chartDaemon). It returns the descheduler's metrics registry and a
// function that stops it (it stops with the test otherwise).
func startGraftDescheduler(t *testing.T, identity string, set ...string) (metrics.KubeRegistry, func()) {
	t.Helper()
	cfg, clients := chartDaemon[*configv1alpha1.DeschedulerConfiguration](t, "graft-descheduler", identity, append([]string{"config.strategy=SameRegion"}, set...)...)
	if cfg.API != configv1alpha1.APIGardener {
		t.Fatalf("the chart rendered api %q", cfg.API)
	}
	reg := metrics.NewKubeRegistry()
	d, err := descheduler.New(cfg, clients, descheduler.Options{Identity: identity, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	return reg, framework.RunUntilCleanup(t, identity, d.Run)
}

// createOn creates a shoot that selects the landscape's seeds (unless edits
// give it a selector), edited by edits, binds it to seed and reports its
// control plane running there.
func (l *landscape) createOn(t *testing.T, name, seed string, edits ...func(*unstructured.Unstructured)) {
	t.Helper()
	obj := l.shootObject(t, l.makeShoot(name))
	if err := unstructured.SetNestedStringMap(obj.Object, map[string]string{landscapeLabel: l.project}, "spec", "seedSelector", "matchLabels"); err != nil {
		t.Fatal(err)
	}
	for _, edit := range edits {
		edit(obj)
	}
	var created *unstructured.Unstructured
	err := admitted(t, func(ctx context.Context) (err error) {
		created, err = dynamicClient(t).Resource(shoots).Namespace(l.namespace).Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating shoot %s: %v", name, err)
	}
	runsOn(t, bind(t, l, created, seed), seed)
}

// migrationLandscape is a landscape whose seeds Gardener migrates control
// planes between (backup, one internal and one default domain), ready with
// room for allocatable shoots each, labelled for the landscape's shoots,
// with tolerations of key "maintenance" allowed in its project.
func migrationLandscape(t *testing.T, prefix string, allocatable int, names ...string) *landscape {
	t.Helper()
	var seeds []landscapeSeed
	for _, name := range names {
		seeds = append(seeds, landscapeSeed{name: name, with: migratable})
	}
	l := newLandscapeWith(t, prefix, seeds...)
	for _, seed := range l.seeds {
		markSeedReady(t, seed, allocatable, nil)
	}
	l.labelSeeds(t)
	allow := []byte(`{"spec":{"tolerations":{"whitelist":[{"key":"maintenance"}]}}}`)
	if _, err := dynamicClient(t).Resource(projects).Patch(t.Context(), l.project, types.MergePatchType, allow, metav1.PatchOptions{}); err != nil {
		t.Fatalf("allowing the toleration in project %s: %v", l.project, err)
	}
	return l
}

func tolerating(t *testing.T) func(*unstructured.Unstructured) {
	return func(obj *unstructured.Unstructured) {
		if err := unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"key": "maintenance"}}, "spec", "tolerations"); err != nil {
			t.Fatal(err)
		}
	}
}

func limitedTo(seconds int) func(*unstructured.Unstructured) {
	return func(obj *unstructured.Unstructured) {
		obj.SetAnnotations(map[string]string{corev1alpha1.AnnotationTolerationSeconds: fmt.Sprintf(`[{"key":"maintenance","tolerationSeconds":%d}]`, seconds)})
	}
}

// shootOf reads a shoot of the landscape.
func (l *landscape) shootOf(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	s, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// migratedOff waits up to two minutes for the shoot's control plane to run
// on another seed than from (status.seedName, as the gardenlet stand-in
// reports it) and returns the shoot.
func (l *landscape) migratedOff(t *testing.T, name, from string) *unstructured.Unstructured {
	t.Helper()
	return l.migratedOffWithin(t, name, from, 2*time.Minute)
}

// migratedOffWithin is migratedOff, waiting up to timeout.
func (l *landscape) migratedOffWithin(t *testing.T, name, from string, timeout time.Duration) *unstructured.Unstructured {
	t.Helper()
	var last *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		s, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = s
		spec, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		status, _, _ := unstructured.NestedString(s.Object, "status", "seedName")
		return spec != from && status == spec, nil
	})
	if err != nil {
		t.Fatalf("shoot %s not migrated off seed %s within %s: %v; last seen %v %v", name, from, timeout, err, last.Object["spec"], last.Object["status"])
	}
	return last
}

// evictionsOf reads the shoot's eviction record (graft.dev/evictions).
func evictionsOf(t *testing.T, s *unstructured.Unstructured) []helper.Eviction {
	t.Helper()
	shoot := &corev1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Annotations: s.GetAnnotations()}}
	return helper.Evictions(shoot)
}

// noExecuteSince is when the seed's NoExecute taint with key was added, as
// its graft.dev/taints annotation records it (graftctl, or the descheduler's
// stamp).
func noExecuteSince(t *testing.T, seed, key string) time.Time {
	t.Helper()
	var since time.Time
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := dynamicClient(t).Resource(seeds).Get(ctx, seed, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		var taints []corev1alpha1.SeedTaint
		if err := json.Unmarshal([]byte(s.GetAnnotations()[corev1alpha1.AnnotationTaints]), &taints); err != nil {
			return false, nil
		}
		for _, taint := range taints {
			if taint.Key == key && taint.Effect == corev1alpha1.TaintEffectNoExecute && taint.TimeAdded != nil {
				since = taint.TimeAdded.Time
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("seed %s records no timeAdded of its NoExecute taint %s: %v", seed, key, err)
	}
	return since
}

// TestDeschedulerMigratesOnGardener: with api core.gardener.cloud,
// graft-descheduler answers a NoExecute taint on a seed by migrating the
// control planes of exactly the shoots that do not tolerate it, each once,
// through shoots/binding to seeds Gardener accepts, never more in flight than
// maxMigrationsInFlight (2) in all and maxMigrationsInFlightPerSeed (1) to
// one seed, checked on every change of every shoot by a gardenlet stand-in
// that finishes each migration after two seconds. A shoot that tolerates the
// taint stays; one whose tenant limited its toleration to 15 s through
// graft.dev/toleration-seconds moves when that ran out, counted from the
// taint's timeAdded across a restart of the descheduler in between; one
// whose tenant annotation names a toleration it does not have moves at once.
func TestDeschedulerMigratesOnGardener(t *testing.T) {
	l := migrationLandscape(t, "evacuate", 20, "src", "dst1", "dst2")
	src := l.seeds[0]
	movers := []string{"m1", "m2", "m3", "m4", "m5", "m6"}
	for _, name := range movers {
		l.createOn(t, name, src)
	}
	l.createOn(t, "tolerates", src, tolerating(t))
	l.createOn(t, "limited", src, tolerating(t), limitedTo(15))
	l.createOn(t, "widening", src, limitedTo(99999))
	// stuck selects src alone: no other seed may take it.
	l.createOn(t, "stuck", src, func(obj *unstructured.Unstructured) {
		if err := unstructured.SetNestedStringMap(obj.Object, map[string]string{"name.seed.gardener.cloud/" + src: "true"}, "spec", "seedSelector", "matchLabels"); err != nil {
			t.Fatal(err)
		}
	})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(2 * time.Second)
	g.start(t, ctx)
	set := []string{"config.interval=2s", "config.evictionRate=0", "config.maxMigrationsInFlight=2", "config.maxMigrationsInFlightPerSeed=1"}
	_, stop := startGraftDescheduler(t, "graft-descheduler-evacuate-1", set...)

	if out := onGardener(t, "taint", "seed", src, "maintenance:NoExecute"); out != "seed/"+src+" tainted\n" {
		t.Fatalf("taint printed %q", out)
	}
	since := noExecuteSince(t, src, "maintenance")
	for _, name := range append(movers, "widening") {
		l.migratedOff(t, name, src)
	}
	// The descheduler stops and another starts: the limited toleration
	// still counts from the taint's timeAdded.
	stop()
	restarted := time.Now()
	startGraftDescheduler(t, "graft-descheduler-evacuate-2", set...)
	limited := l.migratedOff(t, "limited", src)

	for _, name := range append(movers, "widening", "limited") {
		s := l.shootOf(t, name)
		key := l.namespace + "/" + name
		dest, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		if dest != l.seeds[1] && dest != l.seeds[2] {
			t.Errorf("shoot %s migrated to %s, not to a seed of the landscape", name, dest)
		}
		if n := g.movesOf(key); n != 1 {
			t.Errorf("shoot %s was moved %d times, want once", name, n)
		}
		if from := s.GetAnnotations()[corev1alpha1.AnnotationDescheduledFrom]; from != src {
			t.Errorf("shoot %s records it was descheduled from %q, want %s", name, from, src)
		}
		if records := evictionsOf(t, s); len(records) != 1 || records[0].Seed != src {
			t.Errorf("shoot %s has eviction records %+v, want one from %s", name, records, src)
		} else {
			// The migration records the placement on the destination, so that a
			// descheduler starting later counts the stay from the migration.
			typed := &corev1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Annotations: s.GetAnnotations()}}
			if at, ok := helper.PlacedOn(typed, dest); !ok || at.Before(records[0].At.Truncate(time.Second)) {
				t.Errorf("shoot %s: graft.dev/placed-on %q, want %s at or after its eviction at %v",
					name, s.GetAnnotations()[corev1alpha1.AnnotationPlacedOn], dest, records[0].At)
			}
		}
		if !boundBy(s, descheduler.Name) {
			t.Errorf("shoot %s was not bound through shoots/binding by graft-descheduler", name)
		}
		e := waitForEventFrom(t, descheduler.Name, l.namespace, name, descheduler.EventDescheduled, corev1.EventTypeNormal)
		if e.InvolvedObject.APIVersion != "core.gardener.cloud/v1beta1" || !strings.Contains(e.Message, "to seed "+dest) {
			t.Errorf("shoot %s: Descheduled Event on %s saying %q", name, e.InvolvedObject.APIVersion, e.Message)
		}
	}
	// graftctl describe says why a shoot moved, and why one stays.
	if out := onGardener(t, "describe", "shoot", "-n", l.namespace, "m1"); !strings.Contains(out, "Descheduled From:") ||
		!strings.Contains(out, src) || !strings.Contains(out, "Migrating the control plane from seed "+src) {
		t.Errorf("describe shoot m1 does not say it migrated from %s:\n%s", src, out)
	}
	skipped := waitForEventFrom(t, descheduler.Name, l.namespace, "stuck", descheduler.EventEvictionSkipped, corev1.EventTypeWarning)
	if !strings.Contains(skipped.Message, "no other seed fits") {
		t.Errorf("EvictionSkipped of the shoot no other seed may take: %q", skipped.Message)
	}
	if out := onGardener(t, "describe", "shoot", "-n", l.namespace, "stuck"); !strings.Contains(out, "EvictionSkipped") {
		t.Errorf("describe shoot stuck does not show why it stays:\n%s", out)
	}
	if seed, _, _ := unstructured.NestedString(l.shootOf(t, "stuck").Object, "spec", "seedName"); seed != src {
		t.Errorf("the shoot no other seed may take moved to %s", seed)
	}
	tolerates := l.shootOf(t, "tolerates")
	if seed, _, _ := unstructured.NestedString(tolerates.Object, "spec", "seedName"); seed != src || g.movesOf(l.namespace+"/tolerates") != 0 {
		t.Errorf("the shoot tolerating the taint moved to %s", seed)
	}
	if _, marked := tolerates.GetAnnotations()[corev1alpha1.AnnotationDescheduledFrom]; marked {
		t.Errorf("the shoot tolerating the taint is marked descheduled: %v", tolerates.GetAnnotations())
	}

	at := evictionsOf(t, limited)[0].At
	t.Logf("NoExecute taint added at %s, descheduler restarted %s later; limited shoot moved %s after the taint", since.Format(time.RFC3339), restarted.Sub(since), at.Sub(since))
	if at.Before(since.Add(15 * time.Second).Truncate(time.Second)) {
		t.Errorf("the shoot limited to 15 s moved %s after the taint was added", at.Sub(since))
	}
	if !at.Before(restarted.Add(15 * time.Second)) {
		t.Errorf("the limited shoot moved %s after the restart: its toleration counted from the restart, not from the taint", at.Sub(restarted))
	}
	if most := g.mostInFlight(); most > 2 {
		t.Errorf("%d migrations were in flight at once, more than maxMigrationsInFlight 2", most)
	}
	if most := g.mostInFlightTo(); most > 1 {
		t.Errorf("%d migrations were in flight to one seed at once, more than maxMigrationsInFlightPerSeed 1", most)
	}
}

// TestDeschedulerMovesOnlyTheExcessOnGardener: with OverCapacity on, a seed
// holding four shoots but allowing two has exactly two control planes
// migrated, and none more in the passes that follow. Moves off an over-full
// seed can wait: the shoots' maintenance windows are open now.
func TestDeschedulerMovesOnlyTheExcessOnGardener(t *testing.T) {
	l := migrationLandscape(t, "excess", 20, "full", "room")
	full := l.seeds[0]
	names := []string{"e1", "e2", "e3", "e4"}
	for _, name := range names {
		l.createOn(t, name, full, window(time.Now().Add(-10*time.Minute)))
	}
	// Gardener binds no shoot beyond a seed's allocatable: the seed shrinks
	// under its shoots, as when gardenlet reports less room.
	markSeedReady(t, full, 2, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)
	reg, _ := startGraftDescheduler(t, "graft-descheduler-excess", "config.interval=1s", "config.evictionRate=0",
		"config.plugins[0].name=NoExecuteTaints", "config.plugins[0].enabled=true", "config.plugins[1].name=OverCapacity", "config.plugins[1].enabled=true")

	moved := func() (n int) {
		for _, name := range names {
			if g.movesOf(l.namespace+"/"+name) > 0 {
				n++
			}
		}
		return n
	}
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		return moved() >= 2, nil
	})
	if err != nil {
		t.Fatalf("%d shoots moved off the over-full seed, want 2", moved())
	}
	for _, name := range names {
		if g.movesOf(l.namespace+"/"+name) > 0 {
			l.migratedOff(t, name, full)
		}
	}
	// Three more passes over every seed see the seed at its allocatable.
	passes := func() uint64 {
		h, err := testutil.GetHistogramVecFromGatherer(reg, "graft_descheduler_pass_duration_seconds", nil)
		if err != nil {
			return 0
		}
		return h.GetAggregatedSampleCount()
	}
	after := passes()
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return passes() >= after+3, nil
	})
	if err != nil {
		t.Fatalf("the descheduler made no further passes: %v", err)
	}
	if n := moved(); n != 2 {
		t.Errorf("%d shoots moved off the seed allowing 2 of 4, want exactly the excess, 2", n)
	}
}

// startGraftCapacityAnnotator runs graft-capacity-annotator in the test
// process as its chart deploys it with config.api core.gardener.cloud and the
// values set (see chartDaemon); it returns its metrics registry.
func startGraftCapacityAnnotator(t *testing.T, identity string, set ...string) metrics.KubeRegistry {
	t.Helper()
	cfg, clients := chartDaemon[*configv1alpha1.CapacityAnnotatorConfiguration](t, "graft-capacity-annotator", identity, set...)
	reg := metrics.NewKubeRegistry()
	a, err := capacity.New(cfg, clients, capacity.Options{Identity: identity, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunUntilCleanup(t, identity, a.Run)
	return reg
}

// setGardenletReady sets the seed's GardenletReady condition, as Gardener's
// seed lifecycle controller does when gardenlet stops (or resumes)
// reporting.
func setGardenletReady(t *testing.T, seed string, ready bool) {
	t.Helper()
	client := dynamicClient(t).Resource(seeds)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := client.Get(t.Context(), seed, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conditions, _, _ := unstructured.NestedSlice(s.Object, "status", "conditions")
		now := time.Now().UTC().Format(time.RFC3339)
		for _, c := range conditions {
			if m, ok := c.(map[string]any); ok && m["type"] == "GardenletReady" {
				m["status"], m["reason"], m["lastTransitionTime"], m["lastUpdateTime"] = "False", "GardenletDown", now, now
				if ready {
					m["status"], m["reason"] = "True", "GardenletReady"
				}
			}
		}
		if err := unstructured.SetNestedSlice(s.Object, conditions, "status", "conditions"); err != nil {
			return err
		}
		_, err = client.UpdateStatus(t.Context(), s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("setting GardenletReady of seed %s: %v", seed, err)
	}
}

// notReadyTaints reads the effects of the not-ready taints the seed holds
// as graft reads a Gardener Seed.
func notReadyTaints(t *testing.T, seed string) []corev1alpha1.TaintEffect {
	t.Helper()
	client, err := garden.New(garden.Gardener, nil, dynamicClient(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.GetSeed(t.Context(), seed)
	if err != nil {
		t.Fatal(err)
	}
	var effects []corev1alpha1.TaintEffect
	for _, taint := range s.Spec.Taints {
		if taint.Key == corev1alpha1.SeedTaintNotReady {
			effects = append(effects, taint.Effect)
		}
	}
	return effects
}

// TestAnnotatorEvacuatesAFailingSeedOnGardener: with api core.gardener.cloud
// and health taints on, graft-capacity-annotator taints a seed whose
// GardenletReady condition turned False NoSchedule, then NoExecute after
// unhealthyEvictionDelay (both in spec.taints and the graft.dev/taints
// annotation, Events on the Seed), and graft-descheduler migrates its
// control planes to the healthy seed: paced, automatic evacuation. When the
// seed is ready again the taints go. The annotator writes no status on
// Gardener and publishes the usage it counts.
func TestAnnotatorEvacuatesAFailingSeedOnGardener(t *testing.T) {
	l := migrationLandscape(t, "failing", 20, "bad", "good")
	bad, good := l.seeds[0], l.seeds[1]
	names := []string{"f1", "f2", "f3"}
	for _, name := range names {
		l.createOn(t, name, bad)
	}
	g := runGardenletStandIn(t, time.Second)
	reg := startGraftCapacityAnnotator(t, "graft-capacity-annotator-failing", "config.healthTaints.enabled=true", "config.healthTaints.unhealthyEvictionDelay=3s")
	startGraftDescheduler(t, "graft-descheduler-failing", "config.interval=2s", "config.evictionRate=0", "config.maxMigrationsInFlight=2")

	usage := func(seed string) float64 {
		return gaugeValue(reg, "graft_seed_usage", map[string]string{"seed": seed, "resource": "shoots"})
	}
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return usage(bad) == 3, nil
	})
	if err != nil {
		t.Fatalf("graft_seed_usage of seed %s is %v, want 3", bad, usage(bad))
	}

	setGardenletReady(t, bad, false)
	for _, name := range names {
		l.migratedOff(t, name, bad)
	}
	if effects := notReadyTaints(t, bad); len(effects) != 2 {
		t.Errorf("the failing seed has not-ready taints %v, want NoSchedule and NoExecute", effects)
	}
	for _, reason := range []string{capacity.ReasonNotReady, capacity.ReasonNotReadyEviction} {
		e := waitForSeedEvent(t, bad, reason)
		if e.InvolvedObject.APIVersion != "core.gardener.cloud/v1beta1" {
			t.Errorf("Event %s refers to %s", reason, e.InvolvedObject.APIVersion)
		}
	}
	for _, name := range names {
		s := l.shootOf(t, name)
		if seed, _, _ := unstructured.NestedString(s.Object, "spec", "seedName"); seed != good || g.movesOf(l.namespace+"/"+name) != 1 {
			t.Errorf("shoot %s is on %s after %d moves, want on %s after one", name, seed, g.movesOf(l.namespace+"/"+name), good)
		}
	}
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return usage(good) == 3 && usage(bad) == 0, nil
	})
	if err != nil {
		t.Errorf("graft_seed_usage: %v on %s, %v on %s; want 3 and 0", usage(good), good, usage(bad), bad)
	}

	setGardenletReady(t, bad, true)
	waitForSeedEvent(t, bad, capacity.ReasonReady)
	if effects := notReadyTaints(t, bad); len(effects) != 0 {
		t.Errorf("the seed ready again still has not-ready taints %v", effects)
	}
	s, err := dynamicClient(t).Resource(seeds).Get(t.Context(), bad, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if wroteThrough(s, capacity.FieldManager, "status") {
		t.Errorf("graft-capacity-annotator wrote the status of a Gardener seed")
	}
	if taints, _, _ := unstructured.NestedSlice(s.Object, "spec", "taints"); len(taints) != 0 {
		t.Errorf("spec.taints of the seed ready again: %v", taints)
	}
}

// waitForSeedEvent waits up to a minute for an Event of
// graft-capacity-annotator with the reason about the seed.
func waitForSeedEvent(t *testing.T, seed, reason string) corev1.Event {
	t.Helper()
	var found corev1.Event
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := framework.Shared(t).KubeClient().CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=" + seed + ",reason=" + reason})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Source.Component == capacity.Name {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s Event about seed %s: %v", reason, seed, err)
	}
	return found
}

// gaugeValue is the value of the gauge with the labels in reg, -1 when reg
// has none.
func gaugeValue(reg metrics.KubeRegistry, name string, labels map[string]string) float64 {
	families, err := reg.Gather()
	if err != nil {
		return -1
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue metric
				}
			}
			return m.GetGauge().GetValue()
		}
	}
	return -1
}
