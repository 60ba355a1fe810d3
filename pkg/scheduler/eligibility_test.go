package scheduler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func TestResponsible(t *testing.T) {
	deleting := coretest.MakeShoot("garden-dev", "d").Region("r").CloudProfileName("aws").ResourceVersion("1").Obj()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	named := func(n string) *corev1alpha1.Shoot {
		s := coretest.MakeShoot("garden-dev", "n").Region("r").CloudProfileName("aws").ResourceVersion("1").Obj()
		s.Spec.SchedulerName = ptr.To(n)
		return s
	}
	for _, tc := range []struct {
		name      string
		shoot     *corev1alpha1.Shoot
		scheduler string
		want      bool
	}{
		{"pending, no scheduler name", coretest.MakeShoot("garden-dev", "p").Region("r").CloudProfileName("aws").ResourceVersion("1").Obj(), "default-scheduler", true},
		{"pending, empty scheduler name", named(""), "default-scheduler", true},
		{"pending, own name", named("mine"), "mine", true},
		{"pending, other name", named("other"), "default-scheduler", false},
		{"no name but this is not the default scheduler", coretest.MakeShoot("garden-dev", "p").Region("r").CloudProfileName("aws").ResourceVersion("1").Obj(), "mine", false},
		{"already bound", coretest.MakeShoot("garden-dev", "b").Region("r").CloudProfileName("aws").ResourceVersion("1").Seed("seed").Obj(), "default-scheduler", false},
		{"being deleted", deleting, "default-scheduler", false},
	} {
		if got := responsible(tc.shoot, tc.scheduler); got != tc.want {
			t.Errorf("%s: responsible = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecisionInputChanged(t *testing.T) {
	base := coretest.MakeShoot("garden-dev", "s").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	base.Generation = 1
	for _, tc := range []struct {
		name   string
		mutate func(*corev1alpha1.Shoot)
		want   bool
	}{
		{"nothing but the version", func(s *corev1alpha1.Shoot) { s.ResourceVersion = "9" }, false},
		{"status written by the scheduler", func(s *corev1alpha1.Shoot) {
			s.Status.LastOperation = &corev1alpha1.LastOperation{Description: "Failed to schedule shoot"}
		}, false},
		{"spec changed", func(s *corev1alpha1.Shoot) { s.Generation = 2; s.Spec.Region = "eu-west-2" }, true},
		{"spec changed without a generation", func(s *corev1alpha1.Shoot) { s.Spec.Region = "eu-west-2" }, true},
		{"annotation added", func(s *corev1alpha1.Shoot) { s.Annotations = map[string]string{"a": "b"} }, false},
		{"label added", func(s *corev1alpha1.Shoot) { s.Labels = map[string]string{"a": "b"} }, false},
		{"descheduled from a seed", func(s *corev1alpha1.Shoot) {
			s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "a"}
		}, true},
		{"being deleted", func(s *corev1alpha1.Shoot) { s.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)} }, true},
		{"status seed changed", func(s *corev1alpha1.Shoot) { s.Status.SeedName = ptr.To("a") }, true},
	} {
		cur := base.DeepCopy()
		tc.mutate(cur)
		if got := decisionInputChanged(base, cur); got != tc.want {
			t.Errorf("%s: decisionInputChanged = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !decisionInputChanged(nil, base) {
		t.Error("an update without an old object must count as changed")
	}
}
