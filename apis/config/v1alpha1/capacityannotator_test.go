package v1alpha1

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestCapacityAnnotatorDefaults(t *testing.T) {
	c := &CapacityAnnotatorConfiguration{}
	c.Default()
	if got := c.LeaderElection.ResourceName; got != "graft-capacity-annotator" {
		t.Errorf("lease name = %q, want graft-capacity-annotator", got)
	}
	if got := c.Capacity[corev1alpha1.ResourceShoots]; got.Value() != 200 {
		t.Errorf("capacity shoots = %s, want 200", got.String())
	}
	if got, ok := c.Reserved[corev1alpha1.ResourceShoots]; !ok || !got.IsZero() {
		t.Errorf("reserved shoots = %s (set %v), want 0", got.String(), ok)
	}
	if c.SyncPeriod.Duration != 5*time.Second || c.ConcurrentSyncs != 5 {
		t.Errorf("syncPeriod %v concurrentSyncs %d, want 5s and 5", c.SyncPeriod.Duration, c.ConcurrentSyncs)
	}
	if c.HealthTaints.Enabled || c.HealthTaints.UnhealthyEvictionDelay != nil {
		t.Errorf("health taints must be off by default: %+v", c.HealthTaints)
	}
	if errs := c.Validate(); len(errs) != 0 {
		t.Errorf("defaulted configuration is invalid: %v", errs)
	}
}

func TestCapacityAnnotatorDefaultsKeepSetValues(t *testing.T) {
	c := &CapacityAnnotatorConfiguration{
		Capacity:        corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("50")},
		Reserved:        corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("5")},
		SyncPeriod:      metav1.Duration{Duration: time.Second},
		ConcurrentSyncs: 2,
	}
	c.Default()
	if q := c.Capacity[corev1alpha1.ResourceShoots]; q.Value() != 50 {
		t.Errorf("capacity overwritten: %s", q.String())
	}
	if q := c.Reserved[corev1alpha1.ResourceShoots]; q.Value() != 5 {
		t.Errorf("reserved overwritten: %s", q.String())
	}
	if c.SyncPeriod.Duration != time.Second || c.ConcurrentSyncs != 2 {
		t.Errorf("values overwritten: %+v", c)
	}
}

func TestCapacityAnnotatorValidation(t *testing.T) {
	neg := metav1.Duration{Duration: -time.Second}
	c := &CapacityAnnotatorConfiguration{
		Capacity: corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("-1")},
		Reserved: corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("1500m")},
		Overrides: []CapacityOverride{
			{SeedSelector: metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}, Capacity: corev1.ResourceList{"shoots": resource.MustParse("1")}},
			{SeedSelector: metav1.LabelSelector{}},
			{SeedSelector: metav1.LabelSelector{}, Capacity: corev1.ResourceList{"not a name": resource.MustParse("1")}},
		},
		HealthTaints: HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &neg},
	}
	c.Default()
	c.SyncPeriod.Duration = -1
	c.ConcurrentSyncs = -1
	errs := c.Validate()
	got := errs.ToAggregate().Error()
	for _, want := range []string{
		"capacity[shoots]", "must not be negative",
		"reserved[shoots]", "whole number",
		"overrides[0].seedSelector",
		"overrides[1]: Required",
		"overrides[2].capacity[not a name]",
		"syncPeriod", "concurrentSyncs",
		"healthTaints.unhealthyEvictionDelay",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("validation errors do not mention %q:\n%s", want, got)
		}
	}
}
