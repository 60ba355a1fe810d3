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
	mv := Move{Shoot: c.Shoot, From: from, To: to, ToUsage: snap.Usage(rec.Seed), Closer: rec.Closer}
	if why := c.Improves.Accepts(mv); why != "" {
		return "", why
	}
	return rec.Seed, ""
}

// Spreads are the utilisation spread of a snapshot's seeds, over the
// garden and per region: what a pass and a plan give the plugins as
// SeedState.Landscape and SeedState.Region.
type Spreads struct {
	Garden   Spread
	ByRegion map[string]Spread
}

// SpreadsOf computes the spreads of the snapshot's seeds that declare
// allocatable shoots.
func SpreadsOf(snap *algorithm.Snapshot) Spreads {
	out := Spreads{ByRegion: map[string]Spread{}}
	sums := map[string]float64{}
	var sum float64
	snap.EachSeed(func(seed *v1alpha1.Seed, usage int) {
		u, ok := Utilisation(seed, usage)
		if !ok {
			return
		}
		out.Garden.add(u)
		sum += u
		region := seed.Spec.Provider.Region
		r := out.ByRegion[region]
		r.add(u)
		out.ByRegion[region] = r
		sums[region] += u
	})
	out.Garden.mean(sum)
	for region, r := range out.ByRegion {
		r.mean(sums[region])
		out.ByRegion[region] = r
	}
	return out
}

func (s *Spread) add(u float64) {
	if s.Seeds == 0 || u < s.Min {
		s.Min = u
	}
	if s.Seeds == 0 || u > s.Max {
		s.Max = u
	}
	s.Seeds++
}

func (s *Spread) mean(sum float64) {
	if s.Seeds > 0 {
		s.Mean = sum / float64(s.Seeds)
	}
}

// Of fills the state's Landscape and Region from the spreads.
func (s Spreads) Of(st *SeedState) {
	st.Landscape = s.Garden
	st.Region = s.ByRegion[st.Seed.Spec.Provider.Region]
}
