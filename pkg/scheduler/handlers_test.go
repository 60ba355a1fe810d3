package scheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/testutil"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/coretest"
)

// drain empties the scheduler's queue (the informers' initial adds) so that
// a test sees only what its handler call queued.
func drain(s *Scheduler) {
	for s.queue.Len() > 0 {
		key, _ := s.queue.Get()
		s.queue.Forget(key)
		s.queue.Done(key)
	}
}

// queued returns the keys in the queue, taking them off it.
func queued(s *Scheduler) []string {
	var out []string
	for s.queue.Len() > 0 {
		key, _ := s.queue.Get()
		out = append(out, key)
		s.queue.Done(key)
	}
	return out
}

// hintLandscape is a shoot no seed fits, with one seed per reason: full
// (capacity), far (another region, also full), tainted (a NoSchedule taint),
// gcp (another provider) and not-ready (unusable).
func hintLandscape() []runtime.Object {
	return []runtime.Object{
		coretest.MakeCloudProfile("aws").Obj(),
		coretest.MakeSeed("full").Region("eu-west-1").Allocatable(1).Obj(),
		coretest.MakeSeed("far").Region("eu-west-2").Allocatable(1).Obj(),
		coretest.MakeSeed("tainted").Region("eu-west-1").Taint("k", nil, corev1alpha1.TaintEffectNoSchedule).Obj(),
		coretest.MakeSeed("gcp").Provider("gcp", "eu-west-1").Obj(),
		coretest.MakeSeed("not-ready").Region("eu-west-1").Condition(corev1alpha1.SeedGardenletReady, corev1alpha1.ConditionFalse).Obj(),
		coretest.MakeShoot("garden-dev", "on-full").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Seed("full").Obj(),
		coretest.MakeShoot("garden-dev", "on-far").Region("eu-west-2").CloudProfileName("aws").ResourceVersion("1").Seed("far").Obj(),
		coretest.MakeShoot("garden-dev", "waiting").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj(),
	}
}

const waitingKey = "garden-dev/waiting"

// clock is a test's time, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// parkedScheduler returns a scheduler whose decision of the waiting shoot
// failed, with an empty queue and the clock past the shoot's backoff (a
// requeue queues it at once).
func parkedScheduler(t *testing.T, objects ...runtime.Object) (*Scheduler, *clock) {
	t.Helper()
	s, c := decidedOnce(t, objects...)
	c.advance(maxBackoff)
	return s, c
}

// decidedOnce returns a scheduler whose decision of the waiting shoot just
// failed, with an empty queue and the clock at that decision (within the
// shoot's backoff).
func decidedOnce(t *testing.T, objects ...runtime.Object) (*Scheduler, *clock) {
	t.Helper()
	s, _, _ := newTestScheduler(t, objects...)
	c := &clock{t: time.Unix(1000, 0)}
	s.now = c.now
	drain(s)
	if err := s.syncHandler(context.Background(), waitingKey); err != nil {
		t.Fatalf("deciding the waiting shoot: %v", err)
	}
	if s.pool.parked() != 1 {
		t.Fatalf("%d shoots parked after the failed decision, want 1", s.pool.parked())
	}
	drain(s)
	return s, c
}

// requeued tells whether the waiting shoot is queued, taking the queue's
// keys off it; anything else queued fails the test.
func requeued(t *testing.T, s *Scheduler) bool {
	t.Helper()
	got := queued(s)
	switch {
	case len(got) == 0:
		return false
	case len(got) == 1 && got[0] == waitingKey:
		return true
	default:
		t.Fatalf("queued %v, want at most %s", got, waitingKey)
		return false
	}
}

func seedOf(objects []runtime.Object, name string) *corev1alpha1.Seed {
	for _, o := range objects {
		if seed, ok := o.(*corev1alpha1.Seed); ok && seed.Name == name {
			return seed
		}
	}
	panic("no seed " + name)
}

func shootOf(objects []runtime.Object, name string) *corev1alpha1.Shoot {
	for _, o := range objects {
		if shoot, ok := o.(*corev1alpha1.Shoot); ok && shoot.Name == name {
			return shoot
		}
	}
	panic("no shoot " + name)
}

