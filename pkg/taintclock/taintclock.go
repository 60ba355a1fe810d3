package taintclock

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// Clocked reports whether a taint of this effect carries timeAdded.
func Clocked(t v1alpha1.SeedTaint) bool {
	return helper.TaintEffectOf(t) == v1alpha1.TaintEffectNoExecute
}

// Same reports whether two taints are the same taint: equal key, value and
// effect (an empty effect being NoSchedule). timeAdded is not compared: it
// says when the taint was added, not which taint it is.
func Same(a, b v1alpha1.SeedTaint) bool {
	if a.Key != b.Key || helper.TaintEffectOf(a) != helper.TaintEffectOf(b) || (a.Value == nil) != (b.Value == nil) {
		return false
	}
	return a.Value == nil || *a.Value == *b.Value
}

// Added returns the taint as a writer adds it at now: a NoExecute taint gets
// timeAdded now (to the second, as the API stores it); other taints get none.
// A writer that finds the same taint (see Same) on the seed already keeps that
// one instead, so that its clock does not start over.
func Added(t v1alpha1.SeedTaint, now time.Time) v1alpha1.SeedTaint {
	if Clocked(t) {
		at := metav1.NewTime(now.UTC().Truncate(time.Second))
		t.TimeAdded = &at
	} else {
		t.TimeAdded = nil
	}
	return t
}

// Stamp decides graft-descheduler's write: every NoExecute taint without
// timeAdded gets the time the descheduler first saw it (sighted), rounded up to
// the next second because the API stores seconds and rounding down would
// shorten tolerations the descheduler already counts. It returns the new list
// and whether anything was stamped; the input is not modified, and without
// anything to stamp the input itself is returned.
func Stamp(taints []v1alpha1.SeedTaint, sighted func(v1alpha1.SeedTaint) time.Time) ([]v1alpha1.SeedTaint, bool) {
	var out []v1alpha1.SeedTaint
	for i, t := range taints {
		if !Clocked(t) || t.TimeAdded != nil {
			continue
		}
		if out == nil {
			out = append([]v1alpha1.SeedTaint(nil), taints...)
		}
		at := metav1.NewTime(ceilSecond(sighted(t)).UTC())
		out[i].TimeAdded = &at
	}
	if out == nil {
		return taints, false
	}
	return out, true
}

// Unstamped reports whether any NoExecute taint lacks timeAdded.
func Unstamped(taints []v1alpha1.SeedTaint) bool {
	for _, t := range taints {
		if Clocked(t) && t.TimeAdded == nil {
			return true
		}
	}
	return false
}

func ceilSecond(t time.Time) time.Time {
	down := t.Truncate(time.Second)
	if down.Equal(t) {
		return down
	}
	return down.Add(time.Second)
}

// Start is when a shoot's toleration of a NoExecute taint starts to count: the
// taint's timeAdded, or sighted (when the caller first saw the taint) for a
// taint without it, and arrived instead when the shoot came to the seed later,
// so that a shoot placed on a tainted seed gets its full tolerationSeconds. A
// timeAdded later than sighted (a writer's clock ahead of ours, or a bogus
// value) counts from sighted: the taint was there then. A zero arrived means
// the arrival is not known to be later.
//
// A toleration with tolerationSeconds runs out at Start + tolerationSeconds.
func Start(t v1alpha1.SeedTaint, sighted, arrived time.Time) time.Time {
	start := sighted
	if t.TimeAdded != nil && (sighted.IsZero() || t.TimeAdded.Time.Before(sighted)) {
		start = t.TimeAdded.Time
	}
	if arrived.After(start) {
		start = arrived
	}
	return start
}

// Equal reports whether two taint lists are the same taints with the same
// clocks, in the same order.
func Equal(a, b []v1alpha1.SeedTaint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Same(a[i], b[i]) || !sameTime(a[i].TimeAdded, b[i].TimeAdded) {
			return false
		}
	}
	return true
}

func sameTime(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Time.Equal(b.Time)
}
