package algorithm

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

const (
	// FilterNetworks rejects seeds whose networks intersect the shoot's.
	FilterNetworks Filter = "Networks"
	// FilterTaints rejects seeds with untolerated NoSchedule or NoExecute taints.
	FilterTaints Filter = "Taints"
	// FilterTolerationRunsOut rejects seeds with a NoExecute taint the shoot
	// tolerates for less than MinimumStay: placed there, it would have to
	// leave at once.
	FilterTolerationRunsOut Filter = "TolerationRunsOut"
	// FilterCapacity rejects seeds whose allocatable shoots are used up.
	FilterCapacity Filter = "Capacity"
)

// candidatePlugin is the reference scheduler's candidate step: networks,
// taints, capacity, in this order, one step with one headline. Its reason
// when it removes the last candidates is the most frequent of the four.
var candidatePlugin = &filterPlugin{
	reasons: []*reason{networksReason, taintsReason, tolerationRunsOutReason, capacityReason},
	check: func(r *run, v *verdict) Filter {
		if (v.info.netErr != "" || v.info.defaultErr != [2]string{}) && r.nets.seedError(v.info) != "" {
			return FilterNetworks
		}
		if r.nets.overlaps(v.info, nil) {
			return FilterNetworks
		}
		runsOut := false
		for _, t := range v.info.taints {
			switch helper.TaintEffectOf(t) {
			case v1alpha1.TaintEffectPreferNoSchedule:
				continue
			case v1alpha1.TaintEffectNoExecute:
				runsOut = runsOut || stayRunsOut(t, r.tolerations)
			}
			if !TaintTolerated(t, r.tolerations) {
				return FilterTaints
			}
		}
		if r.returnsToEvictingSeed(v.info) {
			return FilterTaints
		}
		if runsOut {
			return FilterTolerationRunsOut
		}
		if !r.ignoreCapacity && v.info.hasAllocatable && int64(v.usage) >= v.info.allocatable {
			return FilterCapacity
		}
		return ""
	},
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("0/%d seed cluster candidate(s) are eligible for scheduling", n)
	},
}

var networksReason = &reason{
	filter: FilterNetworks,
	short:  "networks overlap",
	message: func(r *run, v *verdict) string {
		if msg := r.nets.seedError(v.info); msg != "" {
			return "invalid networks: " + msg
		}
		var overlaps []string
		more := 0
		r.nets.overlaps(v.info, func(s, t network) bool {
			if len(overlaps) < maxListed {
				with := "seed " + t.String()
				if t.reserved != "" {
					with = t.String()
				}
				overlaps = append(overlaps, "shoot "+s.String()+" intersects with "+with)
			} else {
				more++
			}
			return true
		})
		if more > 0 {
			overlaps = append(overlaps, fmt.Sprintf("and %d more", more))
		}
		return "invalid networks: [" + strings.Join(overlaps, "; ") + "]"
	},
	lifts: func(old, cur *seedInfo) bool {
		return !reflect.DeepEqual(old.seed.Spec.Networks, cur.seed.Spec.Networks)
	},
}

var taintsReason = &reason{
	filter: FilterTaints,
	short:  "taints not tolerated",
	message: func(r *run, v *verdict) string {
		untolerated := UntoleratedTaints(v.info.taints, r.tolerations, v1alpha1.TaintEffectNoSchedule, v1alpha1.TaintEffectNoExecute)
		if len(untolerated) == 0 {
			return "shoot was evicted from this seed and tolerates its NoExecute taints only for a limited time (" +
				formatTaints(LimitedNoExecuteTaints(v.info.taints, r.tolerations)) + ")"
		}
		return untoleratedMessage(r.shoot, untolerated)
	},
	lifts: taintRemoved,
}

var tolerationRunsOutReason = &reason{
	filter: FilterTolerationRunsOut,
	short:  "NoExecute tolerated under a minute",
	message: func(r *run, v *verdict) string {
		return fmt.Sprintf("shoot tolerates the seed's NoExecute taints for less than %s (%s): it would have to leave as soon as it arrived",
			MinimumStay, formatLimited(RunOutNoExecuteTaints(v.info.taints, r.tolerations), r.tolerations))
	},
	lifts: taintRemoved,
}

var capacityReason = &reason{
	filter: FilterCapacity,
	short:  "no capacity",
	message: func(_ *run, v *verdict) string {
		return fmt.Sprintf("seed does not have available capacity for shoots (%d counted, %d allocatable)", v.usage, v.info.allocatable)
	},
	lifts: func(old, cur *seedInfo) bool {
		return (old.hasAllocatable && !cur.hasAllocatable) || (cur.hasAllocatable && cur.allocatable > old.allocatable)
	},
}

// taintRemoved: adding a taint never helps; removing or changing one may.
func taintRemoved(old, cur *seedInfo) bool {
	return slices.ContainsFunc(old.taints, func(t v1alpha1.SeedTaint) bool {
		return !slices.ContainsFunc(cur.taints, func(u v1alpha1.SeedTaint) bool { return helper.SameTaint(t, u) })
	})
}

// returnsToEvictingSeed reports whether placing the shoot on this seed would
// send it back to the seed it was evicted from while a NoExecute taint there
// still limits its stay. Kubernetes lets such a pod return and be evicted
// again; a control plane move is too expensive for that ping-pong.
func (r *run) returnsToEvictingSeed(info *seedInfo) bool {
	if r.shoot.Annotations[v1alpha1.AnnotationDescheduledFrom] != info.name {
		return false
	}
	return len(LimitedNoExecuteTaints(info.taints, r.tolerations)) > 0
}
