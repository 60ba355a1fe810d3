package algorithm

import (
	"testing"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestToleratesTaint(t *testing.T) {
	for _, tc := range []struct {
		name       string
		toleration v1alpha1.Toleration
		taint      v1alpha1.SeedTaint
		want       bool
	}{
		{"same key, no values, no effects", v1alpha1.Toleration{Key: "k"}, v1alpha1.SeedTaint{Key: "k"}, true},
		{"other key", v1alpha1.Toleration{Key: "j"}, v1alpha1.SeedTaint{Key: "k"}, false},
		{"taint value, toleration none", v1alpha1.Toleration{Key: "k"}, v1alpha1.SeedTaint{Key: "k", Value: ptr("v")}, false},
		{"taint empty value, toleration none", v1alpha1.Toleration{Key: "k"}, v1alpha1.SeedTaint{Key: "k", Value: ptr("")}, true},
		{"equal values", v1alpha1.Toleration{Key: "k", Value: ptr("v")}, v1alpha1.SeedTaint{Key: "k", Value: ptr("v")}, true},
		{"different values", v1alpha1.Toleration{Key: "k", Value: ptr("w")}, v1alpha1.SeedTaint{Key: "k", Value: ptr("v")}, false},
		{"toleration value, taint none", v1alpha1.Toleration{Key: "k", Value: ptr("w")}, v1alpha1.SeedTaint{Key: "k"}, true},
		{"effect empty taint is NoSchedule", v1alpha1.Toleration{Key: "k", Effect: v1alpha1.TaintEffectNoSchedule}, v1alpha1.SeedTaint{Key: "k"}, true},
		{"NoExecute toleration vs taint without effect", v1alpha1.Toleration{Key: "k", Effect: v1alpha1.TaintEffectNoExecute}, v1alpha1.SeedTaint{Key: "k"}, false},
		{"empty toleration effect matches NoExecute", v1alpha1.Toleration{Key: "k"}, v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoExecute}, true},
		{"PreferNoSchedule only by PreferNoSchedule", v1alpha1.Toleration{Key: "k", Effect: v1alpha1.TaintEffectNoSchedule}, v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectPreferNoSchedule}, false},
	} {
		if got := ToleratesTaint(tc.toleration, tc.taint); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestUntoleratedTaints(t *testing.T) {
	taints := []v1alpha1.SeedTaint{
		{Key: "a"},
		{Key: "b", Effect: v1alpha1.TaintEffectNoExecute},
		{Key: "c", Effect: v1alpha1.TaintEffectPreferNoSchedule},
	}
	tol := []v1alpha1.Toleration{{Key: "a"}}
	if got := UntoleratedTaints(taints, tol); len(got) != 2 || got[0].Key != "b" || got[1].Key != "c" {
		t.Fatalf("all effects: %v", got)
	}
	if got := UntoleratedTaints(taints, tol, v1alpha1.TaintEffectNoExecute); len(got) != 1 || got[0].Key != "b" {
		t.Fatalf("NoExecute: %v", got)
	}
	if got := UntoleratedTaints(taints, tol, v1alpha1.TaintEffectNoSchedule); len(got) != 0 {
		t.Fatalf("NoSchedule: %v", got)
	}
	if FormatTaint(v1alpha1.SeedTaint{Key: "k", Value: ptr("v")}) != "k=v:NoSchedule" {
		t.Fatal(FormatTaint(v1alpha1.SeedTaint{Key: "k", Value: ptr("v")}))
	}
}

func TestCheckNoExecute(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := map[string]time.Time{"drain": t0, "maint": t0.Add(time.Minute), "soft": t0}
	firstSeen := func(taint v1alpha1.SeedTaint) time.Time { return seen[taint.Key] }
	seed := newSeed("a",
		taint("drain", nil, v1alpha1.TaintEffectNoExecute),
		taint("maint", ptr("x"), v1alpha1.TaintEffectNoExecute),
		taint("soft", nil, v1alpha1.TaintEffectNoSchedule))

	for _, tc := range []struct {
		name            string
		shoot           *v1alpha1.Shoot
		wantUntolerated []string
		wantUntil       time.Time
		wantLimit       string
	}{
		{
			name:            "nothing tolerated",
			shoot:           newShoot("s"),
			wantUntolerated: []string{"drain", "maint"},
		},
		{
			name: "tolerated for ever",
			shoot: newShoot("s", tolerate("drain", nil, "", nil),
				tolerate("maint", ptr("x"), v1alpha1.TaintEffectNoExecute, nil)),
		},
		{
			name: "tolerationSeconds: the earliest end wins",
			shoot: newShoot("s", tolerate("drain", nil, v1alpha1.TaintEffectNoExecute, ptr(int64(300))),
				tolerate("maint", ptr("x"), "", ptr(int64(60)))),
			wantUntil: t0.Add(2 * time.Minute),
			wantLimit: "maint",
		},
		{
			name: "the most permissive toleration of a taint applies",
			shoot: newShoot("s", tolerate("drain", nil, "", ptr(int64(10))), tolerate("drain", nil, "", ptr(int64(600))),
				tolerate("maint", ptr("x"), "", nil), tolerate("maint", ptr("x"), "", ptr(int64(1)))),
			wantUntil: t0.Add(10 * time.Minute),
			wantLimit: "drain",
		},
		{
			name:            "zero seconds: leave at once; untolerated listed too",
			shoot:           newShoot("s", tolerate("drain", nil, "", ptr(int64(0)))),
			wantUntolerated: []string{"maint"},
			wantUntil:       t0,
			wantLimit:       "drain",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := CheckNoExecute(tc.shoot, seed, firstSeen)
			var keys []string
			for _, u := range st.Untolerated {
				keys = append(keys, u.Key)
			}
			if len(keys) != len(tc.wantUntolerated) {
				t.Fatalf("untolerated %v, want %v", keys, tc.wantUntolerated)
			}
			for i := range keys {
				if keys[i] != tc.wantUntolerated[i] {
					t.Fatalf("untolerated %v, want %v", keys, tc.wantUntolerated)
				}
			}
			if tc.wantLimit == "" {
				if st.LimitingTaint != nil {
					t.Fatalf("limited by %v", st.LimitingTaint)
				}
			} else if st.LimitingTaint == nil || st.LimitingTaint.Key != tc.wantLimit || !st.StayUntil.Equal(tc.wantUntil) {
				t.Fatalf("limit %v until %v, want %s until %v", st.LimitingTaint, st.StayUntil, tc.wantLimit, tc.wantUntil)
			}
			mustLeaveAtT0 := len(tc.wantUntolerated) > 0 || (tc.wantLimit != "" && !t0.Before(tc.wantUntil))
			if st.MustLeave(t0) != mustLeaveAtT0 {
				t.Fatalf("MustLeave(t0) = %v", st.MustLeave(t0))
			}
			if tc.wantLimit != "" && !st.MustLeave(tc.wantUntil) {
				t.Fatal("may stay past StayUntil")
			}
		})
	}
	// Without a clock the stay counts from the zero time: the shoot must leave.
	st := CheckNoExecute(newShoot("s", tolerate("drain", nil, "", ptr(int64(60))), tolerate("maint", ptr("x"), "", nil)), seed, nil)
	if !st.MustLeave(t0) {
		t.Fatal("limited toleration without first-seen time may stay")
	}
}
