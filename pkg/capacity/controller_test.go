package capacity

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	t        testing.TB
	client   *fake.Clientset
	factory  graftinformers.SharedInformerFactory
	recorder *record.FakeRecorder
	clock    *testingclock.FakeClock
	c        *controller
}

// testConfig is the defaulted configuration changed by mutate (nil for
// none); the test fails if it is invalid.
func testConfig(t testing.TB, mutate func(*configv1alpha1.CapacityAnnotatorConfiguration)) *configv1alpha1.CapacityAnnotatorConfiguration {
	t.Helper()
	cfg := &configv1alpha1.CapacityAnnotatorConfiguration{}
	if mutate != nil {
		mutate(cfg)
	}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid test configuration: %v", errs)
	}
	return cfg
}

func newFixture(t testing.TB, mutate func(*configv1alpha1.CapacityAnnotatorConfiguration), objects ...runtime.Object) *fixture {
	t.Helper()
	cfg := testConfig(t, mutate)
	f := &fixture{
		t:        t,
		client:   fake.NewSimpleClientset(objects...),
		recorder: record.NewFakeRecorder(100),
		clock:    testingclock.NewFakeClock(t0),
	}
	f.factory = graftinformers.NewSharedInformerFactory(f.client, 0)
	c, err := newController(controllerOptions{
		Client:   garden.NewGraft(f.client),
		Seeds:    f.factory.Core().V1alpha1().Seeds().Informer(),
		Shoots:   f.factory.Core().V1alpha1().Shoots().Informer(),
		Recorder: f.recorder,
		Config:   cfg,
		Clock:    f.clock,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.queue.ShutDown)
	f.c = c
	for _, o := range objects {
		switch o := o.(type) {
		case *v1alpha1.Seed:
			f.addSeed(o)
		case *v1alpha1.Shoot:
			f.addShoot(o)
		}
	}
	return f
}

// addSeed puts a seed into the informer cache, as a watch event would.
func (f *fixture) addSeed(s *v1alpha1.Seed) {
	if err := f.factory.Core().V1alpha1().Seeds().Informer().GetIndexer().Update(s); err != nil {
		f.t.Fatal(err)
	}
}

// addShoot puts a shoot into the cache and feeds it to the handler.
func (f *fixture) addShoot(s *v1alpha1.Shoot) {
	if err := f.factory.Core().V1alpha1().Shoots().Informer().GetIndexer().Update(s); err != nil {
		f.t.Fatal(err)
	}
	f.c.shootChanged(s)
}

// refresh copies the seed from the fake API into the cache.
func (f *fixture) refresh(name string) *v1alpha1.Seed {
	s, err := f.client.CoreV1alpha1().Seeds().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.addSeed(s)
	return s
}

func (f *fixture) sync(name string) {
	f.t.Helper()
	if err := f.c.syncHandler(context.Background(), name); err != nil {
		f.t.Fatalf("syncHandler(%s): %v", name, err)
	}
}

// patches returns the patches sent since the last call, as decoded JSON, with
// their subresource.
// noWrites fails the test if the controller wrote anything (or, with
// events, reported anything) since the last look; what says when.
func (f *fixture) noWrites(what string, events bool) {
	f.t.Helper()
	if p := f.patches(); len(p) != 0 {
		f.t.Errorf("%s: written %+v", what, p)
	}
	if !events {
		return
	}
	if ev := f.events(); len(ev) != 0 {
		f.t.Errorf("%s: events %q", what, ev)
	}
}

func (f *fixture) patches() []patchAction {
	var out []patchAction
	for _, a := range f.client.Actions() {
		p, ok := a.(clienttesting.PatchAction)
		if !ok {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, patchAction{subresource: p.GetSubresource(), body: body, raw: string(p.GetPatch())})
	}
	f.client.ClearActions()
	return out
}

type patchAction struct {
	subresource string
	body        map[string]any
	raw         string
}

func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func shootsOf(s *v1alpha1.Seed) (capacity, allocatable, usage string) {
	str := func(l corev1.ResourceList) string {
		if q, ok := l[v1alpha1.ResourceShoots]; ok {
			return q.String()
		}
		return "unset"
	}
	return str(s.Status.Capacity), str(s.Status.Allocatable), str(s.Status.Usage)
}

func TestStatusDefaultsUsageAndCoalescing(t *testing.T) {
	f := newFixture(t, nil,
		coretest.MakeSeed("s1").ResourceVersion("1").Obj(),
		coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj(),
		coretest.MakeShoot("garden-dev", "b").Seed("s1").StatusSeed("s1").Obj(),
		coretest.MakeShoot("garden-dev", "c").Seed("s2").StatusSeed("s1").Obj(), // migrating away from s1
		coretest.MakeShoot("garden-dev", "d").Obj(),
	)
	f.sync("s1")
	p := f.patches()
	if len(p) != 1 || p[0].subresource != "status" {
		t.Fatalf("want one status patch, got %+v", p)
	}
	want := `{"status":{"allocatable":{"shoots":"200"},"capacity":{"shoots":"200"},"usage":{"shoots":"3"}}}`
	if p[0].raw != want {
		t.Errorf("patch %s, want %s", p[0].raw, want)
	}
	if ev := f.events(); len(ev) != 1 || !strings.Contains(ev[0], "Normal AllocatableChanged Allocatable shoots changed from unset to 200") {
		t.Errorf("events %q", ev)
	}
	seed := f.refresh("s1")
	if c, a, u := shootsOf(seed); c != "200" || a != "200" || u != "3" {
		t.Errorf("status capacity %s allocatable %s usage %s", c, a, u)
	}
	if seed.Status.LastOperation == nil || len(seed.Status.Conditions) != 2 {
		t.Errorf("conditions or lastOperation lost: %+v", seed.Status)
	}

	// Nothing changed: no write.
	f.sync("s1")
	f.noWrites("unchanged seed written", false)

	// Usage changes within the sync period are held back...
	f.addShoot(coretest.MakeShoot("garden-dev", "e").Seed("s1").Obj())
	f.c.shootDeleted(coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj())
	f.addShoot(coretest.MakeShoot("garden-dev", "c").Seed("s2").StatusSeed("s2").Obj()) // migration done
	f.addShoot(coretest.MakeShoot("garden-dev", "f").Seed("s1").Obj())
	f.addShoot(coretest.MakeShoot("garden-dev", "g").Seed("s1").Obj())
	f.clock.Step(2 * time.Second)
	f.sync("s1")
	f.noWrites("written within the sync period", false)
	// ...and written at once when it is over.
	f.clock.Step(3 * time.Second)
	f.sync("s1")
	p = f.patches()
	if len(p) != 1 || p[0].raw != `{"status":{"usage":{"shoots":"4"}}}` {
		t.Fatalf("want one usage patch to 4, got %+v", p)
	}
	if got := f.c.Usage("s2"); got != 1 {
		t.Errorf("usage of s2 = %d, want 1", got)
	}
}

func TestStatusOverridesAndAnnotations(t *testing.T) {
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.Reserved = corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse("5")}
		c.Overrides = []configv1alpha1.CapacityOverride{{
			SeedSelector: metav1.LabelSelector{MatchLabels: map[string]string{"size": "small"}},
			Capacity:     corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse("10")},
		}}
	},
		coretest.MakeSeed("small").Labels(map[string]string{"size": "small"}).ResourceVersion("1").Obj(),
		coretest.MakeSeed("annotated").Labels(map[string]string{"size": "small"}).Annotations(map[string]string{v1alpha1.AnnotationCapacityShoots: "30", v1alpha1.AnnotationReservedShoots: "40"}).ResourceVersion("1").Obj(),
	)
	f.sync("small")
	f.sync("annotated")
	for name, want := range map[string][2]string{"small": {"10", "5"}, "annotated": {"30", "0"}} {
		if c, a, _ := shootsOf(f.refresh(name)); c != want[0] || a != want[1] {
			t.Errorf("%s: capacity %s allocatable %s, want %v", name, c, a, want)
		}
	}
}

