package algorithm

import "fmt"

// FilterEvacuating rejects seeds control planes are being moved off
// (Inputs.Evacuating).
const FilterEvacuating Filter = "Evacuating"

// evacuatingPlugin rejects the seeds control planes are being moved off
// (Inputs.Evacuating): a seed being emptied receives none until that ends.
var evacuatingPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterEvacuating,
		short:  "being evacuated",
		message: func(*run, *verdict) string {
			return "control planes are being moved off the seed: it receives none until that ends"
		},
	}},
	check: func(r *run, v *verdict) Filter {
		if r.in.Evacuating(v.info.name) {
			return FilterEvacuating
		}
		return ""
	},
	off: func(r *run) bool { return r.in.Evacuating == nil },
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("control planes are being moved off each of the %d seeds left", n)
	},
}
