package overcapacity

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func state(allocatable int64, leaving int, shoots ...*v1alpha1.Shoot) *framework.SeedState {
	seed := coretest.MakeSeed("s1").Allocatable(allocatable).Obj()
	return &framework.SeedState{Seed: seed, Shoots: shoots, Usage: len(shoots) + leaving, Leaving: leaving, Now: t0}
}

func TestEvaluate(t *testing.T) {
	prod := coretest.MakeShoot("ns", "prod").Created(t0.Add(-time.Duration(10) * time.Minute)).Purpose(v1alpha1.ShootPurposeProduction).Obj()
	devOld := coretest.MakeShoot("ns", "dev-old").Created(t0.Add(-time.Duration(100) * time.Minute)).Purpose(v1alpha1.ShootPurposeDevelopment).Obj()
	devNew := coretest.MakeShoot("ns", "dev-new").Created(t0.Add(-time.Duration(1) * time.Minute)).Purpose(v1alpha1.ShootPurposeDevelopment).Obj()
	unset := coretest.MakeShoot("ns", "unset").Created(t0.Add(-time.Duration(50) * time.Minute)).Obj()
	eval := coretest.MakeShoot("ns", "eval").Created(t0.Add(-time.Duration(500) * time.Minute)).Purpose(v1alpha1.ShootPurposeEvaluation).Obj()
	infra := coretest.MakeShoot("ns", "infra").Created(t0.Add(-time.Duration(5) * time.Minute)).Purpose(v1alpha1.ShootPurposeInfrastructure).Obj()
	protected := coretest.MakeShoot("ns", "protected").Created(t0.Add(-time.Duration(1) * time.Minute)).Purpose(v1alpha1.ShootPurposeEvaluation).Obj()
	protected.Annotations = map[string]string{v1alpha1.AnnotationEvict: "false"}
	all := []*v1alpha1.Shoot{prod, devOld, devNew, unset, eval, infra, protected}

	cases := []struct {
		name        string
		args        Args
		allocatable int64
		leaving     int
		want        string
	}{
		{name: "no allocatable", allocatable: -1, want: ""},
		{name: "within capacity", allocatable: 7, want: ""},
		{name: "excess by purpose then newest", allocatable: 3, want: "unset,eval,dev-new,dev-old"},
		{name: "leaving shoots count", allocatable: 5, leaving: 2, want: "unset,eval"},
		{name: "protected never chosen even if short", allocatable: 0, want: "unset,eval,dev-new,dev-old,prod,infra"},
		// Only listed purposes move: the seed stays one over rather than
		// moving a development shoot.
		{name: "custom purpose order moves only listed purposes", allocatable: 5, args: Args{PurposeOrder: []v1alpha1.ShootPurpose{v1alpha1.ShootPurposeInfrastructure}}, want: "infra"},
		{name: "listed purposes in the given order", allocatable: 3, args: Args{PurposeOrder: []v1alpha1.ShootPurpose{v1alpha1.ShootPurposeDevelopment, v1alpha1.ShootPurposeEvaluation}}, want: "dev-new,dev-old,unset,eval"},
		{name: "README example leaves production and infrastructure", allocatable: 0, args: Args{PurposeOrder: []v1alpha1.ShootPurpose{v1alpha1.ShootPurposeEvaluation, v1alpha1.ShootPurposeTesting, v1alpha1.ShootPurposeDevelopment}}, want: "unset,eval,dev-new,dev-old"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			Default(&args)
			res := New(args).Evaluate(state(tc.allocatable, tc.leaving, all...))
			if got := framework.ShootNames(res.Candidates); got != tc.want {
				t.Errorf("candidates = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRegisterValidatesArgs(t *testing.T) {
	r := framework.Registry{}
	Register(r)
	if _, errs := r[Name]([]byte(`{"purposeOrder":["production","fun","production"]}`), field.NewPath("args")); len(errs) != 2 {
		t.Errorf("want 2 errors (unknown purpose, duplicate), got %v", errs)
	}
	p, errs := r[Name]([]byte(`{"force":true}`), field.NewPath("args"))
	if len(errs) != 0 || p.(*Plugin).args.PurposeOrder[0] != v1alpha1.ShootPurposeEvaluation || !p.(*Plugin).args.Force {
		t.Errorf("defaults not applied: %v %+v", errs, p)
	}
}

// TestActsOnRulesOutOnlyIdleSeeds: ActsOn says no exactly when the seed has
// no excess, and then Evaluate answers nothing for any shoots.
func TestActsOnRulesOutOnlyIdleSeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	purposes := append([]v1alpha1.ShootPurpose{""}, DefaultPurposeOrder...)
	ruledOut, acted := 0, 0
	for range 2000 {
		var shoots []*v1alpha1.Shoot
		for i := range rng.IntN(6) {
			shoots = append(shoots, coretest.MakeShoot("ns", fmt.Sprintf("s%d", i)).Created(t0.Add(-time.Duration(rng.IntN(100))*time.Minute)).Purpose(purposes[rng.IntN(len(purposes))]).Obj())
		}
		st := state(int64(rng.IntN(8))-1, rng.IntN(3), shoots...)
		args := Args{}
		Default(&args)
		p := New(args)
		facts := &framework.SeedState{Seed: st.Seed, Usage: st.Usage, Leaving: st.Leaving, Now: st.Now}
		acts := p.ActsOn(facts)
		if want := Excess(st) > 0; acts != want {
			t.Fatalf("ActsOn = %v with usage %d, leaving %d, allocatable %v; want %v", acts, st.Usage, st.Leaving, st.Seed.Status.Allocatable, want)
		}
		if acts {
			acted++
			continue
		}
		ruledOut++
		if res := p.Evaluate(st); len(res.Candidates) > 0 || res.RequeueAfter != 0 {
			t.Fatalf("ActsOn ruled out a seed (usage %d, leaving %d, allocatable %v) for which Evaluate gives %+v", st.Usage, st.Leaving, st.Seed.Status.Allocatable, res)
		}
	}
	if ruledOut == 0 || acted == 0 {
		t.Fatalf("ruled out %d, acted on %d: the property was not exercised both ways", ruledOut, acted)
	}
}
