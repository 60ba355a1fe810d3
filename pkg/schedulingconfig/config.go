package schedulingconfig

import (
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// FromComponentConfig translates a component's strategy and score weights
// into the algorithm's Config. Unset weights are left out (the plugin is off);
// nil weights keep the reference behaviour.
func FromComponentConfig(strategy configv1alpha1.SchedulingStrategy, weights *configv1alpha1.ScoreWeights) algorithm.Config {
	c := algorithm.Config{Strategy: algorithm.Strategy(strategy)}
	if weights == nil {
		return c
	}
	c.ScoreWeights = map[algorithm.ScorePlugin]int32{}
	for plugin, weight := range map[algorithm.ScorePlugin]*int32{
		algorithm.ScorePluginMinimalDistance:  weights.MinimalDistance,
		algorithm.ScorePluginLeastAllocated:   weights.LeastAllocated,
		algorithm.ScorePluginPreferNoSchedule: weights.PreferNoSchedule,
	} {
		if weight != nil {
			c.ScoreWeights[plugin] = *weight
		}
	}
	return c
}

// ComponentScoreWeights translates the algorithm's score weights back into a
// component configuration's; nil for none.
func ComponentScoreWeights(w map[algorithm.ScorePlugin]int32) *configv1alpha1.ScoreWeights {
	if len(w) == 0 {
		return nil
	}
	weight := func(p algorithm.ScorePlugin) *int32 {
		if v, ok := w[p]; ok {
			return &v
		}
		return nil
	}
	return &configv1alpha1.ScoreWeights{
		MinimalDistance:  weight(algorithm.ScorePluginMinimalDistance),
		LeastAllocated:   weight(algorithm.ScorePluginLeastAllocated),
		PreferNoSchedule: weight(algorithm.ScorePluginPreferNoSchedule),
	}
}
