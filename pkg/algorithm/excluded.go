package algorithm

import "fmt"

// FilterExcluded rejects the seed FitsElsewhere was asked to leave out.
const FilterExcluded Filter = "Excluded"

// excludedPlugin rejects the seed FitsElsewhere was asked to leave out (the
// shoot's current seed).
var excludedPlugin = &filterPlugin{
	reasons: []*reason{{
		filter:  FilterExcluded,
		short:   "current seed",
		message: func(*run, *verdict) string { return "the shoot's current seed" },
	}},
	check: func(r *run, v *verdict) Filter {
		if v.info.name == r.exclude {
			return FilterExcluded
		}
		return ""
	},
	off: func(r *run) bool { return r.exclude == "" },
	headline: func(r *run, _ int) string {
		return fmt.Sprintf("no seed other than the current seed %q exists", r.exclude)
	},
}