func TestInvalidAnnotationKeepsLastGoodValues(t *testing.T) {
	f := newFixture(t, nil, coretest.MakeSeed("s1").Annotations(map[string]string{v1alpha1.AnnotationCapacityShoots: "50"}).ResourceVersion("1").Obj(), coretest.MakeSeed("s2").ResourceVersion("1").Obj())
	f.sync("s1")
	f.sync("s2")
	f.refresh("s2")
	f.patches()
	f.events()

	bad := f.refresh("s1").DeepCopy()
	bad.Annotations[v1alpha1.AnnotationCapacityShoots] = "fifty"
	f.addSeed(bad)
	f.addShoot(coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj())
	f.clock.Step(time.Minute)
	f.sync("s1")
	f.sync("s2")
	p := f.patches()
	if len(p) != 1 || p[0].raw != `{"status":{"usage":{"shoots":"1"}}}` {
		t.Fatalf("want only the usage patch of s1, got %+v", p)
	}
	ev := f.events()
	if len(ev) != 1 || !strings.Contains(ev[0], "Warning InvalidCapacityAnnotation") || !strings.Contains(ev[0], `"fifty"`) {
		t.Errorf("events %q", ev)
	}
	if c, a, _ := shootsOf(f.refresh("s1")); c != "50" || a != "50" {
		t.Errorf("last good values lost: capacity %s allocatable %s", c, a)
	}
	// Reported once per bad value.
	f.sync("s1")
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("reported again: %q", ev)
	}
}

