package framework

import (
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// ImprovementTarget is where an improving candidate (Candidate.Improves)
// on from would go: the seed the scheduler would choose for it now on snap
// (algorithm.Reconsider, without the descheduler's own exclusions, so that
// the move is one the scheduler would not reverse), when that is another
// seed and the plugin accepts the move; otherwise "" and why not. The
// descheduler's passes and the improvement plans decide with it.
func ImprovementTarget(c Candidate, from *v1alpha1.Seed, snap *algorithm.Snapshot, in algorithm.Inputs) (target, why string) {
	in.Evacuating = nil
	rec, err := algorithm.Reconsider(c.Shoot, snap, in, from.Name)
	switch {
	case err != nil:
		return "", "no seed fits it now: " + algorithm.ShortReason(err)
	case rec.Seed == from.Name:
		return "", "the scheduler would keep it on seed " + from.Name
	}
	to, _ := snap.Seed(rec.Seed)
	mv := Move{Shoot: c.Shoot, From: from, To: to, FromUsage: max(0, snap.Usage(from.Name)-1), ToUsage: snap.Usage(rec.Seed), Closer: rec.Closer}
	if why := c.Improves.Accepts(mv); why != "" {
		return "", why
	}
	return rec.Seed, ""
}

// SpreadOf is the utilisation spread of the snapshot's seeds: what a pass
// and a plan give the plugins as SeedState.Landscape.
func SpreadOf(snap *algorithm.Snapshot) Spread {
	var out Spread
	sum := 0.0
	snap.EachSeed(func(seed *v1alpha1.Seed, usage int) {
		u, ok := Utilisation(seed, usage)
		if !ok {
			return
		}
		if out.Seeds == 0 || u < out.Min {
			out.Min = u
		}
		if out.Seeds == 0 || u > out.Max {
			out.Max = u
		}
		out.Seeds++
		sum += u
	})
	if out.Seeds > 0 {
		out.Mean = sum / float64(out.Seeds)
	}
	return out
}
