package scheduler

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"

	graftfake "github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
)

// newTestScheduler returns a scheduler on fake clients with its informers
// synced; the test drives sync itself.
func newTestScheduler(t *testing.T, objects ...runtime.Object) (*Scheduler, *graftfake.Clientset, *record.FakeRecorder) {
	t.Helper()
	// The simple fake: the field-managed one needs an OpenAPI schema of graft's types.
	graft := graftfake.NewSimpleClientset(objects...)
	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Default()
	s, err := New(cfg, component.Clients{Graft: graft, Kubernetes: kubefake.NewSimpleClientset()}, Options{Registry: metrics.NewKubeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(100)
	s.recorder = rec
	startSynced(t, s)
	return s, graft, rec
}

func TestSyncBindsAndRecordsEvent(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	shoot.ResourceVersion = ""
	s, graft, rec := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
	if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
		t.Fatal(err)
	}
	got, err := graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(got.Spec.SeedName, "") != "a" || got.Status.LastOperation != nil {
		t.Errorf("shoot after sync: seed %v, lastOperation %v; want a and none", got.Spec.SeedName, got.Status.LastOperation)
	}
	if ev := <-rec.Events; ev != "Normal Scheduled Scheduled to seed a" {
		t.Errorf("event %q", ev)
	}
	if s.cache.usage("a") != 1 {
		t.Errorf("usage %d right after the bind, want 1 (assumed)", s.cache.usage("a"))
	}
}

func TestSyncFailureRecordsEventAndLastOperation(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Region("ap-south-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	shoot.ResourceVersion = ""
	s, graft, rec := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
	if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
		t.Fatalf("sync: %v, want none: the shoot waits for a change that can help", err)
	}
	got, err := graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lo := got.Status.LastOperation
	if got.Spec.SeedName != nil || lo == nil || lo.Type != corev1alpha1.LastOperationTypeCreate ||
		lo.State != corev1alpha1.LastOperationStatePending || !strings.Contains(lo.Description, "a =>") {
		t.Errorf("shoot after a failed sync: seed %v, lastOperation %+v", got.Spec.SeedName, lo)
	}
	if ev := <-rec.Events; !strings.HasPrefix(ev, "Warning SchedulingFailed 0/1") {
		t.Errorf("event %q", ev)
	}
	if s.pool.parked() != 1 {
		t.Error("the shoot does not wait among the unschedulable")
	}
}

// TestFailureStatusWrittenOnlyWhenItsStableReasonChanges: a failure whose
// counts changed but whose rejecting filters did not writes no status; the
// Event still comes with the new counts.
func TestFailureStatusWrittenOnlyWhenItsStableReasonChanges(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Region("ap-south-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	shoot.ResourceVersion = ""
	s, graft, rec := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
	statusWrites := func() int {
		n := 0
		for _, a := range graft.Actions() {
			if a.GetVerb() == "patch" && a.GetSubresource() == "status" {
				n++
			}
		}
		return n
	}
	decide := func() string {
		t.Helper()
		// The informer's view of the shoot, as the next decision reads it.
		got, err := graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), "s", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.informers.Shoots().Informer.GetIndexer().Update(got); err != nil {
			t.Fatal(err)
		}
		if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
			t.Fatal(err)
		}
		return <-rec.Events
	}
	first := decide()
	if statusWrites() != 1 {
		t.Fatalf("%d status writes after the first failure, want 1", statusWrites())
	}
	// Another seed of another region: the counts change, the reason not.
	s.cache.addSeed(coretest.MakeSeed("b").Region("eu-west-2").Allocatable(-1).Obj())
	second := decide()
	if first == second {
		t.Errorf("the Event did not follow the new counts: %q", second)
	}
	if statusWrites() != 1 {
		t.Errorf("%d status writes after a failure with the same stable reason, want still 1", statusWrites())
	}
	// A seed that is not ready: a new reason.
	s.cache.addSeed(coretest.MakeSeed("c").Region("ap-south-1").Condition(corev1alpha1.SeedGardenletReady, corev1alpha1.ConditionFalse).Obj())
	decide()
	if statusWrites() != 2 {
		t.Errorf("%d status writes after a failure with a new reason, want 2", statusWrites())
	}
	got, _ := graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), "s", metav1.GetOptions{})
	if d := got.Status.LastOperation.Description; !strings.HasPrefix(d, "Failed to schedule shoot (not usable, strategy): ") || !strings.Contains(d, "c => ") {
		t.Errorf("description %q", d)
	}
	if n, _ := testutil.GetCounterMetricValue(s.metrics.failureStatusWrites); n != 2 {
		t.Errorf("graft_scheduler_failure_status_writes_total = %v, want 2", n)
	}
}

