package algorithm

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterAccessRestrictions rejects seeds that do not offer every access
// restriction the shoot needs.
const FilterAccessRestrictions Filter = "AccessRestrictions"

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

// accessRestrictionsPlugin rejects the seeds that do not offer every access
// restriction the shoot asks for.
var accessRestrictionsPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterAccessRestrictions,
		short:  "access restrictions",
		message: func(r *run, v *verdict) string {
			if missing := missingAccessRestriction(v.info.seed, r.shoot.Spec.AccessRestrictions); missing != "" {
				return "seed does not offer access restriction " + Clip(missing)
			}
			return fmt.Sprintf("shoot asks for %d access restrictions, more than the %d the seed offers", len(r.shoot.Spec.AccessRestrictions), len(v.info.seed.Spec.AccessRestrictions))
		},
		lifts: func(old, cur *seedInfo) bool {
			return !equality.Semantic.DeepEqual(old.seed.Spec.AccessRestrictions, cur.seed.Spec.AccessRestrictions)
		},
	}},
	check: func(r *run, v *verdict) Filter {
		if !offersAccessRestrictions(v.info.seed, r.shoot.Spec.AccessRestrictions) {
			return FilterAccessRestrictions
		}
		return ""
	},
	off: func(r *run) bool { return len(r.shoot.Spec.AccessRestrictions) == 0 },
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds supports the access restrictions configured in the shoot specification", n)
	},
}
