package algorithm

import (
	"cmp"
	"slices"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// WaitsForSeed reports whether the scheduler will give the shoot a seed: it
// has none and is not being deleted.
func WaitsForSeed(shoot *v1alpha1.Shoot) bool {
	return (shoot.Spec.SeedName == nil || *shoot.Spec.SeedName == "") && shoot.DeletionTimestamp == nil
}

// Migrating reports whether the shoot's control plane is moving between
// seeds: it is bound to one (spec.seedName) and still runs on another
// (status.seedName), until gardenlet finishes the move.
func Migrating(shoot *v1alpha1.Shoot) bool {
	spec, status := shoot.Spec.SeedName, shoot.Status.SeedName
	return spec != nil && status != nil && *spec != "" && *status != "" && *spec != *status
}

// Evicted reports whether graft-descheduler evicted the shoot and it waits
// for a new seed.
func Evicted(shoot *v1alpha1.Shoot) bool {
	_, ok := shoot.Annotations[v1alpha1.AnnotationDescheduledFrom]
	return ok && WaitsForSeed(shoot)
}

// EvictionRecorded reports whether the shoot's own eviction record
// (graft.dev/evictions) ends with an eviction from the seed its
// graft.dev/descheduled-from names: graft-descheduler writes both in one
// patch, so a mark without that record is not one of its evictions.
func EvictionRecorded(shoot *v1alpha1.Shoot) bool {
	from, ok := shoot.Annotations[v1alpha1.AnnotationDescheduledFrom]
	if !ok {
		return false
	}
	records := helper.Evictions(shoot)
	return len(records) > 0 && records[len(records)-1].Seed == from
}

// ReserveForWaiting counts each shoot waiting for a seed on the seed Schedule
// chooses for it now, one after the other, so that a decision made on the
// snapshot afterwards does not count on a free slot one of them will take.
// Evicted shoots are placed first (the scheduler has had them longest), then
// the others, each group in namespace/name order; shoots that fit nowhere,
// or whose inputs cannot be had, take nothing. Shoots that do not wait for a
// seed are skipped.
func ReserveForWaiting(snapshot *Snapshot, shoots []*v1alpha1.Shoot, inputs func(*v1alpha1.Shoot) (Inputs, error)) {
	waiting := make([]*v1alpha1.Shoot, 0, len(shoots))
	for _, s := range shoots {
		if WaitsForSeed(s) {
			waiting = append(waiting, s)
		}
	}
	slices.SortFunc(waiting, func(a, b *v1alpha1.Shoot) int {
		if ea, eb := Evicted(a), Evicted(b); ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		return cmp.Compare(ShootKey(a), ShootKey(b))
	})
	for _, s := range waiting {
		in, err := inputs(s)
		if err != nil {
			continue
		}
		target, ok := seedFor(s, snapshot, &in)
		if !ok {
			continue
		}
		placed := *s
		placed.Spec.SeedName = &target
		// An update, not an add: on a fork (Snapshot.Fork) the shoot may
		// already be counted through status.seedName.
		snapshot.UpdateShoot(s, &placed)
	}
}

// seedFor is Schedule without the reasons of a failure, which cost three
// times the decision over many seeds: reserving for a backlog of shoots that
// fit nowhere builds them for nobody.
func seedFor(shoot *v1alpha1.Shoot, snapshot *Snapshot, in *Inputs) (string, bool) {
	r, err := decide(shoot, snapshot, in, "", false)
	if err != nil {
		return "", false
	}
	defer r.release()
	if r.chosen < 0 {
		return "", false
	}
	return r.verdicts[r.chosen].info.name, true
}