func TestSyncLeavesOthersAlone(t *testing.T) {
	other := coretest.MakeShoot("garden-dev", "other").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	other.ResourceVersion = ""
	other.Spec.SchedulerName = ptr.To("someone-else")
	pre := coretest.MakeShoot("garden-dev", "pre").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Seed("elsewhere").Obj()
	pre.ResourceVersion = ""
	s, graft, rec := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), other, pre)
	for _, key := range []string{"garden-dev/other", "garden-dev/pre", "garden-dev/missing"} {
		if err := s.syncHandler(context.Background(), key); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	for _, a := range graft.Actions() {
		if a.GetVerb() == "patch" || a.GetVerb() == "update" {
			t.Errorf("unexpected write %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	if len(rec.Events) != 0 {
		t.Errorf("unexpected event %q", <-rec.Events)
	}
}

// evictedFromDrainedSeed is seed a at version 2 with the NoExecute taint that
// evicted shoot s, the same seed at version 1 without it (a view that missed
// the taint), and the evicted shoot waiting for a seed.
func evictedFromDrainedSeed() (drained, stale *corev1alpha1.Seed, shoot *corev1alpha1.Shoot) {
	drained = coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj()
	drained.ResourceVersion = "2"
	drained.Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute}}
	shoot = coretest.MakeShoot("garden-dev", "s").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	shoot.ResourceVersion = ""
	shoot.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "a"}
	stale = drained.DeepCopy()
	stale.ResourceVersion = "1"
	stale.Spec.Taints = nil
	return drained, stale, shoot
}

// TestConfirmComparesWithTheSeedTheDecisionRead: the seed informer may bring
// the evicting taint between the decision (made on the seed without it) and
// the check before the binding; the cache then agrees with the live seed, but
// the decision did not see the taint, so the shoot is decided again.
func TestConfirmComparesWithTheSeedTheDecisionRead(t *testing.T) {
	drained, stale, shoot := evictedFromDrainedSeed()
	s, _, _ := newTestScheduler(t, drained, coretest.MakeCloudProfile("aws").Obj(), shoot)
	s.cache.addSeed(stale)
	seed, err := s.decide(shoot)
	if err != nil || seed != "a" {
		t.Fatalf("decision on the stale seed: %q, %v; want a", seed, err)
	}
	// The informer delivers the taint before the check.
	s.cache.addSeed(drained)
	if err := s.confirmSeed(context.Background(), "garden-dev/s", "a"); !errors.Is(err, errSeedChanged) {
		t.Errorf("confirmSeed after the cache caught up = %v, want errSeedChanged: the decision read version 1", err)
	}
}

// TestSyncConfirmsTheSeedAnEvictedShootLeft: with a seed cache that missed the
// NoExecute taint that evicted a shoot, the scheduler reads the seed before
// sending the shoot back, and then places it elsewhere.
func TestSyncConfirmsTheSeedAnEvictedShootLeft(t *testing.T) {
	drained, stale, shoot := evictedFromDrainedSeed()
	shoot.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeMigrate, State: corev1alpha1.LastOperationStatePending}
	s, graft, _ := newTestScheduler(t, drained, coretest.MakeSeed("b").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)

	// The cache's view of seed a predates the taint.
	s.cache.addSeed(stale)

	if err := s.syncHandler(context.Background(), "garden-dev/s"); err == nil {
		t.Fatal("sync bound the shoot on a stale view of the seed it was evicted from")
	}
	got, err := graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.SeedName != nil {
		t.Fatalf("shoot bound to %s on a stale seed view", *got.Spec.SeedName)
	}
	if s.cache.seedResourceVersion("a") != "2" {
		t.Errorf("the seed read from the API server did not replace the stale one in the cache")
	}
	if s.cache.usage("a") != 0 {
		t.Errorf("usage of a %d after the rolled back decision, want 0", s.cache.usage("a"))
	}

	if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
		t.Fatal(err)
	}
	got, err = graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(got.Spec.SeedName, "") != "b" {
		t.Errorf("shoot on %v after the seed was confirmed, want b", got.Spec.SeedName)
	}
}

// awsInputs are the inputs of a decision with the aws cloud profile and no
// region ConfigMap.
var awsInputs = algorithm.Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}

// startSynced starts the scheduler's informers until the test ends and waits
// for them to sync.
func startSynced(t *testing.T, s *Scheduler) {
	t.Helper()
	if err := s.startInformers(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !cache.WaitForCacheSync(t.Context().Done(), s.synced...) {
		t.Fatal("informers did not sync")
	}
}
