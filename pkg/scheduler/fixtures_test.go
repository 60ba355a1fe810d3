package scheduler

import (
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
)

func readySeed(name, region string, allocatable int64) *corev1alpha1.Seed {
	return coretest.MakeSeed(name).Region(region).Allocatable(allocatable).Obj()
}

func pendingShoot(name, region string) *corev1alpha1.Shoot {
	return coretest.MakeShoot("garden-dev", name).Region(region).CloudProfileName("aws").ResourceVersion("1").Obj()
}

func boundTo(shoot *corev1alpha1.Shoot, seed string) *corev1alpha1.Shoot {
	out := shoot.DeepCopy()
	out.Spec.SeedName = ptr.To(seed)
	return out
}

func awsProfile() *corev1alpha1.CloudProfile { return coretest.MakeCloudProfile("aws").Obj() }

// awsInputs are the inputs of a decision with awsProfile and no region
// ConfigMap.
var awsInputs = algorithm.Inputs{CloudProfile: awsProfile()}
