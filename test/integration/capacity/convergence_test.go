//go:build integration

package capacity

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/framework"
)

// landscapeSeeds is the size of TestLandscapeConvergesWithOneWritePerSeed;
// -args -landscape-seeds=1000 measures a larger landscape.
var landscapeSeeds = flag.Int("landscape-seeds", 300, "seeds of TestLandscapeConvergesWithOneWritePerSeed")

// reconcilesMetric counts the annotator's seed syncs; it is incremented once
// a sync, its writes included, is done.
const reconcilesMetric = "graft_capacity_annotator_reconciles_total"

// TestLandscapeConvergesWithOneWritePerSeed starts the annotator on a
// landscape of seeds and shoots without status and counts, through its
// transport, the status writes the API server accepted: one per seed, one
// sync per seed (the event of its own write queues nothing); a later
// binding costs its seed one write and no other seed any; a restarted
// annotator, which syncs every seed again, writes nothing.
func TestLandscapeConvergesWithOneWritePerSeed(t *testing.T) {
	n := *landscapeSeeds
	ctx := context.Background()
	run := name("landscape")
	seeds := landscapeNames(run, n)
	createLandscape(t, seeds, run, true)
	// Two shoots per seed on average, unevenly: some seeds have none.
	ns := namespace(t)
	want := map[string]int{}
	seedOf := func(i int) string { return seeds[(i*i)%n] }
	for i := range 2 * n {
		want[seedOf(i)]++
	}
	parallel(t, 2*n, 16, func(i int) error {
		return createShoot(t, ctx, ns, fmt.Sprintf("shoot-%05d", i), ptr.To(seedOf(i)))
	})
	// Shoots outlive their test (no namespace controller runs): these would
	// make later annotators sync seed names that no longer exist.
	t.Cleanup(func() {
		if err := graft(t).CoreV1alpha1().Shoots(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Errorf("deleting the shoots: %v", err)
		}
	})
	mine := map[string]bool{}
	for _, s := range seeds {
		mine[s] = true
	}
	isMine := func(seed string) bool { return mine[seed] }
	health := func(c *configv1alpha1.CapacityAnnotatorConfiguration) { c.HealthTaints.Enabled = true }

	writes := &seedWrites{}
	began := time.Now()
	first := startAnnotatorWith(t, health, writes.wrap)
	total := waitForLandscape(t, first, run, n, want)
	status, reconciles := writes.count("status", isMine), reconciled(t, first)
	t.Logf("%d seeds (%d seed names in the garden), %d shoots: converged in %v with %d status writes (%.3f per seed) and %.0f syncs (%.3f per seed name)",
		n, total, 2*n, time.Since(began).Round(time.Millisecond), status, float64(status)/float64(n), reconciles, reconciles/float64(total))
	if float64(status) > 1.01*float64(n) {
		t.Errorf("%d status writes for %d seeds, want at most 1.01 per seed; seeds written more than once: %v",
			status, n, writes.repeated("status", isMine))
	}
	if reconciles > 1.01*float64(total) {
		t.Errorf("%.0f syncs for %d seed names, want at most 1.01 per seed name", reconciles, total)
	}
	if taints := writes.count("", isMine); taints != 0 {
		t.Errorf("%d taint writes to ready seeds", taints)
	}

	// One more shoot on one seed: that seed's usage is written once.
	target := seeds[0]
	before := writes.count("status", isMine)
	if err := createShoot(t, ctx, ns, "shoot-later", ptr.To(target)); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, "the later shoot's sync", waitTimeout, func(context.Context) (bool, error) {
		r := reconciled(t, first)
		return r >= reconciles+1, fmt.Errorf("%.0f syncs", r)
	})
	waitForStatus(t, target, "", "", fmt.Sprint(want[target]+1))
	if got := writes.count("status", func(s string) bool { return s == target }); got != 2 {
		t.Errorf("seed %s written %d times in all, want 2 (its first status, then the later shoot)", target, got)
	}
	if got := writes.count("status", isMine) - before; got != 1 {
		t.Errorf("%d status writes for one later shoot, want 1", got)
	}

	// A restarted annotator (a new leader) syncs every seed once more and
	// finds nothing to write.
	first.stop()
	rewrites := &seedWrites{}
	second := startAnnotatorWith(t, health, rewrites.wrap)
	framework.WaitFor(t, "the restarted annotator to sync every seed", waitTimeout, func(context.Context) (bool, error) {
		r := reconciled(t, second)
		return r >= float64(total), fmt.Errorf("%.0f of %d seeds synced", r, total)
	})
	if got := rewrites.count("status", isMine) + rewrites.count("", isMine); got != 0 {
		t.Errorf("the restarted annotator wrote %d times to converged seeds: %v", got, rewrites.repeated("status", func(string) bool { return true }))
	}
}

