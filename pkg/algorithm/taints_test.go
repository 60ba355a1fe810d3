package algorithm

import (
	"reflect"
	"slices"
	"strings"
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

func inNamespace(ns string) shootOpt { return func(s *v1alpha1.Shoot) { s.Namespace = ns } }

// TestProtectedTaint: shoots in the garden namespace need no toleration of
// a protected seed (Gardener defaults one onto them); elsewhere a shoot needs
// one, and the toleration counts like any other, as in Gardener: whether it
// may have one is admission's to say.
func TestProtectedTaint(t *testing.T) {
	protected := func(name string, effect v1alpha1.TaintEffect) *v1alpha1.Seed {
		return newSeed(name, taint(v1alpha1.SeedTaintProtected, nil, effect))
	}
	const wantNamespace = "seed is protected: it is for shoots in namespace garden and those whose project may tolerate seed.gardener.cloud/protected"
	for _, tc := range []struct {
		name  string
		seeds []*v1alpha1.Seed
		shoot *v1alpha1.Shoot
		want  string // chosen seed; empty: no seed
		// wantMessage are substrings of the explanation of seed "a-protected";
		// wantNot must not appear in it.
		wantMessage []string
		wantNot     string
	}{
		{
			name:  "garden shoot without toleration is placed on a protected seed",
			seeds: seeds(protected("a-protected", "")),
			shoot: newShoot("infra", inNamespace(v1alpha1.GardenNamespace)),
			want:  "a-protected",
		},
		{
			name:  "garden shoot with its own toleration is placed on a protected seed",
			seeds: seeds(protected("a-protected", "")),
			shoot: newShoot("infra", inNamespace(v1alpha1.GardenNamespace), tolerate(v1alpha1.SeedTaintProtected, nil, "", nil)),
			want:  "a-protected",
		},
		{
			name:  "the implied toleration covers NoExecute too",
			seeds: seeds(protected("a-protected", v1alpha1.TaintEffectNoExecute)),
			shoot: newShoot("infra", inNamespace(v1alpha1.GardenNamespace)),
			want:  "a-protected",
		},
		{
			name:  "garden shoot still needs tolerations for the seed's other taints",
			seeds: seeds(newSeed("a-protected", taint(v1alpha1.SeedTaintProtected, nil, ""), taint("dedicated", nil, ""))),
			shoot: newShoot("infra", inNamespace(v1alpha1.GardenNamespace)),
			// The message names only the taint that is not tolerated.
			wantMessage: []string{"shoot does not tolerate the seed's taints (dedicated:NoSchedule)"},
			wantNot:     v1alpha1.SeedTaintProtected,
		},
		{
			name:        "tenant shoot without toleration is refused, saying why",
			seeds:       seeds(protected("a-protected", "")),
			shoot:       newShoot("web"),
			wantMessage: []string{"shoot does not tolerate the seed's taints (seed.gardener.cloud/protected:NoSchedule)", wantNamespace},
		},
		{
			name:  "tenant shoot whose toleration admission let through uses a protected seed",
			seeds: seeds(protected("a-protected", "")),
			shoot: newShoot("web", tolerate(v1alpha1.SeedTaintProtected, nil, "", nil)),
			want:  "a-protected",
		},
		{
			name:  "a toleration of another effect does not count",
			seeds: seeds(protected("a-protected", "")),
			shoot: newShoot("web", tolerate(v1alpha1.SeedTaintProtected, nil, v1alpha1.TaintEffectNoExecute, nil)),
			// NoSchedule taint, NoExecute toleration.
			wantMessage: []string{"(seed.gardener.cloud/protected:NoSchedule)", wantNamespace},
		},
		{
			name:  "a tenant shoot without toleration goes to an unprotected seed",
			seeds: seeds(protected("a-protected", ""), newSeed("b-open")),
			shoot: newShoot("web"),
			want:  "b-open", wantMessage: []string{wantNamespace},
		},
		{
			name:  "tenant shoot keeps its other tolerations",
			seeds: seeds(newSeed("a-protected", taint("dedicated", nil, ""))),
			shoot: newShoot("web", tolerate(v1alpha1.SeedTaintProtected, nil, "", nil), tolerate("dedicated", nil, "", nil)),
			want:  "a-protected",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshotOf(tc.seeds)
			in := Inputs{CloudProfile: cloudProfile("aws")}
			got, err := Schedule(tc.shoot, snap, in)
			if got != tc.want || (err == nil) != (tc.want != "") {
				t.Fatalf("Schedule = %q, %v; want %q", got, err, tc.want)
			}
			e := Explain(tc.shoot, snap, in)
			if e.Seed != got {
				t.Fatalf("Explain chose %q, Schedule %q", e.Seed, got)
			}
			for _, r := range e.Seeds {
				if r.Seed != "a-protected" || len(tc.wantMessage) == 0 {
					continue
				}
				if r.Filter != FilterTaints {
					t.Errorf("seed %s rejected by %q (%s), want %q", r.Seed, r.Filter, r.Message, FilterTaints)
				}
				for _, want := range tc.wantMessage {
					if !strings.Contains(r.Message, want) {
						t.Errorf("explanation of %s\n%s\ndoes not say %q", r.Seed, r.Message, want)
					}
				}
				if tc.wantNot != "" && strings.Contains(r.Message, tc.wantNot) {
					t.Errorf("explanation of %s\n%s\nshould not mention %q", r.Seed, r.Message, tc.wantNot)
				}
			}
		})
	}
}

