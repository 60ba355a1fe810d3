package garden

import (
	"fmt"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// CheckTaintEffect refuses, on Gardener, a taint effect other than
// NoSchedule: Gardener's seed taints have no effects, every taint keeps new
// shoots off the seed and none evicts the shoots on it, so a NoExecute or
// PreferNoSchedule taint cannot be written as what it says.
func (a API) CheckTaintEffect(effect corev1alpha1.TaintEffect) error {
	if a != Gardener || effect == "" || effect == corev1alpha1.TaintEffectNoSchedule {
		return nil
	}
	return fmt.Errorf("taint effect %s is not supported on Gardener (%s): Gardener's seed taints have no effects, every taint keeps new shoots off the seed and none evicts the shoots on it, so only NoSchedule taints can be set there",
		effect, Gardener)
}

// gardenerTaint is Gardener's SeedTaint: a key and an optional value.
type gardenerTaint struct {
	Key   string  `json:"key"`
	Value *string `json:"value,omitempty"`
}

// SeedTaints returns taints as the API's spec.taints holds them, for a patch:
// graft's unchanged; Gardener's with key and value only, after checking that
// each taint keeps new shoots off and nothing more.
func (a API) SeedTaints(taints []corev1alpha1.SeedTaint) (any, error) {
	if a != Gardener {
		return taints, nil
	}
	out := make([]gardenerTaint, 0, len(taints))
	for _, t := range taints {
		if err := a.CheckTaintEffect(helper.TaintEffectOf(t)); err != nil {
			return nil, fmt.Errorf("seed taint %s: %w", helper.FormatTaint(t), err)
		}
		out = append(out, gardenerTaint{Key: t.Key, Value: t.Value})
	}
	return out, nil
}