// changed returns a copy of the seed at a new version with mutate applied.
func changed(seed *corev1alpha1.Seed, mutate func(*corev1alpha1.Seed)) *corev1alpha1.Seed {
	out := seed.DeepCopy()
	out.ResourceVersion = "2"
	mutate(out)
	return out
}

// TestQueueingHints: each event requeues the waiting shoot only when it can
// turn the rejection of some seed into a fit.
func TestQueueingHints(t *testing.T) {
	objects := hintLandscape()
	seed := func(name string) *corev1alpha1.Seed { return seedOf(objects, name) }
	shoot := func(name string) *corev1alpha1.Shoot { return shootOf(objects, name) }
	allocatable := func(n int64) func(*corev1alpha1.Seed) {
		return func(s *corev1alpha1.Seed) {
			s.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: *resource.NewQuantity(n, resource.DecimalSI)}
		}
	}
	regionConfig := func(profiles string) *corev1.ConfigMap {
		cm := coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{"eu-west-1": "eu-west-2: 1\n"})
		cm.Annotations[corev1alpha1.AnnotationSchedulingCloudProfiles] = profiles
		return cm
	}
	for _, tc := range []struct {
		name   string
		handle func(s *Scheduler)
		want   bool
	}{
		{"a shoot leaving the full seed", func(s *Scheduler) { s.onShootDelete(shoot("on-full")) }, true},
		{"a shoot bound to the full seed moving elsewhere", func(s *Scheduler) {
			moved := coretest.WrapShoot(shoot("on-full").DeepCopy()).Seed("gcp").Obj()
			moved.ResourceVersion = "2"
			s.onShootUpdate(shoot("on-full"), moved)
		}, true},
		{"a shoot leaving a full seed of another region", func(s *Scheduler) { s.onShootDelete(shoot("on-far")) }, false},
		{"more allocatable on the full seed", func(s *Scheduler) { s.onSeedUpdate(seed("full"), changed(seed("full"), allocatable(5))) }, true},
		{"more allocatable on the seed of another region", func(s *Scheduler) { s.onSeedUpdate(seed("far"), changed(seed("far"), allocatable(5))) }, false},
		{"the far seed moving to the shoot's region", func(s *Scheduler) {
			s.onSeedUpdate(seed("far"), changed(seed("far"), func(s *corev1alpha1.Seed) { s.Spec.Provider.Region = "eu-west-1" }))
		}, true},
		{"more allocatable on the tainted seed", func(s *Scheduler) { s.onSeedUpdate(seed("tainted"), changed(seed("tainted"), allocatable(5))) }, false},
		{"a taint added to the full seed", func(s *Scheduler) {
			s.onSeedUpdate(seed("full"), changed(seed("full"), func(s *corev1alpha1.Seed) {
				s.Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable}}
			}))
		}, false},
		{"the taint removed from the tainted seed", func(s *Scheduler) {
			s.onSeedUpdate(seed("tainted"), changed(seed("tainted"), func(s *corev1alpha1.Seed) { s.Spec.Taints = nil }))
		}, true},
		{"a label on the seed of another provider", func(s *Scheduler) {
			s.onSeedUpdate(seed("gcp"), changed(seed("gcp"), func(s *corev1alpha1.Seed) { s.Labels = map[string]string{"x": "y"} }))
		}, false},
		{"the seed of another provider turning aws", func(s *Scheduler) {
			s.onSeedUpdate(seed("gcp"), changed(seed("gcp"), func(s *corev1alpha1.Seed) { s.Spec.Provider.Type = "aws" }))
		}, true},
		{"a label on the seed that is not ready", func(s *Scheduler) {
			s.onSeedUpdate(seed("not-ready"), changed(seed("not-ready"), func(s *corev1alpha1.Seed) { s.Labels = map[string]string{"x": "y"} }))
		}, false},
		{"the seed that was not ready becoming ready", func(s *Scheduler) {
			s.onSeedUpdate(seed("not-ready"), changed(seed("not-ready"), func(s *corev1alpha1.Seed) {
				s.Status.Conditions = coretest.MakeSeed("x").Region("eu-west-1").Allocatable(-1).Obj().Status.Conditions
			}))
		}, true},
		{"a resync of the tainted seed", func(s *Scheduler) { s.onSeedUpdate(seed("tainted"), seed("tainted")) }, false},
		{"a new seed the shoot may use", func(s *Scheduler) { s.onSeedAdd(coretest.MakeSeed("new").Region("eu-west-1").Allocatable(-1).Obj()) }, true},
		{"a new seed in another region", func(s *Scheduler) { s.onSeedAdd(coretest.MakeSeed("new").Region("eu-west-2").Allocatable(-1).Obj()) }, false},
		{"a new seed in another region, then moved to the shoot's", func(s *Scheduler) {
			added := coretest.MakeSeed("new").Region("eu-west-2").Allocatable(-1).Obj()
			s.onSeedAdd(added)
			if requeued(t, s) {
				t.Error("a new seed in another region requeued the shoot")
			}
			s.onSeedUpdate(added, changed(added, func(s *corev1alpha1.Seed) { s.Spec.Provider.Region = "eu-west-1" }))
		}, true},
		{"a seed deleted", func(s *Scheduler) { s.onSeedDelete(seed("far")) }, false},
		{"a seed deleted, seen through a tombstone", func(s *Scheduler) {
			s.onSeedDelete(cache.DeletedFinalStateUnknown{Key: "gcp", Obj: seed("gcp")})
		}, false},
		{"its cloud profile changing", func(s *Scheduler) {
			p := coretest.MakeCloudProfile("aws").Obj()
			changed := p.DeepCopy()
			changed.Spec.SeedSelector = &corev1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
			s.onProfileUpdate(p, changed)
		}, true},
		{"its cloud profile relabelled", func(s *Scheduler) {
			p := coretest.MakeCloudProfile("aws").Obj()
			relabelled := p.DeepCopy()
			relabelled.Labels = map[string]string{"x": "y"}
			s.onProfileUpdate(p, relabelled)
		}, false},
		{"another cloud profile created", func(s *Scheduler) { s.onProfileAdd(coretest.MakeCloudProfile("gcp").Obj()) }, false},
		{"a region ConfigMap for its cloud profile", func(s *Scheduler) { s.onConfigMapAdd(regionConfig("aws")) }, true},
		{"a region ConfigMap for another cloud profile", func(s *Scheduler) { s.onConfigMapAdd(regionConfig("gcp")) }, false},
		{"a region ConfigMap turning to its cloud profile", func(s *Scheduler) {
			s.onConfigMapUpdate(regionConfig("gcp"), regionConfig("gcp,aws"))
		}, true},
		{"a region ConfigMap for its cloud profile deleted", func(s *Scheduler) {
			s.onConfigMapDelete(cache.DeletedFinalStateUnknown{Key: "garden/regions", Obj: regionConfig("aws")})
		}, true},
		{"its own status written", func(s *Scheduler) {
			cur := s.currentShoot(waitingKey)
			next := cur.DeepCopy()
			next.ResourceVersion = "99"
			next.Status.LastOperation = nil
			s.onShootUpdate(cur, next)
		}, false},
		{"its own tolerations changed", func(s *Scheduler) {
			cur := s.currentShoot(waitingKey)
			next := cur.DeepCopy()
			next.ResourceVersion, next.Generation = "99", cur.Generation+1
			next.Spec.Tolerations = []corev1alpha1.Toleration{{Key: "k"}}
			s.onShootUpdate(cur, next)
		}, true},
		{"objects of the wrong type", func(s *Scheduler) {
			s.onSeedAdd("not a seed")
			s.onSeedUpdate("not a seed", seed("full"))
			s.onSeedDelete(cache.DeletedFinalStateUnknown{Key: "x", Obj: "not a seed"})
			s.onShootDelete("not a shoot")
			s.onProfileUpdate("not a profile", coretest.MakeCloudProfile("aws").Obj())
			s.onConfigMapUpdate("not a ConfigMap", regionConfig("aws"))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := parkedScheduler(t, objects...)
			tc.handle(s)
			if got := requeued(t, s); got != tc.want {
				t.Errorf("requeued: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRequeueKeepsTheBackoff: a change that may help requeues a shoot only
// once its backoff since the last failure has passed.
func TestRequeueKeepsTheBackoff(t *testing.T) {
	objects := hintLandscape()
	s, _ := decidedOnce(t, objects...)
	s.onShootDelete(shootOf(objects, "on-full"))
	if requeued(t, s) {
		t.Error("a requeue within the backoff queued the shoot at once")
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return s.queue.Len() == 1, nil
	}); err != nil {
		t.Fatalf("the requeued shoot was not queued after its backoff: %v", err)
	}
}

// TestEventDuringADecisionRequeues: a change that lands while the shoot is
// being decided, too late for the decision to see it, requeues the shoot
// when the decision fails.
func TestEventDuringADecisionRequeues(t *testing.T) {
	s, c := parkedScheduler(t, hintLandscape()...)
	s.pool.begin(waitingKey)
	s.pool.event(poolEvent{trigger: triggerCapacityFreed, seed: "full"})
	c.advance(maxBackoff)
	s.pool.park(waitingKey, "aws", &algorithm.ScheduleError{Rejections: []algorithm.Rejection{{Seed: "full", Filter: algorithm.FilterCapacity}}})
	if !requeued(t, s) {
		t.Error("capacity freed during the decision on the seed it rejected for capacity did not requeue the shoot")
	}

	s.pool.begin(waitingKey)
	s.pool.event(poolEvent{trigger: triggerCapacityFreed, seed: "tainted"})
	s.pool.park(waitingKey, "aws", &algorithm.ScheduleError{Rejections: []algorithm.Rejection{
		{Seed: "full", Filter: algorithm.FilterCapacity}, {Seed: "tainted", Filter: algorithm.FilterTaints}}})
	if requeued(t, s) {
		t.Error("capacity freed during the decision on a seed that rejected for taints requeued the shoot")
	}
	if n := len(s.pool.log); n != 0 {
		t.Errorf("%d events kept with no decision in flight", n)
	}
}

// TestPeriodicRetryCatchesAMissedHint: a change no handler saw (the seed
// gets room behind the pool's back) is found by the periodic retry, and the
// metric says so.
func TestPeriodicRetryCatchesAMissedHint(t *testing.T) {
	objects := hintLandscape()
	s, c := parkedScheduler(t, objects...)
	s.cache.addSeed(changed(seedOf(objects, "full"), func(s *corev1alpha1.Seed) {
		s.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: *resource.NewQuantity(5, resource.DecimalSI)}
	}))
	interval := s.config.UnschedulableRetryInterval.Duration
	c.advance(interval - maxBackoff - time.Second)
	s.pool.retryParked(interval)
	if requeued(t, s) {
		t.Fatal("the periodic retry came early")
	}
	c.advance(time.Second)
	s.pool.retryParked(interval)
	if !requeued(t, s) {
		t.Fatal("the periodic retry did not requeue the shoot")
	}
	if err := s.syncHandler(context.Background(), waitingKey); err != nil {
		t.Fatal(err)
	}
	if got, _ := testutil.GetCounterMetricValue(s.metrics.requeues.WithLabelValues(triggerPeriodic, outcomeScheduled)); got != 1 {
		t.Errorf("graft_scheduler_requeues_total{trigger=periodic,outcome=scheduled} = %v, want 1", got)
	}
	if s.pool.parked() != 0 {
		t.Error("the placed shoot is still parked")
	}
}

func TestShootDeleteForgetsTheShoot(t *testing.T) {
	s, _ := parkedScheduler(t, hintLandscape()...)
	s.onShootDelete(cache.DeletedFinalStateUnknown{Key: waitingKey, Obj: coretest.MakeShoot("garden-dev", "waiting").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()})
	if s.pool.parked() != 0 {
		t.Error("the deleted shoot is still parked")
	}
	if s.cache.usage("full") != 1 {
		t.Errorf("usage of full %d, want 1", s.cache.usage("full"))
	}
}

// TestFailedBindingGivesTheCapacityBack: a binding the API server refuses
// must not keep its seat on the seed, or a full seed would stay full for a
// shoot that never came.
func TestFailedBindingGivesTheCapacityBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"conflict", apierrors.NewConflict(corev1alpha1.Resource("shoots"), "s", errors.New("changed")), true},
		{"server error", apierrors.NewInternalError(errors.New("etcd is down")), true},
		{"shoot gone", apierrors.NewNotFound(corev1alpha1.Resource("shoots"), "s"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shoot := coretest.MakeShoot("garden-dev", "s").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
			shoot.ResourceVersion = ""
			s, graft, rec := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
			graft.PrependReactor("patch", "shoots", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			err := s.syncHandler(context.Background(), "garden-dev/s")
			if (err != nil) != tc.wantErr {
				t.Fatalf("sync: %v, want an error: %v", err, tc.wantErr)
			}
			if n := s.cache.usage("a"); n != 0 {
				t.Errorf("usage of a %d after the failed binding, want 0", n)
			}
			select {
			case ev := <-rec.Events:
				t.Errorf("event %q after a failed binding", ev)
			default:
			}
			// The seat is free again: another shoot gets it.
			other := coretest.MakeShoot("garden-dev", "other").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
			s.cache.upsertShoot(other)
			if seed, err := s.cache.decide(other, algorithm.Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Config: s.algConfig}); err != nil || seed != "a" {
				t.Errorf("another shoot after the failed binding: seed %q, %v; want a", seed, err)
			}
		})
	}
}

