package algorithm

import (
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// ConfigFor translates a component's strategy and score weights into the
// algorithm's Config. The scheduler and the descheduler both use it, so that
// the descheduler's requireFit asks exactly what the scheduler will decide.
func ConfigFor(strategy configv1alpha1.SchedulingStrategy, weights *configv1alpha1.ScoreWeights) Config {
	c := Config{Strategy: Strategy(strategy)}
	if weights == nil {
		return c
	}
	c.ScoreWeights = map[ScorePlugin]int32{}
	for plugin, weight := range map[ScorePlugin]*int32{
		ScorePluginMinimalDistance:  weights.MinimalDistance,
		ScorePluginLeastAllocated:   weights.LeastAllocated,
		ScorePluginPreferNoSchedule: weights.PreferNoSchedule,
	} {
		if weight != nil {
			c.ScoreWeights[plugin] = *weight
		}
	}
	return c
}
