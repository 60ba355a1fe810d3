package algorithm

import (
	"fmt"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterHighAvailability rejects seeds with fewer than 3 zones for zone-tolerant control planes.
const FilterHighAvailability Filter = "HighAvailability"

// highAvailabilityPlugin rejects, for a control plane with failure tolerance
// zone, the seeds with fewer than 3 zones.
var highAvailabilityPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterHighAvailability,
		short:  "fewer than 3 zones",
		message: func(_ *run, v *verdict) string {
			return fmt.Sprintf("seed has %d zone(s); a control plane with failure tolerance type 'zone' needs at least 3", v.info.zones)
		},
		lifts: func(old, cur *seedInfo) bool { return cur.zones > old.zones },
	}},
	check: func(_ *run, v *verdict) Filter {
		if v.info.zones < 3 {
			return FilterHighAvailability
		}
		return ""
	},
	off: func(r *run) bool { return !r.needsZones() },
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'", n)
	},
}

func (r *run) needsZones() bool {
	cp := r.shoot.Spec.ControlPlane
	return cp != nil && cp.HighAvailability != nil && cp.HighAvailability.FailureTolerance.Type == v1alpha1.FailureToleranceTypeZone
}
