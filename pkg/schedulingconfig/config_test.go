package schedulingconfig

import (
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
