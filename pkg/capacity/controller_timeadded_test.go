package capacity

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// The annotator's not-ready NoExecute taint is stored with the time it was
// added, and later syncs keep that time.
func TestHealthTaintsRecordTimeAdded(t *testing.T) {
	delay := metav1.Duration{Duration: time.Minute}
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.HealthTaints = configv1alpha1.HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &delay}
	}, notReady(coretest.MakeSeed("s1").ResourceVersion("1").Obj()))
	f.sync("s1")
	f.clock.Step(time.Minute)
	f.sync("s1")
	added := t0.Add(time.Minute)
	check := func(when string) {
		t.Helper()
		var exec *v1alpha1.SeedTaint
		for _, taint := range f.refresh("s1").Spec.Taints {
			switch taint.Effect {
			case v1alpha1.TaintEffectNoExecute:
				exec = &taint
			default:
				if taint.TimeAdded != nil {
					t.Errorf("%s: %s:%s has timeAdded %v, want none", when, taint.Key, taint.Effect, taint.TimeAdded)
				}
			}
		}
		if exec == nil || exec.TimeAdded == nil || !exec.TimeAdded.Time.Equal(added) {
			t.Fatalf("%s: NoExecute taint %+v, want timeAdded %v", when, exec, added)
		}
	}
	check("when added")
	f.clock.Step(time.Minute)
	f.sync("s1")
	check("a minute later")
}