func TestOverCapacityEvent(t *testing.T) {
	f := newFixture(t, nil, coretest.MakeSeed("s1").Annotations(map[string]string{v1alpha1.AnnotationCapacityShoots: "1"}).ResourceVersion("1").Obj(),
		coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj(), coretest.MakeShoot("garden-dev", "b").Seed("s1").Obj())
	f.sync("s1")
	ev := f.events()
	if len(ev) != 2 || !strings.Contains(ev[0], "Warning OverCapacity 2 shoots are counted on the seed, more than its allocatable 1") {
		t.Fatalf("events %q", ev)
	}
	f.refresh("s1")
	f.sync("s1")
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("over capacity reported twice: %q", ev)
	}
}

func TestRespectSeedCapacity(t *testing.T) {
	seed := coretest.MakeSeed("s1").ResourceVersion("1").Obj()
	seed.Status.Capacity = corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse("80")}
	seed.Status.Allocatable = corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse("70")}
	seed.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "gardenlet", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:allocatable":{"f:shoots":{}},"f:capacity":{"f:shoots":{}}}}`)}}}
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) { c.RespectSeedCapacity = true }, seed)
	f.sync("s1")
	p := f.patches()
	if len(p) != 1 || p[0].raw != `{"status":{"usage":{"shoots":"0"}}}` {
		t.Fatalf("want only usage written, got %+v", p)
	}
}

func TestSeedDeletedForgetsState(t *testing.T) {
	f := newFixture(t, nil, coretest.MakeSeed("s1").ResourceVersion("1").Obj())
	f.sync("s1")
	if err := f.factory.Core().V1alpha1().Seeds().Informer().GetIndexer().Delete(coretest.MakeSeed("s1").ResourceVersion("1").Obj()); err != nil {
		t.Fatal(err)
	}
	f.sync("s1")
	if _, ok := f.c.seeds["s1"]; ok {
		t.Error("state of a deleted seed kept")
	}
}

func notReady(s *v1alpha1.Seed) *v1alpha1.Seed {
	s = s.DeepCopy()
	s.Status.Conditions[0].Status = v1alpha1.ConditionFalse
	return s
}

func taintsOf(s *v1alpha1.Seed) []string {
	var out []string
	for _, t := range s.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

func TestHealthTaints(t *testing.T) {
	delay := metav1.Duration{Duration: time.Minute}
	seed := notReady(coretest.MakeSeed("s1").ResourceVersion("1").Obj())
	seed.Spec.Taints = []v1alpha1.SeedTaint{{Key: "dedicated", Effect: v1alpha1.TaintEffectNoSchedule}}
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.HealthTaints = configv1alpha1.HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &delay}
	}, seed)

	f.sync("s1")
	var taintPatches []patchAction
	for _, p := range f.patches() {
		if p.subresource == "" {
			taintPatches = append(taintPatches, p)
		}
	}
	if len(taintPatches) != 1 || !strings.Contains(taintPatches[0].raw, `"resourceVersion":"1"`) {
		t.Fatalf("want one taint patch with a resourceVersion precondition, got %+v", taintPatches)
	}
	if got := taintsOf(f.refresh("s1")); strings.Join(got, ",") != "dedicated:NoSchedule,seed.gardener.cloud/not-ready:NoSchedule" {
		t.Errorf("taints %v", got)
	}
	if ev := f.events(); len(ev) == 0 || !strings.Contains(ev[0], "Warning NotReady") {
		t.Errorf("events %q", ev)
	}

	// Not yet due: nothing more.
	f.clock.Step(30 * time.Second)
	f.sync("s1")
	if got := taintsOf(f.refresh("s1")); len(got) != 2 {
		t.Errorf("NoExecute added early: %v", got)
	}
	f.clock.Step(30 * time.Second)
	f.sync("s1")
	if got := taintsOf(f.refresh("s1")); strings.Join(got, ",") != "dedicated:NoSchedule,seed.gardener.cloud/not-ready:NoSchedule,seed.gardener.cloud/not-ready:NoExecute" {
		t.Errorf("taints after the delay %v", got)
	}

	ready := f.refresh("s1").DeepCopy()
	ready.Status.Conditions[0].Status = v1alpha1.ConditionTrue
	if _, err := f.client.CoreV1alpha1().Seeds().UpdateStatus(context.Background(), ready, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.refresh("s1")
	f.sync("s1")
	if got := taintsOf(f.refresh("s1")); strings.Join(got, ",") != "dedicated:NoSchedule" {
		t.Errorf("taints when ready again %v", got)
	}
}

