//go:build gardener

package gardener

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/metrics"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/framework"
)

// schedulerName is the schedulerName the shoots for the landscape's
// graft-scheduler carry; Gardener defaults every other shoot's to
// default-scheduler, which is Gardener's own scheduler's. Each landscape has
// its own, so that a scheduler of a later run in the same garden (go test
// -count) leaves the shoots of an earlier one alone: those would take the
// seeds the later run expects to be free.
func (l *landscape) schedulerName() string { return "graft-scheduler-" + l.project }

// TestGraftSchedulerOnGardener runs graft-scheduler with api
// core.gardener.cloud against gardener-apiserver, as the graft-scheduler
// chart configures it and with the chart's permissions. Of two ready seeds, one is
// tainted (a Gardener taint, which keeps every shoot that does not tolerate
// it away) and the other holds one shoot. The shoot naming graft-scheduler is
// bound to the free seed through shoots/binding; a shoot naming Gardener's
// scheduler is left alone; a second shoot naming graft-scheduler fits
// nowhere and gets Gardener's lastOperation Create/Pending and a Warning
// Event.
func TestGraftSchedulerOnGardener(t *testing.T) {
	l := newLandscape(t, "graft", "seed-a", "seed-b")
	free, tainted := l.seeds[0], l.seeds[1]
	markSeedReady(t, free, 1, nil)
	markSeedReady(t, tainted, 10, []any{map[string]any{"key": "example.com/maintenance"}})

	userAgent := "graft-scheduler-on-gardener"
	startGraftScheduler(t, userAgent, l.schedulerName())

	other := l.createShoot(t, "other")
	if name, _, _ := unstructured.NestedString(other.Object, "spec", "schedulerName"); name != "default-scheduler" {
		t.Fatalf("a shoot without schedulerName has %q, want Gardener's default default-scheduler", name)
	}
	one := l.createGraftShoot(t, "one")
	bound := waitForShoot(t, l, one.GetName(), "spec.seedName set", func(s *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found
	})
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != free {
		t.Errorf("shoot one bound to %q, want %s (the other seed is tainted)", got, free)
	}
	if !wroteThrough(bound, userAgent, "binding") {
		t.Errorf("spec.seedName of shoot one was not written by %s through shoots/binding: %v", userAgent, bound.GetManagedFields())
	}
	waitForEvent(t, l.namespace, one.GetName(), scheduler.ReasonScheduled, corev1.EventTypeNormal)

	two := l.createGraftShoot(t, "two")
	pending := waitForShoot(t, l, two.GetName(), "lastOperation Create/Pending", func(s *unstructured.Unstructured) bool {
		typ, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "type")
		state, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "state")
		return typ == "Create" && state == "Pending"
	})
	if seed, found, _ := unstructured.NestedString(pending.Object, "spec", "seedName"); found {
		t.Errorf("shoot two was bound to %s although no seed has room", seed)
	}
	description, _, _ := unstructured.NestedString(pending.Object, "status", "lastOperation", "description")
	t.Logf("shoot two: %s", description)
	if !wroteThrough(pending, userAgent, "status") {
		t.Errorf("the lastOperation of shoot two was not written by %s through shoots/status: %v", userAgent, pending.GetManagedFields())
	}
	event := waitForEvent(t, l.namespace, two.GetName(), scheduler.ReasonSchedulingFailed, corev1.EventTypeWarning)
	if got := event.InvolvedObject.APIVersion; got != "core.gardener.cloud/v1beta1" {
		t.Errorf("the Event is about a shoot of %q, want core.gardener.cloud/v1beta1", got)
	}

	// The shoot informer delivered "other" before "one" and "two", created
	// later, and the handler decides responsibility as it is delivered: by
	// now the scheduler has passed over it.
	now, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(t.Context(), other.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seed, found, _ := unstructured.NestedString(now.Object, "spec", "seedName"); found {
		t.Errorf("the shoot for Gardener's scheduler was bound to %s", seed)
	}
	if op, found, _ := unstructured.NestedMap(now.Object, "status", "lastOperation"); found {
		t.Errorf("the shoot for Gardener's scheduler got lastOperation %v", op)
	}
	if now.GetResourceVersion() != other.GetResourceVersion() {
		t.Errorf("the shoot for Gardener's scheduler changed (resourceVersion %s, created at %s)", now.GetResourceVersion(), other.GetResourceVersion())
	}
}

