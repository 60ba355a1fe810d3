package schedulingconfig

import (
	"maps"
	"reflect"
	"testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

func TestFromComponentConfig(t *testing.T) {
	if got := FromComponentConfig(configv1alpha1.StrategySameRegion, nil); got.Strategy != algorithm.StrategySameRegion || got.ScoreWeights != nil {
		t.Errorf("without weights: %+v, want SameRegion and the reference behaviour", got)
	}
	two := int32(2)
	got := FromComponentConfig(configv1alpha1.StrategyMinimalDistance, &configv1alpha1.ScoreWeights{LeastAllocated: &two})
	want := algorithm.Config{Strategy: algorithm.StrategyMinimalDistance, ScoreWeights: map[algorithm.ScorePlugin]int32{algorithm.ScorePluginLeastAllocated: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with one weight: %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("translated config invalid: %v", err)
	}
}

// Published weights read back into a component configuration translate to
// the same weights.
func TestComponentScoreWeightsRoundTrip(t *testing.T) {
	w := map[algorithm.ScorePlugin]int32{algorithm.ScorePluginLeastAllocated: 3, algorithm.ScorePluginPreferNoSchedule: 0}
	if got := FromComponentConfig("", ComponentScoreWeights(w)).ScoreWeights; !maps.Equal(got, w) {
		t.Errorf("round trip gave %v, want %v", got, w)
	}
	if ComponentScoreWeights(nil) != nil {
		t.Error("no weights gave a configuration's weights")
	}
}
