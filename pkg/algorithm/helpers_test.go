package algorithm

import (
	"strconv"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func snapshotOf(seeds []*v1alpha1.Seed, shoots ...*v1alpha1.Shoot) *Snapshot {
	snap := NewSnapshot()
	for _, s := range seeds {
		snap.AddSeed(s)
	}
	for _, s := range shoots {
		snap.AddShoot(s)
	}
	return snap
}

// fill returns n shoots bound to the seed.
func fill(seed string, n int) []*v1alpha1.Shoot {
	out := make([]*v1alpha1.Shoot, n)
	for i := range out {
		out[i] = coretest.MakeShoot("garden-dev", seed+"-filler-"+strconv.Itoa(i)).Seed(seed).Obj()
	}
	return out
}
