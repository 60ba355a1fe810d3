package algorithm

import "github.com/graft-dev/graft/apis/core/v1alpha1"

// reconciliationsStopped reports whether Gardener's reconciliations of the
// seed's shoots are stopped: only the value "true" stops them.
func reconciliationsStopped(seed *v1alpha1.Seed) bool {
	return seed.Annotations[v1alpha1.AnnotationEmergencyStopShootReconciliations] == "true"
}

func (r *run) checkEmergencyStop(v *verdict) Filter {
	if v.info.stopped {
		return FilterEmergencyStop
	}
	return ""
}
