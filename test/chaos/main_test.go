package main

import (
	"testing"
	"time"
)

func TestExpectedExit(t *testing.T) {
	now := time.Now()
	rep := &replica{Name: "graft-scheduler-0"}
	lost := "graft-scheduler: leader election lost"
	for _, tc := range []struct {
		name     string
		pausedAt time.Time
		apiDown  []time.Time
		e        exit
		expected bool
	}{
		{"killed by the run", time.Time{}, nil, exit{At: now, Killed: true, Last: "anything"}, true},
		{"lease lost after a pause", now.Add(-20 * time.Second), nil, exit{At: now, Last: lost}, true},
		{"lease lost long after a pause", now.Add(-2 * time.Minute), nil, exit{At: now, Last: lost}, false},
		{"lease lost across the API server restart", time.Time{}, []time.Time{now.Add(-10 * time.Second)}, exit{At: now, Last: lost}, true},
		{"lease lost for no reason of the run's", time.Time{}, nil, exit{At: now, Last: lost}, false},
		{"another error after a pause", now.Add(-20 * time.Second), nil, exit{At: now, Last: "graft-scheduler: panic: boom"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{pausedAt: map[string]time.Time{}, apiDownAt: tc.apiDown}
			if !tc.pausedAt.IsZero() {
				r.pausedAt[rep.Name] = tc.pausedAt
			}
			if got := r.expectedExit(rep, tc.e) != ""; got != tc.expected {
				t.Fatalf("expected exit: got %v, want %v", got, tc.expected)
			}
		})
	}
}
