package schedulingconfig

import (
	"reflect"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/algorithm"
)

func TestEncodeDecode(t *testing.T) {
	weighted := algorithm.Config{Strategy: algorithm.StrategyMinimalDistance, ScoreWeights: map[algorithm.ScorePlugin]int32{
		algorithm.ScorePluginLeastAllocated: 3, algorithm.ScorePluginMinimalDistance: 1, algorithm.ScorePluginPreferNoSchedule: 0,
	}}
	for _, tc := range []struct {
		name  string
		in    algorithm.Config
		value string
		want  algorithm.Config
	}{
		{
			name:  "defaulted strategy, no weights",
			in:    algorithm.Config{},
			value: `{"version":"v1","schedulerName":"default-scheduler","strategy":"SameRegion"}`,
			want:  algorithm.Config{Strategy: algorithm.StrategySameRegion},
		},
		{
			name:  "weights, in name order",
			in:    weighted,
			value: `{"version":"v1","schedulerName":"default-scheduler","strategy":"MinimalDistance","scoreWeights":{"LeastAllocated":3,"MinimalDistance":1,"PreferNoSchedule":0}}`,
			want:  weighted,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			value, err := Encode("default-scheduler", "", tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if value != tc.value {
				t.Errorf("Encode = %s, want %s", value, tc.value)
			}
			p, err := Decode(value)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Config(), tc.want) || p.SchedulerName != "default-scheduler" {
				t.Errorf("Decode = %+v, want %+v", p, tc.want)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	for value, want := range map[string]string{
		`not json`: "not the JSON of a scheduling configuration",
		`{"version":"v2","strategy":"SameRegion"}`:                                      `version "v2", this build reads "v1"`,
		`{"strategy":"SameRegion"}`:                                                     `version "", this build reads "v1"`,
		`{"version":"v1","strategy":"Nearest"}`:                                         `unknown strategy "Nearest"`,
		`{"version":"v1","strategy":"SameRegion","scoreWeights":{"Cost":1}}`:            `unknown score plugin "Cost"`,
		`{"version":"v1","strategy":"SameRegion","scoreWeights":{"LeastAllocated":-1}}`: "negative weight",
	} {
		if _, err := Decode(value); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want an error containing %q", value, err, want)
		}
	}
	// Fields added later within v1 are ignored by this reader.
	p, err := Decode(`{"version":"v1","strategy":"SameRegion","regionConfigNamespace":"garden"}`)
	if err != nil || p.Strategy != algorithm.StrategySameRegion {
		t.Errorf("unknown field: %+v, %v", p, err)
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		in   algorithm.Config
		want string
	}{
		{algorithm.Config{}, "SameRegion, no score weights"},
		{algorithm.Config{Strategy: algorithm.StrategyMinimalDistance}, "MinimalDistance, no score weights"},
		{algorithm.Config{ScoreWeights: map[algorithm.ScorePlugin]int32{algorithm.ScorePluginPreferNoSchedule: 0, algorithm.ScorePluginLeastAllocated: 3}},
			"SameRegion, score weights LeastAllocated=3,PreferNoSchedule=0"},
	} {
		if got := Describe(tc.in); got != tc.want {
			t.Errorf("Describe(%+v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
