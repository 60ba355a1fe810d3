//go:build integration

package scheduler

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func TestSameRegion(t *testing.T) {
	f := newFixture(t)
	f.createSeed("a", "eu-west-1", nil, nil)
	f.createSeed("b", "eu-west-1", nil, nil)
	f.createSeed("c", "us-east-1", nil, nil)
	other := f.newShoot("other-scheduler", "eu-west-1")
	other.Spec.SchedulerName = ptr.To("someone-else")
	other = f.createShoot(other)
	prebound := f.newShoot("prebound", "eu-west-1")
	prebound.Spec.SeedName = ptr.To(f.name + "-c")
	prebound = f.createShoot(prebound)

	startScheduler(t, "sched-same-region", nil)

	// The pre-bound shoot counts on c; a and b tie at zero, a sorts first.
	f.createShoot(f.newShoot("first", "eu-west-1"))
	if got, want := f.waitForSeed("first", time.Minute), f.name+"-a"; got != want {
		t.Errorf("first: seed %s, want %s (same region, least used, first by name)", got, want)
	}
	f.createShoot(f.newShoot("second", "eu-west-1"))
	if got, want := f.waitForSeed("second", time.Minute), f.name+"-b"; got != want {
		t.Errorf("second: seed %s, want %s (a is used once now)", got, want)
	}
	f.createShoot(f.newShoot("explicit-default", "us-east-1"))
	if got, want := f.waitForSeed("explicit-default", time.Minute), f.name+"-c"; got != want {
		t.Errorf("explicit-default: seed %s, want %s (the only seed in us-east-1)", got, want)
	}
	named := f.newShoot("named", "eu-west-1")
	named.Spec.SchedulerName = ptr.To(v1alpha1.DefaultSchedulerName)
	f.createShoot(named)
	if got, want := f.waitForSeed("named", time.Minute), f.name+"-a"; got != want {
		t.Errorf("named: seed %s, want %s", got, want)
	}

	// Everything queued before has been handled; the others must be untouched.
	if s := f.getShoot("other-scheduler"); s.Spec.SeedName != nil || s.ResourceVersion != other.ResourceVersion {
		t.Errorf("shoot of another scheduler was changed: seed %v, resourceVersion %s -> %s", s.Spec.SeedName, other.ResourceVersion, s.ResourceVersion)
	}
	if s := f.getShoot("prebound"); *s.Spec.SeedName != f.name+"-c" || s.ResourceVersion != prebound.ResourceVersion {
		t.Errorf("pre-bound shoot was changed: seed %v, resourceVersion %s -> %s", *s.Spec.SeedName, prebound.ResourceVersion, s.ResourceVersion)
	}
	if n := len(f.events("first", "Scheduled")); n != 1 {
		t.Errorf("first: %d Scheduled events, want 1", n)
	} else if msg := f.events("first", "Scheduled")[0].Message; msg != "Scheduled to seed "+f.name+"-a" {
		t.Errorf("Scheduled event message %q", msg)
	}
	if s := f.getShoot("first"); s.Status.LastOperation != nil {
		t.Errorf("lastOperation set on success: %+v", s.Status.LastOperation)
	}
}

