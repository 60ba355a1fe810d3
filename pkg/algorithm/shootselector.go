package algorithm

import (
	"fmt"
	"maps"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterShootSeedSelector rejects seeds the shoot's seedSelector does not select.
const FilterShootSeedSelector Filter = "ShootSeedSelector"

// Bounds of a shoot's seed selector, the same as the Shoot CRD's. A decision
// matches every requirement against every seed, so an unbounded selector
// (Gardener's API sets no limit) made one shoot cost hundreds of times
// another's; a selector past these bounds is refused before it is parsed.
const (
	// MaxSelectorRequirements bounds matchLabels and matchExpressions, each.
	MaxSelectorRequirements = 32
	// MaxSelectorValues bounds the values of one matchExpressions entry.
	MaxSelectorValues = 64
	// MaxSelectorProviderTypes bounds providerTypes.
	MaxSelectorProviderTypes = 16
)

// checkSelectorBounds refuses a shoot's seed selector past the bounds above,
// naming the field and the limit.
func checkSelectorBounds(shoot *v1alpha1.Shoot) error {
	sel := shoot.Spec.SeedSelector
	if sel == nil {
		return nil
	}
	tooMany := func(field string, n, limit int) error {
		return fmt.Errorf("spec.seedSelector.%s of shoot %s has %d entries; at most %d are allowed", field, ShootKey(shoot), n, limit)
	}
	if n := len(sel.MatchLabels); n > MaxSelectorRequirements {
		return tooMany("matchLabels", n, MaxSelectorRequirements)
	}
	if n := len(sel.MatchExpressions); n > MaxSelectorRequirements {
		return tooMany("matchExpressions", n, MaxSelectorRequirements)
	}
	for i, e := range sel.MatchExpressions {
		if n := len(e.Values); n > MaxSelectorValues {
			return tooMany(fmt.Sprintf("matchExpressions[%d].values", i), n, MaxSelectorValues)
		}
	}
	if n := len(sel.ProviderTypes); n > MaxSelectorProviderTypes {
		return tooMany("providerTypes", n, MaxSelectorProviderTypes)
	}
	return nil
}

// shootSelectorPlugin rejects the seeds the shoot's seedSelector does not
// select.
var shootSelectorPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterShootSeedSelector,
		short:  "shoot seed selector",
		message: func(r *run, _ *verdict) string {
			return fmt.Sprintf("seed labels do not match the shoot's seed selector (%s)", r.text().shootSelector)
		},
		lifts: labelsChanged,
	}},
	check: func(r *run, v *verdict) Filter {
		if !r.shootSelector.Matches(v.info.labels) {
			return FilterShootSeedSelector
		}
		return ""
	},
	off: func(r *run) bool { return r.shootSelector == nil },
	headline: func(r *run, n int) string {
		return fmt.Sprintf("none out of the %d seeds has the matching labels required by seed selector of 'Shoot' (selector: '%s')", n, r.text().shootSelector)
	},
}

// labelsChanged is the hint of the label selectors.
func labelsChanged(old, cur *seedInfo) bool { return !maps.Equal(old.labels, cur.labels) }
