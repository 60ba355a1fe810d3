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
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	shoot, ok := obj.(*corev1alpha1.Shoot)
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
	oldSeed, ok1 := old.(*corev1alpha1.Seed)
	seed, ok2 := cur.(*corev1alpha1.Seed)
	if !ok1 || !ok2 {
		return
	}
	s.cache.addSeed(seed)
	if seedMayNowFit(oldSeed, seed) {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onSeedDelete(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if seed, ok := obj.(*corev1alpha1.Seed); ok {
		s.cache.removeSeed(seed.Name)
	}
}

func (s *Scheduler) onProfileAdd(any) { s.requeueUnschedulable() }

func (s *Scheduler) onProfileUpdate(old, cur any) {
	oldProfile, ok1 := old.(*corev1alpha1.CloudProfile)
	profile, ok2 := cur.(*corev1alpha1.CloudProfile)
	if !ok1 || !ok2 {
		return
	}
	if !reflect.DeepEqual(oldProfile.Spec, profile.Spec) {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onConfigMapAdd(obj any) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		s.cache.setRegionConfigMap(cm.Namespace+"/"+cm.Name, cm)
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onConfigMapUpdate(old, cur any) {
	oldCM, ok1 := old.(*corev1.ConfigMap)
	cm, ok2 := cur.(*corev1.ConfigMap)
	if !ok1 || !ok2 {
		return
	}
	s.cache.setRegionConfigMap(cm.Namespace+"/"+cm.Name, cm)
	if !reflect.DeepEqual(oldCM.Data, cm.Data) || !reflect.DeepEqual(oldCM.Annotations, cm.Annotations) {
		s.requeueUnschedulable()
	}
}

func (s *Scheduler) onConfigMapDelete(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		s.cache.setRegionConfigMap(cm.Namespace+"/"+cm.Name, nil)
		s.requeueUnschedulable()
	}
}
