//go:build integration

package capacity

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/test/framework"
)

func shoots(n string) corev1.ResourceList {
	return corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse(n)}
}

func annotate(t *testing.T, seed, key string, value *string) {
	t.Helper()
	v := "null"
	if value != nil {
		v = fmt.Sprintf("%q", *value)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, key, v)
	if _, err := graft(t).CoreV1alpha1().Seeds().Patch(context.Background(), seed, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("annotating seed %s: %v", seed, err)
	}
}

// TestCapacityFromDefaultsOverridesAndAnnotations checks that capacity and
// allocatable land in status from each source, that an annotation changes
// one seed at once, and that the agent's conditions and lastOperation stay.
func TestCapacityFromDefaultsOverridesAndAnnotations(t *testing.T) {
	plain := createReadySeed(t, name("plain"), nil, nil)
	small := createReadySeed(t, name("small"), map[string]string{"size": "small"}, nil)
	annotated := createReadySeed(t, name("annotated"), map[string]string{"size": "small"},
		map[string]string{v1alpha1.AnnotationCapacityShoots: "30", v1alpha1.AnnotationReservedShoots: "35"})
	inst := startAnnotator(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.Reserved = shoots("10")
		c.Overrides = []configv1alpha1.CapacityOverride{
			{SeedSelector: metav1.LabelSelector{MatchLabels: map[string]string{"size": "small"}}, Capacity: shoots("20"), Reserved: shoots("5")},
			{SeedSelector: metav1.LabelSelector{}, Capacity: shoots("999")}, // never reached for small seeds
		}
	})

	got := waitForStatus(t, plain.Name, "999", "989", "0")
	if got.Status.LastOperation == nil || len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Status != v1alpha1.ConditionTrue {
		t.Errorf("the agent's status was clobbered: %+v", got.Status)
	}
	owned := false
	for _, mf := range got.ManagedFields {
		if mf.Manager == capacity.FieldManager && mf.Subresource == "status" && strings.Contains(string(mf.FieldsV1.Raw), `"f:allocatable"`) {
			owned = true
			if strings.Contains(string(mf.FieldsV1.Raw), "f:conditions") || strings.Contains(string(mf.FieldsV1.Raw), "f:lastOperation") {
				t.Errorf("the annotator owns fields it must not write: %s", mf.FieldsV1.Raw)
			}
		}
	}
	if !owned {
		t.Errorf("status.allocatable not owned by field manager %s: %+v", capacity.FieldManager, got.ManagedFields)
	}
	waitForStatus(t, small.Name, "20", "15", "0")
	// reserved 35 > capacity 30: allocatable is zero, not negative.
	waitForStatus(t, annotated.Name, "30", "0", "0")

	// One command changes one seed.
	annotate(t, plain.Name, v1alpha1.AnnotationCapacityShoots, ptr.To("120"))
	waitForStatus(t, plain.Name, "120", "110", "0")
	annotate(t, plain.Name, v1alpha1.AnnotationCapacityShoots, nil)
	waitForStatus(t, plain.Name, "999", "989", "0")

	framework.WaitFor(t, "the capacity metrics", waitTimeout, func(context.Context) (bool, error) {
		c, err := inst.gauge("graft_seed_capacity", small.Name)
		if err != nil {
			return false, err
		}
		a, err := inst.gauge("graft_seed_allocatable", small.Name)
		if err != nil {
			return false, err
		}
		return c == 20 && a == 15, fmt.Errorf("capacity %v allocatable %v", c, a)
	})
	framework.WaitFor(t, "an AllocatableChanged event", waitTimeout, func(ctx context.Context) (bool, error) {
		ev, err := eventsFor(t, ctx, plain.Name, capacity.ReasonAllocatableChanged)
		return len(ev) > 0, err
	})
}

// TestRespectSeedCapacity leaves capacity published by the seed's agent alone.
func TestRespectSeedCapacity(t *testing.T) {
	seed := createReadySeed(t, name("agent"), nil, nil)
	seed.Status.Capacity = shoots("80")
	seed.Status.Allocatable = shoots("70")
	if _, err := graft(t).CoreV1alpha1().Seeds().UpdateStatus(context.Background(), seed, metav1.UpdateOptions{FieldManager: "gardenlet"}); err != nil {
		t.Fatal(err)
	}
	other := createReadySeed(t, name("noagent"), nil, nil)
	startAnnotator(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) { c.RespectSeedCapacity = true })
	waitForStatus(t, other.Name, "200", "200", "0")
	waitForStatus(t, seed.Name, "80", "70", "0")
}

