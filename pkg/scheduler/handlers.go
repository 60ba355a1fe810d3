package scheduler

import (
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Informer event handlers: keep the cache current, queue shoots to schedule,
// and hand the pool of unschedulable shoots each change that may help some of
// them (queueing hints, docs/algorithm.md).

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

func (s *Scheduler) onShootUpdate(old, cur any) {
	shoot, ok := cur.(*corev1alpha1.Shoot)
	if !ok {
		return
	}
	s.capacityFreed(s.cache.upsertShoot(shoot))
	oldShoot, _ := old.(*corev1alpha1.Shoot)
	switch key := algorithm.ShootKey(shoot); {
	case !responsible(shoot, s.config.SchedulerName):
		s.pool.forget(key) // bound, being deleted, or another scheduler's
	case decisionInputChanged(oldShoot, shoot):
		// A waiting shoot's own update keeps its backoff, as any requeue:
		// a tenant patching its shoot does not jump the queue.
		if !s.pool.updated(key) {
			s.queue.Add(key)
		}
	}
}

func (s *Scheduler) onShootDelete(obj any) {
	shoot, ok := deleted[*corev1alpha1.Shoot](obj)
	if !ok {
		return
	}
	key := algorithm.ShootKey(shoot)
	s.pool.forget(key)
	s.capacityFreed(s.cache.removeShoot(key))
}

// capacityFreed tells the pool about seeds a shoot stopped counting on.
func (s *Scheduler) capacityFreed(seeds []string) {
	for _, seed := range seeds {
		s.pool.event(poolEvent{trigger: triggerCapacityFreed, seed: seed})
	}
}

func (s *Scheduler) onSeedAdd(obj any) {
	seed, ok := obj.(*corev1alpha1.Seed)
	if !ok {
		return
	}
	s.cache.addSeed(seed)
	s.pool.event(poolEvent{trigger: triggerSeedAdded, seed: seed.Name, added: seed})
}

func (s *Scheduler) onSeedUpdate(old, cur any) {
	oldSeed, seed, ok := updated[*corev1alpha1.Seed](old, cur)
	if !ok {
		return
	}
	s.cache.addSeed(seed)
	if oldSeed.ResourceVersion == seed.ResourceVersion || s.pool.empty() {
		// A resync, or nothing waits: a decision that begins later reads
		// the cache, which has the seed already.
		return
	}
	change := algorithm.NewSeedChange(oldSeed, seed)
	s.pool.event(poolEvent{trigger: triggerSeedChanged, seed: seed.Name, change: &change, zones: change.ZonesChanged()})
}

func (s *Scheduler) onSeedDelete(obj any) {
	if seed, ok := deleted[*corev1alpha1.Seed](obj); ok {
		s.cache.removeSeed(seed.Name)
		s.pool.event(poolEvent{trigger: triggerSeedDeleted, seed: seed.Name, zones: true})
	}
}

func (s *Scheduler) profileChanged(name string) {
	s.pool.event(poolEvent{trigger: triggerCloudProfile, profiles: []string{name}})
}

func (s *Scheduler) onProfileAdd(obj any) {
	switch p := obj.(type) {
	case *corev1alpha1.CloudProfile:
		s.profileChanged(p.Name)
	case *corev1alpha1.NamespacedCloudProfile:
		s.profileChanged(p.Name)
	}
}

func (s *Scheduler) onProfileUpdate(old, cur any) {
	if oldProfile, profile, ok := updated[*corev1alpha1.CloudProfile](old, cur); ok && !reflect.DeepEqual(oldProfile.Spec, profile.Spec) {
		s.profileChanged(profile.Name)
	}
}

func (s *Scheduler) onNamespacedProfileUpdate(old, cur any) {
	if oldProfile, profile, ok := updated[*corev1alpha1.NamespacedCloudProfile](old, cur); ok &&
		!reflect.DeepEqual(oldProfile.Status.CloudProfileSpec, profile.Status.CloudProfileSpec) {
		s.profileChanged(profile.Name)
	}
}

// regionConfigChanged requeues the shoots of the cloud profiles the region
// ConfigMaps name, before and after the change.
func (s *Scheduler) regionConfigChanged(cms ...*corev1.ConfigMap) {
	var profiles []string
	for _, cm := range cms {
		if cm == nil || cm.Labels[corev1alpha1.LabelSchedulingPurpose] != corev1alpha1.LabelSchedulingPurposeRegionConfig {
			continue
		}
		for _, name := range strings.Split(cm.Annotations[corev1alpha1.AnnotationSchedulingCloudProfiles], ",") {
			if name = strings.TrimSpace(name); name != "" {
				profiles = append(profiles, name)
			}
		}
	}
	if len(profiles) > 0 {
		s.pool.event(poolEvent{trigger: triggerRegionConfig, profiles: profiles})
	}
}

func (s *Scheduler) onConfigMapAdd(obj any) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		s.regionConfigChanged(cm)
	}
}

func (s *Scheduler) onConfigMapUpdate(old, cur any) {
	if oldCM, cm, ok := updated[*corev1.ConfigMap](old, cur); ok {
		if !reflect.DeepEqual(oldCM.Data, cm.Data) || !reflect.DeepEqual(oldCM.Annotations, cm.Annotations) ||
			!reflect.DeepEqual(oldCM.Labels, cm.Labels) {
			s.regionConfigChanged(oldCM, cm)
		}
	}
}

func (s *Scheduler) onConfigMapDelete(obj any) {
	if cm, ok := deleted[*corev1.ConfigMap](obj); ok {
		s.regionConfigChanged(cm)
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
