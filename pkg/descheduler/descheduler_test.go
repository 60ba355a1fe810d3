package descheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
	graftctlget "github.com/graft-dev/graft/pkg/graftctl/get"
	testframework "github.com/graft-dev/graft/test/framework"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

var drainTaint = v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}

func cloudProfile() *v1alpha1.CloudProfile { return coretest.MakeCloudProfile("aws").Obj() }

type harness struct {
	d        *Descheduler
	client   *fake.Clientset
	recorder *record.FakeRecorder
	clock    *clocktesting.FakeClock
}

// start builds a descheduler over the objects with the given configuration
// changes, starts its informers and waits for them, but runs no pass.
func start(t *testing.T, mutate func(*configv1alpha1.DeschedulerConfiguration), objs ...runtime.Object) *harness {
	t.Helper()
	// No token bucket unless a test asks for one: unit tests do not wait.
	// Most tests put every shoot in one project, whose budget of moves
	// only the tests of that budget set.
	cfg := &configv1alpha1.DeschedulerConfiguration{EvictionRate: ptr.To(0.0), MaxMovesInFlightPerProject: ptr.To[int32](0)}
	if mutate != nil {
		mutate(cfg)
	}
	defaultResolved(cfg)
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid test configuration: %v", errs)
	}
	h := &harness{
		client:   fake.NewSimpleClientset(append(objs, cloudProfile())...),
		recorder: record.NewFakeRecorder(1000),
		clock:    clocktesting.NewFakeClock(t0),
	}
	d, err := New(cfg, component.Clients{Graft: h.client, Kubernetes: kubefake.NewSimpleClientset()}, Options{Registry: metrics.NewKubeRegistry(), Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	d.ev.recorder = h.recorder
	d.ev.records = testRecordKey
	h.d = d
	ctx := startInformers(t, d)
	if !cache.WaitForCacheSync(ctx.Done(), d.synced...) {
		t.Fatal("informers did not sync")
	}
	// Forget the seeds the informers queued; tests run passes themselves.
	for d.queue.Len() > 0 {
		k, _ := d.queue.Get()
		d.queue.Done(k)
	}
	return h
}

// startInformers starts the descheduler's informers until the test ends,
// and returns their context.
func startInformers(t *testing.T, d *Descheduler) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		d.queue.ShutDown()
		d.informers.Shutdown()
		d.regionConfigs.Shutdown()
	})
	d.informers.Start(ctx.Done())
	d.regionConfigs.Start(ctx.Done())
	return ctx
}

// afterQueue records the delays a pass asks the queue for, so that a test
// asserts them without racing the delaying queue's goroutine against its
// fake clock.
type afterQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	mu    sync.Mutex
	after map[string][]time.Duration
}

func (q *afterQueue) AddAfter(key string, d time.Duration) {
	q.mu.Lock()
	q.after[key] = append(q.after[key], d)
	q.mu.Unlock()
	q.TypedRateLimitingInterface.AddAfter(key, d)
}

// asked reports whether the seed was asked to be looked at again after d.
func (q *afterQueue) asked(seed string, d time.Duration) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Contains(q.after[seed], d)
}

// recordAfter makes the descheduler's queue an afterQueue.
func (h *harness) recordAfter() *afterQueue {
	q := &afterQueue{TypedRateLimitingInterface: h.d.queue, after: map[string][]time.Duration{}}
	h.d.queue, h.d.gate.queue = q, q
	return q
}

func (h *harness) pass(t *testing.T) {
	t.Helper()
	h.d.pass(context.Background(), h.d.state.seedNames(), false)
}

