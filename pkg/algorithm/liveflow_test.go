package algorithm

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestLiveFlowBlocker(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flow     LiveFlow
		from, to string
		want     string // a part of the blocker; "" for none
	}{
		{"no evidence", LiveFlow{}, "v1.150.0", "v1.150.0", "not known to run the live flow"},
		{"declared", LiveFlow{Declared: sets.New("v1.160.0")}, "v1.160.0", "v1.160.0", ""},
		{"declared one side only", LiveFlow{Declared: sets.New("v1.160.0")}, "v1.160.0", "v1.150.0", "gardenlet v1.150.0 is not known"},
		{"observed", LiveFlow{Observed: sets.New("v1.161.0")}, "v1.161.0", "v1.161.0", ""},
		{"fell back despite the declaration", LiveFlow{Declared: sets.New("v1.160.0"), FellBack: sets.New(LivePair("v1.160.0", "v1.160.0"))}, "v1.160.0", "v1.160.0", "fell back to a classic one"},
		{"no version", LiveFlow{Declared: sets.New("v1.160.0")}, "", "v1.160.0", "reports no gardenlet version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.flow.Blocker(tc.from, tc.to)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("Blocker(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

func TestLiveOutcome(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	later := metav1.NewTime(at.Add(time.Minute))
	op := func(typ v1alpha1.LastOperationType, when metav1.Time) *v1alpha1.LastOperation {
		return &v1alpha1.LastOperation{Type: typ, State: v1alpha1.LastOperationStateProcessing, LastUpdateTime: when}
	}
	shoot := func(o *v1alpha1.LastOperation) *v1alpha1.Shoot {
		return &v1alpha1.Shoot{Status: v1alpha1.ShootStatus{LastOperation: o}}
	}
	for _, tc := range []struct {
		name             string
		now, before      *v1alpha1.LastOperation
		observed, fellBk bool
	}{
		{"not started", op(v1alpha1.LastOperationTypeReconcile, at), op(v1alpha1.LastOperationTypeReconcile, at), false, false},
		{"an earlier restore is no answer", op(v1alpha1.LastOperationTypeRestore, at), op(v1alpha1.LastOperationTypeRestore, at), false, false},
		{"classic migrate", op(v1alpha1.LastOperationTypeMigrate, later), op(v1alpha1.LastOperationTypeReconcile, at), false, true},
		{"restore after an earlier restore", op(v1alpha1.LastOperationTypeRestore, later), op(v1alpha1.LastOperationTypeRestore, at), false, true},
		{"live", op(v1alpha1.LastOperationTypeLiveMigrate, later), op(v1alpha1.LastOperationTypeReconcile, at), true, false},
		{"none before", op(v1alpha1.LastOperationTypeLiveMigrate, later), nil, true, false},
		{"none yet", nil, nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, f := LiveOutcome(shoot(tc.now), tc.before)
			if o != tc.observed || f != tc.fellBk {
				t.Fatalf("LiveOutcome = %v, %v; want %v, %v", o, f, tc.observed, tc.fellBk)
			}
		})
	}
}