func TestHealthTaintsRetryOnConflict(t *testing.T) {
	seed := notReady(coretest.MakeSeed("s1").ResourceVersion("1").Obj())
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) { c.HealthTaints.Enabled = true }, seed)
	conflicts := 0
	f.client.PrependReactor("patch", "seeds", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "" && conflicts == 0 {
			conflicts++
			// Someone cordoned the seed meanwhile.
			cur, _ := f.client.Tracker().Get(schema.GroupVersionResource{Group: "core.graft.dev", Version: "v1alpha1", Resource: "seeds"}, "", "s1")
			s := cur.(*v1alpha1.Seed).DeepCopy()
			s.Spec.Taints = []v1alpha1.SeedTaint{{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoSchedule}}
			s.ResourceVersion = "2"
			if err := f.client.Tracker().Update(schema.GroupVersionResource{Group: "core.graft.dev", Version: "v1alpha1", Resource: "seeds"}, s, ""); err != nil {
				t.Fatal(err)
			}
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "core.graft.dev", Resource: "seeds"}, "s1", nil)
		}
		return false, nil, nil
	})
	f.sync("s1")
	if conflicts != 1 {
		t.Fatalf("conflict reactor ran %d times", conflicts)
	}
	got := taintsOf(f.refresh("s1"))
	if strings.Join(got, ",") != "seed.gardener.cloud/unschedulable:NoSchedule,seed.gardener.cloud/not-ready:NoSchedule" {
		t.Errorf("taints after retry %v: the concurrent change must be kept", got)
	}
}

// BenchmarkShootEvent measures what one shoot event costs the annotator:
// the usage update and the coalesced enqueue of the seeds it changed.
func BenchmarkShootEvent(b *testing.B) {
	f := newFixture(b, nil, coretest.MakeSeed("s1").ResourceVersion("1").Obj(), coretest.MakeSeed("s2").ResourceVersion("1").Obj())
	shoots := make([]*v1alpha1.Shoot, 1000)
	for i := range shoots {
		seed := "s1"
		if i%2 == 1 {
			seed = "s2"
		}
		shoots[i] = coretest.MakeShoot("garden-dev", fmt.Sprintf("shoot-%d", i)).Seed(seed).Obj()
	}
	f.sync("s1") // a recent write: later changes are held back with AddAfter
	for i := 0; b.Loop(); i++ {
		s := shoots[i%len(shoots)]
		f.c.shootChanged(s)
		f.c.shootDeleted(s)
	}
}

// TestSyncedMeansEveryShootIsCounted: the controller counts as synced only
// once its shoot handler has counted every listed shoot; the informers'
// stores holding them is not enough, or the first sync of a seed would write
// too low a usage. The test looks the moment HasSynced first holds, in a
// tight loop rather than WaitForCacheSync's 100ms poll.
func TestSyncedMeansEveryShootIsCounted(t *testing.T) {
	const n = 5000
	objs := []runtime.Object{coretest.MakeSeed("a").ResourceVersion("1").Obj()}
	for i := range n {
		objs = append(objs, coretest.MakeShoot("garden-dev", fmt.Sprintf("s-%04d", i)).Seed("a").Obj())
	}
	cfg := &configv1alpha1.CapacityAnnotatorConfiguration{}
	cfg.Default()
	client := fake.NewSimpleClientset(objs...)
	factory := graftinformers.NewSharedInformerFactory(client, 0)
	c, err := newController(controllerOptions{Client: garden.NewGraft(client), Seeds: factory.Core().V1alpha1().Seeds().Informer(), Shoots: factory.Core().V1alpha1().Shoots().Informer(),
		Recorder: record.NewFakeRecorder(100), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		factory.Shutdown()
		c.queue.ShutDown()
	}()
	factory.Start(ctx.Done())
	deadline := time.Now().Add(time.Minute)
	for !c.HasSynced() {
		if time.Now().After(deadline) {
			t.Fatal("never synced")
		}
		goruntime.Gosched()
	}
	if got := c.Usage("a"); got != n {
		t.Errorf("usage of seed a once synced: %d, want %d", got, n)
	}
}
