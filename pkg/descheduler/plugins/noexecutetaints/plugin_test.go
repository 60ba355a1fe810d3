package noexecutetaints

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func seedState(now time.Time, taints []v1alpha1.SeedTaint, shoots ...*v1alpha1.Shoot) *framework.SeedState {
	return &framework.SeedState{
		Seed:            coretest.MakeSeed("s1").Taints(taints...).Obj(),
		Shoots:          shoots,
		Usage:           len(shoots),
		Now:             now,
		TolerationStart: func(*v1alpha1.Shoot, v1alpha1.SeedTaint) time.Time { return t0 },
	}
}

var drain = v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}

func TestEvaluate(t *testing.T) {
	forever := coretest.MakeShoot("ns", "forever").Seed("s1").Tolerations(v1alpha1.Toleration{Key: v1alpha1.SeedTaintUnschedulable}).Obj()
	limited := coretest.MakeShoot("ns", "limited").Seed("s1").Tolerations(v1alpha1.Toleration{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}).Obj()
	plain := coretest.MakeShoot("ns", "plain").Seed("s1").Obj()
	protected := coretest.MakeShoot("ns", "protected").Seed("s1").Obj()
	protected.Annotations = map[string]string{v1alpha1.AnnotationEvict: "false"}
	noSchedule := []v1alpha1.SeedTaint{{Key: v1alpha1.SeedTaintUnschedulable}}
	other := v1alpha1.SeedTaint{Key: "other", Effect: v1alpha1.TaintEffectNoExecute}

	cases := []struct {
		name    string
		args    Args
		now     time.Time
		taints  []v1alpha1.SeedTaint
		want    string
		requeue time.Duration
	}{
		{name: "no taints", now: t0, want: ""},
		{name: "NoSchedule taint evicts nothing", now: t0, taints: noSchedule, want: ""},
		{name: "untolerated evicted at once, limited waits", now: t0.Add(10 * time.Second), taints: []v1alpha1.SeedTaint{drain}, want: "plain", requeue: 20 * time.Second},
		{name: "limited toleration ran out", now: t0.Add(30 * time.Second), taints: []v1alpha1.SeedTaint{drain}, want: "plain,limited"},
		{name: "protected moves only with force", args: Args{Force: true}, now: t0, taints: []v1alpha1.SeedTaint{drain}, want: "plain,protected", requeue: 30 * time.Second},
		{name: "taintKeys restricts the taints", args: Args{TaintKeys: []string{"other"}}, now: t0, taints: []v1alpha1.SeedTaint{drain}, want: ""},
		{name: "taintKeys keeps the listed taint", args: Args{TaintKeys: []string{"other"}}, now: t0, taints: []v1alpha1.SeedTaint{drain, other}, want: "forever,limited,plain"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := New(tc.args).Evaluate(seedState(tc.now, tc.taints, forever, limited, plain, protected))
			if got := framework.ShootNames(res.Candidates); got != tc.want {
				t.Errorf("candidates = %q, want %q", got, tc.want)
			}
			if res.RequeueAfter != tc.requeue {
				t.Errorf("requeue = %v, want %v", res.RequeueAfter, tc.requeue)
			}
			for _, c := range res.Candidates {
				if c.Force != tc.args.Force || c.Reason == "" {
					t.Errorf("candidate %s: force %v reason %q", c.Shoot.Name, c.Force, c.Reason)
				}
			}
		})
	}
}

func TestRegisterValidatesArgs(t *testing.T) {
	r := framework.Registry{}
	Register(r)
	if _, errs := r[Name]([]byte(`{"taintKeys":["ok","not ok!","ok"]}`), field.NewPath("args")); len(errs) != 2 {
		t.Errorf("want 2 errors (invalid key, duplicate), got %v", errs)
	}
	if _, errs := r[Name]([]byte(`{"forse":true}`), field.NewPath("args")); len(errs) != 1 || !strings.Contains(errs[0].Error(), "forse") {
		t.Errorf("an unknown field must be named, got %v", errs)
	}
	if _, errs := r[Name](nil, field.NewPath("args")); len(errs) != 0 {
		t.Errorf("empty arguments are valid, got %v", errs)
	}
}

