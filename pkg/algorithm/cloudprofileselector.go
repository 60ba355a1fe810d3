package algorithm

import "fmt"

// FilterCloudProfileSeedSelector rejects seeds the cloud profile's seedSelector does not select.
const FilterCloudProfileSeedSelector Filter = "CloudProfileSeedSelector"

// cloudProfileSelectorPlugin rejects the seeds the cloud profile's
// seedSelector does not select.
var cloudProfileSelectorPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterCloudProfileSeedSelector,
		short:  "cloud profile seed selector",
		message: func(r *run, _ *verdict) string {
			return fmt.Sprintf("seed labels do not match the seed selector of CloudProfile %q (%s)", r.in.CloudProfile.Name, r.text().cpSelector)
		},
		lifts: labelsChanged,
	}},
	check: func(r *run, v *verdict) Filter {
		if !r.cpSelector.Matches(v.info.labels) {
			return FilterCloudProfileSeedSelector
		}
		return ""
	},
	off: func(r *run) bool { return r.cpSelector == nil },
	headline: func(r *run, n int) string {
		return fmt.Sprintf("none out of the %d seeds has the matching labels required by seed selector of 'CloudProfile' (selector: '%s')", n, r.text().cpSelector)
	},
}
