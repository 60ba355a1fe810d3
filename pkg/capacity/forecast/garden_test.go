package forecast

import (
	"fmt"
	"math"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestMakeFromARecordedGarden makes the forecast of a garden whose shoots
// were created at a known rate: two full seeds of pool blue and a third of
// the region with room, twelve shoots created in the last six hours (the
// window) and older ones before, and one shoot that only the full seeds
// would take. The region has 6 free slots, one taken by the waiting shoot,
// and 13 arrivals in six hours: full in 5/(13/6) hours. Pool blue is full.
func TestMakeFromARecordedGarden(t *testing.T) {
	now := t0.Add(48 * time.Hour)
	window := 6 * time.Hour
	seeds := []*v1alpha1.Seed{
		coretest.MakeSeed("a").Allocatable(10).Label("pool", "blue").Obj(),
		coretest.MakeSeed("b").Allocatable(10).Label("pool", "blue").Obj(),
		coretest.MakeSeed("c").Allocatable(10).Obj(),
		coretest.MakeSeed("cordoned").Allocatable(10).Taint("example.com/maintenance", nil, v1alpha1.TaintEffectNoSchedule).Obj(),
	}
	var shoots []*v1alpha1.Shoot
	add := func(seed string, n int, created func(i int) time.Time) {
		for i := range n {
			shoots = append(shoots, coretest.MakeShoot("garden-p", fmt.Sprintf("%s-%d", seed, i)).Seed(seed).Created(created(i)).Obj())
		}
	}
	// Every 30 minutes over the last six hours: 4 on each seed; the others
	// a day ago.
	recent := 0
	series := func(i int) time.Time {
		recent++
		return now.Add(-time.Duration(recent)*30*time.Minute + 10*time.Minute)
	}
	old := func(int) time.Time { return now.Add(-24 * time.Hour) }
	add("a", 4, series)
	add("b", 4, series)
	add("c", 4, series)
	for _, s := range []string{"a", "b"} {
		for i := range 6 {
			shoots = append(shoots, coretest.MakeShoot("garden-p", fmt.Sprintf("%s-old-%d", s, i)).Seed(s).Created(old(i)).Obj())
		}
	}
	pending := coretest.MakeShoot("garden-p", "waits").SelectSeeds(map[string]string{"pool": "blue"}).Created(now.Add(-10 * time.Minute)).Obj()
	elsewhere := coretest.MakeShoot("garden-p", "nowhere").Region("us-east-1").Created(now.Add(-10 * time.Minute)).Obj()
	shoots = append(shoots, pending, elsewhere)
	profile := coretest.MakeCloudProfile(coretest.CloudProfileName).Regions("eu-west-1", "us-east-1").Obj()

	summaries, usage := Make(Garden{
		Now: now, Window: window, Seeds: seeds, Shoots: shoots,
		Pools:         []Selector{{Name: "blue", Selector: labels.SelectorFromSet(labels.Set{"pool": "blue"})}},
		SchedulerName: v1alpha1.DefaultSchedulerName,
		Inputs: func(*v1alpha1.Shoot) (algorithm.Inputs, error) {
			return algorithm.Inputs{CloudProfile: profile}, nil
		},
	})
	if usage["a"] != 10 || usage["b"] != 10 || usage["c"] != 4 {
		t.Fatalf("usage %v, want a and b 10, c 4", usage)
	}
	if len(summaries) != 2 {
		t.Fatalf("summaries %+v, want pool blue and region eu-west-1", summaries)
	}
	blue, region := summaries[0], summaries[1]
	if blue.Name != "blue" || blue.Free != 0 || blue.Waiting != 1 || !blue.Full || blue.Seeds != 2 {
		t.Errorf("pool blue %+v, want 2 seeds, 0 free, 1 waiting, full", blue)
	}
	if region.Name != "eu-west-1" || region.Seeds != 4 || region.Free != 6 || region.Waiting != 1 || region.Allocatable != 30 || region.Usage != 24 {
		t.Errorf("region %+v, want 4 seeds, 30 allocatable of those taking shoots, 24 used, 6 free, 1 waiting", region)
	}
	if want := 13.0 / 6; math.Abs(region.PerHour-want) > 1e-9 {
		t.Errorf("region arrivals %.4f an hour, want 13 in 6h = %.4f (the shoot of us-east-1 waits for no capacity)", region.PerHour, want)
	}
	if want := 5 * time.Hour * 6 / 13; (region.FullIn - want).Abs() > time.Second {
		t.Errorf("region full in %s, want %s", region.FullIn, want)
	}
}

// TestRecreatedShootsAreNoGrowth: a tenant deletes and recreates the same 20
// shoots of a pool within the window. They exist and are young, but the 20
// that existed when the window began are gone: the pool's net growth is
// zero and it never fills at that rate (it read as 3.33 new shoots an hour,
// and the scaler added seeds for it). A departure of a shoot created within
// the window takes nothing back: that shoot is no arrival either.
func TestRecreatedShootsAreNoGrowth(t *testing.T) {
	now := t0.Add(48 * time.Hour)
	window := 6 * time.Hour
	seeds := []*v1alpha1.Seed{coretest.MakeSeed("a").Allocatable(30).Label("pool", "blue").Obj()}
	var shoots []*v1alpha1.Shoot
	var departures []Departure
	for i := range 20 {
		recreated := now.Add(-time.Duration(i+1) * 15 * time.Minute)
		shoots = append(shoots, coretest.MakeShoot("garden-evil", fmt.Sprintf("s-%d", i)).Seed("a").Created(recreated).Obj())
		departures = append(departures, Departure{Seed: "a", Created: now.Add(-24 * time.Hour), Deleted: recreated.Add(-time.Second)})
	}
	// One genuine new shoot, and a brief one created and deleted within
	// the window.
	shoots = append(shoots, coretest.MakeShoot("garden-dev", "new").Seed("a").Created(now.Add(-time.Hour)).Obj())
	departures = append(departures, Departure{Seed: "a", Created: now.Add(-2 * time.Hour), Deleted: now.Add(-time.Hour)},
		// Deleted before the window began: it was gone when the window began.
		Departure{Seed: "a", Created: now.Add(-24 * time.Hour), Deleted: now.Add(-7 * time.Hour)})
	g := Garden{Now: now, Window: window, Seeds: seeds, Shoots: shoots,
		Pools: []Selector{{Name: "blue", Selector: labels.SelectorFromSet(labels.Set{"pool": "blue"})}}}
	// Without the departures, every recreated shoot is an arrival.
	summaries, _ := Make(g)
	for _, s := range summaries {
		if want := 21.0 / 6; math.Abs(s.PerHour-want) > 1e-9 {
			t.Errorf("%s %s without departures: %v arrivals an hour, want %v", s.Kind, s.Name, s.PerHour, want)
		}
	}
	g.Departures = departures
	summaries, _ = Make(g)
	for _, s := range summaries {
		if want := 1.0 / 6; math.Abs(s.PerHour-want) > 1e-9 {
			t.Errorf("%s %s with the departures: %v arrivals an hour, want the one genuine new shoot over 6h (%v)", s.Kind, s.Name, s.PerHour, want)
		}
	}
}

// TestOneWaitingShootWaitsInOnePool: a shoot that full seeds of two pools
// would take counts as waiting (and arriving) in the first of those pools
// in the configuration's order only, and in its region: one tenant shoot
// made two pools scale out.
func TestOneWaitingShootWaitsInOnePool(t *testing.T) {
	now := t0.Add(48 * time.Hour)
	seeds := []*v1alpha1.Seed{
		coretest.MakeSeed("a").Allocatable(1).Label("pool", "blue").Obj(),
		coretest.MakeSeed("b").Allocatable(1).Label("pool", "green").Obj(),
	}
	shoots := []*v1alpha1.Shoot{
		coretest.MakeShoot("garden-p", "on-a").Seed("a").Created(t0).Obj(),
		coretest.MakeShoot("garden-p", "on-b").Seed("b").Created(t0).Obj(),
		coretest.MakeShoot("garden-evil", "waits").Created(now.Add(-time.Minute)).Obj(),
	}
	profile := coretest.MakeCloudProfile(coretest.CloudProfileName).Regions("eu-west-1").Obj()
	summaries, _ := Make(Garden{
		Now: now, Window: 6 * time.Hour, Seeds: seeds, Shoots: shoots,
		Pools: []Selector{
			{Name: "green", Selector: labels.SelectorFromSet(labels.Set{"pool": "green"})},
			{Name: "blue", Selector: labels.SelectorFromSet(labels.Set{"pool": "blue"})},
		},
		SchedulerName: v1alpha1.DefaultSchedulerName,
		Inputs: func(*v1alpha1.Shoot) (algorithm.Inputs, error) {
			return algorithm.Inputs{CloudProfile: profile}, nil
		},
	})
	waiting := map[string]int{}
	for _, s := range summaries {
		waiting[string(s.Kind)+"/"+s.Name] = s.Waiting
	}
	if want := map[string]int{"pool/green": 1, "pool/blue": 0, "region/eu-west-1": 1}; fmt.Sprint(waiting) != fmt.Sprint(want) {
		t.Errorf("waiting %v, want %v", waiting, want)
	}
}

// TestDeparturesOfOneSecondCountEach: a tenant's script deletes five shoots
// of one seed, all created in the same second, in the same second. Each is
// a departure (they were one, and the recreations read as growth); one
// recalled from the Lease and seen again by the informer is still one.
func TestDeparturesOfOneSecondCountEach(t *testing.T) {
	var d Departures
	at := t0.Add(time.Hour)
	for i := range 5 {
		d.Add(Departure{UID: types.UID(fmt.Sprint("u", i)), Seed: "a", Created: t0, Deleted: at})
	}
	d.Add(Departure{UID: "u0", Seed: "a", Created: t0, Deleted: at.Add(300 * time.Millisecond)})
	if got := d.Within(at, time.Hour); len(got) != 5 {
		t.Errorf("departures %+v, want the five", got)
	}
}
