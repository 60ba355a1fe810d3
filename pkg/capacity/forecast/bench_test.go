package forecast

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
)

// BenchmarkMake is one forecast of a large garden: 2,000 seeds in 200
// regions (10 each, 50 allocatable), 20 pools of 100 seeds, 100,000 placed
// shoots created over the last two days, and a backlog of pending shoots
// (an incident's: half of them in regions whose seeds are full, waiting for
// capacity alone, half that no seed's region takes).
func BenchmarkMake(b *testing.B) {
	for _, backlog := range []int{0, 1000, 5000} {
		b.Run(fmt.Sprintf("pending=%d", backlog), func(b *testing.B) {
			g := benchGarden(backlog)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				Make(g)
			}
		})
	}
}

func benchGarden(backlog int) Garden {
	now := t0.Add(72 * time.Hour)
	g := Garden{Now: now, Window: 6 * time.Hour, SchedulerName: v1alpha1.DefaultSchedulerName}
	var regions []string
	for r := range 200 {
		regions = append(regions, fmt.Sprintf("region-%03d", r))
	}
	for p := range 20 {
		g.Pools = append(g.Pools, Selector{Name: fmt.Sprintf("pool-%02d", p), Selector: labels.SelectorFromSet(labels.Set{"pool": fmt.Sprintf("pool-%02d", p)})})
	}
	for i := range 2000 {
		r := regions[i/10]
		g.Seeds = append(g.Seeds, coretest.MakeSeed(fmt.Sprintf("seed-%04d", i)).Region(r).Allocatable(50).Label("pool", fmt.Sprintf("pool-%02d", i/100)).Obj())
	}
	for i := range 100_000 {
		seed := g.Seeds[i%2000]
		// Regions of the first pool are full: 50 shoots on each seed.
		if i/2000 >= 50 && i%2000 >= 100 {
			continue
		}
		created := now.Add(-time.Duration(i%2880) * time.Minute)
		g.Shoots = append(g.Shoots, coretest.MakeShoot("garden-p", fmt.Sprintf("s-%06d", i)).Region(seed.Spec.Provider.Region).Seed(seed.Name).Created(created).Obj())
	}
	for i := range backlog {
		region := regions[i%10] // full
		if i%2 == 1 {
			region = "nowhere"
		}
		g.Shoots = append(g.Shoots, coretest.MakeShoot("garden-p", fmt.Sprintf("p-%05d", i)).Region(region).Created(now.Add(-time.Minute)).Obj())
	}
	profile := coretest.MakeCloudProfile(coretest.CloudProfileName).Regions(append(regions, "nowhere")...).Obj()
	g.Inputs = func(*v1alpha1.Shoot) (algorithm.Inputs, error) {
		return algorithm.Inputs{CloudProfile: profile, Config: algorithm.Config{Strategy: algorithm.StrategySameRegion}}, nil
	}
	return g
}
