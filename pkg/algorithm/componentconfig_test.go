package algorithm

import (
	"reflect"
	"testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

func TestConfigFor(t *testing.T) {
	if got := ConfigFor(configv1alpha1.StrategySameRegion, nil); got.Strategy != StrategySameRegion || got.ScoreWeights != nil {
		t.Errorf("without weights: %+v, want SameRegion and the reference behaviour", got)
	}
	two := int32(2)
	got := ConfigFor(configv1alpha1.StrategyMinimalDistance, &configv1alpha1.ScoreWeights{LeastAllocated: &two})
	want := Config{Strategy: StrategyMinimalDistance, ScoreWeights: map[ScorePlugin]int32{ScorePluginLeastAllocated: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with one weight: %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("translated config invalid: %v", err)
	}
}
