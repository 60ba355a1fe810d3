package algorithm

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestReconsider: the scheduler's choice for a placed shoot, its own usage
// not held against its seed, and whether the choice is closer to its region.
func TestReconsider(t *testing.T) {
	md := Config{Strategy: StrategyMinimalDistance}
	same := Config{Strategy: StrategySameRegion}
	home := coretest.MakeSeed("home").Obj()
	home2 := coretest.MakeSeed("home2").Obj()
	near := coretest.MakeSeed("near").Provider("aws", "eu-west-2").Obj()
	far := coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj()
	full := coretest.MakeSeed("full").Allocatable(1).Obj()
	on := func(seed string) *v1alpha1.Shoot { return coretest.MakeShoot("garden-dev", "s").Seed(seed).Obj() }
	broken := coretest.MakeSeed("broken").Taint("broken", nil, v1alpha1.TaintEffectNoExecute).Obj()
	tolerating := func(s *v1alpha1.Shoot) *v1alpha1.Shoot {
		s.Spec.Tolerations = []v1alpha1.Toleration{{Key: "broken", Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)}}
		return s
	}
	for _, tc := range []struct {
		name       string
		config     Config
		seeds      []*v1alpha1.Seed
		bound      []*v1alpha1.Shoot
		shoot      *v1alpha1.Shoot
		want       string
		wantFilter Filter
		wantCloser bool
	}{
		{name: "a seed opened in the shoot's region: closer", config: md, seeds: seeds(home, far), shoot: on("far"),
			want: "home", wantFilter: FilterMinimalDistance, wantCloser: true},
		{name: "nearer but not home is closer too", config: md, seeds: seeds(near, far), shoot: on("far"),
			want: "near", wantFilter: FilterMinimalDistance, wantCloser: true},
		{name: "same distance, fewer shoots: another seed but not closer", config: md, seeds: seeds(home, home2),
			bound: fill("home", 3), shoot: on("home"), want: "home2", wantFilter: FilterLeastUsed},
		{name: "its own usage is not held against its seed", config: md, seeds: seeds(home, home2),
			bound: fill("home2", 1), shoot: on("home"), want: "home"},
		{name: "the full seed it is on still takes it", config: md, seeds: seeds(full, far), shoot: on("full"), want: "full"},
		{name: "SameRegion: a seed in its region now", config: same, seeds: seeds(home, far), shoot: on("far"),
			want: "home", wantFilter: FilterStrategy, wantCloser: true},
		{name: "a seed not in the snapshot", config: md, seeds: seeds(home), shoot: on("gone"), want: "home", wantFilter: NotInSnapshot},
		// Evicted, the shoot is placed where it may stay: the scheduler sets
		// the limited stay aside and sends it back.
		{name: "a seed it may stay on only a while is set aside, as for an evicted shoot", config: md, seeds: seeds(home, broken),
			bound: fill("home", 3), shoot: tolerating(on("home")), want: "home"},
		{name: "a limited stay is chosen when nothing else is left", config: md, seeds: seeds(full, broken),
			bound: fill("full", 1), shoot: tolerating(on("full")), want: "broken", wantFilter: FilterCapacity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshotOf(tc.seeds, append(tc.bound, tc.shoot)...)
			in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Config: tc.config}
			got, err := Reconsider(tc.shoot, snap, in, *tc.shoot.Spec.SeedName)
			if err != nil {
				t.Fatalf("Reconsider: %v", err)
			}
			if got.Seed != tc.want || got.CurrentFilter != tc.wantFilter || got.Closer != tc.wantCloser {
				t.Errorf("got seed %s, current seed's filter %q, closer %v; want %s, %q, %v", got.Seed, got.CurrentFilter, got.Closer, tc.want, tc.wantFilter, tc.wantCloser)
			}
		})
	}
}
