package algorithm

import (
	"slices"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// offersAccessRestrictions reports whether the seed offers every access
// restriction the shoot needs. As in Gardener, a shoot listing more
// restrictions than the seed offers fits it in no case, even with repeated
// names.
func offersAccessRestrictions(seed *v1alpha1.Seed, needed []v1alpha1.AccessRestrictionWithOptions) bool {
	if len(needed) == 0 {
		return true
	}
	if len(needed) > len(seed.Spec.AccessRestrictions) {
		return false
	}
	return missingAccessRestriction(seed, needed) == ""
}

// missingAccessRestriction is the first restriction the shoot needs that the
// seed does not offer, or "".
func missingAccessRestriction(seed *v1alpha1.Seed, needed []v1alpha1.AccessRestrictionWithOptions) string {
	for _, n := range needed {
		if !slices.ContainsFunc(seed.Spec.AccessRestrictions, func(a v1alpha1.AccessRestriction) bool { return a.Name == n.Name }) {
			return n.Name
		}
	}
	return ""
}

func (r *run) checkAccessRestrictions(v *verdict) Filter {
	if !offersAccessRestrictions(v.info.seed, r.shoot.Spec.AccessRestrictions) {
		return FilterAccessRestrictions
	}
	return ""
}
