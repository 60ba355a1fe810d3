package algorithm

import (
	"fmt"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterLimitedToleration rejects, for FitsElsewhere, seeds with NoExecute
// taints the shoot tolerates only for a limited time (tolerationSeconds):
// a move must leave it where it may stay. For a shoot the descheduler
// evicted, Schedule sets such seeds aside when candidates where it may
// stay are left.
const FilterLimitedToleration Filter = "LimitedToleration"

// A control plane move is expensive, so a shoot is not moved from one
// limited stay to the next: FitsElsewhere moves a shoot only to a seed where
// no NoExecute taint limits its stay (moveStaysLongerPlugin), and an evicted
// shoot being placed again prefers seeds where it may stay
// (setAsideLimitedStay). Schedule does not apply the first: a shoot without a
// seed is better placed on a limited stay than nowhere.

// moveStaysLongerPlugin is FitsElsewhere's rule that a move must leave the
// shoot somewhere it may stay longer than where it is.
var moveStaysLongerPlugin = &filterPlugin{
	reasons: []*reason{limitedStayReason},
	check: func(r *run, v *verdict) Filter {
		if r.staysOnlyAWhile(v.info) {
			return FilterLimitedToleration
		}
		return ""
	},
	off: func(r *run) bool { return r.exclude == "" },
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds left lets the shoot stay without a limit: it tolerates their NoExecute taints only for a while, and a move must take it where it may stay", n)
	},
}

var limitedStayReason = &reason{
	filter: FilterLimitedToleration,
	short:  "NoExecute tolerated only for a while",
	message: func(r *run, v *verdict) string {
		limited := formatLimited(LimitedNoExecuteTaints(v.info.taints, r.tolerations), r.tolerations)
		if r.exclude != "" {
			return "shoot tolerates this seed's NoExecute taints only for a limited time (" + limited +
				"); a move must take it where it may stay without a limit"
		}
		return "shoot evicted from seed " + r.evictedFrom() + " tolerates this seed's NoExecute taints only for a limited time (" +
			limited + "), so it would be evicted again; seeds where it may stay are left"
	},
}

// staysOnlyAWhile reports whether the seed has a NoExecute taint the shoot
// tolerates only with tolerationSeconds.
func (r *run) staysOnlyAWhile(info *seedInfo) bool {
	return len(LimitedNoExecuteTaints(info.taints, r.tolerations)) > 0
}

// setAsideLimitedStay drops, for an evicted shoot, the candidates whose
// NoExecute taints it tolerates only for a while when a candidate where it
// may stay is left, so that it never bounces between two seeds being drained
// (docs/algorithm.md, step 8). A new shoot is not affected.
func (r *run) setAsideLimitedStay() {
	if r.evicted() {
		r.setAside((*run).staysOnlyAWhile, FilterLimitedToleration)
	}
}

// evictedFrom is the seed the shoot is placed again after the descheduler
// evicted it from or, for FitsElsewhere, is about to be evicted from; "" for
// neither.
func (r *run) evictedFrom() string {
	if r.exclude != "" {
		return r.exclude
	}
	return r.shoot.Annotations[v1alpha1.AnnotationDescheduledFrom]
}

func (r *run) evicted() bool { return r.evictedFrom() != "" }
