package scheduler

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Informer event handlers: keep the cache current, queue shoots to schedule,
// and requeue unschedulable shoots when a change may make them fit.

func (s *Scheduler) onShootAdd(obj any) {
	shoot, ok := obj.(*corev1alpha1.Shoot)
	if !ok {
		return
	}
	s.cache.upsertShoot(shoot)
	if responsible(shoot, s.config.SchedulerName) {
		s.queue.Add(algorithm.ShootKey(shoot))
	}
}

func (s *Scheduler) onShootUpdate(_, cur any) {
	shoot, ok := cur.(*corev1alpha1.Shoot)
	if !ok {
		return
	}
	if s.cache.upsertShoot(shoot) {
		s.requeueUnschedulable()
	}
	if responsible(shoot, s.config.SchedulerName) {
		s.queue.Add(algorithm.ShootKey(shoot))
	}
}

func (s *Scheduler) onShootDelete(obj any) {
	shoot, ok := deleted[*corev1alpha1.Shoot](obj)
	if !ok {
		return
	}
	key := algorithm.ShootKey(shoot)
	s.setUnschedulable(key, false)
	if s.cache.removeShoot(key) {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onSeedAdd(obj any) {
	seed, ok := obj.(*corev1alpha1.Seed)
	if !ok {
		return
	}
	s.cache.addSeed(seed)
	s.requeueUnschedulable()
}

func (s *Scheduler) onSeedUpdate(old, cur any) {
	if oldSeed, seed, ok := updated[*corev1alpha1.Seed](old, cur); ok {
		s.cache.addSeed(seed)
		if seedMayNowFit(oldSeed, seed) {
			s.requeueUnschedulable()
		}
	}
}

func (s *Scheduler) onSeedDelete(obj any) {
	if seed, ok := deleted[*corev1alpha1.Seed](obj); ok {
		s.cache.removeSeed(seed.Name)
	}
}

func (s *Scheduler) onProfileAdd(any) { s.requeueUnschedulable() }

func (s *Scheduler) onProfileUpdate(old, cur any) {
	if oldProfile, profile, ok := updated[*corev1alpha1.CloudProfile](old, cur); ok && !reflect.DeepEqual(oldProfile.Spec, profile.Spec) {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onNamespacedProfileUpdate(old, cur any) {
	if oldProfile, profile, ok := updated[*corev1alpha1.NamespacedCloudProfile](old, cur); ok &&
		!reflect.DeepEqual(oldProfile.Status.CloudProfileSpec, profile.Status.CloudProfileSpec) {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onConfigMapAdd(obj any) {
	if _, ok := obj.(*corev1.ConfigMap); ok {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onConfigMapUpdate(old, cur any) {
	if oldCM, cm, ok := updated[*corev1.ConfigMap](old, cur); ok {
		if !reflect.DeepEqual(oldCM.Data, cm.Data) || !reflect.DeepEqual(oldCM.Annotations, cm.Annotations) {
			s.requeueUnschedulable()
		}
	}
}

func (s *Scheduler) onConfigMapDelete(obj any) {
	if _, ok := deleted[*corev1.ConfigMap](obj); ok {
		s.requeueUnschedulable()
	}
}

// updated returns both sides of an update as a T; false when either is
// something else, which the handlers ignore.
func updated[T any](old, cur any) (T, T, bool) {
	o, ok1 := old.(T)
	c, ok2 := cur.(T)
	return o, c, ok1 && ok2
}

// deleted returns a deleted object as a T, also from the tombstone of a
// delete the informer missed; false when it is something else.
func deleted[T any](obj any) (T, bool) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	t, ok := obj.(T)
	return t, ok
}
