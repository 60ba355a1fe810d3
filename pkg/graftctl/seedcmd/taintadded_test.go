package seedcmd

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// An added NoExecute taint records when it was added; other effects record
// nothing; overwriting a taint with the same key, value and effect keeps its
// time (its shoots' tolerations go on counting), and a new value starts a new
// time.
func TestApplyTaintsTimeAdded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour + 300*time.Millisecond)
	nowStored := t0.Add(time.Hour)
	exec := func(value string, added *time.Time) corev1alpha1.SeedTaint {
		t := corev1alpha1.SeedTaint{Key: "k", Value: ptr.To(value), Effect: corev1alpha1.TaintEffectNoExecute}
		if added != nil {
			t.TimeAdded = ptr.To(metav1.NewTime(*added))
		}
		return t
	}
	sched := corev1alpha1.SeedTaint{Key: "k", Effect: corev1alpha1.TaintEffectNoSchedule}
	tests := []struct {
		name      string
		current   []corev1alpha1.SeedTaint
		add       corev1alpha1.SeedTaint
		overwrite bool
		want      *time.Time
	}{
		{name: "new NoExecute taint", add: exec("1", nil), want: &nowStored},
		{name: "a time given on the command line is not taken", add: exec("1", &t0), want: &nowStored},
		{name: "NoSchedule records no time", add: sched},
		{name: "overwrite with the same taint keeps its time", current: []corev1alpha1.SeedTaint{exec("1", &t0)}, add: exec("1", nil), overwrite: true, want: &t0},
		{name: "overwrite of an unstamped same taint leaves it to the descheduler", current: []corev1alpha1.SeedTaint{exec("1", nil)}, add: exec("1", nil), overwrite: true},
		{name: "overwrite with a new value is a new taint", current: []corev1alpha1.SeedTaint{exec("1", &t0)}, add: exec("2", nil), overwrite: true, want: &nowStored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := ApplyTaints("s1", tt.current, TaintChanges{Add: []corev1alpha1.SeedTaint{tt.add}}, tt.overwrite, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("taints = %v", got)
			}
			switch at := got[0].TimeAdded; {
			case tt.want == nil && at != nil:
				t.Errorf("timeAdded = %v, want none", at)
			case tt.want != nil && (at == nil || !at.Time.Equal(*tt.want)):
				t.Errorf("timeAdded = %v, want %v", at, *tt.want)
			}
		})
	}
}
