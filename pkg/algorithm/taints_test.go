package algorithm

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"k8s.io/utils/ptr"
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
		{"taint value, toleration none", v1alpha1.Toleration{Key: "k"}, v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v")}, false},
		{"taint empty value, toleration none", v1alpha1.Toleration{Key: "k"}, v1alpha1.SeedTaint{Key: "k", Value: ptr.To("")}, true},
		{"equal values", v1alpha1.Toleration{Key: "k", Value: ptr.To("v")}, v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v")}, true},
		{"different values", v1alpha1.Toleration{Key: "k", Value: ptr.To("w")}, v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v")}, false},
		{"toleration value, taint none", v1alpha1.Toleration{Key: "k", Value: ptr.To("w")}, v1alpha1.SeedTaint{Key: "k"}, true},
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
}

func TestCheckNoExecute(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := map[string]time.Time{"drain": t0, "maint": t0.Add(time.Minute), "soft": t0}
	firstSeen := func(taint v1alpha1.SeedTaint) time.Time { return seen[taint.Key] }
	seed := coretest.MakeSeed("a").Taint("drain", nil, v1alpha1.TaintEffectNoExecute).Taint("maint", ptr.To("x"), v1alpha1.TaintEffectNoExecute).Taint("soft", nil, v1alpha1.TaintEffectNoSchedule).Obj()

	for _, tc := range []struct {
		name            string
		shoot           *v1alpha1.Shoot
		wantUntolerated []string
		wantUntil       time.Time
		wantLimit       string
	}{
		{
			name:            "nothing tolerated",
			shoot:           coretest.MakeShoot("garden-dev", "s").Obj(),
			wantUntolerated: []string{"drain", "maint"},
		},
		{
			name:  "tolerated for ever",
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate("drain", nil, "", nil).Tolerate("maint", ptr.To("x"), v1alpha1.TaintEffectNoExecute, nil).Obj(),
		},
		{
			name:      "tolerationSeconds: the earliest end wins",
			shoot:     coretest.MakeShoot("garden-dev", "s").Tolerate("drain", nil, v1alpha1.TaintEffectNoExecute, ptr.To(int64(300))).Tolerate("maint", ptr.To("x"), "", ptr.To(int64(60))).Obj(),
			wantUntil: t0.Add(2 * time.Minute),
			wantLimit: "maint",
		},
		{
			name:      "the most permissive toleration of a taint applies",
			shoot:     coretest.MakeShoot("garden-dev", "s").Tolerate("drain", nil, "", ptr.To(int64(10))).Tolerate("drain", nil, "", ptr.To(int64(600))).Tolerate("maint", ptr.To("x"), "", nil).Tolerate("maint", ptr.To("x"), "", ptr.To(int64(1))).Obj(),
			wantUntil: t0.Add(10 * time.Minute),
			wantLimit: "drain",
		},
		{
			name:            "zero seconds: leave at once; untolerated listed too",
			shoot:           coretest.MakeShoot("garden-dev", "s").Tolerate("drain", nil, "", ptr.To(int64(0))).Obj(),
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
	st := CheckNoExecute(coretest.MakeShoot("garden-dev", "s").Tolerate("drain", nil, "", ptr.To(int64(60))).Tolerate("maint", ptr.To("x"), "", nil).Obj(), seed, nil)
	if !st.MustLeave(t0) {
		t.Fatal("limited toleration without first-seen time may stay")
	}
}

func TestShootTolerations(t *testing.T) {
	other := v1alpha1.Toleration{Key: "dedicated"}
	prot := v1alpha1.Toleration{Key: v1alpha1.SeedTaintProtected, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}
	for _, tc := range []struct {
		name      string
		namespace string
		own       []v1alpha1.Toleration
		want      []v1alpha1.Toleration
		same      bool // the shoot's own slice comes back
	}{
		{"garden, none", v1alpha1.GardenNamespace, nil, []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintProtected}}, false},
		{"garden, others", v1alpha1.GardenNamespace, []v1alpha1.Toleration{other}, []v1alpha1.Toleration{other, {Key: v1alpha1.SeedTaintProtected}}, false},
		// An explicit toleration is what counts, as with Gardener's defaulting.
		{"garden, own protected toleration", v1alpha1.GardenNamespace, []v1alpha1.Toleration{prot}, []v1alpha1.Toleration{prot}, true},
		{"tenant, none", "garden-dev", nil, nil, true},
		{"tenant, others", "garden-dev", []v1alpha1.Toleration{other}, []v1alpha1.Toleration{other}, true},
		{"tenant, protected kept", "garden-dev", []v1alpha1.Toleration{prot, other}, []v1alpha1.Toleration{prot, other}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shoot := coretest.MakeShoot("garden-dev", "s").Namespace(tc.namespace).Obj()
			shoot.Spec.Tolerations = slices.Clone(tc.own)
			before := slices.Clone(shoot.Spec.Tolerations)
			got := ShootTolerations(shoot)
			if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("ShootTolerations = %+v, want %+v", got, tc.want)
			}
			if !reflect.DeepEqual(shoot.Spec.Tolerations, before) {
				t.Fatalf("the shoot's tolerations changed: %+v, were %+v", shoot.Spec.Tolerations, before)
			}
			if same := len(got) > 0 && len(shoot.Spec.Tolerations) > 0 && &got[0] == &shoot.Spec.Tolerations[0]; same != (tc.same && len(got) > 0) {
				t.Errorf("shares the shoot's slice = %v, want %v", same, tc.same)
			}
		})
	}
}