// TestNoDecisionWhileFenced: a replica whose writes are fenced (paused past
// its lease) does not decide: the decision would read a stale view and its
// writes would be refused. The shoot is retried with backoff.
func TestNoDecisionWhileFenced(t *testing.T) {
	s, _, _ := newTestScheduler(t, hintLandscape()...)
	s.clients.Fence = leadership.NewFence(Name, nil)
	s.clients.Fence.Arm(context.Background(), time.Second) // armed, never renewed
	if err := s.syncHandler(context.Background(), waitingKey); !errors.Is(err, leadership.ErrFenced) {
		t.Fatalf("sync while fenced: %v, want ErrFenced", err)
	}
	if n, _ := testutil.GetCounterMetricValue(s.metrics.scheduleAttempts.WithLabelValues(resultUnschedulable)); n != 0 {
		t.Errorf("%v decisions while fenced, want none", n)
	}
	if s.pool.parked() != 0 {
		t.Error("a shoot not decided was parked")
	}
}

// TestTenantUpdatesKeepTheBackoff: a tenant patching its waiting shoot once
// bought a decision per patch, ahead of every other shoot (five patches in a
// second were five decisions). Labels and annotations the decision does not
// read requeue nothing; a change of what it reads is decided after what is
// left of the backoff, once however many patches came.
func TestTenantUpdatesKeepTheBackoff(t *testing.T) {
	objects := hintLandscape()
	s, _ := decidedOnce(t, objects...)
	old := shootOf(objects, "waiting")
	for i := range 5 {
		cur := old.DeepCopy()
		cur.ResourceVersion = fmt.Sprint(10 + i)
		cur.Labels = map[string]string{"flood": fmt.Sprint(i)}
		cur.Annotations = map[string]string{"flood": fmt.Sprint(i)}
		s.onShootUpdate(old, cur)
		old = cur
	}
	if requeued(t, s) || s.pool.parked() != 1 {
		t.Fatalf("label and annotation patches requeued the waiting shoot (parked %d)", s.pool.parked())
	}
	for i := range 5 {
		cur := old.DeepCopy()
		cur.ResourceVersion = fmt.Sprint(20 + i)
		cur.Generation++
		cur.Spec.Tolerations = []corev1alpha1.Toleration{{Key: fmt.Sprintf("k%d", i)}}
		s.onShootUpdate(old, cur)
		old = cur
	}
	if requeued(t, s) {
		t.Error("a spec patch within the backoff queued the shoot at once")
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return s.queue.Len() == 1, nil
	}); err != nil {
		t.Fatalf("the updated shoot was not queued after its backoff: %v", err)
	}
	if got := queued(s); len(got) != 1 || got[0] != waitingKey {
		t.Errorf("queued %v after five spec patches, want the shoot once", got)
	}
	// A shoot the pool does not hold (never decided) is decided at once.
	fresh := coretest.MakeShoot("garden-dev", "fresh").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	changed := fresh.DeepCopy()
	changed.Generation++
	changed.Spec.Region = "eu-west-2"
	s.onShootUpdate(fresh, changed)
	if got := queued(s); len(got) != 1 || got[0] != "garden-dev/fresh" {
		t.Errorf("a new shoot's update queued %v, want it at once", got)
	}
}
