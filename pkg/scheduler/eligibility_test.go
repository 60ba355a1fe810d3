package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestResponsible(t *testing.T) {
	deleting := pendingShoot("d", "r")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	named := func(n string) *corev1alpha1.Shoot {
		s := pendingShoot("n", "r")
		s.Spec.SchedulerName = ptr.To(n)
		return s
	}
	for _, tc := range []struct {
		name      string
		shoot     *corev1alpha1.Shoot
		scheduler string
		want      bool
	}{
		{"pending, no scheduler name", pendingShoot("p", "r"), "default-scheduler", true},
		{"pending, empty scheduler name", named(""), "default-scheduler", true},
		{"pending, own name", named("mine"), "mine", true},
		{"pending, other name", named("other"), "default-scheduler", false},
		{"no name but this is not the default scheduler", pendingShoot("p", "r"), "mine", false},
		{"already bound", boundTo(pendingShoot("b", "r"), "seed"), "default-scheduler", false},
		{"being deleted", deleting, "default-scheduler", false},
	} {
		if got := responsible(tc.shoot, tc.scheduler); got != tc.want {
			t.Errorf("%s: responsible = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSeedMayNowFit(t *testing.T) {
	base := readySeed("a", "eu-west-1", 10)
	base.Spec.Taints = []corev1alpha1.SeedTaint{{Key: "k"}}
	for _, tc := range []struct {
		name   string
		mutate func(*corev1alpha1.Seed)
		want   bool
	}{
		{"nothing", func(*corev1alpha1.Seed) {}, false},
		{"usage only", func(s *corev1alpha1.Seed) {
			s.Status.Usage = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("7")}
		}, false},
		{"taint removed", func(s *corev1alpha1.Seed) { s.Spec.Taints = nil }, true},
		{"allocatable raised", func(s *corev1alpha1.Seed) {
			s.Status.Allocatable[corev1alpha1.ResourceShoots] = resource.MustParse("20")
		}, true},
		{"became not ready", func(s *corev1alpha1.Seed) { s.Status.Conditions[0].Status = corev1alpha1.ConditionFalse }, true},
		{"became invisible", func(s *corev1alpha1.Seed) {
			s.Spec.Settings = &corev1alpha1.SeedSettings{Scheduling: &corev1alpha1.SeedSettingScheduling{Visible: false}}
		}, true},
		{"label added", func(s *corev1alpha1.Seed) { s.Labels = map[string]string{"x": "y"} }, true},
		{"lastOperation gone", func(s *corev1alpha1.Seed) { s.Status.LastOperation = nil }, true},
		// Backup buckets count only for a seed with spec.backup.
		{"backup buckets failing on a seed without backup", func(s *corev1alpha1.Seed) {
			s.Status.Conditions = append(s.Status.Conditions, corev1alpha1.Condition{Type: corev1alpha1.SeedBackupBucketsReady, Status: corev1alpha1.ConditionFalse})
		}, false},
		{"backup buckets failing on a seed with backup", func(s *corev1alpha1.Seed) {
			s.Spec.Backup = &corev1alpha1.SeedBackup{}
			s.Status.Conditions = append(s.Status.Conditions, corev1alpha1.Condition{Type: corev1alpha1.SeedBackupBucketsReady, Status: corev1alpha1.ConditionFalse})
		}, true},
		{"being deleted", func(s *corev1alpha1.Seed) {
			s.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
			s.Spec.Taints = nil
		}, false},
	} {
		cur := base.DeepCopy()
		tc.mutate(cur)
		if got := seedMayNowFit(base, cur); got != tc.want {
			t.Errorf("%s: seedMayNowFit = %v, want %v", tc.name, got, tc.want)
		}
	}
}
