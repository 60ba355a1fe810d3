package algorithm_test

import (
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

func exampleSeed(name, region string, allocatable int64) *v1alpha1.Seed {
	return &v1alpha1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.SeedSpec{
			Provider: v1alpha1.SeedProvider{Type: "aws", Region: region},
			Networks: v1alpha1.SeedNetworks{Pods: "10.96.0.0/11", Services: "10.64.0.0/13"},
		},
		Status: v1alpha1.SeedStatus{
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded},
			Conditions:    []v1alpha1.Condition{{Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue}},
			Allocatable:   corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(allocatable, resource.DecimalSI)},
		},
	}
}

func exampleShoot(name string) *v1alpha1.Shoot {
	return &v1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "garden-dev"},
		Spec: v1alpha1.ShootSpec{
			CloudProfile: &v1alpha1.CloudProfileReference{Name: "aws"},
			Provider:     v1alpha1.Provider{Type: "aws"},
			Region:       "eu-west-1",
		},
	}
}

// A scheduler keeps one snapshot up to date from its informers and decides
// from it; after a bind it counts the shoot at once.
func Example() {
	snap := algorithm.NewSnapshot()
	snap.AddSeed(exampleSeed("aws-eu1", "eu-west-1", 1))
	snap.AddSeed(exampleSeed("aws-eu2", "eu-west-1", 1))
	in := algorithm.Inputs{
		CloudProfile: &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "aws"}, Spec: v1alpha1.CloudProfileSpec{Type: "aws"}},
		Config:       algorithm.Config{Strategy: algorithm.StrategySameRegion},
	}
	for _, name := range []string{"a", "b", "c"} {
		shoot := exampleShoot(name)
		seed, err := algorithm.Schedule(shoot, snap, in)
		if err != nil {
			fmt.Printf("%s: %s (capacity: %v)\n", name, algorithm.ShortReason(err), algorithm.IsNoCapacity(err))
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s -> %s\n", name, seed)
		bound := shoot.DeepCopy()
		bound.Spec.SeedName = &seed
		snap.AddShoot(bound) // an assumed binding: usage counts at once
	}
	// Output:
	// a -> aws-eu1
	// b -> aws-eu2
	// c: 0/2 seeds fit: no capacity (2) (capacity: true)
	// 0/2 seed cluster candidate(s) are eligible for scheduling: {aws-eu1 => seed does not have available capacity for shoots (1 counted, 1 allocatable), aws-eu2 => seed does not have available capacity for shoots (1 counted, 1 allocatable)}
}

func ExampleFormatExplanation() {
	snap := algorithm.NewSnapshot()
	snap.AddSeed(exampleSeed("aws-eu1", "eu-west-1", 10))
	snap.AddSeed(exampleSeed("aws-us1", "us-east-1", 10))
	in := algorithm.Inputs{CloudProfile: &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "aws"}}}
	_ = algorithm.FormatExplanation(os.Stdout, algorithm.Explain(exampleShoot("web"), snap, in))
	// Output:
	// shoot garden-dev/web (strategy SameRegion): scheduled to seed aws-eu1
	//   aws-eu1  chosen (usage 0/10)
	//   aws-us1  Strategy: seed is in region "us-east-1" of provider type "aws"; strategy SameRegion needs region "eu-west-1" of provider type "aws" (usage 0/10)
}

func ExampleCheckNoExecute() {
	seed := exampleSeed("aws-eu1", "eu-west-1", 10)
	seed.Spec.Taints = []v1alpha1.SeedTaint{{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}}
	shoot := exampleShoot("web")
	seconds := int64(600)
	shoot.Spec.Tolerations = []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintUnschedulable, TolerationSeconds: &seconds}}

	tainted := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	status := algorithm.CheckNoExecute(shoot, seed, func(v1alpha1.SeedTaint) time.Time { return tainted })
	fmt.Println(len(status.Untolerated), status.StayUntil.Format("15:04"), status.MustLeave(tainted))
	// Output: 0 12:10 false
}
