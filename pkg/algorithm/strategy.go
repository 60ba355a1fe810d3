package algorithm

import "fmt"

// FilterStrategy rejects seeds the strategy does not allow (region, provider type).
const FilterStrategy Filter = "Strategy"

// strategyPlugin rejects the seeds the strategy does not allow: for purpose
// testing another provider type, for SameRegion another region or provider
// type. MinimalDistance sets seeds aside in the choice (choice.go) and fails
// the decision under this plugin's headline when none is near enough.
var strategyPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterStrategy,
		short:  "strategy",
		message: func(r *run, v *verdict) string {
			if r.testing {
				return fmt.Sprintf("seed provider type %q is not the shoot's %q (purpose testing allows any region of the same provider type)",
					v.info.providerType, r.text().providerType)
			}
			return fmt.Sprintf("seed is in region %q of provider type %q; strategy SameRegion needs region %q of provider type %q",
				v.info.region, v.info.providerType, r.text().region, r.text().providerType)
		},
		lifts: func(old, cur *seedInfo) bool { return old.providerType != cur.providerType || old.region != cur.region },
	}},
	check: func(r *run, v *verdict) Filter {
		if v.info.providerType != r.shoot.Spec.Provider.Type || (!r.testing && v.info.region != r.shoot.Spec.Region) {
			return FilterStrategy
		}
		return ""
	},
	off: func(r *run) bool { return !r.testing && r.strategy != StrategySameRegion },
	headline: func(r *run, _ int) string {
		return fmt.Sprintf("no matching seed candidate found for Configuration (Cloud Profile '%s', Region '%s', SeedDeterminationStrategy '%s')",
			r.in.CloudProfile.Name, r.text().region, r.strategy)
	},
}