// addSeed creates the seed and waits until the descheduler's state holds it.
func (h *harness) addSeed(t *testing.T, seed *v1alpha1.Seed) {
	t.Helper()
	if _, err := h.client.CoreV1alpha1().Seeds().Create(t.Context(), seed, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testframework.WaitFor(t, fmt.Sprintf("seed %s to reach the descheduler", seed.Name), waitTimeout, func(context.Context) (bool, error) {
		h.d.state.mu.Lock()
		defer h.d.state.mu.Unlock()
		_, ok := h.d.state.snapshot.Seed(seed.Name)
		return ok, nil
	})
}

func (h *harness) shoot(t *testing.T, name string) *v1alpha1.Shoot {
	t.Helper()
	s, err := h.client.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (h *harness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func evicted(s *v1alpha1.Shoot) bool { return s.Spec.SeedName == nil }

func countPrefix(events []string, prefix string) int {
	n := 0
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

func TestEvictsOnlyUntoleratingShoots(t *testing.T) {
	h := start(t, nil,
		coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeShoot("garden-dev", "plain").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(),
		coretest.MakeShoot("garden-dev", "tolerant").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(v1alpha1.Toleration{Key: v1alpha1.SeedTaintUnschedulable}).Obj(),
		coretest.MakeShoot("garden-dev", "elsewhere").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("b").Obj(),
	)
	h.pass(t)
	plain := h.shoot(t, "plain")
	if !evicted(plain) {
		t.Fatalf("plain still on %v", *plain.Spec.SeedName)
	}
	if plain.Annotations[v1alpha1.AnnotationDescheduledFrom] != "a" ||
		!strings.HasPrefix(plain.Annotations[v1alpha1.AnnotationDescheduledReason], "NoExecuteTaints: ") {
		t.Errorf("annotations = %v", plain.Annotations)
	}
	// The eviction is one patch: no status write. The shoot reads Pending
	// from its empty spec.seedName and its annotations (checked above).
	if got := graftctlget.ShootStatus(plain); got != string(v1alpha1.LastOperationStatePending) {
		t.Errorf("graftctl shows the evicted shoot as %q, want Pending", got)
	}
	if op := plain.Status.LastOperation; op != nil {
		t.Errorf("lastOperation = %+v, want none written", op)
	}
	writes := 0
	for _, a := range h.client.Actions() {
		if a.GetResource().Resource == "shoots" && a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			writes++
			if a.GetSubresource() != "" || a.GetVerb() != "patch" {
				t.Errorf("eviction wrote %s %s/%s, want only a patch of the shoot", a.GetVerb(), a.GetResource().Resource, a.GetSubresource())
			}
		}
	}
	if writes != 1 {
		t.Errorf("%d writes to shoots, want 1 (the eviction)", writes)
	}
	for _, name := range []string{"tolerant", "elsewhere"} {
		if evicted(h.shoot(t, name)) {
			t.Errorf("%s was evicted", name)
		}
	}
	events := h.events()
	if n := countPrefix(events, "Normal Descheduled"); n != 2 {
		t.Errorf("want Descheduled on the shoot and the seed, got %v", events)
	}
	if got := h.d.state.pendingCount(h.clock.Now()); got != 1 {
		t.Errorf("pending = %d, want 1", got)
	}
}

func TestRequireFit(t *testing.T) {
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()}
	h := start(t, nil, objs...)
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted although no other seed fits")
	}
	events := h.events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning EvictionSkipped") || !strings.Contains(events[0], "0/1 seeds fit") {
		t.Errorf("events = %v", events)
	}
	// The same reason is not written again.
	h.pass(t)
	if events := h.events(); len(events) != 0 {
		t.Errorf("repeated EvictionSkipped: %v", events)
	}
	// A seed rejected by another filter changes the reason; one more seed
	// rejected by a filter already named changes only the counts.
	for _, seed := range []struct {
		name       string
		wantEvents int
	}{{"b", 1}, {"c", 0}} {
		h.addSeed(t, coretest.MakeSeed(seed.name).Allocatable(10).Taints(drainTaint).Obj())
		h.pass(t)
		if events := h.events(); countPrefix(events, "Warning EvictionSkipped") != seed.wantEvents {
			t.Errorf("after seed %s: EvictionSkipped %v, want %d", seed.name, events, seed.wantEvents)
		}
	}
	if got := counter(t, h.d.metrics.Evictions.WithLabelValues("NoExecuteTaints", ResultSkippedNoFit)); got != 4 {
		t.Errorf("evictions{result=%s} = %v, want 4, one per pass", ResultSkippedNoFit, got)
	}

	forced := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: "NoExecuteTaints", Args: runtime.RawExtension{Raw: []byte(`{"force":true}`)}}}
	}, objs...)
	forced.pass(t)
	if !evicted(forced.shoot(t, "x")) {
		t.Error("force did not override requireFit")
	}
}

