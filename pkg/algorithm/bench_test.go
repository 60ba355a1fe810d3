package algorithm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

var (
	benchProviders = []string{"aws", "aws", "gcp", "azure", "openstack"}
	benchRegions   = []string{
		"eu-west-1", "eu-west-2", "eu-central-1", "eu-north-1", "us-east-1", "us-east-2", "us-west-1", "us-west-2",
		"ap-south-1", "ap-southeast-1", "ap-northeast-1", "sa-east-1", "ca-central-1", "me-south-1", "af-south-1",
		"europe-west1", "europe-west4", "us-central1", "asia-east1", "westeurope",
	}
)

// benchLandscape builds a landscape of mixed providers, regions, labels,
// taints and capacities with the given number of bound shoots, plus a set of
// pending shoots to decide for.
func benchLandscape(nSeeds, nShoots int) (*Snapshot, []*v1alpha1.Shoot, *RegionConfig) {
	// The seeds depend only on their number, so that landscapes of the same
	// seed count differ only in their shoots.
	rng := rand.New(rand.NewPCG(uint64(nSeeds), 42))
	snap := NewSnapshot()
	names := make([]string, nSeeds)
	for i := range nSeeds {
		provider := benchProviders[rng.IntN(len(benchProviders))]
		reg := benchRegions[rng.IntN(len(benchRegions))]
		build := coretest.MakeSeed(fmt.Sprintf("seed-%04d", i)).
			Provider(provider, reg).
			Label("environment", []string{"prod", "canary", "dev"}[rng.IntN(3)]).
			Label("tier", fmt.Sprintf("t%d", rng.IntN(4))).
			// Room for the landscape's shoots with a spread of utilisation.
			Allocatable(int64(2*nShoots/nSeeds + 10 + rng.IntN(50)))
		switch rng.IntN(10) {
		case 0:
			build.Taint(v1alpha1.SeedTaintUnschedulable, nil, v1alpha1.TaintEffectNoSchedule)
		case 1:
			build.Taint("maintenance", ptr.To("weekly"), v1alpha1.TaintEffectPreferNoSchedule)
		case 2:
			build.Taint(v1alpha1.SeedTaintProtected, nil, "")
		}
		if rng.IntN(3) == 0 {
			build.ShootDefaults("100.96.0.0/11", "100.64.0.0/13")
		}
		seed := build.Obj()
		if rng.IntN(50) == 0 {
			seed.Status.Conditions[0].Status = v1alpha1.ConditionFalse
		}
		names[i] = seed.Name
		snap.AddSeed(seed)
	}
	type place struct{ provider, region string }
	var places []place
	for _, s := range snap.Seeds() {
		places = append(places, place{s.Spec.Provider.Type, s.Spec.Provider.Region})
	}
	// Pending shoots: mostly where seeds are, some in regions without seeds
	// (MinimalDistance then looks farther).
	pending := make([]*v1alpha1.Shoot, 32)
	for i := range pending {
		p := places[rng.IntN(len(places))]
		if i%4 == 3 {
			p.region = benchRegions[rng.IntN(len(benchRegions))]
		}
		s := coretest.MakeShoot("garden-dev", fmt.Sprintf("pending-%02d", i)).Provider(p.provider, p.region).Networks("10.180.0.0/16", "", "").Obj()
		if i%3 == 0 {
			s.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "environment", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "canary"}}},
			}}
		}
		if i%4 == 0 {
			s.Spec.Tolerations = []v1alpha1.Toleration{{Key: "maintenance", Value: ptr.To("weekly")}}
		}
		pending[i] = s
	}
	rng = rand.New(rand.NewPCG(uint64(nSeeds), uint64(nShoots)))
	for i := range nShoots {
		s := coretest.MakeShoot("garden-dev", fmt.Sprintf("shoot-%06d", i)).Seed(names[rng.IntN(nSeeds)]).Obj()
		s.Namespace = fmt.Sprintf("garden-p%03d", i%300)
		snap.AddShoot(s)
	}
	rc, _ := ParseRegionConfig(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "regions", Namespace: "garden"},
		Data: map[string]string{
			"eu-west-1":  "eu-west-2: 10\neu-central-1: 20\neu-north-1: 30\nus-east-1: 100\n",
			"us-east-1":  "us-east-2: 10\nus-west-1: 50\nus-west-2: 50\nca-central-1: 30\n",
			"ap-south-1": "ap-southeast-1: 30\nme-south-1: 40\n",
		},
	})
	return snap, pending, rc
}

