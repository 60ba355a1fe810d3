package improveplan

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/comehome"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/rebalance"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// TestCompute: the plan gives the over-full seeds' excess to the new seed,
// whatever the windows (saying when each moves), brings the away shoot
// home, moves no shoot twice and reports each seed's usage before and after.
func TestCompute(t *testing.T) {
	snap := algorithm.NewSnapshot()
	for _, s := range []*v1alpha1.Seed{
		coretest.MakeSeed("a").Allocatable(10).Obj(), coretest.MakeSeed("b").Allocatable(10).Obj(),
		coretest.MakeSeed("c").Allocatable(10).Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj(),
	} {
		snap.AddSeed(s)
	}
	var shoots []*v1alpha1.Shoot
	add := func(s *v1alpha1.Shoot) {
		shoots = append(shoots, s)
		snap.AddShoot(s)
	}
	for i := range 10 {
		add(coretest.MakeShoot("ns", fmt.Sprintf("a%d", i)).Seed("a").MaintenanceWindow("180000+0000", "190000+0000").Obj())
	}
	for i := range 9 {
		add(coretest.MakeShoot("ns", fmt.Sprintf("b%d", i)).Seed("b").Obj())
	}
	add(coretest.MakeShoot("ns", "away").Seed("far").Obj())
	var plugins []framework.Plugin
	for _, f := range []framework.Factory{framework.NewFactory(rebalance.Default, rebalance.Validate, rebalance.New), framework.NewFactory(comehome.Default, comehome.Validate, comehome.New)} {
		p, errs := f(nil, field.NewPath("args"))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		plugins = append(plugins, p)
	}
	profile := coretest.MakeCloudProfile("aws").Obj()
	plan := Compute(snap, shoots, plugins, func(*v1alpha1.Shoot) (algorithm.Inputs, error) {
		return algorithm.Inputs{CloudProfile: profile, Config: algorithm.Config{Strategy: algorithm.StrategyMinimalDistance}}, nil
	}, t0)
	got := map[string]int{}
	seen := map[string]bool{}
	for _, m := range plan.Moves {
		got[m.Plugin+" "+m.From+">"+m.To]++
		if seen[m.Shoot.Name] {
			t.Errorf("%s moves twice", m.Shoot.Name)
		}
		seen[m.Shoot.Name] = true
		if m.From == "a" && (m.When.Now || !m.When.At.Equal(t0.Add(6*time.Hour))) {
			t.Errorf("%s moves %+v, want at its window at 18:00", m.Shoot.Name, m.When)
		}
	}
	want := map[string]int{"Rebalance a>c": 2, "Rebalance b>c": 1, "ComeHome far>c": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("moves %v, want %v", got, want)
	}
	for _, c := range plan.Seeds {
		if c.Seed == "c" && (c.Before != 0 || c.After != 4 || c.Allocatable != 10) {
			t.Errorf("seed c: %+v", c)
		}
	}
}