// TestRequireFitReservesCapacity: requireFit promises seed b's free slots
// once each, and a shoot waiting for its first seed takes a slot as surely as
// an evicted one does.
func TestRequireFitReservesCapacity(t *testing.T) {
	for _, tc := range []struct {
		name        string
		third       *v1alpha1.Shoot
		candidates  []string
		wantEvicted int
		why         string
	}{
		{"two slots for three shoots", coretest.MakeShoot("garden-dev", "x3").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), []string{"x1", "x2", "x3"}, 2, "seed b has room for 2"},
		{"a waiting shoot takes a slot", coretest.MakeShoot("garden-dev", "new").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj(), []string{"x1", "x2"}, 1, "seed b has room for 2, one of them for the waiting shoot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(2).Obj(),
				coretest.MakeShoot("garden-dev", "x1").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), coretest.MakeShoot("garden-dev", "x2").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), tc.third)
			h.pass(t)
			n := 0
			for _, name := range tc.candidates {
				if evicted(h.shoot(t, name)) {
					n++
				}
			}
			if n != tc.wantEvicted {
				t.Errorf("%d shoots evicted, want %d (%s)", n, tc.wantEvicted, tc.why)
			}
			if events := h.events(); countPrefix(events, "Warning EvictionSkipped") != 1 {
				t.Errorf("want one EvictionSkipped, got %v", events)
			}
		})
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) { c.DryRun = true },
		coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("dry run evicted a shoot")
	}
	for _, a := range h.client.Actions() {
		if v := a.GetVerb(); v != "list" && v != "watch" && v != "get" {
			t.Errorf("dry run wrote: %v", a)
		}
	}
	events := h.events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Normal WouldDeschedule") || !strings.Contains(events[0], "seed b") {
		t.Errorf("events = %v", events)
	}
}

func TestLimits(t *testing.T) {
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj()}
	for _, n := range []string{"x1", "x2", "x3", "x4", "x5"} {
		objs = append(objs, coretest.MakeShoot("garden-dev", n).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
	}
	pending := coretest.MakeShoot("garden-dev", "pending").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
	markEvicted(pending, "c")
	objs = append(objs, pending)
	count := func(h *harness) int {
		n := 0
		for _, name := range []string{"x1", "x2", "x3", "x4", "x5"} {
			if evicted(h.shoot(t, name)) {
				n++
			}
		}
		return n
	}

	// passEvicts runs a pass and checks how many shoots have been evicted so far.
	passEvicts := func(h *harness, want int, what string) {
		t.Helper()
		h.pass(t)
		if n := count(h); n != want {
			t.Errorf("%s: %d evicted, want %d", what, n, want)
		}
	}
	// start leaves the eviction rate unlimited.
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) { c.MaxEvictionsPerSeed = ptr.To[int32](2) }, objs...)
	passEvicts(h, 2, "maxEvictionsPerSeed 2")
	passEvicts(h, 2, "a second pass in the same window")
	h.d.gate.newWindow()
	passEvicts(h, 4, "after a new window")

	h = start(t, func(c *configv1alpha1.DeschedulerConfiguration) { c.MaxPendingEvicted = ptr.To[int32](3) }, objs...)
	passEvicts(h, 2, "maxPendingEvicted 3 with one pending")
}

func TestTolerationSecondsDelaysEviction(t *testing.T) {
	limited := v1alpha1.Toleration{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Tolerations(limited).Obj())
	h.clock.Step(10 * time.Second)
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted before tolerationSeconds ran out")
	}
	// The pass's own seed write (the taint's timeAdded) may come back as an
	// informer event and queue the seed at once; what matters is that no
	// pass evicts before the toleration runs out.
	h.clock.Step(19 * time.Second)
	h.pass(t)
	if evicted(h.shoot(t, "x")) {
		t.Fatal("evicted a second before tolerationSeconds ran out")
	}
	for h.d.queue.Len() > 0 {
		k, _ := h.d.queue.Get()
		h.d.queue.Done(k)
	}
	h.clock.Step(time.Second + requeueSlack)
	testframework.WaitFor(t, "the seed to be requeued when the toleration runs out", waitTimeout, func(context.Context) (bool, error) { return h.d.queue.Len() >= 1, nil })
	h.pass(t)
	if !evicted(h.shoot(t, "x")) {
		t.Fatal("not evicted after tolerationSeconds")
	}
}

