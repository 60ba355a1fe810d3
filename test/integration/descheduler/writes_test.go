//go:build integration

package descheduler

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
	"github.com/graft-dev/graft/test/perf/writes"
)

// TestDrainWritesPerMove drains a seed of shoots with graft-descheduler and
// graft-scheduler running and counts every write both make, through the
// counting transport make bench-drain counts with (Leases apart): a move is
// four writes (the eviction, its Descheduled Event, the binding, Scheduled),
// none refused, so no binding conflicts with or fails a test against the
// eviction; the seed gets one Descheduled Event per pass on top, naming the
// shoots.
func TestDrainWritesPerMove(t *testing.T) {
	const n = 40
	ctx, env, l := setup(t, "writes")
	for _, s := range []string{"a", "b", "c"} {
		must[*v1alpha1.Seed](t)(l.Seed(ctx, s, -1))
	}
	var shoots []*v1alpha1.Shoot
	for i := range n {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("s-%02d", i), "a"))
	}
	if err := l.CreateShoots(ctx, shoots, 8); err != nil {
		t.Fatal(err)
	}
	counter := writes.NewCounter()
	counted := counter.Wrap(env.Config())
	sched, err := fixture.StartScheduler(ctx, counted, "writes-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sched.Stop() })
	// The descheduler's writes are counted on their own too, to tell its
	// patches of shoots (evictions) from the scheduler's (bindings).
	evictions := writes.NewCounter()
	d := startDeschedulerWith(t, ctx, evictions.Wrap(counted), "writes-descheduler", "d1", fast)
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })

	counter.Reset()
	evictions.Reset()
	// As graftctl drain taints: cordoned, and NoExecute with timeAdded, so
	// that the descheduler has no taint clock to stamp.
	now := metav1.Now()
	if err := l.SetTaints(ctx, "a",
		v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoSchedule},
		v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TimeAdded: &now},
	); err != nil {
		t.Fatal(err)
	}
	a := l.SeedName("a")
	var seedEvents int32
	eventually(t, ctx, 2*time.Minute, "every shoot moved off seed a, with its Descheduled and Scheduled Events and the seed's", func() (bool, error) {
		for _, s := range shootsByName(t, ctx, l) {
			if seed := fixture.Of(&s); seed == "" || seed == a {
				return false, nil
			}
		}
		perShoot := map[string]map[string]bool{}
		for _, reason := range []string{descheduler.EventDescheduled, scheduler.ReasonScheduled} {
			events, err := l.Events(ctx, reason)
			if err != nil {
				return false, err
			}
			for _, e := range events {
				if e.InvolvedObject.Kind == "Shoot" {
					if perShoot[e.InvolvedObject.Name] == nil {
						perShoot[e.InvolvedObject.Name] = map[string]bool{}
					}
					perShoot[e.InvolvedObject.Name][reason] = true
				}
			}
		}
		// A seed is cluster-scoped: its Events are in the default namespace.
		onSeed, err := l.Kube.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=Seed,involvedObject.name=" + a + ",reason=" + descheduler.EventDescheduled,
		})
		if err != nil {
			return false, err
		}
		seedEvents = 0
		for _, e := range onSeed.Items {
			seedEvents += max(e.Count, 1)
		}
		for _, s := range shoots {
			if len(perShoot[s.Name]) != 2 {
				return false, nil
			}
		}
		return seedEvents > 0, nil
	})
	// Stopping writes whatever Events are still queued.
	if err := d.Stop(); err != nil {
		t.Fatalf("descheduler: %v", err)
	}
	if err := sched.Stop(); err != nil {
		t.Fatalf("scheduler: %v", err)
	}
	stats := counter.Stats()
	t.Logf("writes for %d moves: %s; %d Descheduled Events on the seed", n, stats, seedEvents)

	if stats.Failed.Total() != 0 {
		t.Errorf("refused writes: %s (answers %v), want none", stats.Failed, stats.Answers)
	}
	evicted := evictions.Stats().OK[writes.Kind{Verb: "patch", Resource: "shoots"}]
	if evicted != n {
		t.Errorf("%d shoot patches by the descheduler, want %d: one eviction per shoot", evicted, n)
	}
	if got := stats.OK[writes.Kind{Verb: "patch", Resource: "shoots"}] - evicted; got != n {
		t.Errorf("%d shoot patches by the scheduler, want %d: one binding per shoot", got, n)
	}
	if got := stats.OK[writes.Kind{Verb: "update", Resource: "shoots"}]; got != 0 {
		t.Errorf("%d shoot updates, want none", got)
	}
	events := stats.OK[writes.Kind{Verb: "create", Resource: "events"}] + stats.OK[writes.Kind{Verb: "patch", Resource: "events"}]
	if want := 2*n + int(seedEvents); events != want {
		t.Errorf("%d Event writes, want %d: Descheduled and Scheduled on each shoot and %d on the seed", events, want, seedEvents)
	}
	// One pass evicts them all here; a second may run while the first's
	// evictions reach the informer, and announces only what it evicts.
	if seedEvents > 2 {
		t.Errorf("%d Descheduled Events on the seed, want one per pass that evicted", seedEvents)
	}
	perMove := float64(stats.OK.Total()+stats.Failed.Total()-int(seedEvents)) / n
	if perMove > 4 {
		t.Errorf("%.2f writes per move besides the seed's Events, want at most 4: %s", perMove, stats)
	}
	if total := stats.OK.Total() + stats.Failed.Total(); total > 4*n+int(seedEvents) {
		t.Errorf("%d writes in all for %d moves, want at most %d", total, n, 4*n+int(seedEvents))
	}
}