func TestMinimalDistance(t *testing.T) {
	f := newFixture(t)
	f.createSeed("a", "eu-west-1", nil, nil)
	f.createSeed("c", "us-east-1", nil, nil)
	startScheduler(t, "sched-minimal-distance", func(c *configv1alpha1.SchedulerConfiguration) {
		c.Strategy = configv1alpha1.StrategyMinimalDistance
		c.RegionConfigNamespace = f.ns // the test's own namespace keeps its ConfigMap apart
	})

	// No region ConfigMap: the Levenshtein fallback puts eu-west-2 next to eu-west-1.
	f.createShoot(f.newShoot("fallback", "eu-west-2"))
	if got, want := f.waitForSeed("fallback", time.Minute), f.name+"-a"; got != want {
		t.Errorf("fallback: seed %s, want %s", got, want)
	}

	// A region ConfigMap for this cloud profile overrides the fallback.
	cm := coretest.RegionConfigMap(f.ns, "regions", "unrelated,"+f.name, map[string]string{"eu-west-2": "us-east-1: 1\neu-west-1: 5\n"})
	if _, err := f.env.KubeClient().CoreV1().ConfigMaps(f.ns).Create(f.ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The informer must have seen the ConfigMap; a shoot created right away
	// may race it, so place fresh shoots, one after the other, until one is
	// placed by the config (or a minute has passed).
	var got string
	for i, deadline := 0, time.Now().Add(time.Minute); ; i++ {
		name := fmt.Sprintf("configured-%d", i)
		f.createShoot(f.newShoot(name, "eu-west-2"))
		got = f.waitForSeed(name, time.Minute)
		if got == f.name+"-c" || time.Now().After(deadline) {
			break
		}
	}
	if want := f.name + "-c"; got != want {
		t.Errorf("configured: seed %s, want %s (distance 1 in the region ConfigMap)", got, want)
	}
}

func TestFailureThenNewSeed(t *testing.T) {
	f := newFixture(t)
	f.createSeed("elsewhere", "us-east-1", nil, nil)
	startScheduler(t, "sched-failure", nil)
	f.createShoot(f.newShoot("waiting", "ap-south-1"))

	f.waitFor("the SchedulingFailed event and lastOperation", time.Minute, func() (bool, error) {
		events := f.events("waiting", "SchedulingFailed")
		lo := f.getShoot("waiting").Status.LastOperation
		return len(events) > 0 && events[0].Type == corev1.EventTypeWarning && lo != nil, nil
	})
	ev := f.events("waiting", "SchedulingFailed")[0]
	if !strings.Contains(ev.Message, "0/1") {
		t.Errorf("event message %q lacks the short explanation", ev.Message)
	}
	lo := f.getShoot("waiting").Status.LastOperation
	if lo.Type != v1alpha1.LastOperationTypeCreate || lo.State != v1alpha1.LastOperationStatePending ||
		!strings.Contains(lo.Description, f.name+"-elsewhere") {
		t.Errorf("lastOperation %+v: want Create, Pending, naming the rejected seed", lo)
	}

	// The shoot now waits for a change that can help it: no retry loop
	// decides it again meanwhile (the periodic retry is minutes away).
	failedBefore := metricValue(t, "graft_scheduler_schedule_attempts_total", "result", "unschedulable")
	// The metrics are the process's: other tests' schedulers count in them too.
	seedRequeues := func() float64 {
		return metricValue(t, "graft_scheduler_requeues_total", "trigger", "seed_added") +
			metricValue(t, "graft_scheduler_requeues_total", "trigger", "seed_changed")
	}
	requeuesBefore := seedRequeues()
	f.waitFor("the shoot to wait among the unschedulable", time.Minute, func() (bool, error) {
		return metricValue(t, "graft_scheduler_pending_shoots", "queue", "unschedulable") == 1, nil
	})
	// A seed the shoot cannot use changes nothing for it.
	f.createSeed("elsewhere-too", "us-east-1", nil, nil)
	start := time.Now()
	f.createSeed("here", "ap-south-1", nil, nil)
	if got, want := f.waitForSeed("waiting", time.Minute), f.name+"-here"; got != want {
		t.Errorf("seed %s, want %s", got, want)
	}
	t.Logf("bound %v after the new seed appeared", time.Since(start))
	if n := metricValue(t, "graft_scheduler_schedule_attempts_total", "result", "unschedulable") - failedBefore; n != 0 {
		t.Errorf("%v more failed attempts while the shoot waited: the seed in another region requeued it, or a retry loop did", n)
	}
	// The seed is created, then its status says it is ready: either event
	// may be the one that requeued the shoot. The scheduler counts the
	// requeue once its binding returned, which may be after the test sees
	// the binding.
	f.waitFor("the requeue that placed the shoot to be counted", time.Minute, func() (bool, error) {
		return seedRequeues()-requeuesBefore >= 1, nil
	})
	if n := seedRequeues() - requeuesBefore; n != 1 {
		t.Errorf("graft_scheduler_requeues_total{trigger=seed_added or seed_changed} = %v, want 1: the new seed requeued the shoot", n)
	}
}

func TestCapacityUnderBurst(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.createSeed(fmt.Sprintf("s%d", i), "eu-west-1", ptr.To[int64](10), nil)
	}
	startScheduler(t, "sched-burst", func(c *configv1alpha1.SchedulerConfiguration) { c.ConcurrentSyncs = 16 })

	var wg sync.WaitGroup
	for w := range 10 {
		wg.Go(func() {
			for i := w; i < 100; i += 10 {
				if _, err := f.graft.CoreV1alpha1().Shoots(f.ns).Create(context.Background(), f.newShoot(fmt.Sprintf("burst-%03d", i), "eu-west-1"), metav1.CreateOptions{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()

	count := func() (bound, pending int, perSeed map[string]int) {
		list, err := f.graft.CoreV1alpha1().Shoots(f.ns).List(f.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		perSeed = map[string]int{}
		for _, s := range list.Items {
			if s.Spec.SeedName != nil {
				bound++
				perSeed[*s.Spec.SeedName]++
			} else if lo := s.Status.LastOperation; lo != nil && lo.State == v1alpha1.LastOperationStatePending && strings.Contains(lo.Description, "capacity") {
				pending++
			}
		}
		return bound, pending, perSeed
	}
	f.waitFor("50 bound and 50 pending with a capacity reason", 2*time.Minute, func() (bool, error) {
		bound, pending, _ := count()
		return bound+pending == 100, nil
	})
	// A wrong extra binding would come from a retry of a pending shoot. A
	// change of their cloud profile's spec that lets no more seeds fit them
	// requeues all 50 at once; once 50 more attempts have ended (a wrong
	// binding counts as scheduled) and the queue is empty, the requeued
	// shoots have been tried again, and the counts below include what those
	// attempts did.
	attempts := func() float64 {
		return metricValue(t, "graft_scheduler_schedule_attempts_total", "result", "unschedulable") +
			metricValue(t, "graft_scheduler_schedule_attempts_total", "result", "scheduled")
	}
	before := attempts()
	cp, err := f.graft.CoreV1alpha1().CloudProfiles().Get(f.ctx, f.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cp.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{f.provider}}
	if _, err := f.graft.CoreV1alpha1().CloudProfiles().Update(f.ctx, cp, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitFor("every pending shoot to be tried again", 2*time.Minute, func() (bool, error) {
		return attempts() >= before+50 && metricValue(t, "workqueue_depth", "name", "graft_scheduler") == 0, nil
	})
	bound, pending, perSeed := count()
	if bound != 50 || pending != 50 {
		t.Errorf("%d bound, %d pending with a capacity reason; want 50 and 50", bound, pending)
	}
	for seed, n := range perSeed {
		if n > 10 {
			t.Errorf("seed %s holds %d shoots, allocatable is 10", seed, n)
		}
	}
}

// TestLeaderElection runs two schedulers with leader election: only the
// leader binds; when it stops, the other takes over and finishes the work;
// no shoot is ever bound twice (checked on every version the watch delivers).
func TestLeaderElection(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, "garden")
	for i := range 3 {
		f.createSeed(fmt.Sprintf("s%d", i), "eu-west-1", nil, nil)
	}

	// Record every version of every shoot from the start.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	// Watch from the watch cache's own resourceVersion: asking for "now" can
	// time out while the cache waits for an event to catch up with etcd.
	start, err := f.graft.CoreV1alpha1().Shoots(f.ns).List(watchCtx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.graft.CoreV1alpha1().Shoots(f.ns).Watch(watchCtx, metav1.ListOptions{ResourceVersion: start.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	var historyMu sync.Mutex
	history := map[string][]string{} // shoot -> seedName of each version
	go func() {
		for ev := range w.ResultChan() {
			shoot, ok := ev.Object.(*v1alpha1.Shoot)
			if !ok {
				if watchCtx.Err() == nil {
					t.Errorf("watch event %s: %#v", ev.Type, ev.Object)
				}
				continue
			}
			historyMu.Lock()
			history[shoot.Name] = append(history[shoot.Name], ptr.Deref(shoot.Spec.SeedName, ""))
			historyMu.Unlock()
		}
	}()

	lease := func(c *configv1alpha1.SchedulerConfiguration) {
		c.LeaderElection.LeaderElect = ptr.To(true)
		c.LeaderElection.ResourceName = "sched-" + f.name
		// client-go's usual timings: writes are fenced to within the renew
		// deadline of the last renewal, which a loaded machine can take
		// seconds to make; the leader releases the lease when it stops, so
		// the standby takes over within a retry period anyway.
		c.LeaderElection.LeaseDuration = metav1.Duration{Duration: 15 * time.Second}
		c.LeaderElection.RenewDeadline = metav1.Duration{Duration: 10 * time.Second}
		c.LeaderElection.RetryPeriod = metav1.Duration{Duration: time.Second}
	}
	a := startScheduler(t, "sched-le-a", lease)
	b := startScheduler(t, "sched-le-b", lease)
	var leader, standby *instance
	var leaderAgent, standbyAgent string
	f.waitFor("a leader", time.Minute, func() (bool, error) {
		switch {
		case a.IsLeader() && !b.IsLeader():
			leader, standby, leaderAgent, standbyAgent = a, b, "sched-le-a", "sched-le-b"
		case b.IsLeader() && !a.IsLeader():
			leader, standby, leaderAgent, standbyAgent = b, a, "sched-le-b", "sched-le-a"
		default:
			return false, nil
		}
		return true, nil
	})

	for i := range 20 {
		f.createShoot(f.newShoot(fmt.Sprintf("first-%02d", i), "eu-west-1"))
	}
	for i := range 20 {
		f.waitForSeed(fmt.Sprintf("first-%02d", i), time.Minute)
	}
	managers := func(prefix string) map[string]int {
		list, err := f.graft.CoreV1alpha1().Shoots(f.ns).List(f.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, s := range list.Items {
			if !strings.HasPrefix(s.Name, prefix) {
				continue
			}
			for _, mf := range s.ManagedFields {
				if mf.Manager != "" && mf.Operation == metav1.ManagedFieldsOperationUpdate && mf.Subresource == "" {
					out[mf.Manager]++
				}
			}
		}
		return out
	}
	if m := managers("first-"); m[leaderAgent] != 20 || m[standbyAgent] != 0 {
		t.Errorf("bindings by manager %v: want all 20 by the leader %s", m, leaderAgent)
	}

	// Stop the leader and create more work at once: the standby must finish it.
	leader.stop()
	for i := range 20 {
		f.createShoot(f.newShoot(fmt.Sprintf("second-%02d", i), "eu-west-1"))
	}
	for i := range 20 {
		f.waitForSeed(fmt.Sprintf("second-%02d", i), time.Minute)
	}
	if !standby.IsLeader() {
		t.Error("the standby does not lead after the leader stopped")
	}
	if m := managers("second-"); m[standbyAgent] != 20 {
		t.Errorf("bindings by manager %v after the leader stopped: want all 20 by %s", m, standbyAgent)
	}

	// The watch delivers in resourceVersion order: once it has delivered a
	// marker created now, it has delivered every earlier version. No
	// scheduler acts on the marker (it names another scheduler).
	marker := f.newShoot("marker", "eu-west-1")
	marker.Spec.SchedulerName = ptr.To("nobody")
	f.createShoot(marker)
	f.waitFor("the watch to deliver the marker", time.Minute, func() (bool, error) {
		historyMu.Lock()
		defer historyMu.Unlock()
		_, ok := history["marker"]
		return ok, nil
	})
	stopWatch()
	historyMu.Lock()
	defer historyMu.Unlock()
	delete(history, "marker")
	if len(history) != 40 {
		t.Errorf("watched %d shoots, want 40", len(history))
	}
	for shoot, seeds := range history {
		var bound string
		for _, s := range seeds {
			switch {
			case s == "" && bound != "":
				t.Errorf("%s: unbound after being bound to %s (history %v)", shoot, bound, seeds)
			case s != "" && bound != "" && s != bound:
				t.Errorf("%s: bound twice, to %s and %s (history %v)", shoot, bound, s, seeds)
			case s != "":
				bound = s
			}
		}
	}
}
