package algorithm

import (
	"fmt"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterEmergencyStop rejects seeds whose shoot reconciliations are
// stopped (shoot.gardener.cloud/emergency-stop-reconciliations: "true").
const FilterEmergencyStop Filter = "EmergencyStop"

// emergencyStopPlugin rejects the seeds whose shoots' reconciliations Gardener
// is told to stop: only the annotation's value "true" stops them.
var emergencyStopPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterEmergencyStop,
		short:  "reconciliations stopped",
		message: func(*run, *verdict) string {
			return fmt.Sprintf("seed is annotated %s=true: its shoots' reconciliations are stopped, it takes no shoots", v1alpha1.AnnotationEmergencyStopShootReconciliations)
		},
	}},
	mark: func(info *seedInfo) bool {
		return info.seed.Annotations[v1alpha1.AnnotationEmergencyStopShootReconciliations] == "true"
	},
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds have enabled shoot reconciliations currently", n)
	},
}
