package algorithm

import (
	"maps"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Reconsideration is the scheduler's decision for a shoot that already has
// a seed, made as if the shoot were new (its own usage not held against the
// seeds it is counted on), and how its current seed fared in it.
type Reconsideration struct {
	// Seed is the seed the scheduler would choose now; the current one when
	// it would keep the shoot where it is.
	Seed string
	// CurrentFilter is what set the current seed aside, "" when it is the
	// choice (or not known to the snapshot: then it is NotInSnapshot).
	CurrentFilter Filter
	// Closer tells that the choice is nearer the shoot's region than the
	// current seed by the strategy's own measure: in the shoot's region while
	// the current seed is not (SameRegion), or at a smaller distance among
	// the candidates (MinimalDistance, or scoring with distance).
	Closer bool
}

// NotInSnapshot is Reconsideration.CurrentFilter for a current seed the
// snapshot does not hold.
const NotInSnapshot Filter = "NotInSnapshot"

// Reconsider decides again for a shoot on current: where the scheduler
// would place it now and whether that is closer to its region. A move to
// Seed is one the scheduler would not reverse; the descheduler's improving
// plugins move a shoot only there. The shoot is decided as the scheduler
// places it once evicted from current (graft.dev/descheduled-from): seeds
// where it may stay only a while are set aside (setAsideLimitedStay), or
// the scheduler would send it back. It costs what Schedule costs.
func Reconsider(shoot *v1alpha1.Shoot, snapshot *Snapshot, in Inputs, current string) (Reconsideration, error) {
	r, err := decide(evictedFrom(shoot, current), snapshot, &in, "", false)
	if err != nil {
		return Reconsideration{}, err
	}
	defer r.release()
	if r.chosen < 0 {
		return Reconsideration{}, r.scheduleError()
	}
	chosen := &r.verdicts[r.chosen]
	out := Reconsideration{Seed: chosen.info.name, CurrentFilter: NotInSnapshot}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.info.name != current {
			continue
		}
		out.CurrentFilter = v.filter
		switch {
		case i == r.chosen:
		case chosen.hasDistance && v.hasDistance:
			out.Closer = chosen.distance < v.distance
		case v.filter == FilterMinimalDistance:
			// Its region is not listed while the choice's is.
			out.Closer = true
		case v.filter == FilterStrategy && !r.testing:
			// SameRegion rules the current seed out for its region (or
			// provider type) and the choice is in the shoot's region.
			out.Closer = v.info.region != shoot.Spec.Region && chosen.info.region == shoot.Spec.Region
		}
	}
	return out, nil
}

// evictedFrom is a shallow copy of the shoot marked evicted from seed, as
// the scheduler sees it after the descheduler's move.
func evictedFrom(shoot *v1alpha1.Shoot, seed string) *v1alpha1.Shoot {
	if shoot.Annotations[v1alpha1.AnnotationDescheduledFrom] == seed {
		return shoot
	}
	out := *shoot
	out.Annotations = maps.Clone(shoot.Annotations)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[v1alpha1.AnnotationDescheduledFrom] = seed
	return &out
}
