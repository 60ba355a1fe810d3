package rebalance

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func build(t *testing.T, args string) *Plugin {
	t.Helper()
	var raw []byte
	if args != "" {
		raw = []byte(args)
	}
	p, errs := framework.NewFactory(Default, Validate, New)(raw, field.NewPath("args"))
	if len(errs) > 0 {
		t.Fatalf("building with %s: %v", args, errs)
	}
	return p.(*Plugin)
}

func state(allocatable int64, usage, leaving int, spread framework.Spread, shoots ...*v1alpha1.Shoot) *framework.SeedState {
	return &framework.SeedState{Seed: coretest.MakeSeed("s").Allocatable(allocatable).Obj(), Shoots: shoots, Usage: usage, Leaving: leaving, Now: t0, Landscape: spread, Region: spread}
}

func TestEvaluate(t *testing.T) {
	open := coretest.MakeShoot("ns", "open").Obj()
	closed := coretest.MakeShoot("ns", "closed").MaintenanceWindow("180000+0000", "190000+0000").Obj()
	protected := coretest.MakeShoot("ns", "protected").Annotation(v1alpha1.AnnotationEvict, "false").Obj()
	failed := coretest.MakeShoot("ns", "failed").With(func(s *v1alpha1.Shoot) {
		s.Status.LastOperation = &v1alpha1.LastOperation{State: v1alpha1.LastOperationStateFailed}
	}).Obj()
	all := []*v1alpha1.Shoot{open, closed, protected, failed}
	withLow := framework.Spread{Seeds: 3, Mean: 0.7, Min: 0.1, Max: 1}
	for _, tc := range []struct {
		name      string
		args      string
		st        *framework.SeedState
		want      string
		wantWant  int
		wantAfter time.Duration
	}{
		{name: "above the high mark: shoots in their window, the excess wanted", st: state(20, 20, 0, withLow, all...),
			want: "open", wantWant: 3, wantAfter: 6 * time.Hour},
		{name: "leaving shoots count", st: state(20, 20, 3, withLow, all...)},
		{name: "at the mark", st: state(20, 17, 0, withLow, all...)},
		{name: "no seed under the low mark", st: state(20, 20, 0, framework.Spread{Seeds: 3, Mean: 0.9, Min: 0.6, Max: 1}, all...)},
		{name: "no allocatable", st: state(-1, 20, 0, withLow, all...)},
		// Mean 0.7: marks 0.8 and 0.6; 20 of 20 is 4 over 16.
		{name: "relative to the mean", args: `{"relativeToMean":true}`, st: state(20, 20, 0, withLow, all...), want: "open", wantWant: 4, wantAfter: 6 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, tc.args).Evaluate(tc.st)
			if got := framework.ShootNames(res.Candidates); got != tc.want || res.Want != tc.wantWant || res.RequeueAfter != tc.wantAfter {
				t.Errorf("got %q want %d requeue %s; want %q, %d, %s", got, res.Want, res.RequeueAfter, tc.want, tc.wantWant, tc.wantAfter)
			}
			for _, c := range res.Candidates {
				if c.Improves == nil || c.Force {
					t.Errorf("candidate %s is not an improvement", c.Shoot.Name)
				}
			}
		})
	}
}

