package capacity

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// The not-ready NoExecute taint records when it was added, so that the
// tolerations of the seed's shoots count from then in every descheduler
// process; the NoSchedule taint records no time; a NoExecute taint already on
// the seed keeps its time.
func TestDecideTaintsRecordsTimeAdded(t *testing.T) {
	minute := time.Minute
	now := t0.Add(700 * time.Millisecond)
	d := decideTaints(healthSeed(v1alpha1.ConditionFalse, true), t0.Add(-time.Hour), now, &minute)
	if len(d.Taints) != 2 {
		t.Fatalf("taints = %v", formatted(d.Taints))
	}
	for _, taint := range d.Taints {
		switch taint.Effect {
		case v1alpha1.TaintEffectNoExecute:
			if taint.TimeAdded == nil || !taint.TimeAdded.Time.Equal(t0) {
				t.Errorf("NoExecute timeAdded = %v, want %v", taint.TimeAdded, t0)
			}
		default:
			if taint.TimeAdded != nil {
				t.Errorf("NoSchedule timeAdded = %v, want none", taint.TimeAdded)
			}
		}
	}

	earlier := metav1.NewTime(t0.Add(-10 * time.Minute))
	stamped := noExecute
	stamped.TimeAdded = &earlier
	d = decideTaints(healthSeed(v1alpha1.ConditionFalse, true, noSchedule, stamped), t0.Add(-time.Hour), now, &minute)
	if d.Changed || d.Taints[1].TimeAdded == nil || !d.Taints[1].TimeAdded.Time.Equal(earlier.Time) {
		t.Errorf("existing NoExecute taint: changed %v, timeAdded %v, want unchanged %v", d.Changed, d.Taints[1].TimeAdded, earlier)
	}
}
