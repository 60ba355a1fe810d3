package algorithm

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestSeedChangeLifts: each change lifts the filters that read what it
// changed, and no other.
func TestSeedChangeLifts(t *testing.T) {
	base := coretest.MakeSeed("a").Allocatable(10).Networks("10.0.0.0/16", "10.1.0.0/16", "10.2.0.0/16").Obj()
	base.Spec.Taints = []v1alpha1.SeedTaint{{Key: "k"}}
	all := filterOrderList
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.Seed)
		lifts  []Filter
	}{
		{"nothing", func(*v1alpha1.Seed) {}, nil},
		{"usage only", func(s *v1alpha1.Seed) {
			s.Status.Usage = corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse("7")}
		}, nil},
		{"taint removed", func(s *v1alpha1.Seed) { s.Spec.Taints = nil }, []Filter{FilterTaints, FilterTolerationRunsOut}},
		{"taint added", func(s *v1alpha1.Seed) { s.Spec.Taints = append(s.Spec.Taints, v1alpha1.SeedTaint{Key: "more"}) }, nil},
		{"taint's effect changed", func(s *v1alpha1.Seed) {
			s.Spec.Taints = []v1alpha1.SeedTaint{{Key: "k", Effect: v1alpha1.TaintEffectPreferNoSchedule}}
		}, []Filter{FilterTaints, FilterTolerationRunsOut}},
		{"allocatable raised", func(s *v1alpha1.Seed) {
			s.Status.Allocatable[v1alpha1.ResourceShoots] = resource.MustParse("20")
		}, []Filter{FilterCapacity}},
		{"allocatable lowered", func(s *v1alpha1.Seed) {
			s.Status.Allocatable[v1alpha1.ResourceShoots] = resource.MustParse("2")
		}, nil},
		{"allocatable no longer reported", func(s *v1alpha1.Seed) { s.Status.Allocatable = nil }, []Filter{FilterCapacity}},
		{"became not ready", func(s *v1alpha1.Seed) { s.Status.Conditions[0].Status = v1alpha1.ConditionFalse }, nil},
		{"label added", func(s *v1alpha1.Seed) { s.Labels = map[string]string{"x": "y"} },
			[]Filter{FilterCloudProfileSeedSelector, FilterShootSeedSelector}},
		{"region changed", func(s *v1alpha1.Seed) { s.Spec.Provider.Region = "eu-west-2" }, []Filter{FilterStrategy}},
		{"provider type changed", func(s *v1alpha1.Seed) { s.Spec.Provider.Type = "gcp" }, []Filter{FilterProvider, FilterStrategy}},
		{"zones added", func(s *v1alpha1.Seed) { s.Spec.Provider.Zones = append(s.Spec.Provider.Zones, "x", "y", "z") },
			[]Filter{FilterHighAvailability, FilterZonePinning, FilterZoneSelection, FilterZonePreference}},
		{"networks changed", func(s *v1alpha1.Seed) { s.Spec.Networks.Pods = "10.99.0.0/16" }, []Filter{FilterNetworks}},
		{"emergency stop lifted", nil, []Filter{FilterEmergencyStop}},
		{"being deleted", func(s *v1alpha1.Seed) {
			s.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
			s.Spec.Taints = nil
		}, nil},
	} {
		old, cur := base.DeepCopy(), base.DeepCopy()
		if tc.mutate == nil {
			old.Annotations = map[string]string{v1alpha1.AnnotationEmergencyStopShootReconciliations: "true"}
		} else {
			tc.mutate(cur)
		}
		change := NewSeedChange(old, cur)
		for _, f := range all {
			if !hintKnown(f) {
				continue
			}
			want := false
			for _, l := range tc.lifts {
				want = want || l == f
			}
			if got := change.Lifts(f); got != want {
				t.Errorf("%s: Lifts(%s) = %v, want %v", tc.name, f, got, want)
			}
		}
	}

	usable := coretest.MakeSeed("a").Obj()
	notReady := usable.DeepCopy()
	notReady.Status.Conditions[0].Status = v1alpha1.ConditionFalse
	if !NewSeedChange(notReady, usable).Lifts(FilterUsable) {
		t.Error("a seed becoming ready does not lift Usable")
	}
}

// hintKnown tells whether a filter has a hint of its own; the others are
// lifted by every change.
func hintKnown(f Filter) bool {
	switch f {
	case FilterExcluded, FilterMigration, FilterEvacuating, FilterLimitedToleration,
		FilterPreferNoSchedule, FilterMinimalDistance, FilterLeastUsed, FilterScore:
		return false
	}
	return true
}

// TestCapacityRejectionHintsWhatElseWouldReject: a full seed in another
// region is watched for its region, not its capacity: room there alone
// cannot help.
func TestCapacityRejectionHintsWhatElseWouldReject(t *testing.T) {
	snap := snapshotOf([]*v1alpha1.Seed{coretest.MakeSeed("near").Allocatable(1).Obj(), coretest.MakeSeed("far").Provider("aws", "eu-west-2").Allocatable(1).Obj()},
		append(fill("near", 1), fill("far", 1)...)...)
	_, err := Schedule(coretest.MakeShoot("garden-dev", "s").Obj(), snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	var se *ScheduleError
	if !errors.As(err, &se) {
		t.Fatalf("decision: %v, want a ScheduleError", err)
	}
	hints := map[string]Filter{}
	for _, r := range se.Rejections {
		hints[r.Seed] = r.Hint()
	}
	if hints["near"] != FilterCapacity || hints["far"] != FilterStrategy {
		t.Errorf("hints %v, want near: Capacity, far: Strategy", hints)
	}
	if got := StableReason(err); got != "no capacity" {
		t.Errorf("stable reason %q, want %q", got, "no capacity")
	}
}

func TestStableReasonIgnoresCounts(t *testing.T) {
	a := &ScheduleError{Rejections: []Rejection{{Seed: "a", Filter: FilterCapacity}, {Seed: "b", Filter: FilterTaints}, {Seed: "c", Filter: FilterProvider}}}
	b := &ScheduleError{Rejections: []Rejection{{Seed: "a", Filter: FilterTaints}, {Seed: "b", Filter: FilterCapacity}, {Seed: "c", Filter: FilterCapacity},
		{Seed: "d", Filter: FilterProvider}}}
	if StableReason(a) != StableReason(b) || StableReason(a) != "provider type, taints not tolerated, no capacity" {
		t.Errorf("stable reasons %q and %q, want both %q", StableReason(a), StableReason(b), "provider type, taints not tolerated, no capacity")
	}
	if a.Short() == b.Short() {
		t.Errorf("the short forms should differ in their counts: %q", a.Short())
	}
	if got := StableReason(errors.New("cloud profile \"x\" not found")); got != "cloud profile \"x\" not found" {
		t.Errorf("another error's stable reason %q", got)
	}
	for _, f := range filterOrderList {
		if FilterOfCode(FilterCode(f)) != f {
			t.Errorf("filter %s does not survive its code", f)
		}
	}
	if FilterOfCode(0) != "" {
		t.Error("code 0 names a filter")
	}
}
