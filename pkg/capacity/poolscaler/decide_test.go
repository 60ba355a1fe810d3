package poolscaler

import (
	"testing"
	"time"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func scaling(scaleIn bool) *configv1alpha1.ManagedSeedSetScaling {
	m := &configv1alpha1.ManagedSeedSetScaling{Name: "aws", MaxReplicas: 4, ScaleIn: configv1alpha1.ScaleInConfiguration{Enabled: scaleIn}}
	m.Default()
	return m
}

func readySeeds(usage ...int) []replica {
	out := make([]replica, len(usage))
	for i, u := range usage {
		out[i] = replica{Name: "aws-" + string(rune('0'+i)), Ordinal: i, Ready: true, Usage: u, Allocatable: 10}
	}
	return out
}

func TestDecideStep(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	horizon := 24 * time.Hour
	waiting := forecast.Summary{Allocatable: 20, Usage: 20, Forecast: forecast.Forecast{Waiting: 2, Full: true}}
	quiet := forecast.Summary{Allocatable: 30, Usage: 5, Forecast: forecast.Forecast{Free: 25, Never: true}}
	filling := forecast.Summary{Allocatable: 20, Usage: 10, Forecast: forecast.Forecast{Free: 10, PerHour: 1, FullIn: 10 * time.Hour}}
	cordoned := readySeeds(0, 3, 2)
	cordoned[0].Cordoned, cordoned[0].CordonedAt = true, now.Add(-2*time.Minute)
	fresh := readySeeds(0, 3, 2)
	fresh[0].Cordoned, fresh[0].CordonedAt = true, now.Add(-10*time.Second)
	notReady := readySeeds(10, 10, 0)
	notReady[2].Ready = false
	for _, tc := range []struct {
		name    string
		facts   setFacts
		scaleIn bool
		want    step
	}{
		{name: "shoots wait: one more", facts: setFacts{Replicas: 2, Seeds: readySeeds(10, 10), Pool: waiting},
			want: step{Kind: stepOut, To: 3}},
		{name: "filling within the horizon: one more", facts: setFacts{Replicas: 2, Seeds: readySeeds(5, 5), Pool: filling},
			want: step{Kind: stepOut, To: 3}},
		{name: "the new seed is not ready yet", facts: setFacts{Replicas: 3, Seeds: notReady, Pool: waiting},
			want: step{Waiting: waitSettling}},
		{name: "asked for, no seed yet", facts: setFacts{Replicas: 2, Seeds: readySeeds(10), Pool: waiting},
			want: step{Waiting: waitSettling}},
		{name: "cool-down", facts: setFacts{Replicas: 2, Seeds: readySeeds(10, 10), Pool: waiting, ScaledAt: now.Add(-10 * time.Minute)},
			want: step{Waiting: waitCoolDown}},
		{name: "at max", facts: setFacts{Replicas: 4, Seeds: readySeeds(10, 10, 10, 10), Pool: waiting},
			want: step{Waiting: waitAtMax}},
		{name: "demand gives a cordoned seed back first", facts: setFacts{Replicas: 3, Seeds: cordoned, Pool: waiting},
			want: step{Kind: stepUncordon, Seed: "aws-0"}},
		{name: "quiet, scale-in off", facts: setFacts{Replicas: 3, Seeds: readySeeds(0, 3, 2), Pool: quiet, LowSince: now.Add(-2 * time.Hour)},
			want: step{}},
		{name: "low for long enough: cordon the seed that goes first", scaleIn: true,
			facts: setFacts{Replicas: 3, Seeds: readySeeds(3, 0, 0), Pool: quiet, LowSince: now.Add(-2 * time.Hour)},
			want:  step{Kind: stepCordon, Seed: "aws-1"}},
		{name: "not low for long enough", scaleIn: true,
			facts: setFacts{Replicas: 3, Seeds: readySeeds(0, 3, 2), Pool: quiet, LowSince: now.Add(-10 * time.Minute)},
			want:  step{}},
		{name: "cordoned and still empty: one fewer", scaleIn: true,
			facts: setFacts{Replicas: 3, Seeds: cordoned, Pool: quiet, LowSince: now.Add(-2 * time.Hour)},
			want:  step{Kind: stepIn, To: 2, Seed: "aws-0"}},
		{name: "cordoned a moment ago: wait", scaleIn: true,
			facts: setFacts{Replicas: 3, Seeds: fresh, Pool: quiet, LowSince: now.Add(-2 * time.Hour)},
			want:  step{}},
		{name: "never below min", scaleIn: true,
			facts: setFacts{Replicas: 1, Seeds: readySeeds(0), Pool: quiet, LowSince: now.Add(-2 * time.Hour)},
			want:  step{}},
		{name: "no longer low: give the cordoned seed back", scaleIn: true,
			facts: setFacts{Replicas: 3, Seeds: cordoned, Pool: quiet},
			want:  step{Kind: stepUncordon, Seed: "aws-0"}},
		{name: "a shoot landed on the cordoned seed", scaleIn: true,
			facts: setFacts{Replicas: 3, Seeds: func() []replica { r := readySeeds(1, 3, 0); r[0].Cordoned = true; return r }(), Pool: quiet, LowSince: now.Add(-2 * time.Hour)},
			want:  step{Kind: stepUncordon, Seed: "aws-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decideStep(tc.facts, scaling(tc.scaleIn), horizon, now)
			if got.Kind != tc.want.Kind || got.To != tc.want.To || got.Seed != tc.want.Seed || got.Waiting != tc.want.Waiting {
				t.Errorf("decideStep = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestIsLow(t *testing.T) {
	cfg := scaling(true)
	quiet := forecast.Summary{Allocatable: 30, Usage: 5, Forecast: forecast.Forecast{Free: 25, Never: true}}
	if !isLow(setFacts{Seeds: readySeeds(0, 3, 2), Pool: quiet}, cfg, 24*time.Hour) {
		t.Error("5 of 20 left after the empty seed goes: want low")
	}
	busy := forecast.Summary{Allocatable: 30, Usage: 12, Forecast: forecast.Forecast{Free: 18, Never: true}}
	if isLow(setFacts{Seeds: readySeeds(0, 6, 6), Pool: busy}, cfg, 24*time.Hour) {
		t.Error("12 of 20 (60%) left after the empty seed goes, low mark 50%: want not low")
	}
	arriving := quiet
	arriving.PerHour, arriving.Never, arriving.FullIn = 1, false, 25*time.Hour
	if isLow(setFacts{Seeds: readySeeds(0, 3, 2), Pool: arriving}, cfg, 24*time.Hour) {
		t.Error("15 slots left at one an hour fill within the horizon: want not low")
	}
	// A brief shoot on the seed that goes first does not end the pool's low
	// time; the seed is cordoned only once it is empty again.
	busyFirst := setFacts{Replicas: 3, Seeds: readySeeds(1, 3, 2), Pool: quiet, LowSince: t0}
	if !isLow(busyFirst, cfg, 24*time.Hour) {
		t.Error("5 of 20 left after the seed that goes first: want low even while a shoot sits on it")
	}
	if st := decideStep(busyFirst, cfg, 24*time.Hour, t0.Add(2*time.Hour)); st.Kind != "" {
		t.Errorf("step %+v while a shoot sits on the seed that goes first, want none", st)
	}
}