// TestActsOnRulesOutOnlyIdleSeeds: whenever ActsOn says no from the seed
// alone, Evaluate answers nothing for any shoots, and it says no for every
// seed without a NoExecute taint the plugin acts on.
func TestActsOnRulesOutOnlyIdleSeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{v1alpha1.SeedTaintUnschedulable, "other", "third"}
	effects := []v1alpha1.TaintEffect{"", v1alpha1.TaintEffectNoSchedule, v1alpha1.TaintEffectPreferNoSchedule, v1alpha1.TaintEffectNoExecute}
	ruledOut := 0
	for range 2000 {
		var args Args
		if rng.IntN(2) == 0 {
			args.TaintKeys = []string{keys[rng.IntN(len(keys))]}
		}
		args.Force = rng.IntN(2) == 0
		var taints []v1alpha1.SeedTaint
		for range rng.IntN(3) {
			taints = append(taints, v1alpha1.SeedTaint{Key: keys[rng.IntN(len(keys))], Effect: effects[rng.IntN(len(effects))]})
		}
		var shoots []*v1alpha1.Shoot
		for i := range rng.IntN(4) {
			var tols []v1alpha1.Toleration
			if rng.IntN(2) == 0 {
				tols = append(tols, v1alpha1.Toleration{Key: keys[rng.IntN(len(keys))], Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](int64(rng.IntN(60)))})
			}
			shoots = append(shoots, coretest.MakeShoot("ns", fmt.Sprintf("s%d", i)).Seed("s1").Tolerations(tols...).Obj())
		}
		p := New(args)
		st := seedState(t0.Add(time.Duration(rng.IntN(90))*time.Second), taints, shoots...)
		facts := &framework.SeedState{Seed: st.Seed, Usage: st.Usage, Now: st.Now}
		wantActs := false
		for _, tn := range taints {
			if tn.Effect == v1alpha1.TaintEffectNoExecute && (len(args.TaintKeys) == 0 || args.TaintKeys[0] == tn.Key) {
				wantActs = true
			}
		}
		acts := p.ActsOn(facts)
		if acts != wantActs {
			t.Fatalf("ActsOn(%v, taintKeys %v) = %v, want %v", taints, args.TaintKeys, acts, wantActs)
		}
		if acts {
			continue
		}
		ruledOut++
		if res := p.Evaluate(st); len(res.Candidates) > 0 || res.RequeueAfter != 0 {
			t.Fatalf("ActsOn ruled out a seed with taints %v (taintKeys %v) for which Evaluate gives %+v", taints, args.TaintKeys, res)
		}
	}
	if ruledOut == 0 {
		t.Fatal("no seed was ruled out: the property was not exercised")
	}
}

// TestDrainInWindowsIsDeferrable: the drain taint's moves are deferrable
// until the seed's drain deadline; other taints' moves stay urgent; a
// deadline that does not parse keeps the drain in windows, without one, and
// says so.
func TestDrainInWindowsIsDeferrable(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	shoot := coretest.MakeShoot("garden-dev", "x").Seed("a").Obj()
	for _, tc := range []struct {
		name       string
		seed       *v1alpha1.Seed
		deferrable bool
		deadline   time.Time
		reason     string
	}{
		{"a plain drain is urgent", coretest.MakeSeed("a").Taints(drain).Obj(), false, time.Time{}, "does not tolerate"},
		{"a drain in windows", coretest.MakeSeed("a").Taints(drain).Annotation(v1alpha1.AnnotationDrainDeadline, "2026-01-04T12:00:00Z").Obj(),
			true, time.Date(2026, 1, 4, 12, 0, 0, 0, time.UTC), "drained in maintenance windows until 2026-01-04T12:00:00Z"},
		{"another taint stays urgent", coretest.MakeSeed("a").Taint("broken", nil, v1alpha1.TaintEffectNoExecute).Annotation(v1alpha1.AnnotationDrainDeadline, "2026-01-04T12:00:00Z").Obj(),
			false, time.Time{}, "broken:NoExecute"},
		{"a deadline that does not parse", coretest.MakeSeed("a").Taints(drain).Annotation(v1alpha1.AnnotationDrainDeadline, "in three days").Obj(),
			true, time.Time{}, `annotation graft.dev/drain-deadline="in three days" is not an RFC 3339 time, so the drain has no deadline`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := New(Args{}).Evaluate(&framework.SeedState{Seed: tc.seed, Shoots: []*v1alpha1.Shoot{shoot}, Now: now,
				TolerationStart: func(*v1alpha1.Shoot, v1alpha1.SeedTaint) time.Time { return now }})
			if len(res.Candidates) != 1 {
				t.Fatalf("candidates %d, want 1", len(res.Candidates))
			}
			c := res.Candidates[0]
			if (c.Urgency == maintenance.Deferrable) != tc.deferrable || !c.Deadline.Equal(tc.deadline) || !strings.Contains(c.Reason, tc.reason) {
				t.Errorf("urgency %s, deadline %s, reason %q; want deferrable %v, deadline %s, reason with %q", c.Urgency, c.Deadline, c.Reason, tc.deferrable, tc.deadline, tc.reason)
			}
		})
	}
}

// TestUrgentTaintWinsOverADrainInWindows: a shoot that another NoExecute
// taint sends away at once does not wait for the drain's windows, whichever
// taint the seed lists first.
func TestUrgentTaintWinsOverADrainInWindows(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	seed := coretest.MakeSeed("a").Taints(drain, v1alpha1.SeedTaint{Key: "broken", Effect: v1alpha1.TaintEffectNoExecute}).
		Annotation(v1alpha1.AnnotationDrainDeadline, "2026-01-04T12:00:00Z").Obj()
	res := New(Args{}).Evaluate(&framework.SeedState{Seed: seed, Shoots: []*v1alpha1.Shoot{coretest.MakeShoot("garden-dev", "x").Seed("a").Obj()}, Now: now,
		TolerationStart: func(*v1alpha1.Shoot, v1alpha1.SeedTaint) time.Time { return now }})
	if len(res.Candidates) != 1 || res.Candidates[0].Urgency != maintenance.Urgent || res.Candidates[0].Cause != "broken:NoExecute" {
		t.Errorf("candidates %+v, want one urgent move for broken:NoExecute", res.Candidates)
	}
}