// benchInputs are the inputs every decision of the benchmarks is made with:
// MinimalDistance with the landscape's region ConfigMap.
func benchInputs(rc *RegionConfig) Inputs {
	return Inputs{
		CloudProfile: &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "aws"}},
		RegionConfig: rc,
		Config:       Config{Strategy: StrategyMinimalDistance},
	}
}

// BenchmarkSchedule measures one decision (MinimalDistance with a region
// ConfigMap) on landscapes of growing size. A decision is O(seeds): the
// shoot count must not matter.
func BenchmarkSchedule(b *testing.B) {
	for _, size := range []struct{ seeds, shoots int }{{10, 100}, {100, 1000}, {1000, 10000}, {1000, 50000}} {
		b.Run(fmt.Sprintf("seeds=%d/shoots=%d", size.seeds, size.shoots), func(b *testing.B) {
			snap, pending, rc := benchLandscape(size.seeds, size.shoots)
			in := benchInputs(rc)
			scheduled := 0
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := Schedule(pending[i%len(pending)], snap, in); err == nil {
					scheduled++
				}
				i++
			}
			if scheduled == 0 {
				b.Fatal("no decision found a seed; the landscape is not realistic")
			}
		})
	}
}

// BenchmarkSnapshotUpdate measures the incremental usage update a binding costs.
func BenchmarkSnapshotUpdate(b *testing.B) {
	snap, _, _ := benchLandscape(1000, 50000)
	pending := coretest.MakeShoot("garden-dev", "moving").Obj()
	bound := coretest.MakeShoot("garden-dev", "moving").Seed("seed-0001").Obj()
	b.ReportAllocs()
	for b.Loop() {
		snap.UpdateShoot(pending, bound)
		snap.UpdateShoot(bound, pending)
	}
}

func BenchmarkClone(b *testing.B) {
	snap, _, _ := benchLandscape(1000, 50000)
	b.ReportAllocs()
	for b.Loop() {
		_ = snap.Clone()
	}
}

var _ = resource.MustParse

// BenchmarkScheduleLargestSelector measures a decision for a shoot with the
// largest seed selector the limits allow, matching no seed: the dearest
// decision a tenant can ask for.
func BenchmarkScheduleLargestSelector(b *testing.B) {
	snap, pending, rc := benchLandscape(2000, 10000)
	in := benchInputs(rc)
	shoot := pending[1].DeepCopy()
	shoot.Spec.SeedSelector = largestSelector("v")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Schedule(shoot, snap, in); err == nil {
			b.Fatal("the largest selector matched a seed")
		}
	}
}

// BenchmarkReserveForWaiting measures what a descheduler pass pays before its
// first eviction: a backlog of 1,000 shoots, most of which fit nowhere,
// placed one after the other on 2,000 seeds.
func BenchmarkReserveForWaiting(b *testing.B) {
	snap, pending, rc := benchLandscape(2000, 10000)
	in := benchInputs(rc)
	backlog := make([]*v1alpha1.Shoot, 1000)
	for i := range backlog {
		s := pending[i%len(pending)].DeepCopy()
		s.Name = fmt.Sprintf("backlog-%04d", i)
		switch i % 10 {
		case 0: // fits
		case 1, 2, 3, 4:
			s.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": "none"}}}
		default:
			s.Spec.Provider.Type = "alicloud"
		}
		backlog[i] = s
	}
	b.ReportAllocs()
	for b.Loop() {
		ReserveForWaiting(snap.Fork(), backlog, func(*v1alpha1.Shoot) (Inputs, error) { return in, nil })
	}
}