func TestShootTolerations(t *testing.T) {
	other := v1alpha1.Toleration{Key: "dedicated"}
	prot := v1alpha1.Toleration{Key: v1alpha1.SeedTaintProtected, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](60)}
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
			shoot := newShoot("s", inNamespace(tc.namespace))
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
	seed := newSeed("a", taint(v1alpha1.SeedTaintProtected, nil, v1alpha1.TaintEffectNoExecute))
	if st := CheckNoExecute(newShoot("web"), seed, nil); len(st.Untolerated) != 1 || !st.MustLeave(time.Now()) {
		t.Errorf("tenant shoot without the toleration: %+v, want it to leave", st)
	}
	tolerating := newShoot("web", tolerate(v1alpha1.SeedTaintProtected, nil, "", nil))
	if st := CheckNoExecute(tolerating, seed, nil); st.MustLeave(time.Now()) {
		t.Errorf("tenant shoot whose toleration admission let through: %+v, want it to stay", st)
	}
	garden := newShoot("infra", inNamespace(v1alpha1.GardenNamespace))
	if st := CheckNoExecute(garden, seed, nil); st.MustLeave(time.Now()) {
		t.Errorf("garden shoot without toleration: %+v, want it to stay", st)
	}
}

// TestExplainNotesProtectedToleration: explain says when a shoot outside
// the garden uses the protected toleration.
func TestExplainNotesProtectedToleration(t *testing.T) {
	snap := snapshotOf(seeds(newSeed("a", taint(v1alpha1.SeedTaintProtected, nil, ""))))
	in := Inputs{CloudProfile: cloudProfile("aws")}
	e := Explain(newShoot("web", tolerate(v1alpha1.SeedTaintProtected, nil, "", nil)), snap, in)
	var b strings.Builder
	if err := FormatExplanation(&b, e); err != nil {
		t.Fatal(err)
	}
	if want := "note: shoot in namespace garden-dev tolerates seed.gardener.cloud/protected"; !strings.Contains(b.String(), want) {
		t.Errorf("explanation\n%s\ndoes not say %q", b.String(), want)
	}
	if e := Explain(newShoot("infra", inNamespace(v1alpha1.GardenNamespace)), snap, in); len(e.Notes) != 0 {
		t.Errorf("a garden shoot gets notes %v", e.Notes)
	}
}
