package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

func readySeed(name, region string, allocatable int64) *corev1alpha1.Seed {
	seed := &corev1alpha1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1alpha1.SeedSpec{
			Provider: corev1alpha1.SeedProvider{Type: "aws", Region: region},
			Networks: corev1alpha1.SeedNetworks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13"},
		},
		Status: corev1alpha1.SeedStatus{
			LastOperation: &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded},
			Conditions:    []corev1alpha1.Condition{{Type: corev1alpha1.SeedGardenletReady, Status: corev1alpha1.ConditionTrue}},
		},
	}
	if allocatable >= 0 {
		seed.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: *resource.NewQuantity(allocatable, resource.DecimalSI)}
	}
	return seed
}

func pendingShoot(name, region string) *corev1alpha1.Shoot {
	return &corev1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden-dev", Name: name, ResourceVersion: "1"},
		Spec: corev1alpha1.ShootSpec{
			CloudProfileName: ptr.To("aws"),
			Provider:         corev1alpha1.Provider{Type: "aws"},
			Region:           region,
		},
	}
}

func boundTo(shoot *corev1alpha1.Shoot, seed string) *corev1alpha1.Shoot {
	out := shoot.DeepCopy()
	out.Spec.SeedName = ptr.To(seed)
	return out
}

func awsProfile() *corev1alpha1.CloudProfile {
	return &corev1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "aws"}, Spec: corev1alpha1.CloudProfileSpec{Type: "aws"}}
}

// awsInputs are the inputs of a decision with awsProfile and no region
// ConfigMap.
var awsInputs = algorithm.Inputs{CloudProfile: awsProfile()}