// TestCheckNoExecuteProtected: the descheduler applies the same rule to a
// shoot already on a seed that gets a NoExecute protected taint.
func TestCheckNoExecuteProtected(t *testing.T) {
	seed := coretest.MakeSeed("a").Taint(v1alpha1.SeedTaintProtected, nil, v1alpha1.TaintEffectNoExecute).Obj()
	if st := CheckNoExecute(coretest.MakeShoot("garden-dev", "web").Obj(), seed, nil); len(st.Untolerated) != 1 || !st.MustLeave(time.Now()) {
		t.Errorf("tenant shoot without the toleration: %+v, want it to leave", st)
	}
	tolerating := coretest.MakeShoot("garden-dev", "web").Tolerate(v1alpha1.SeedTaintProtected, nil, "", nil).Obj()
	if st := CheckNoExecute(tolerating, seed, nil); st.MustLeave(time.Now()) {
		t.Errorf("tenant shoot whose toleration admission let through: %+v, want it to stay", st)
	}
	garden := coretest.MakeShoot("garden-dev", "infra").Namespace(v1alpha1.GardenNamespace).Obj()
	if st := CheckNoExecute(garden, seed, nil); st.MustLeave(time.Now()) {
		t.Errorf("garden shoot without toleration: %+v, want it to stay", st)
	}
}

// TestExplainNotesProtectedToleration: explain says when a shoot outside
// the garden uses the protected toleration.
func TestExplainNotesProtectedToleration(t *testing.T) {
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Taint(v1alpha1.SeedTaintProtected, nil, "").Obj()))
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}
	e := Explain(coretest.MakeShoot("garden-dev", "web").Tolerate(v1alpha1.SeedTaintProtected, nil, "", nil).Obj(), snap, in)
	var b strings.Builder
	if err := FormatExplanation(&b, e); err != nil {
		t.Fatal(err)
	}
	if want := "note: shoot in namespace garden-dev tolerates seed.gardener.cloud/protected"; !strings.Contains(b.String(), want) {
		t.Errorf("explanation\n%s\ndoes not say %q", b.String(), want)
	}
	if e := Explain(coretest.MakeShoot("garden-dev", "infra").Namespace(v1alpha1.GardenNamespace).Obj(), snap, in); len(e.Notes) != 0 {
		t.Errorf("a garden shoot gets notes %v", e.Notes)
	}
}
