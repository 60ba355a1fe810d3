package scheduler

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
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

// requeues calls handle on a scheduler with one unschedulable shoot and an
// empty queue, and tells whether handle queued that shoot again.
func requeues(t *testing.T, s *Scheduler, handle func()) bool {
	t.Helper()
	drain(s)
	s.setUnschedulable("garden-dev/waiting", true)
	// The backoff of earlier failures must be reset by a requeue.
	s.queue.AddRateLimited("garden-dev/waiting")
	handle()
	got := queued(s)
	switch {
	case len(got) == 0:
		return false
	case len(got) == 1 && got[0] == "garden-dev/waiting":
		return true
	default:
		t.Fatalf("queued %v, want only garden-dev/waiting", got)
		return false
	}
}

func TestSeedHandlersRequeueWhatTheyMayHelp(t *testing.T) {
	seed := readySeed("a", "eu-west-1", 1)
	s, _, _ := newTestScheduler(t, seed, awsProfile())

	unchanged := seed.DeepCopy()
	unchanged.ResourceVersion = "2"
	if requeues(t, s, func() { s.onSeedUpdate(seed, unchanged) }) {
		t.Error("a seed update that changes nothing a filter reads requeued unschedulable shoots")
	}

	more := seed.DeepCopy()
	more.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: *resource.NewQuantity(5, resource.DecimalSI)}
	if !requeues(t, s, func() { s.onSeedUpdate(seed, more) }) {
		t.Error("more allocatable shoots did not requeue unschedulable shoots")
	}
	if cached, ok := s.cache.snapshot.Seed("a"); !ok || !cached.Status.Allocatable[corev1alpha1.ResourceShoots].Equal(*resource.NewQuantity(5, resource.DecimalSI)) {
		t.Errorf("the cache does not hold the updated seed: %v", cached)
	}

	untainted := more.DeepCopy()
	tainted := more.DeepCopy()
	tainted.Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable}}
	if !requeues(t, s, func() { s.onSeedUpdate(tainted, untainted) }) {
		t.Error("removing a taint did not requeue unschedulable shoots")
	}

	deleting := more.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	if requeues(t, s, func() { s.onSeedUpdate(tainted, deleting) }) {
		t.Error("a seed being deleted requeued unschedulable shoots: it can help none")
	}

	if !requeues(t, s, func() { s.onSeedAdd(readySeed("b", "eu-west-1", -1)) }) {
		t.Error("a new seed did not requeue unschedulable shoots")
	}
	if _, ok := s.cache.snapshot.Seed("b"); !ok {
		t.Error("the new seed is not in the cache")
	}

	// Deleting a seed helps no shoot: it leaves the cache, nothing is queued.
	if requeues(t, s, func() { s.onSeedDelete(readySeed("b", "eu-west-1", -1)) }) {
		t.Error("a deleted seed requeued unschedulable shoots")
	}
	if _, ok := s.cache.snapshot.Seed("b"); ok {
		t.Error("the deleted seed is still in the cache")
	}
	// A missed delete arrives as a tombstone.
	s.onSeedDelete(cache.DeletedFinalStateUnknown{Key: "a", Obj: more})
	if _, ok := s.cache.snapshot.Seed("a"); ok {
		t.Error("the seed deleted through a tombstone is still in the cache")
	}

	// Objects of the wrong type are ignored.
	s.onSeedAdd("not a seed")
	s.onSeedUpdate("not a seed", more)
	s.onSeedDelete(cache.DeletedFinalStateUnknown{Key: "x", Obj: "not a seed"})
}

func TestShootDeleteFreesCapacityAndForgetsTheShoot(t *testing.T) {
	bound := boundTo(pendingShoot("bound", "eu-west-1"), "a")
	s, _, _ := newTestScheduler(t, readySeed("a", "eu-west-1", 1), awsProfile(), bound)
	if s.cache.usage("a") != 1 {
		t.Fatalf("usage %d before the delete, want 1", s.cache.usage("a"))
	}
	if !requeues(t, s, func() { s.onShootDelete(bound) }) {
		t.Error("deleting a bound shoot did not requeue unschedulable shoots (it freed capacity)")
	}
	if s.cache.usage("a") != 0 {
		t.Errorf("usage %d after the delete, want 0", s.cache.usage("a"))
	}

	// A deleted shoot that counted nowhere frees nothing; a deleted
	// unschedulable shoot is forgotten, so no later change requeues it.
	waiting := pendingShoot("waiting", "ap-south-1")
	if requeues(t, s, func() { s.onShootDelete(cache.DeletedFinalStateUnknown{Key: "garden-dev/waiting", Obj: waiting}) }) {
		t.Error("deleting an unbound shoot requeued unschedulable shoots")
	}
	s.mu.Lock()
	_, still := s.unschedulable["garden-dev/waiting"]
	s.mu.Unlock()
	if still {
		t.Error("the deleted shoot is still remembered as unschedulable")
	}
	s.onShootDelete("not a shoot")
}

