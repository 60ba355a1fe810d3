package algorithm

import (
	"slices"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// WithRoomOnly agrees with Schedule's error: the seeds it names are those
// rejected for capacity and not set aside with room, and it names none when
// the shoot fits or another filter keeps it out.
func TestWithRoomOnlyAgreesWithSchedule(t *testing.T) {
	profile := coretest.MakeCloudProfile(coretest.CloudProfileName).Regions("eu-west-1", "us-east-1").Obj()
	in := Inputs{CloudProfile: profile, Config: Config{Strategy: StrategySameRegion}}
	snap := NewSnapshot()
	for _, s := range []*v1alpha1.Seed{
		coretest.MakeSeed("full-eu").Allocatable(1).Label("tier", "a").Obj(),
		coretest.MakeSeed("full-eu-2").Allocatable(1).Obj(),
		coretest.MakeSeed("full-us").Region("us-east-1").Allocatable(1).Obj(),
	} {
		snap.AddSeed(s)
		snap.AddShoot(coretest.MakeShoot("p", "on-"+s.Name).Seed(s.Name).Obj())
	}
	for _, tc := range []struct {
		name  string
		shoot *v1alpha1.Shoot
		want  []string
	}{
		{name: "capacity alone", shoot: coretest.MakeShoot("p", "eu").Obj(), want: []string{"full-eu", "full-eu-2"}},
		{name: "a selector leaves one full seed", shoot: coretest.MakeShoot("p", "tier").SelectSeeds(map[string]string{"tier": "a"}).Obj(), want: []string{"full-eu"}},
		{name: "a selector no seed matches", shoot: coretest.MakeShoot("p", "sel").SelectSeeds(map[string]string{"x": "y"}).Obj()},
		{name: "no seed of its region", shoot: coretest.MakeShoot("p", "ap").Region("ap-south-1").Obj()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WithRoomOnly(tc.shoot, snap, in)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("WithRoomOnly = %v, want %v", got, tc.want)
			}
			_, serr := Schedule(tc.shoot, snap, in)
			if IsNoCapacity(serr) != (len(tc.want) > 0) {
				t.Errorf("Schedule's IsNoCapacity %v, WithRoomOnly %v", IsNoCapacity(serr), got)
			}
		})
	}
}