// waitForLandscape waits until each of the n seeds labelled landscape=run
// has the default capacity and its shoots (want, by seed) as usage, and the
// annotator has synced every seed name once; it returns how many that is.
func waitForLandscape(t *testing.T, inst *instance, run string, n int, want map[string]int) int {
	t.Helper()
	framework.WaitFor(t, "every seed's status", waitTimeout, func(ctx context.Context) (bool, error) {
		list, err := graft(t).CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{LabelSelector: "landscape=" + run})
		if err != nil {
			return false, err
		}
		for _, s := range list.Items {
			if quantity(s.Status.Allocatable) != "200" || quantity(s.Status.Usage) != fmt.Sprint(want[s.Name]) {
				return false, fmt.Errorf("seed %s: allocatable %s usage %s", s.Name, quantity(s.Status.Allocatable), quantity(s.Status.Usage))
			}
		}
		return len(list.Items) == n, fmt.Errorf("%d of %d seeds", len(list.Items), n)
	})
	names := seedNames(t)
	framework.WaitFor(t, "a sync of every seed", waitTimeout, func(context.Context) (bool, error) {
		r := reconciled(t, inst)
		return r >= float64(names), fmt.Errorf("%.0f of %d seeds synced", r, names)
	})
	return names
}

// seedNames counts the seed names an annotator starting now syncs: every
// seed, and every seed name a shoot counts on (other tests' shoots may
// name seeds deleted since).
func seedNames(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	seeds, err := graft(t).CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shoots, err := graft(t).CoreV1alpha1().Shoots(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range seeds.Items {
		names[s.Name] = true
	}
	for _, s := range shoots.Items {
		for _, seed := range []*string{s.Spec.SeedName, s.Status.SeedName} {
			if seed != nil {
				names[*seed] = true
			}
		}
	}
	return len(names)
}

func reconciled(t *testing.T, inst *instance) float64 {
	t.Helper()
	r, err := inst.counterTotal(reconcilesMetric)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// landscapeNames names n seeds of the landscape run.
func landscapeNames(run string, n int) []string {
	seeds := make([]string, n)
	for i := range seeds {
		seeds[i] = fmt.Sprintf("%s-%04d", run, i)
	}
	return seeds
}

// createLandscape creates the seeds, labelled landscape=run, and deletes
// them when the test ends.
func createLandscape(t *testing.T, seeds []string, run string, ready bool) {
	t.Helper()
	client := graft(t)
	parallel(t, len(seeds), 16, func(i int) error {
		return createLandscapeSeed(context.Background(), client, seeds[i], run, ready)
	})
	t.Cleanup(func() {
		parallel(t, len(seeds), 16, func(i int) error {
			return client.CoreV1alpha1().Seeds().Delete(context.Background(), seeds[i], metav1.DeleteOptions{})
		})
	})
}

// createLandscapeSeed creates a seed labelled landscape=run without the
// annotator's status; when ready, its agent has reported it ready.
func createLandscapeSeed(ctx context.Context, client graftclient.Interface, name, run string, ready bool) error {
	seed := coretest.MakeSeed(name).Label("landscape", run).Obj()
	created, err := client.CoreV1alpha1().Seeds().Create(ctx, seed, metav1.CreateOptions{})
	if err != nil || !ready {
		return err
	}
	now := metav1.Now()
	created.Status.Conditions = []v1alpha1.Condition{{Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue, LastTransitionTime: now, LastUpdateTime: now, Reason: "Test"}}
	created.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded, LastUpdateTime: now}
	_, err = client.CoreV1alpha1().Seeds().UpdateStatus(ctx, created, metav1.UpdateOptions{FieldManager: "gardenlet"})
	return err
}

// TestLaggingViewOfSeedsWritesStatusOnce runs the annotator with a view of
// seeds that shows its writes only seconds after it made them, as on a
// loaded API server, on seeds whose agent has not reported yet: each is
// tainted NoSchedule and its status written, and NoExecute follows after the
// eviction delay, before the view shows either write. The status is written
// once per seed, each taint once, and no write is refused for a stale
// resourceVersion.
func TestLaggingViewOfSeedsWritesStatusOnce(t *testing.T) {
	const n = 100
	const evictionDelay = 2 * time.Second
	// The lag outlasts the eviction delay: the sync adding NoExecute is
	// decided before the first sync's writes are seen.
	const lag = evictionDelay + 3*time.Second
	run := name("lagging")
	seeds := landscapeNames(run, n)
	createLandscape(t, seeds, run, false)
	mine := map[string]bool{}
	for _, s := range seeds {
		mine[s] = true
	}
	isMine := func(seed string) bool { return mine[seed] }

	others := seedNames(t) - n
	writes := &seedWrites{}
	inst := startAnnotatorWith(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.HealthTaints = configv1alpha1.HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &metav1.Duration{Duration: evictionDelay}}
	}, func(rt http.RoundTripper) http.RoundTripper { return writes.wrap(lagSeedWatch(lag)(rt)) })
	wantTaints := v1alpha1.SeedTaintNotReady + ":NoSchedule," + v1alpha1.SeedTaintNotReady + ":NoExecute"
	framework.WaitFor(t, "every seed tainted NoExecute with its status", waitTimeout, func(ctx context.Context) (bool, error) {
		list, err := graft(t).CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{LabelSelector: "landscape=" + run})
		if err != nil {
			return false, err
		}
		for _, s := range list.Items {
			if quantity(s.Status.Allocatable) != "200" || quantity(s.Status.Usage) != "0" || taintKeys(&s) != wantTaints {
				return false, fmt.Errorf("seed %s: allocatable %s usage %s taints %s", s.Name, quantity(s.Status.Allocatable), quantity(s.Status.Usage), taintKeys(&s))
			}
		}
		return len(list.Items) == n, fmt.Errorf("%d of %d seeds", len(list.Items), n)
	})
	// Two syncs per seed, the first and the one the eviction delay queued,
	// and one of every other seed name.
	framework.WaitFor(t, "two syncs of every seed", waitTimeout, func(context.Context) (bool, error) {
		r := reconciled(t, inst)
		return r >= float64(2*n+others), fmt.Errorf("%.0f of %d syncs", r, 2*n+others)
	})
	status, taints := writes.count("status", isMine), writes.count("", isMine)
	refused := writes.refusals(isMine)
	t.Logf("%d seeds: %d status writes, %d taint writes, %d writes refused, %.0f syncs", n, status, taints, refused, reconciled(t, inst))
	if float64(status) > 1.01*n {
		t.Errorf("%d status writes for %d seeds, want at most 1.01 per seed; seeds written more than once: %v",
			status, n, writes.repeated("status", isMine))
	}
	if taints != 2*n {
		t.Errorf("%d taint writes for %d seeds, want 2 per seed (NoSchedule, then NoExecute)", taints, n)
	}
	if refused != 0 {
		t.Errorf("%d writes refused: the annotator wrote on an outdated resourceVersion", refused)
	}
}