// TestUsageFollowsBindsUnbindsAndMigrations counts shoots by the algorithm's
// rule: spec.seedName, plus status.seedName while a migration is in flight.
func TestUsageFollowsBindsUnbindsAndMigrations(t *testing.T) {
	ctx := context.Background()
	client := graft(t)
	s1 := createReadySeed(t, name("s1"), nil, map[string]string{v1alpha1.AnnotationCapacityShoots: "3"})
	s2 := createReadySeed(t, name("s2"), nil, nil)
	ns := namespace(t)
	for i := range 4 {
		if err := createShoot(t, ctx, ns, fmt.Sprintf("shoot-%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Shoots bound before the annotator starts are counted from the initial list.
	if err := bind(ctx, client, ns, "shoot-0", &s1.Name); err != nil {
		t.Fatal(err)
	}
	inst := startAnnotator(t, nil)
	waitForStatus(t, s1.Name, "3", "3", "1")
	waitForStatus(t, s2.Name, "200", "200", "0")

	for _, n := range []string{"shoot-1", "shoot-2"} {
		if err := bind(ctx, client, ns, n, &s1.Name); err != nil {
			t.Fatal(err)
		}
		if err := setStatusSeed(ctx, client, ns, n, s1.Name); err != nil {
			t.Fatal(err)
		}
	}
	waitForStatus(t, s1.Name, "", "", "3")

	// Migration of shoot-1 from s1 to s2: counted on both while in flight.
	if err := bind(ctx, client, ns, "shoot-1", &s2.Name); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, s2.Name, "", "", "1")
	waitForStatus(t, s1.Name, "", "", "3")
	if err := setStatusSeed(ctx, client, ns, "shoot-1", s2.Name); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, s1.Name, "", "", "2")
	waitForStatus(t, s2.Name, "", "", "1")

	// Over capacity: 4 shoots on a seed that allocates 3.
	for _, n := range []string{"shoot-1", "shoot-3"} {
		if err := bind(ctx, client, ns, n, &s1.Name); err != nil {
			t.Fatal(err)
		}
	}
	waitForStatus(t, s1.Name, "", "", "4") // shoot-1's status still says s2
	waitForStatus(t, s2.Name, "", "", "1")
	framework.WaitFor(t, "an OverCapacity event", waitTimeout, func(ctx context.Context) (bool, error) {
		ev, err := eventsFor(t, ctx, s1.Name, capacity.ReasonOverCapacity)
		return len(ev) > 0, err
	})

	// Unbind and delete.
	if err := bind(ctx, client, ns, "shoot-3", nil); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1alpha1().Shoots(ns).Delete(ctx, "shoot-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, s1.Name, "", "", "2")
	if err := client.CoreV1alpha1().Shoots(ns).Delete(ctx, "shoot-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, s1.Name, "", "", "1")
	waitForStatus(t, s2.Name, "", "", "0")
	framework.WaitFor(t, "the usage metric", waitTimeout, func(context.Context) (bool, error) {
		u, err := inst.gauge("graft_seed_usage", s1.Name)
		return err == nil && u == 1, fmt.Errorf("usage %v: %v", u, err)
	})
}

// TestBurstOfBindsIsCoalesced binds 1,000 shoots to one seed and counts the
// seed's writes through its resourceVersion changes (MODIFIED watch events).
func TestBurstOfBindsIsCoalesced(t *testing.T) {
	const total = 1000
	const workers = 16
	ctx := context.Background()
	client := graft(t)
	seed := createReadySeed(t, name("burst"), nil, map[string]string{v1alpha1.AnnotationCapacityShoots: "2000"})
	ns := namespace(t)
	parallel(t, total, workers, func(i int) error { return createShoot(t, ctx, ns, fmt.Sprintf("shoot-%04d", i), nil) })

	startAnnotator(t, nil)
	start := waitForStatus(t, seed.Name, "2000", "2000", "0")

	w, err := client.CoreV1alpha1().Seeds().Watch(ctx, metav1.ListOptions{
		FieldSelector:   "metadata.name=" + seed.Name,
		ResourceVersion: start.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	type version struct{ annotation, capacity, usage string }
	var mu sync.Mutex
	var versions []version
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for ev := range w.ResultChan() {
			if ev.Type != watch.Modified {
				continue
			}
			s := ev.Object.(*v1alpha1.Seed)
			mu.Lock()
			versions = append(versions, version{s.Annotations[v1alpha1.AnnotationCapacityShoots], quantity(s.Status.Capacity), quantity(s.Status.Usage)})
			mu.Unlock()
		}
	}()

	began := time.Now()
	parallel(t, total, workers, func(i int) error { return bind(ctx, client, ns, fmt.Sprintf("shoot-%04d", i), &seed.Name) })
	burst := time.Since(began)
	waitForStatus(t, seed.Name, "2000", "2000", fmt.Sprint(total))
	// A late extra write would come from a sync queued during the burst, due
	// at the latest one sync period after the annotator's last write. A
	// marker change of the seed's capacity annotation makes it write once
	// more, and that write waits out the same sync period: once the watch
	// has delivered it, every write queued before has been delivered too.
	// The marker's own versions (the annotation edit and its status write)
	// are not counted.
	if err := retryConflict(func() error {
		cur, err := client.CoreV1alpha1().Seeds().Get(ctx, seed.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Annotations[v1alpha1.AnnotationCapacityShoots] = "2001"
		_, err = client.CoreV1alpha1().Seeds().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, "the watch to deliver the annotator's write for the marker", waitTimeout, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range versions {
			if v.capacity == "2001" {
				return true, nil
			}
		}
		return false, nil
	})
	w.Stop()
	<-watchDone

	mu.Lock()
	defer mu.Unlock()
	var usages []string
	markerEdit := false
	for _, v := range versions {
		if v.capacity == "2001" {
			break
		}
		if v.annotation == "2001" && !markerEdit {
			markerEdit = true // the test's own edit, not a write of the annotator
			continue
		}
		usages = append(usages, v.usage)
	}
	// One write per sync period while the burst lasts, plus the first one
	// and the final one after it.
	bound := int(math.Ceil(burst.Seconds()/testSyncPeriod.Seconds())) + 2
	t.Logf("%d binds in %v gave %d seed writes (bound %d), usage after each: %v", total, burst.Round(time.Millisecond), len(usages), bound, usages)
	if len(usages) == 0 || len(usages) > bound {
		t.Errorf("%d seed writes for %d binds in %v, want 1 to %d", len(usages), total, burst, bound)
	}
	if last := usages[len(usages)-1]; last != fmt.Sprint(total) {
		t.Errorf("last write has usage %s, want %d", last, total)
	}
}

// parallel runs fn for 0..n-1 on the given number of workers.
func parallel(t *testing.T, n, workers int, fn func(i int) error) {
	t.Helper()
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func taintKeys(s *v1alpha1.Seed) string {
	var out []string
	for _, t := range s.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return strings.Join(out, ",")
}

func waitForTaints(t *testing.T, seed, want string) {
	t.Helper()
	framework.WaitFor(t, fmt.Sprintf("seed %s to have taints %q", seed, want), waitTimeout, func(ctx context.Context) (bool, error) {
		s, err := graft(t).CoreV1alpha1().Seeds().Get(ctx, seed, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got := taintKeys(s)
		return got == want, fmt.Errorf("taints %q", got)
	})
}

// TestNotReadyTaints taints seeds that are not ready, NoExecute after the
// eviction delay, and removes both when the seed is ready again, keeping the
// operator's own taints.
func TestNotReadyTaints(t *testing.T) {
	const delay = 3 * time.Second
	seed := createReadySeed(t, name("health"), nil, nil)
	if _, err := graft(t).CoreV1alpha1().Seeds().Patch(context.Background(), seed.Name, types.MergePatchType,
		[]byte(`{"spec":{"taints":[{"key":"dedicated","value":"ops","effect":"NoSchedule"}]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	noLastOp := createReadySeed(t, name("nolastop"), nil, nil)
	setHealth(t, noLastOp, v1alpha1.ConditionTrue, false)
	startAnnotator(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.HealthTaints = configv1alpha1.HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &metav1.Duration{Duration: delay}}
	})
	waitForStatus(t, seed.Name, "200", "200", "0")
	if s, _ := graft(t).CoreV1alpha1().Seeds().Get(context.Background(), seed.Name, metav1.GetOptions{}); taintKeys(s) != "dedicated:NoSchedule" {
		t.Errorf("a ready seed was tainted: %s", taintKeys(s))
	}
	// The seed without lastOperation may already be past the eviction delay.
	framework.WaitFor(t, "the seed without lastOperation to be tainted", waitTimeout, func(ctx context.Context) (bool, error) {
		s, err := graft(t).CoreV1alpha1().Seeds().Get(ctx, noLastOp.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got := taintKeys(s)
		return strings.HasPrefix(got, v1alpha1.SeedTaintNotReady+":NoSchedule"), fmt.Errorf("taints %q", got)
	})

	setHealth(t, seed, v1alpha1.ConditionFalse, true)
	waitForTaints(t, seed.Name, "dedicated:NoSchedule,"+v1alpha1.SeedTaintNotReady+":NoSchedule")
	waitForTaints(t, seed.Name, "dedicated:NoSchedule,"+v1alpha1.SeedTaintNotReady+":NoSchedule,"+v1alpha1.SeedTaintNotReady+":NoExecute")
	// The delay counts from the condition's lastTransitionTime, which the API
	// stores with second precision: measure from the stored value.
	tainted := time.Now()
	cur, err := graft(t).CoreV1alpha1().Seeds().Get(context.Background(), seed.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cur.Status.Conditions {
		if c.Type == v1alpha1.SeedGardenletReady {
			if waited := tainted.Sub(c.LastTransitionTime.Time); waited < delay {
				t.Errorf("NoExecute %v after the seed became not ready, before the eviction delay %v", waited, delay)
			}
		}
	}
	framework.WaitFor(t, "a NotReadyEviction event", waitTimeout, func(ctx context.Context) (bool, error) {
		ev, err := eventsFor(t, ctx, seed.Name, capacity.ReasonNotReadyEviction)
		return len(ev) > 0, err
	})

	setHealth(t, seed, v1alpha1.ConditionTrue, true)
	waitForTaints(t, seed.Name, "dedicated:NoSchedule")
	setHealth(t, noLastOp, v1alpha1.ConditionTrue, true)
	waitForTaints(t, noLastOp.Name, "")
}

// TestInvalidAnnotationKeepsTheSeedAsItWas checks that an unparsable
// annotation gives a Warning Event, leaves capacity and allocatable at their
// last good values, and does not disturb other seeds.
func TestInvalidAnnotationKeepsTheSeedAsItWas(t *testing.T) {
	bad := createReadySeed(t, name("bad"), nil, map[string]string{v1alpha1.AnnotationCapacityShoots: "50"})
	good := createReadySeed(t, name("good"), nil, nil)
	ns := namespace(t)
	startAnnotator(t, nil)
	waitForStatus(t, bad.Name, "50", "50", "0")
	waitForStatus(t, good.Name, "200", "200", "0")

	annotate(t, bad.Name, v1alpha1.AnnotationCapacityShoots, ptr.To("fifty"))
	annotate(t, good.Name, v1alpha1.AnnotationCapacityShoots, ptr.To("60"))
	framework.WaitFor(t, "an InvalidCapacityAnnotation event", waitTimeout, func(ctx context.Context) (bool, error) {
		ev, err := eventsFor(t, ctx, bad.Name, capacity.ReasonInvalidAnnotation)
		if err != nil || len(ev) == 0 {
			return false, err
		}
		if ev[0].Type != corev1.EventTypeWarning || !strings.Contains(ev[0].Message, `"fifty"`) {
			return false, fmt.Errorf("unexpected event %+v", ev[0])
		}
		return true, nil
	})
	waitForStatus(t, good.Name, "60", "60", "0")
	// Usage still follows binds on the seed with the bad annotation.
	if err := createShoot(t, context.Background(), ns, "shoot", &bad.Name); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, bad.Name, "50", "50", "1")
}

// TestSeedPrinterColumns checks that `kubectl get seeds` shows usage and
// allocatable: the API server's Table view of seeds has both columns filled.
func TestSeedPrinterColumns(t *testing.T) {
	seed := createReadySeed(t, name("columns"), nil, map[string]string{v1alpha1.AnnotationReservedShoots: "20"})
	startAnnotator(t, nil)
	waitForStatus(t, seed.Name, "200", "180", "0")

	raw, err := framework.Shared(t).KubeClient().CoreV1().RESTClient().Get().
		AbsPath("/apis/core.graft.dev/v1alpha1/seeds", seed.Name).
		SetHeader("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1").
		DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("table rows %d, want 1", len(table.Rows))
	}
	cells := map[string]any{}
	for i, c := range table.ColumnDefinitions {
		cells[c.Name] = table.Rows[0].Cells[i]
	}
	if fmt.Sprint(cells["Shoots"]) != "0" || fmt.Sprint(cells["Allocatable"]) != "180" {
		t.Errorf("printer columns Shoots=%v Allocatable=%v, want 0 and 180 (all: %v)", cells["Shoots"], cells["Allocatable"], cells)
	}
}