func TestShootUpdateThatFreesCapacityRequeues(t *testing.T) {
	bound := boundTo(pendingShoot("bound", "eu-west-1"), "a")
	s, _, _ := newTestScheduler(t, readySeed("a", "eu-west-1", 1), awsProfile(), bound)
	moved := boundTo(bound, "elsewhere")
	moved.ResourceVersion = "2"
	if !requeues(t, s, func() { s.onShootUpdate(bound, moved) }) {
		t.Error("a shoot leaving seed a did not requeue unschedulable shoots")
	}
	if s.cache.usage("a") != 0 {
		t.Errorf("usage of a %d after the shoot left, want 0", s.cache.usage("a"))
	}
}

func TestCloudProfileHandlersRequeueOnSpecChanges(t *testing.T) {
	profile := awsProfile()
	s, _, _ := newTestScheduler(t, readySeed("a", "eu-west-1", -1), profile)

	relabelled := profile.DeepCopy()
	relabelled.Labels = map[string]string{"x": "y"}
	if requeues(t, s, func() { s.onProfileUpdate(profile, relabelled) }) {
		t.Error("a cloud profile change outside its spec requeued unschedulable shoots")
	}
	changed := profile.DeepCopy()
	changed.Spec.SeedSelector = &corev1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
	if !requeues(t, s, func() { s.onProfileUpdate(profile, changed) }) {
		t.Error("a cloud profile spec change did not requeue unschedulable shoots")
	}
	if !requeues(t, s, func() { s.onProfileAdd(changed) }) {
		t.Error("a new cloud profile did not requeue unschedulable shoots")
	}
	if requeues(t, s, func() { s.onProfileUpdate("not a profile", changed) }) {
		t.Error("an object of the wrong type requeued unschedulable shoots")
	}
}

func TestRegionConfigMapHandlersRequeue(t *testing.T) {
	s, _, _ := newTestScheduler(t, readySeed("a", "eu-west-1", -1), awsProfile())
	cm := coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{"eu-west-1": "eu-west-2: 1\n"})
	if !requeues(t, s, func() { s.onConfigMapAdd(cm) }) {
		t.Error("a new region ConfigMap did not requeue unschedulable shoots")
	}

	relabelled := cm.DeepCopy()
	relabelled.Labels["other"] = "x"
	if requeues(t, s, func() { s.onConfigMapUpdate(cm, relabelled) }) {
		t.Error("a region ConfigMap change outside data and annotations requeued unschedulable shoots")
	}

	newData := relabelled.DeepCopy()
	newData.Data["eu-west-1"] = "eu-west-2: 7\n"
	if !requeues(t, s, func() { s.onConfigMapUpdate(relabelled, newData) }) {
		t.Error("new region distances did not requeue unschedulable shoots")
	}
	newProfiles := newData.DeepCopy()
	newProfiles.Annotations[corev1alpha1.AnnotationSchedulingCloudProfiles] = "aws,gcp"
	if !requeues(t, s, func() { s.onConfigMapUpdate(newData, newProfiles) }) {
		t.Error("a region ConfigMap naming other cloud profiles did not requeue unschedulable shoots")
	}

	if !requeues(t, s, func() { s.onConfigMapDelete(cache.DeletedFinalStateUnknown{Key: "garden/regions", Obj: newProfiles}) }) {
		t.Error("a deleted region ConfigMap did not requeue unschedulable shoots")
	}
	if requeues(t, s, func() { s.onConfigMapUpdate("not a ConfigMap", cm) }) {
		t.Error("an object of the wrong type requeued unschedulable shoots")
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
			shoot := pendingShoot("s", "eu-west-1")
			shoot.ResourceVersion = ""
			s, graft, rec := newTestScheduler(t, readySeed("a", "eu-west-1", 1), awsProfile(), shoot)
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
			other := pendingShoot("other", "eu-west-1")
			s.cache.upsertShoot(other)
			if seed, err := s.cache.decide(other, algorithm.Inputs{CloudProfile: awsProfile(), Config: s.algConfig}); err != nil || seed != "a" {
				t.Errorf("another shoot after the failed binding: seed %q, %v; want a", seed, err)
			}
		})
	}
}
