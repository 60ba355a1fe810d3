package algorithm

import (
	"errors"
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"k8s.io/utils/ptr"
)

// An evicted shoot is not placed on any seed whose NoExecute taints it
// tolerates only for a while when a seed where it may stay fits: with two
// seeds being drained it would otherwise bounce between them.
func TestEvictedShootAvoidsLimitedStays(t *testing.T) {
	const unsched = v1alpha1.SeedTaintUnschedulable
	drained := func(name string) *v1alpha1.Seed {
		return coretest.MakeSeed(name).Taint(unsched, nil, v1alpha1.TaintEffectNoExecute).Obj()
	}
	limited := v1alpha1.Toleration{Key: unsched, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	// leftA is the shoot evicted from a, tolerating the drain for a while.
	leftA := func() *v1alpha1.Shoot {
		return coretest.MakeShoot("garden-dev", "s").Tolerations(limited).Annotation(v1alpha1.AnnotationDescheduledFrom, "a").Obj()
	}
	// Seed c is busier than the drained seeds, so that least usage alone
	// would pick one of them.
	busy := fill("c", 5)
	for _, tc := range []scheduleCase{
		{
			name:        "every seed with a limited stay is passed over, not only the one the shoot left",
			seeds:       seeds(drained("a"), drained("b"), coretest.MakeSeed("c").Obj()),
			bound:       busy,
			shoot:       leftA(),
			want:        "c",
			wantFilters: map[string]Filter{"a": FilterTaints, "b": FilterLimitedToleration},
		},
		{
			name:        "the same with scoring",
			seeds:       seeds(drained("a"), drained("b"), coretest.MakeSeed("c").Obj()),
			bound:       busy,
			shoot:       leftA(),
			config:      Config{ScoreWeights: map[ScorePlugin]int32{ScorePluginLeastAllocated: 1}},
			want:        "c",
			wantFilters: map[string]Filter{"a": FilterTaints, "b": FilterLimitedToleration},
		},
		{
			name:        "a limited stay is still better than no seed",
			seeds:       seeds(drained("a"), drained("b"), coretest.MakeSeed("c").Allocatable(5).Obj()),
			bound:       busy,
			shoot:       leftA(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterTaints, "c": FilterCapacity},
		},
		{
			// Even the seed it left: nothing there will evict it again.
			name:  "a toleration without tolerationSeconds lets the shoot stay for ever",
			seeds: seeds(drained("a"), drained("b"), coretest.MakeSeed("c").Obj()),
			bound: busy,
			shoot: coretest.WrapShoot(leftA()).Tolerate(unsched, nil, "", nil).Obj(),
			want:  "a",
		},
		{
			name:  "a new shoot is not affected: nothing has made it move yet",
			seeds: seeds(drained("a"), drained("b"), coretest.MakeSeed("c").Obj()),
			bound: busy,
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerations(limited).Obj(),
			want:  "a",
		},
		{
			name:        "a limited seed loses to one with an untolerated PreferNoSchedule taint",
			seeds:       seeds(drained("b"), coretest.MakeSeed("c").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Obj()),
			bound:       busy,
			shoot:       leftA(),
			want:        "c",
			wantFilters: map[string]Filter{"b": FilterLimitedToleration},
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// Explain says why a seed with a limited stay was passed over.
func TestExplainLimitedStay(t *testing.T) {
	const unsched = v1alpha1.SeedTaintUnschedulable
	drain := v1alpha1.SeedTaint{Key: unsched, Effect: v1alpha1.TaintEffectNoExecute}
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Taints(drain).Obj(), coretest.MakeSeed("b").Taints(drain).Obj(), coretest.MakeSeed("c").Obj()), fill("c", 5)...)
	shoot := coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](300)).Annotation(v1alpha1.AnnotationDescheduledFrom, "a").Obj()
	e := Explain(shoot, snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if e.Err != nil || e.Seed != "c" {
		t.Fatalf("Explain chose %q (%v), want c", e.Seed, e.Err)
	}
	var b SeedResult
	for _, r := range e.Seeds {
		if r.Seed == "b" {
			b = r
		}
	}
	want := "shoot evicted from seed a tolerates this seed's NoExecute taints only for a limited time (" +
		unsched + ":NoExecute for 300s), so it would be evicted again; seeds where it may stay are left"
	if b.Filter != FilterLimitedToleration || b.Message != want {
		t.Errorf("seed b: %s: %q\nwant %s: %q", b.Filter, b.Message, FilterLimitedToleration, want)
	}
	var out strings.Builder
	if err := FormatExplanation(&out, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "b  LimitedToleration: "+want) {
		t.Errorf("long form does not say why seed b was passed over:\n%s", out.String())
	}
}

// FitsElsewhere answers for the shoot as it will be once evicted: its target
// is the seed the scheduler will choose, never one it would be evicted from
// again. A move must leave the shoot where it may stay without a limit: with
// only limited stays left, nothing fits, and the shoot stays where it is.
func TestFitsElsewhereAvoidsLimitedStays(t *testing.T) {
	const unsched = v1alpha1.SeedTaintUnschedulable
	drain := v1alpha1.SeedTaint{Key: unsched, Effect: v1alpha1.TaintEffectNoExecute}
	limited := v1alpha1.Toleration{Key: unsched, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	shoot := coretest.MakeShoot("garden-dev", "s").Tolerations(limited).Seed("a").StatusSeed("a").Obj()
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}

	snap := snapshotOf(seeds(coretest.MakeSeed("a").Taints(drain).Obj(), coretest.MakeSeed("b").Taints(drain).Obj(), coretest.MakeSeed("c").Obj()), append(fill("c", 5), shoot)...)
	if got, err := FitsElsewhere(shoot, snap, in, "a"); err != nil || got != "c" {
		t.Errorf("FitsElsewhere = %q, %v; want c, where the shoot may stay", got, err)
	}
	e := ExplainElsewhere(shoot, snap, in, "a")
	for _, r := range e.Seeds {
		if r.Seed == "b" && (r.Filter != FilterLimitedToleration || !strings.Contains(r.Message, "a move must take it where it may stay without a limit")) {
			t.Errorf("seed b: %s: %q", r.Filter, r.Message)
		}
	}

	// With no seed where it may stay, a limited stay does not fit: the
	// shoot would only move from one limited stay to the next.
	snap = snapshotOf(seeds(coretest.MakeSeed("a").Taints(drain).Obj(), coretest.MakeSeed("b").Taints(drain).Obj(), coretest.MakeSeed("c").Allocatable(5).Obj()), append(fill("c", 5), shoot)...)
	got, err := FitsElsewhere(shoot, snap, in, "a")
	var se *ScheduleError
	if !errors.As(err, &se) || se.Filter != FilterLimitedToleration {
		t.Fatalf("FitsElsewhere = %q, %v; want no fit for the limited stay on b", got, err)
	}
	if want := "0/3 seeds fit: current seed (1), no capacity (1), NoExecute tolerated only for a while (1)"; se.Short() != want {
		t.Errorf("Short() = %q, want %q", se.Short(), want)
	}
	if !strings.HasPrefix(se.Error(), "none of the 1 seeds left lets the shoot stay without a limit") {
		t.Errorf("Error() = %q", se.Error())
	}

	// Evicted before from b, the shoot is not sent back there by requireFit.
	again := coretest.MakeShoot("garden-dev", "s").Tolerations(limited).Seed("a").StatusSeed("a").Annotation(v1alpha1.AnnotationDescheduledFrom, "b").Obj()
	if got, err := FitsElsewhere(again, snap, in, "a"); err == nil {
		t.Errorf("FitsElsewhere = %q; want no fit: b evicted the shoot and c is full", got)
	}
}

// A seed whose NoExecute taint the shoot tolerates for less than MinimumStay
// is no candidate, for a new shoot, an evicted one and a move alike: the
// toleration counts from the placement and would run out at once. Three such
// seeds and nothing else give no seed, instead of a binding the descheduler
// undoes at once.
func TestTolerationRunsOut(t *testing.T) {
	const key = "maintenance"
	exec := v1alpha1.SeedTaint{Key: key, Effect: v1alpha1.TaintEffectNoExecute}
	for _, tc := range []scheduleCase{
		{
			name:        "tolerationSeconds 0 on every seed: no seed",
			seeds:       seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("b").Taints(exec).Obj(), coretest.MakeSeed("c").Taints(exec).Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](0)).Obj(),
			wantErr:     []string{"0/3 seed cluster candidate(s) are eligible"},
			wantFilters: map[string]Filter{"a": FilterTolerationRunsOut, "b": FilterTolerationRunsOut, "c": FilterTolerationRunsOut},
		},
		{
			name:        "the same for a shoot evicted from one of them",
			seeds:       seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("b").Taints(exec).Obj(), coretest.MakeSeed("c").Taints(exec).Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](0)).Annotation(v1alpha1.AnnotationDescheduledFrom, "a").Obj(),
			wantErr:     []string{"0/3 seed cluster candidate(s) are eligible"},
			wantFilters: map[string]Filter{"a": FilterTaints, "b": FilterTolerationRunsOut, "c": FilterTolerationRunsOut},
		},
		{
			name:        "59 seconds is under the minimum stay",
			seeds:       seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("b").Obj()),
			bound:       fill("b", 3),
			shoot:       coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](59)).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterTolerationRunsOut},
		},
		{
			name:  "a minute is a stay: the least used seed wins",
			seeds: seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("b").Obj()),
			bound: fill("b", 3),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](60)).Obj(),
			want:  "a",
		},
		{
			name:  "the most permissive toleration counts",
			seeds: seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("b").Obj()),
			bound: fill("b", 3),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](0)).Tolerate(key, nil, "", nil).Obj(),
			want:  "a",
		},
		{
			name:        "an untolerated taint is still the reason where both apply",
			seeds:       seeds(coretest.MakeSeed("a").Taints(exec).Taint("other", nil, v1alpha1.TaintEffectNoSchedule).Obj(), coretest.MakeSeed("b").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](0)).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterTaints},
		},
	} {
		t.Run(tc.name, tc.run)
	}

	snap := snapshotOf(seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("b").Taints(exec).Obj(), coretest.MakeSeed("c").Taints(exec).Obj()))
	shoot := coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](0)).Obj()
	e := Explain(shoot, snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	want := "shoot tolerates the seed's NoExecute taints for less than 1m0s (maintenance:NoExecute for 0s): it would have to leave as soon as it arrived"
	if e.Err == nil || len(e.Seeds) != 3 || e.Seeds[0].Message != want {
		t.Fatalf("Explain: %v, %+v; want seed a rejected with %q", e.Err, e.Seeds, want)
	}
	if got := ShortReason(e.Err); got != "0/3 seeds fit: NoExecute tolerated under a minute (3)" {
		t.Errorf("ShortReason = %q", got)
	}
	if _, err := FitsElsewhere(coretest.MakeShoot("garden-dev", "s").Tolerate(key, nil, v1alpha1.TaintEffectNoExecute, ptr.To[int64](0)).Seed("d").StatusSeed("d").Obj(),
		snapshotOf(seeds(coretest.MakeSeed("a").Taints(exec).Obj(), coretest.MakeSeed("d").Obj())), Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}, "d"); err == nil {
		t.Error("FitsElsewhere found a seed the shoot would have to leave at once")
	}
}