// waitTimeout bounds a wait for the delaying queue's goroutine to move a due
// item: on a loaded machine that goroutine may run late.
const waitTimeout = 30 * time.Second

func TestOverCapacity(t *testing.T) {
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj()}
	for i, p := range []v1alpha1.ShootPurpose{v1alpha1.ShootPurposeProduction, v1alpha1.ShootPurposeEvaluation, v1alpha1.ShootPurposeDevelopment, v1alpha1.ShootPurposeEvaluation} {
		s := coretest.MakeShoot("garden-dev", []string{"prod", "eval", "dev", "eval-protected"}[i]).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
		s.Spec.Purpose = ptr.To(p)
		objs = append(objs, s)
	}
	objs[len(objs)-1].(*v1alpha1.Shoot).Annotations = map[string]string{v1alpha1.AnnotationEvict: "false"}
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: "OverCapacity"}}
	}, objs...)
	h.pass(t)
	for name, want := range map[string]bool{"prod": false, "eval": true, "dev": true, "eval-protected": false} {
		if got := evicted(h.shoot(t, name)); got != want {
			t.Errorf("%s evicted = %v, want %v", name, got, want)
		}
	}
	// The overload is answered: another pass evicts nothing more.
	h.d.gate.newWindow()
	h.pass(t)
	if evicted(h.shoot(t, "prod")) {
		t.Error("the same overload was answered twice")
	}
}

func TestInvalidPluginArgs(t *testing.T) {
	cfg := &configv1alpha1.DeschedulerConfiguration{Plugins: []configv1alpha1.DeschedulerPlugin{
		{Name: "OverCapacity", Args: runtime.RawExtension{Raw: []byte(`{"purposeOrder":["nope"]}`)}},
	}}
	defaultResolved(cfg)
	_, err := New(cfg, component.Clients{Graft: fake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()}, Options{Registry: metrics.NewKubeRegistry()})
	if err == nil || !strings.Contains(err.Error(), "plugins[1].args.purposeOrder[0]") {
		t.Errorf("err = %v", err)
	}
}

func TestShootsBeingDeletedStay(t *testing.T) {
	deleting := coretest.MakeShoot("garden-dev", "deleting").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
	deleting.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	deleting.Finalizers = []string{"gardener"}
	h := start(t, nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), deleting)
	h.pass(t)
	if evicted(h.shoot(t, "deleting")) {
		t.Error("a shoot being deleted was evicted")
	}
}

// A shoot being deleted frees its place on the seed anyway: OverCapacity
// counts it as leaving and moves no live shoot to make that room.
func TestOverCapacityCountsDeletingShootsAsLeaving(t *testing.T) {
	deleting := coretest.MakeShoot("garden-dev", "deleting").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
	deleting.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	deleting.Finalizers = []string{"gardener"}
	live := coretest.MakeShoot("garden-dev", "live").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
	live.Spec.Purpose = ptr.To(v1alpha1.ShootPurposeEvaluation)
	h := start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: "OverCapacity"}}
	}, coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "prod").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), live, deleting)
	h.pass(t)
	for _, name := range []string{"prod", "live", "deleting"} {
		if evicted(h.shoot(t, name)) {
			t.Errorf("%s was evicted although the shoot being deleted brings seed a back to its allocatable 2", name)
		}
	}
	if events := h.events(); len(events) != 0 {
		t.Errorf("events = %v", events)
	}

	// Over by two with one of them being deleted: exactly one live shoot moves.
	h = start(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: "OverCapacity"}}
	}, coretest.MakeSeed("a").Allocatable(1).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(), coretest.MakeShoot("garden-dev", "prod").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), live, deleting)
	h.pass(t)
	if !evicted(h.shoot(t, "live")) || evicted(h.shoot(t, "prod")) || evicted(h.shoot(t, "deleting")) {
		t.Errorf("want only the evaluation shoot evicted: live %v, prod %v, deleting %v",
			evicted(h.shoot(t, "live")), evicted(h.shoot(t, "prod")), evicted(h.shoot(t, "deleting")))
	}
}