// startGraftScheduler runs graft-scheduler in the test process until the
// test ends, as the graft-scheduler chart deploys it with config.api
// core.gardener.cloud (see chartDaemon). userAgent names its writes in
// managedFields.
func startGraftScheduler(t *testing.T, userAgent, schedulerName string) {
	t.Helper()
	cfg, clients := chartDaemon[*configv1alpha1.SchedulerConfiguration](t, "graft-scheduler", userAgent, "config.schedulerName="+schedulerName)
	if cfg.API != configv1alpha1.APIGardener || cfg.SchedulerName != schedulerName {
		t.Fatalf("the chart rendered api %q, schedulerName %q", cfg.API, cfg.SchedulerName)
	}
	s, err := scheduler.New(cfg, clients, scheduler.Options{Identity: userAgent, Registry: metrics.NewKubeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunUntilCleanup(t, "graft-scheduler", s.Run)
}

// chartDaemon renders chart with config.api core.gardener.cloud and the
// values set, as a Deployment of it would run: its configuration (leader
// election included, the endpoints turned off in the test process) and
// clients as the chart's ServiceAccount, so that its RBAC is shown to be
// enough on Gardener. identity is the clients' user agent.
func chartDaemon[C configv1alpha1.Configuration](t *testing.T, chart, identity string, set ...string) (C, component.Clients) {
	t.Helper()
	ctx := t.Context()
	env := framework.Shared(t)
	const ns = "graft-on-gardener"
	if _, err := env.KubeClient().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	rendered, err := charts.RunAsChart(ctx, env.Config(), chart, charts.TemplateOptions{Release: "graft", Namespace: ns,
		Set: append([]string{"config.api=core.gardener.cloud"}, set...)}, kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := component.DecodeConfig[C]([]byte(rendered))
	if err != nil {
		t.Fatalf("the chart's configuration does not load: %v\n%s", err, rendered)
	}
	common := cfg.Common()
	if !configv1alpha1.IsLeaderElectionEnabled(common.LeaderElection) {
		t.Fatalf("the chart of %s rendered no leader election", chart)
	}
	common.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	common.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	clients, err := component.NewClients(component.ApplyClientConnection(restConfig, common.ClientConnection), identity)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, clients
}

// markSeedReady makes a seed look reconciled by a ready gardenlet with room for
// allocatable shoots, as gardenlet reports it in the seed's status, and sets
// its taints.
func markSeedReady(t *testing.T, name string, allocatable int, taints []any) {
	t.Helper()
	client := dynamicClient(t).Resource(seeds)
	if taints != nil {
		err := admitted(t, func(ctx context.Context) error {
			seed, err := client.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if err := unstructured.SetNestedSlice(seed.Object, taints, "spec", "taints"); err != nil {
				return err
			}
			_, err = client.Update(ctx, seed, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("tainting seed %s: %v", name, err)
		}
	}
	err := admitted(t, func(ctx context.Context) error {
		seed, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		seed.Object["status"] = gardenerlandscape.ReadyStatus(seed, allocatable, time.Now())
		_, err = client.UpdateStatus(ctx, seed, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("making seed %s ready: %v", name, err)
	}
}

// createGraftShoot creates a shoot for graft-scheduler.
func (l *landscape) createGraftShoot(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	return l.createGraftShootSelecting(t, name, l.project)
}

// createGraftShootSelecting creates a shoot for graft-scheduler that selects
// the seeds labelled with landscapeLabel=landscape, edited by edits.
func (l *landscape) createGraftShootSelecting(t *testing.T, name, landscape string, edits ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	obj := l.shootObject(t, l.makeShoot(name))
	for _, edit := range edits {
		edit(obj)
	}
	if err := unstructured.SetNestedField(obj.Object, l.schedulerName(), "spec", "schedulerName"); err != nil {
		t.Fatal(err)
	}
	// Other tests leave ready seeds of the same region in the garden; the
	// shoot may go to this landscape's only.
	l.labelSeeds(t)
	if err := unstructured.SetNestedStringMap(obj.Object, map[string]string{landscapeLabel: landscape}, "spec", "seedSelector", "matchLabels"); err != nil {
		t.Fatal(err)
	}
	var created *unstructured.Unstructured
	err := admitted(t, func(ctx context.Context) (err error) {
		created, err = dynamicClient(t).Resource(shoots).Namespace(l.namespace).Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating shoot %s: %v", name, err)
	}
	return created
}

// waitForShoot waits up to a minute for the shoot to satisfy cond.
func waitForShoot(t *testing.T, l *landscape, name, what string, cond func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	client := dynamicClient(t).Resource(shoots).Namespace(l.namespace)
	var last *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = s
		return cond(s), nil
	})
	if err != nil {
		t.Fatalf("shoot %s/%s: waiting for %s: %v; last seen: spec %v status %v", l.namespace, name, what, err, last.Object["spec"], last.Object["status"])
	}
	return last
}

// waitForEvent waits up to a minute for an Event of reason and type about the shoot.
func waitForEvent(t *testing.T, namespace, shoot, reason, eventType string) corev1.Event {
	t.Helper()
	return waitForEventFrom(t, scheduler.Name, namespace, shoot, reason, eventType)
}

// waitForEventFrom waits up to a minute for an Event of component about the
// shoot.
func waitForEventFrom(t *testing.T, component, namespace, shoot, reason, eventType string) corev1.Event {
	t.Helper()
	var found corev1.Event
	selector := fields.Set{"involvedObject.name": shoot, "reason": reason}.AsSelector().String()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := framework.Shared(t).KubeClient().CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Type == eventType && e.Source.Component == component {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s Event %s about shoot %s/%s: %v", eventType, reason, namespace, shoot, err)
	}
	return found
}

// wroteThrough reports whether manager wrote obj through the subresource,
// as managedFields record it.
func wroteThrough(obj *unstructured.Unstructured, manager, subresource string) bool {
	for _, f := range obj.GetManagedFields() {
		if f.Manager == manager && f.Subresource == subresource {
			return true
		}
	}
	return false
}

// TestPreferNoScheduleOnGardener: a PreferNoSchedule taint graftctl sets on a
// Gardener seed changes graft-scheduler's choice and not Gardener's. Of two
// empty ready seeds graft-scheduler would take the one whose name sorts
// first; tainted PreferNoSchedule, it takes the other. Gardener's admission,
// which keeps shoots off the seeds whose spec.taints they do not tolerate,
// still accepts the tainted seed: the taint is in graft's annotation alone.
func TestPreferNoScheduleOnGardener(t *testing.T) {
	l := newLandscape(t, "prefer", "seed-a", "seed-b")
	preferred, other := l.seeds[0], l.seeds[1]
	markSeedReady(t, preferred, 10, nil)
	markSeedReady(t, other, 10, nil)
	if out := onGardener(t, "taint", "seed", preferred, "soft:PreferNoSchedule"); out != "seed/"+preferred+" tainted\n" {
		t.Fatalf("taint printed %q", out)
	}
	if got, _ := seedTaints(t, preferred); got != "null" {
		t.Fatalf("spec.taints of %s: %s, want none (PreferNoSchedule lives in the annotation)", preferred, got)
	}

	startGraftScheduler(t, "graft-scheduler-prefer", l.schedulerName())
	one := l.createGraftShoot(t, "one")
	bound := waitForShoot(t, l, one.GetName(), "spec.seedName set", func(s *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found
	})
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != other {
		t.Errorf("graft-scheduler bound shoot one to %q, want %s (%s is tainted PreferNoSchedule)", got, other, preferred)
	}

	// Gardener's admission takes a shoot to the tainted seed.
	client, err := garden.New(garden.Gardener, nil, dynamicClient(t))
	if err != nil {
		t.Fatal(err)
	}
	l.createShoot(t, "gardeners")
	shoot, err := client.GetShoot(t.Context(), l.namespace, "gardeners")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Mover().Move(t.Context(), shoot, "", preferred, nil, "graft-test", true); err != nil {
		t.Errorf("Gardener refused a dry-run binding to %s, tainted PreferNoSchedule only: %v", preferred, err)
	}
}

// TestLimitedTolerationsOnGardener: on a Gardener seed tainted NoExecute
// through graftctl, graft-scheduler places a shoot whose toleration holds for
// good, and not one whose tenant limited its toleration to 30 seconds with
// graft.dev/toleration-seconds (it would have to move again at once). The
// annotation limits only tolerations the shoot has: one naming the taint's key
// without a toleration of it tolerates nothing.
func TestLimitedTolerationsOnGardener(t *testing.T) {
	l := newLandscape(t, "limited", "seed-a")
	seed := l.seeds[0]
	markSeedReady(t, seed, 10, nil)
	if out := onGardener(t, "taint", "seed", seed, "maintenance:NoExecute"); out != "seed/"+seed+" tainted\n" {
		t.Fatalf("taint printed %q", out)
	}
	// Gardener admits a toleration its project allows.
	allow := []byte(`{"spec":{"tolerations":{"whitelist":[{"key":"maintenance"}]}}}`)
	if _, err := dynamicClient(t).Resource(projects).Patch(t.Context(), l.project, types.MergePatchType, allow, metav1.PatchOptions{}); err != nil {
		t.Fatalf("allowing the toleration in project %s: %v", l.project, err)
	}
	startGraftScheduler(t, "graft-scheduler-limited", l.schedulerName())

	tolerating := func(obj *unstructured.Unstructured) {
		if err := unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"key": "maintenance"}}, "spec", "tolerations"); err != nil {
			t.Fatal(err)
		}
	}
	limiting := func(obj *unstructured.Unstructured) {
		obj.SetAnnotations(map[string]string{"graft.dev/toleration-seconds": `[{"key":"maintenance","tolerationSeconds":30}]`})
	}
	widening := func(obj *unstructured.Unstructured) {
		obj.SetAnnotations(map[string]string{"graft.dev/toleration-seconds": `[{"key":"maintenance","tolerationSeconds":99999}]`})
	}
	l.createGraftShootSelecting(t, "forever", l.project, tolerating)
	l.createGraftShootSelecting(t, "limited", l.project, tolerating, limiting)
	l.createGraftShootSelecting(t, "widening", l.project, widening)

	bound := waitForShoot(t, l, "forever", "spec.seedName set", func(s *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found
	})
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != seed {
		t.Errorf("shoot forever bound to %q, want %s", got, seed)
	}
	for name, want := range map[string]string{"limited": "NoExecute taints for less than 1m0s (maintenance:NoExecute for 30s)", "widening": "does not tolerate the seed's taints (maintenance:NoExecute)"} {
		pending := waitForShoot(t, l, name, "lastOperation Create/Pending", func(s *unstructured.Unstructured) bool {
			state, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "state")
			return state == "Pending"
		})
		if got, found, _ := unstructured.NestedString(pending.Object, "spec", "seedName"); found {
			t.Errorf("shoot %s bound to %s", name, got)
		}
		description, _, _ := unstructured.NestedString(pending.Object, "status", "lastOperation", "description")
		if !strings.Contains(description, want) {
			t.Errorf("shoot %s waits with %q, want a reason saying %q", name, description, want)
		}
	}
}