func TestAccepts(t *testing.T) {
	imp := toLowSeed{High: 0.85, Low: 0.6}
	seed := func(n int64) *v1alpha1.Seed { return coretest.MakeSeed("to").Allocatable(n).Obj() }
	for _, tc := range []struct {
		to    *v1alpha1.Seed
		usage int
		want  string
	}{
		{seed(10), 5, ""},
		{seed(10), 6, "not under the low mark"},
		{seed(-1), 0, "declares no allocatable shoots"},
		// 0 of 1 is under 60%, but 1 of 1 is over 85%.
		{seed(1), 0, "above the high mark"},
	} {
		got := imp.Accepts(framework.Move{To: tc.to, ToUsage: tc.usage})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("to %v at %d: %q, want %q", tc.to.Status.Allocatable, tc.usage, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for args, want := range map[string]string{
		`{"highUtilisation":50,"lowUtilisation":60}`:                "must be below highUtilisation",
		`{"highUtilisation":150}`:                                   "between 0 and 100",
		`{"relativeToMean":true,"lowUtilisation":0}`:                "at least 1 point",
		`{"coolDown":"10m"}`:                                        "at least 1h",
		`{"maxMovesPerHour":-1}`:                                    "must not be negative",
		`{"highUtilisation":90,"lowUtilisation":40,"unknown":true}`: "unknown field",
	} {
		_, errs := framework.NewFactory(Default, Validate, New)([]byte(args), field.NewPath("args"))
		if !strings.Contains(errs.ToAggregate().Error(), want) {
			t.Errorf("%s: %v, want %q", args, errs, want)
		}
	}
	p := build(t, "")
	if c := p.Churn(); c.MaxMovesPerPass != 5 || c.MaxMovesPerHour != 20 || c.CoolDown != 7*24*time.Hour {
		t.Errorf("default churn %+v", c)
	}
}

// TestClosedWindowsSteerNoOtherTenant: a tenant fills a seed over the high
// mark and keeps its shoots' windows closed (or lets their last operation
// fail). The excess is shared between the projects in proportion to their
// shoots on the seed: the other tenant's one shoot, in its window, has no
// share of an excess of one and is not proposed; with an excess of ten of
// twenty, its share is one of its two shoots.
func TestClosedWindowsSteerNoOtherTenant(t *testing.T) {
	withLow := framework.Spread{Seeds: 3, Mean: 0.7, Min: 0.1, Max: 1}
	var shoots []*v1alpha1.Shoot
	for i := range 9 {
		s := coretest.MakeShoot("garden-filler", "f"+string(rune('0'+i))).MaintenanceWindow("180000+0000", "190000+0000")
		if i%2 == 0 {
			s = s.LastOperation(v1alpha1.LastOperationTypeReconcile, v1alpha1.LastOperationStateFailed, "broken on purpose")
		}
		shoots = append(shoots, s.Obj())
	}
	victim := coretest.MakeShoot("garden-victim", "v").Obj()
	// 10 of 10 with a high mark of 90%: an excess of one.
	res := build(t, `{"highUtilisation":90}`).Evaluate(state(10, 10, 0, withLow, append(shoots, victim)...))
	if res.Want != 1 || len(res.Candidates) != 0 {
		t.Errorf("want %d, candidates %q; want 1 and none: the excess is the filler's share", res.Want, framework.ShootNames(res.Candidates))
	}
	// 20 of 20 with a high mark of 50%: an excess of ten; the victim's
	// project has 2 of 20 shoots, a share of one.
	for i := range 9 {
		shoots = append(shoots, coretest.MakeShoot("garden-filler", "g"+string(rune('0'+i))).MaintenanceWindow("180000+0000", "190000+0000").Obj())
	}
	res = build(t, `{"highUtilisation":50,"lowUtilisation":40}`).Evaluate(state(20, 20, 0, withLow, append(shoots, victim, coretest.MakeShoot("garden-victim", "w").Obj())...))
	if got := framework.ShootNames(res.Candidates); res.Want != 10 || got != "v" {
		t.Errorf("want %d, candidates %q; want 10 and the victim's share, v", res.Want, got)
	}
}

func TestProjectShares(t *testing.T) {
	shoots := func(counts map[string]int) []*v1alpha1.Shoot {
		var out []*v1alpha1.Shoot
		for ns, n := range counts {
			for i := range n {
				out = append(out, coretest.MakeShoot(ns, string(rune('a'+i))).Obj())
			}
		}
		return out
	}
	for _, tc := range []struct {
		counts map[string]int
		n      int
		want   map[string]int
	}{
		{map[string]int{"big": 9, "small": 1}, 1, map[string]int{"big": 1, "small": 0}},
		{map[string]int{"big": 18, "small": 2}, 10, map[string]int{"big": 9, "small": 1}},
		{map[string]int{"a": 1, "b": 1}, 1, map[string]int{"a": 1, "b": 0}},
		{map[string]int{"a": 2, "b": 1}, 5, map[string]int{"a": 2, "b": 1}},
	} {
		got := framework.ProjectShares(shoots(tc.counts), tc.n)
		for ns, want := range tc.want {
			if got[ns] != want {
				t.Errorf("%v, %d moves: shares %v, want %v", tc.counts, tc.n, got, tc.want)
				break
			}
		}
	}
}
