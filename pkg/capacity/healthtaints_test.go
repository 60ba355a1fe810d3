package capacity

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

func healthSeed(status v1alpha1.ConditionStatus, lastOp bool, taints ...v1alpha1.SeedTaint) *v1alpha1.Seed {
	s := &v1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	if status != "" {
		s.Status.Conditions = []v1alpha1.Condition{{Type: v1alpha1.SeedGardenletReady, Status: status, LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))}}
	}
	if lastOp {
		s.Status.LastOperation = &v1alpha1.LastOperation{}
	}
	s.Spec.Taints = taints
	return s
}

func withFailingBackup(s *v1alpha1.Seed) *v1alpha1.Seed {
	s.Spec.Backup = &v1alpha1.SeedBackup{}
	s.Status.Conditions = append(s.Status.Conditions, v1alpha1.Condition{Type: v1alpha1.SeedBackupBucketsReady, Status: v1alpha1.ConditionFalse})
	return s
}

var (
	noSchedule = v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintNotReady, Effect: v1alpha1.TaintEffectNoSchedule}
	noExecute  = v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintNotReady, Effect: v1alpha1.TaintEffectNoExecute}
	other      = v1alpha1.SeedTaint{Key: "dedicated", Value: ptr.To("x"), Effect: v1alpha1.TaintEffectNoExecute}
	preferNot  = v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintNotReady, Effect: v1alpha1.TaintEffectPreferNoSchedule}
)

func formatted(taints []v1alpha1.SeedTaint) []string {
	var out []string
	for _, t := range taints {
		out = append(out, helper.FormatTaint(t))
	}
	return out
}

func TestDecideTaints(t *testing.T) {
	minute := time.Minute
	for _, tc := range []struct {
		name    string
		seed    *v1alpha1.Seed
		since   time.Time
		delay   *time.Duration
		ready   bool
		want    []v1alpha1.SeedTaint
		changed bool
		recheck time.Duration
	}{
		{name: "ready untainted", seed: healthSeed(v1alpha1.ConditionTrue, true, other), ready: true, want: []v1alpha1.SeedTaint{other}},
		{name: "condition false gets NoSchedule", seed: healthSeed(v1alpha1.ConditionFalse, true, other), since: t0,
			want: []v1alpha1.SeedTaint{other, noSchedule}, changed: true},
		{name: "condition missing gets NoSchedule", seed: healthSeed("", true), since: t0,
			want: []v1alpha1.SeedTaint{noSchedule}, changed: true},
		{name: "lastOperation missing gets NoSchedule", seed: healthSeed(v1alpha1.ConditionTrue, false), since: t0,
			want: []v1alpha1.SeedTaint{noSchedule}, changed: true},
		// Failing backup buckets keep new shoots away (the scheduler's rule)
		// but are no reason to evict the control planes already there.
		{name: "failing backup buckets do not taint", seed: withFailingBackup(healthSeed(v1alpha1.ConditionTrue, true, other)), delay: &minute,
			ready: true, want: []v1alpha1.SeedTaint{other}},
		{name: "already tainted", seed: healthSeed(v1alpha1.ConditionUnknown, true, noSchedule), since: t0,
			want: []v1alpha1.SeedTaint{noSchedule}},
		{name: "taint without effect counts as NoSchedule", seed: healthSeed(v1alpha1.ConditionFalse, true, v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintNotReady}), since: t0,
			want: []v1alpha1.SeedTaint{{Key: v1alpha1.SeedTaintNotReady}}},
		{name: "NoExecute not yet due", seed: healthSeed(v1alpha1.ConditionFalse, true), since: t0.Add(-20 * time.Second), delay: &minute,
			want: []v1alpha1.SeedTaint{noSchedule}, changed: true, recheck: 40 * time.Second},
		{name: "NoExecute due", seed: healthSeed(v1alpha1.ConditionFalse, true, noSchedule), since: t0.Add(-time.Minute), delay: &minute,
			want: []v1alpha1.SeedTaint{noSchedule, noExecute}, changed: true},
		{name: "no delay means no NoExecute", seed: healthSeed(v1alpha1.ConditionFalse, true), since: t0.Add(-24 * time.Hour),
			want: []v1alpha1.SeedTaint{noSchedule}, changed: true},
		{name: "NoExecute removed while the seed is not ready is not re-added early", seed: healthSeed(v1alpha1.ConditionFalse, true, noSchedule, noExecute), since: t0, delay: &minute,
			want: []v1alpha1.SeedTaint{noSchedule}, changed: true, recheck: time.Minute},
		{name: "ready again removes both and keeps the rest", seed: healthSeed(v1alpha1.ConditionTrue, true, noSchedule, other, noExecute, preferNot), ready: true, delay: &minute,
			want: []v1alpha1.SeedTaint{other, preferNot}, changed: true},
		{name: "duplicates collapse", seed: healthSeed(v1alpha1.ConditionFalse, true, noSchedule, noSchedule), since: t0,
			want: []v1alpha1.SeedTaint{noSchedule}, changed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decideTaints(tc.seed, tc.since, t0, tc.delay)
			if d.Ready != tc.ready || (d.Reason == "") != tc.ready {
				t.Errorf("ready %v (%q), want %v", d.Ready, d.Reason, tc.ready)
			}
			if got, want := formatted(d.Taints), formatted(tc.want); !slices.Equal(got, want) {
				t.Errorf("taints %v, want %v", got, want)
			}
			if d.Changed != tc.changed || d.RecheckAfter != tc.recheck {
				t.Errorf("changed %v recheck %v, want %v and %v", d.Changed, d.RecheckAfter, tc.changed, tc.recheck)
			}
		})
	}
}

func TestUnhealthySince(t *testing.T) {
	observed := t0
	if got := unhealthySince(healthSeed(v1alpha1.ConditionFalse, true), observed); !got.Equal(t0.Add(-time.Hour)) {
		t.Errorf("condition false an hour ago: got %v", got)
	}
	if got := unhealthySince(healthSeed(v1alpha1.ConditionTrue, false), observed); !got.Equal(observed) {
		t.Errorf("missing lastOperation must use the observation time: got %v", got)
	}
	if got := unhealthySince(healthSeed("", true), observed); !got.Equal(observed) {
		t.Errorf("missing condition must use the observation time: got %v", got)
	}
	future := healthSeed(v1alpha1.ConditionFalse, true)
	future.Status.Conditions[0].LastTransitionTime = metav1.NewTime(t0.Add(time.Hour))
	if got := unhealthySince(future, observed); !got.Equal(observed) {
		t.Errorf("a transition after the observation must not delay eviction: got %v", got)
	}
}
