package taintclock

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(t time.Time) *metav1.Time { return ptr.To(metav1.NewTime(t)) }

func TestStamp(t *testing.T) {
	drain := v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}
	stamped := drain
	stamped.TimeAdded = at(t0.Add(-time.Hour))
	cordon := v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoSchedule}
	noEffect := v1alpha1.SeedTaint{Key: "legacy"}
	other := v1alpha1.SeedTaint{Key: "maintenance", Value: ptr.To("x"), Effect: v1alpha1.TaintEffectNoExecute}
	sighted := map[string]time.Time{
		drain.Key + ":NoExecute": t0.Add(1500 * time.Millisecond),
		"maintenance:NoExecute":  t0.Add(2 * time.Second),
	}
	seen := func(t v1alpha1.SeedTaint) time.Time { return sighted[t.Key+":"+string(t.Effect)] }

	cases := []struct {
		name    string
		in      []v1alpha1.SeedTaint
		changed bool
		want    []*metav1.Time
	}{
		{name: "no taints"},
		{name: "other effects carry no clock", in: []v1alpha1.SeedTaint{cordon, noEffect}, want: []*metav1.Time{nil, nil}},
		{name: "a stamped taint keeps its time", in: []v1alpha1.SeedTaint{stamped, cordon}, want: []*metav1.Time{stamped.TimeAdded, nil}},
		{name: "the sighting, rounded up to the second", in: []v1alpha1.SeedTaint{cordon, drain}, changed: true, want: []*metav1.Time{nil, at(t0.Add(2 * time.Second))}},
		{name: "a whole second stays", in: []v1alpha1.SeedTaint{other}, changed: true, want: []*metav1.Time{at(t0.Add(2 * time.Second))}},
		{name: "only the taints without a clock", in: []v1alpha1.SeedTaint{stamped, other, cordon}, changed: true, want: []*metav1.Time{stamped.TimeAdded, at(t0.Add(2 * time.Second)), nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]v1alpha1.SeedTaint(nil), tc.in...)
			out, changed := Stamp(tc.in, seen)
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if len(out) != len(tc.want) {
				t.Fatalf("got %d taints, want %d", len(out), len(tc.want))
			}
			for i := range out {
				if !Same(out[i], tc.in[i]) || !sameTime(out[i].TimeAdded, tc.want[i]) {
					t.Errorf("taint %d = %+v (timeAdded %v), want timeAdded %v", i, out[i], out[i].TimeAdded, tc.want[i])
				}
			}
			for i := range tc.in {
				if tc.in[i].TimeAdded != before[i].TimeAdded {
					t.Errorf("input taint %d modified", i)
				}
			}
		})
	}
}

func TestStart(t *testing.T) {
	taint := v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}
	withTime := func(ts time.Time) v1alpha1.SeedTaint { c := taint; c.TimeAdded = at(ts); return c }
	cases := []struct {
		name             string
		taint            v1alpha1.SeedTaint
		sighted, arrived time.Time
		want             time.Time
	}{
		{name: "timeAdded before a restart's sighting wins", taint: withTime(t0), sighted: t0.Add(10 * time.Minute), want: t0},
		{name: "without timeAdded the sighting counts", taint: taint, sighted: t0.Add(time.Minute), want: t0.Add(time.Minute)},
		{name: "a later arrival counts", taint: withTime(t0), sighted: t0.Add(time.Minute), arrived: t0.Add(5 * time.Minute), want: t0.Add(5 * time.Minute)},
		{name: "an earlier arrival does not", taint: withTime(t0), sighted: t0.Add(time.Minute), arrived: t0.Add(-time.Hour), want: t0},
		{name: "timeAdded in the future counts from the sighting", taint: withTime(t0.Add(time.Hour)), sighted: t0, want: t0},
		{name: "no sighting known", taint: withTime(t0), want: t0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Start(tc.taint, tc.sighted, tc.arrived); !got.Equal(tc.want) {
				t.Errorf("Start = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAdded(t *testing.T) {
	now := t0.Add(1700 * time.Millisecond)
	exec := Added(v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoExecute}, now)
	if exec.TimeAdded == nil || !exec.TimeAdded.Time.Equal(t0.Add(time.Second)) {
		t.Errorf("NoExecute: timeAdded = %v, want %v (the second the API stores)", exec.TimeAdded, t0.Add(time.Second))
	}
	for _, e := range []v1alpha1.TaintEffect{"", v1alpha1.TaintEffectNoSchedule, v1alpha1.TaintEffectPreferNoSchedule} {
		if got := Added(v1alpha1.SeedTaint{Key: "k", Effect: e, TimeAdded: at(t0)}, now); got.TimeAdded != nil {
			t.Errorf("effect %q: timeAdded = %v, want none", e, got.TimeAdded)
		}
	}
}

func TestEqual(t *testing.T) {
	a := v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoExecute}
	b := a
	b.TimeAdded = at(t0)
	if Equal([]v1alpha1.SeedTaint{a}, []v1alpha1.SeedTaint{b}) {
		t.Error("a stamp is a change")
	}
	c := a
	c.TimeAdded = at(t0)
	if !Equal([]v1alpha1.SeedTaint{b}, []v1alpha1.SeedTaint{c}) {
		t.Error("equal clocks differ")
	}
}
